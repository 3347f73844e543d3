// Command mcvm assembles, runs and model checks mcvm programs.
//
// Usage:
//
//	mcvm check [flags] MODEL      model check every interleaving and choice
//	mcvm run [flags] MODEL        execute one schedule like an ordinary VM
//	mcvm asm [flags] FILE.mcasm   assemble to .mcb
//	mcvm disasm FILE              print assembly for a .mcb or .mcasm file
//	mcvm verify --script FILE MODEL  check and write a search script
//	mcvm certify --script FILE MODEL certify with a search script
//	mcvm partition --tasks K --script FILE -o DIR  split a script into tasks
//	mcvm merge-fp FILE...            merge the FP maps of certified tasks
//	mcvm replay [flags] TRAIL MODEL  replay a counterexample trail
//	mcvm improve [flags] TRAIL MODEL shorten a trail's counterexample
//	mcvm swarm [flags] MODEL         many diversified bitstate searches
//	mcvm graph [flags] MODEL         the state graph (or counterexample) as DOT
//	mcvm bench [flags]               run the benchmark suite, compare with JPF
//	mcvm jpf-report [--json] FILE    parse a Java PathFinder report
//
// Exit codes: 0 no error, 1 property violated, 2 bad input or usage, 3
// limit reached.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit codes.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
	exitLimit     = 3
)

// errUsage marks errors that are the user's; main prints them and exits 2.
var errUsage = errors.New("usage")

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands []command

func init() {
	commands = []command{
		{"check", "model check a program: every interleaving and data choice", runCheck},
		{"run", "execute one schedule of a program, like an ordinary VM", runRun},
		{"asm", "assemble a .mcasm file to .mcb bytecode", runAsm},
		{"disasm", "print the assembly of a .mcb (or .mcasm) file", runDisasm},
		{"verify", "model check and write a search script for certification (search-carrying code)", runVerify},
		{"certify", "certify a program with a search script: faster than checking, tamper-proof, in parallel", runCertify},
		{"partition", "split a search script into independent certification tasks", runPartition},
		{"merge-fp", "merge and compare the FP maps of certified tasks", runMergeFP},
		{"replay", "replay a counterexample trail written by check --trail", runReplay},
		{"graph", "print a small model's state graph, or its counterexample, in Graphviz DOT", runGraph},
		{"improve", "shorten a trail's counterexample: A* to the same error state, or drop what the error does not need", runImprove},
		{"swarm", "swarm verification: many diversified bitstate searches in parallel", runSwarm},
		{"bench", "run the benchmark suite; --compare puts Java PathFinder's figures beside mcvm's", runBench},
		{"jpf-report", "parse the statistics and errors of a Java PathFinder report", runJPFReport},
		{"help", "show help for a command", runHelp},
	}
}

func main() {
	os.Exit(mainArgs(os.Args[1:], os.Stdout, os.Stderr))
}

func mainArgs(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "--help":
		usage(stdout)
		return exitOK
	case "--version", "version":
		fmt.Fprintln(stdout, version())
		return exitOK
	}
	var names []string
	for _, c := range commands {
		if c.name == name {
			if wantsJSON(args[1:]) {
				return jsonErrors(func(o, e io.Writer) int { return c.run(args[1:], o, e) }, stdout, stderr)
			}
			return c.run(args[1:], stdout, stderr)
		}
		names = append(names, c.name)
	}
	fmt.Fprintf(stderr, "mcvm: unknown command %q%s\n", name, suggest(name, names))
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "mcvm is an explicit-state model checker for concurrent programs in mcvm bytecode.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: mcvm COMMAND [flags] ARGS")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'mcvm COMMAND --help' for a command's flags, 'mcvm --version' for the version.")
	fmt.Fprintln(w, "Exit codes: 0 no error, 1 property violated, 2 bad input or usage, 3 limit reached.")
}

func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] && c.name != "help" {
			return c.run([]string{"--help"}, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "mcvm help: unknown command %q\n", args[0])
	return exitUsage
}

// fail prints an error for the user and returns the exit code for it.
func fail(stderr io.Writer, cmd string, err error) int {
	msg := err.Error()
	if !strings.Contains(msg, "\n") {
		fmt.Fprintf(stderr, "mcvm %s: %s\n", cmd, msg)
	} else {
		fmt.Fprintf(stderr, "mcvm %s:\n%s\n", cmd, msg)
	}
	return exitUsage
}
