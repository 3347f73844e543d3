// What a user meets first: --version, suggestions for mistyped commands
// and flags, and errors as JSON under --json.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"

	"mcvm/asm"
)

// version returns mcvm's version: the module's, or for a build from a
// checkout its VCS revision, and the Go release it was built with.
func version() string {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+modified"
				}
			}
		}
		if v == "devel" && rev != "" {
			v += " " + rev[:min(12, len(rev))] + dirty
		}
	}
	return fmt.Sprintf("mcvm %s (%s)", v, runtime.Version())
}

// suggest returns " (did you mean X?)" for the candidate closest to name
// (asm.Suggest), if one is close enough, else "".
func suggest(name string, candidates []string) string {
	if best := asm.Suggest(name, candidates); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// flagSuggestion returns a suggestion for the flag a pflag parse error
// names as unknown ("unknown flag: --contineu"), or "".
func flagSuggestion(fs *pflag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if s := suggest(name, names); s != "" {
		return strings.Replace(s, "did you mean \"", "did you mean \"--", 1)
	}
	return ""
}

// wantsJSON reports whether a command line asks for JSON output.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// jsonErrors runs a command whose output is JSON so that an error of
// usage or input (exit code 2, nothing on stdout) is also printed on
// stdout as one JSON object, {"error": MESSAGE, "exit_code": 2}; stderr
// still gets the message.
func jsonErrors(run func(stdout, stderr io.Writer) int, stdout, stderr io.Writer) int {
	var out countWriter
	out.w = stdout
	var msg bytes.Buffer
	code := run(&out, io.MultiWriter(stderr, &msg))
	if code == exitUsage && out.n == 0 {
		enc := json.NewEncoder(stdout)
		enc.Encode(struct {
			Error    string `json:"error"`
			ExitCode int    `json:"exit_code"`
		}{strings.TrimSpace(msg.String()), code})
	}
	return code
}

// countWriter counts what is written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// hideFlags leaves flags that do not apply to a command out of its help.
func hideFlags(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		fs.MarkHidden(n)
	}
}

// maxHelpLine is the longest flag description --help prints; a longer
// one is cut to its first clause, and the whole is in docs/flags.md.
const maxHelpLine = 88

// oneLine returns the first clause of a flag's usage, to fit one line of
// --help: up to the first sentence end, semicolon or parenthesis after
// the first few words, at most maxHelpLine characters.
func oneLine(usage string) string {
	if len(usage) <= maxHelpLine {
		return usage
	}
	cut := len(usage)
	for _, sep := range []string{". ", "; ", " (", ": ", ", "} {
		if i := strings.Index(usage[min(12, len(usage)):], sep); i >= 0 && i+12 < cut {
			cut = i + 12
		}
		if cut <= maxHelpLine {
			break
		}
	}
	s := usage[:cut]
	if len(s) > maxHelpLine {
		s = s[:strings.LastIndex(s[:maxHelpLine-4], " ")]
	}
	if cut < len(usage) {
		s += " ..."
	}
	return s
}

// shortUsages returns fs's flag usages with each description cut to one
// line (oneLine).
func shortUsages(fs *pflag.FlagSet) string {
	short := pflag.NewFlagSet(fs.Name(), pflag.ContinueOnError)
	short.SortFlags = false
	fs.VisitAll(func(f *pflag.Flag) {
		g := *f
		g.Usage = helpLine(fs.Name(), f)
		short.AddFlag(&g)
	})
	return short.FlagUsages()
}

