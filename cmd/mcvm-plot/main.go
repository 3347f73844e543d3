// Command mcvm-plot draws the rows of `mcvm bench --format json --compare`
// against Java PathFinder's published figures, as SVG on standard output.
// mcvm bench --plot runs it. It is a program of its own so that the
// plotting library and its fonts stay out of the checker's binary, which
// every check would otherwise pay for at start-up.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	flag "github.com/spf13/pflag"

	"mcvm/internal/bench"
)

// maxInput bounds the JSON read: a suite's rows are a few kilobytes.
const maxInput = 64 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcvm-plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcvm-plot [ROWS.json]   (default: standard input)")
		fmt.Fprintln(stderr, "Draws mcvm bench --format json --compare's rows against JPF's published figures (states, time; log scales) as SVG on standard output.")
		fs.PrintDefaults()
	}
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
	var doc struct {
		Rows []bench.Row `json:"rows"`
	}
	if err == nil {
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcvm-plot: %s: %v\n", name, err)
		return 1
	}
	var b bytes.Buffer
	if err := WritePlot(&b, doc.Rows); err != nil {
		fmt.Fprintf(stderr, "mcvm-plot: %v\n", err)
		return 1
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintf(stderr, "mcvm-plot: %v\n", err)
		return 1
	}
	return 0
}
