// Command mcvm-plot draws, as SVG or PNG on standard output, one of two
// documents: the rows of `mcvm bench --format json --compare` against
// Java PathFinder's published figures (mcvm bench --plot), or a search's
// progress, a document whose "kind" is "progress" (mcvm check --plot;
// package mcvm/internal/progress). It is a program of its own so that
// the plotting library and its fonts stay out of the checker's binary,
// which every check would otherwise pay for at start-up.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	flag "github.com/spf13/pflag"

	"mcvm/internal/bench"
	"mcvm/internal/progress"
)

// maxInput bounds the JSON read: a suite's rows are a few kilobytes.
// (A progress document is bounded by progress.MaxBytes.)
const maxInput = 64 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcvm-plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcvm-plot [--format svg|png] [DOC.json]   (default: standard input)")
		fmt.Fprintln(stderr, "Draws mcvm bench --format json --compare's rows against JPF's published figures (states, time; log scales),")
		fmt.Fprintln(stderr, "or a search's progress (a document of kind \"progress\", from mcvm check --plot), on standard output.")
		fs.PrintDefaults()
	}
	format := fs.String("format", "svg", "the output's format: svg or png")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	if *format != "svg" && *format != "png" {
		fmt.Fprintf(stderr, "mcvm-plot: --format: want svg or png, got %q\n", *format)
		return 2
	}
	in, name := stdin, "standard input"
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		name = fs.Arg(0)
		fh, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "mcvm-plot: %v\n", err)
			return 1
		}
		defer fh.Close()
		in = fh
	}
	data, err := io.ReadAll(io.LimitReader(in, maxInput+1))
	if err == nil && len(data) > maxInput {
		err = fmt.Errorf("more than %d bytes", maxInput)
	}
	var b bytes.Buffer
	if err == nil {
		err = drawDoc(&b, data, *format)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcvm-plot: %s: %v\n", name, err)
		return 1
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintf(stderr, "mcvm-plot: %v\n", err)
		return 1
	}
	return 0
}

// drawDoc draws the document data holds, in format: bench's rows, or, if its
// kind is "progress", a search's progress.
func drawDoc(w io.Writer, data []byte, format string) error {
	var head struct {
		Kind *string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	switch {
	case head.Kind == nil:
		var doc struct {
			Rows []bench.Row `json:"rows"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return err
		}
		return writeRows(w, doc.Rows, format)
	case *head.Kind == progress.Kind:
		d, err := progress.Parse(data)
		if err != nil {
			return err
		}
		return WriteProgress(w, d, format)
	}
	return fmt.Errorf("unknown kind %q: want %q (mcvm check --plot), or none (mcvm bench's rows)", *head.Kind, progress.Kind)
}