// shortHelp holds the one-line --help descriptions of flags whose usage is
// longer than a line, by "command/flag" or, for every command, by flag;
// the whole usage is in docs/flags.md.
var shortHelp = map[string]string{
	"bitstate":         "bitstate hashing in 2^`BITS` bits: fixed memory, partial coverage (0: off)",
	"chain":            "run a state with a single transition to explore through, without storing it",
	"collapse":         "exact store with collapse compression: less memory, somewhat slower",
	"cpuprofile":       "write a CPU profile of the run to `FILE` (go tool pprof)",
	"dead-locals":      "dead variable reduction: zero locals no path reads again",
	"gc":               "collector of the active heap: mark-sweep, memoised or none",
	"granularity":      "transition (local instructions run together) or instruction",
	"hash-compact":     "store only 64-bit fingerprints: far less memory, a small chance of missing states",
	"heuristic":        "the estimate for best-first, astar and ida: fsm, hamming, active or deadlock",
	"max-errors":       "with --continue, list at most this many distinct errors",
	"max-heap-slots":   "the most fields and array elements a state may hold (more: verdict limit)",
	"max-states":       "stop with verdict limit after storing this many states (0: no limit)",
	"max-threads":      "the most threads a state may hold (more: verdict limit)",
	"memory-limit":     "stop with verdict limit above this `SIZE` (e.g. 4GiB; auto: 3/4 of memory; 0: none)",
	"por":              "partial-order reduction: none, escape, ample, dpor or all",
	"proviso":          "cycle proviso of the reduction: auto, stack, duplicate or static",
	"random-order":     "depth-first: shuffle each state's transitions with this `SEED` (0: thread order)",
	"search":           "search order: dfs, bfs, best-first, astar or ida",
	"sii":              "with dpor: summaries of explored states at revisits (false: static analysis)",
	"sleep":            "sleep sets: do not explore transitions already explored from an earlier state",
	"symmetry":         "thread symmetry reduction: threads sorted into a canonical order",
	"trail":            "write the counterexample to this trail `FILE` (for mcvm replay)",
	"uncaught":         "an exception no handler takes: report (a violation) or ignore (the thread ends)",
	"continue":         "explore everything; list each distinct error instead of stopping at the first",
	"verify/por":       "partial-order reduction the script records: none, escape, ample or all",
	"certify/por":      "partial-order reduction the script was written with: none, escape, ample or all",
	"certify/gc":       "collector of the active heap: mark-sweep, memoised or none",
	"certify/fp-out":   "with --task: write the task's FP map to `FILE` (default: the task file + .fp)",
	"certify/tasks":    "partition the script into `K` tasks and certify them in parallel (0: sequentially)",
	"certify/trustful": "the script is trustful (verify --trustful-script): state properties only",
	"certify/forget":   "drop FP entries after their last use and report the peak held",
	"properties":       "link this .mcasm `FILE` of property methods into the program (repeatable)",
	"improve/por":      "partial-order reduction for the search (as check's, without dpor)",
	"equivalent":       "look for any state with the same violation and every thread at the same place",
	"violation":        "look for any state with the same violation (kind and instruction)",
	"reorder":          "do not search: drop the transitions the error does not need",
	"bench/por":        "reduction modes to run each model with, comma separated (one row each)",
	"bench/gc":         "per model run: the collector of the active heap",
	"set":              "override a parameter of every model that has it: `NAME=VALUE` (repeatable)",
	"large":            "run each model at its LARGE configuration",
	"run/seed":         "random schedule and choices from this seed (default: round-robin, choices 0)",
	"seed":             "seed of the coverage estimator's samples and --cache's random policies",
	"coverage":         "at a limit, estimate the share of states stored: auto, walk, levels, chao, thesis or off",
	"verify/coverage":  "at a limit, record in the header an estimate certify can recompute (off: none)",
	"run/trail":        "on a violation, write its schedule to this trail `FILE`",
	"check/plot":       "draw the search's progress (and the coverage estimate) to `FILE` (.svg or .png)",
}

// helpLine returns the one-line description --help gives flag f of
// command cmd.
func helpLine(cmd string, f *pflag.Flag) string {
	if s, ok := shortHelp[cmd+"/"+f.Name]; ok {
		return s
	}
	if s, ok := shortHelp[f.Name]; ok && len(f.Usage) > maxHelpLine {
		return s
	}
	return oneLine(f.Usage)
}
