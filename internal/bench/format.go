// The suite's results as aligned text or markdown tables.

package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteTables writes rows as a table, aligned text or markdown, and with
// compare a second table of the published figures and the JPF reports the
// rows carry, with the ratios of mcvm's figures to them.
func WriteTables(w io.Writer, markdown, compare bool, rows []Row) {
	header := []string{"model", "params", "size", "por", "verdict", "states", "transitions", "trans/state", "max depth", "time (s)", "peak MB", "states/s", "reduction"}
	var table [][]string
	for _, r := range rows {
		verdict := r.Verdict
		if r.Limit != "" {
			verdict += " (" + r.Limit + ")"
		}
		red := "-"
		if r.Reduction > 0 {
			red = fmt.Sprintf("%.1fx", r.Reduction)
		}
		table = append(table, []string{r.Model, r.Params, r.Size, r.porLabel(), verdict, itoa(r.States), itoa(r.Transitions),
			fmt.Sprintf("%.2f", r.TransPerState), strconv.Itoa(r.MaxDepth), fmt.Sprintf("%.2f", r.TimeS),
			fmt.Sprintf("%.0f", r.PeakMemoryMB), fmt.Sprintf("%.0f", r.StatesPerS), red})
	}
	writeTable(w, markdown, header, table)
	if !compare {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Published figures (JPF unless the tool says otherwise) and ratios mcvm/published.")
	fmt.Fprintln(w, "Their times come from older hardware: the thesis used a Pentium 4 3.2 GHz with 1.5 GB (Windows XP),")
	fmt.Fprintln(w, "MoonWalker's paper 2.4 GHz machines with 2 GB. Both tools use (different) partial-order reductions,")
	fmt.Fprintln(w, "so states and times are not like for like: compare states and transitions per state first.")
	fmt.Fprintln(w, "mcvm's MolDyn and RayTracer are small fixed-point versions of the JGF kernels: THREADS-SIZE names the")
	fmt.Fprintln(w, "configuration, not the same amount of data as MoonWalker's runs.")
	fmt.Fprintln(w)
	header = []string{"model", "source", "tool", "their params", "same params", "their states", "states ratio", "their trans/state", "their time (s)", "time ratio", "their MB"}
	table = nil
	for _, r := range rows {
		same := false
		for _, p := range r.Published {
			same = same || p.SameParams
		}
		for _, p := range r.Published {
			if same && !p.SameParams {
				continue // show the configurations that match ours, when some do
			}
			table = append(table, []string{r.Model + " (" + r.porLabel() + ")", p.Source, p.Tool + variantSuffix(p.Variant), p.Params, yesNo(p.SameParams),
				optNum(p.States, "%.0f"), ratio(float64(r.States), p.States), optNum(p.TransPerState, "%.2f"),
				optNum(p.TimeS, "%.0f"), ratio(r.TimeS, p.TimeS), optNum(p.MemoryMB, "%.0f")})
		}
		if j := r.JPF; j != nil {
			st := float64(j.StatesNew)
			tr := "-"
			if j.StatesNew > 0 && j.StatesVisited >= 0 {
				tr = fmt.Sprintf("%.2f", float64(j.StatesNew+j.StatesVisited)/float64(j.StatesNew))
			}
			table = append(table, []string{r.Model + " (" + r.porLabel() + ")", "your JPF report", "JPF " + j.Version, j.Target, "?",
				itoa(j.StatesNew), ratio(float64(r.States), &st), tr, fmt.Sprintf("%.0f", j.ElapsedS),
				ratio(r.TimeS, &j.ElapsedS), fmt.Sprintf("%.0f", j.MaxMemoryMB)})
		}
	}
	if len(table) == 0 {
		fmt.Fprintln(w, "(no published figures for these models)")
		return
	}
	writeTable(w, markdown, header, table)
}

func variantSuffix(v string) string {
	if v == "" {
		return ""
	}
	if i := strings.IndexAny(v, ":("); i > 0 {
		v = v[:i]
	}
	return " [" + strings.TrimSpace(v) + "]"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func optNum(v *float64, f string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(f, *v)
}

func ratio(ours float64, theirs *float64) string {
	if theirs == nil || *theirs <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", ours / *theirs)
}

func itoa(x int64) string { return strconv.FormatInt(x, 10) }

// writeTable prints aligned text columns or a markdown table.
func writeTable(w io.Writer, md bool, header []string, rows [][]string) {
	if md {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		return
	}
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			if len(c) > width[i] {
				width[i] = len(c)
			}
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			fmt.Fprintf(&b, "%-*s", width[i], c)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(header)
	for _, r := range rows {
		line(r)
	}
}
