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

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// suggest returns " (did you mean X?)" for the candidate closest to name,
// if one is close enough (a third of its length, plus one), else "".
func suggest(name string, candidates []string) string {
	best, bestD := "", len(name)/3+2
	for _, c := range candidates {
		d := editDistance(name, c)
		if d < bestD || d == bestD && best != "" && c < best {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
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
