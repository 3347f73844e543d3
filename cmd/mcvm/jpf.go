// mcvm jpf-report: Java PathFinder's end-of-run report, parsed.

package main

import (
	"fmt"
	"io"

	"mcvm/internal/jpfreport"
)

const jpfAbout = `Parses the report Java PathFinder prints at the end of a run (its
statistics block and its errors; JPF v8 and the older v4-v7 layouts) and
prints the figures, or with --json one JSON object with states_new,
states_visited, states_backtracked, states_end, max_depth, instructions,
max_memory_mb, elapsed_s and errors. Counts the report does not give are -1.
A file that is not a JPF report is an error (exit code 2).`

func runJPFReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("jpf-report", "FILE", jpfAbout, stdout)
	jsonOut := fs.Bool("json", false, "print one JSON object")
	if done, code := parse(fs, args, stderr, 1); done {
		return code
	}
	r, err := loadJPFReport(fs.Arg(0))
	if err != nil {
		return fail(stderr, "jpf-report", err)
	}
	if *jsonOut {
		writeJSON(stdout, r)
		return exitOK
	}
	fmt.Fprintf(stdout, "JPF report %s", fs.Arg(0))
	if r.Version != "" {
		fmt.Fprintf(stdout, " (JPF %s)", r.Version)
	}
	fmt.Fprintln(stdout)
	if r.Target != "" {
		fmt.Fprintf(stdout, "target:       %s\n", r.Target)
	}
	fmt.Fprintf(stdout, "states:       new %d, visited %d, backtracked %d, end %d\n", r.StatesNew, r.StatesVisited, r.StatesBacktracked, r.StatesEnd)
	fmt.Fprintf(stdout, "max depth:    %d\n", r.MaxDepth)
	fmt.Fprintf(stdout, "instructions: %d\n", r.Instructions)
	fmt.Fprintf(stdout, "elapsed:      %.0f s\n", r.ElapsedS)
	fmt.Fprintf(stdout, "max memory:   %.0f MB\n", r.MaxMemoryMB)
	fmt.Fprintf(stdout, "errors:       %d\n", r.Errors)
	for _, c := range r.ErrorClasses {
		fmt.Fprintf(stdout, "  %d x %s\n", c.Count, c.Property)
	}
	return exitOK
}

func loadJPFReport(path string) (*jpfreport.Report, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	return jpfreport.Parse(path, data)
}
