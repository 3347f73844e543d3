package bench

import (
	"os"
	"strings"
	"testing"

	"mcvm/internal/jpfreport"
)

const published = `{
  "sources": {
    "taleghani-thesis-t3.1": {"table": "Table 3.1", "tool": "JPF"},
    "nguyen-ruys-moonwalker-t7": {"table": "Table 7", "tool": "MoonWalker"},
    "other": {"table": "Table 9"}
  },
  "figures": [
    {"program": "philo", "source": "taleghani-thesis-t3.1", "tool": "JPF", "params": "8", "states": 2000, "transitions_per_state": 5.2, "time_s": 20},
    {"program": "philo", "source": "taleghani-thesis-t3.1", "tool": "JPF", "params": "5", "states": 400, "time_s": 4},
    {"program": "philo", "source": "other", "tool": "JPF", "params": "5", "states": 1},
    {"program": "moldyn", "source": "nguyen-ruys-moonwalker-t7", "tool": "MoonWalker 1.0", "variant": "stateful DPOR: SII", "params": "2-1", "states": 1000, "memory_mb": 1470}
  ]
}`

func testRows(t *testing.T) []Row {
	t.Helper()
	pub, err := ParsePublished("pub.json", []byte(published))
	if err != nil {
		t.Fatal(err)
	}
	rows := []Row{
		{Model: "philo", Params: "N=5", Size: "thesis", POR: "all", Verdict: "deadlock", States: 100, Transitions: 250,
			TransPerState: 2.5, MaxDepth: 7, TimeS: 2, PeakMemoryMB: 12.4, StatesPerS: 50,
			consts: []Const{{"N", "5"}}},
		{Model: "moldyn", Params: "THREADS=2 SIZE=1", Size: "SMALL", POR: "all", Symmetry: true, GC: "memoised",
			Reduction: 4.44, Verdict: "ok", Limit: "time", States: 10, Transitions: 11, TransPerState: 1.1, TimeS: 1,
			defines: map[string]int64{"THREADS": 2, "SIZE": 1}, consts: []Const{{"THREADS", "1"}, {"SIZE", "3"}},
			JPF: &jpfreport.Report{Version: "8.0", Target: "MolDyn", StatesNew: 5, StatesVisited: 5, ElapsedS: 4, MaxMemoryMB: 300}},
		{Model: "nothing", Params: "", Size: "thesis", POR: "none", Verdict: "ok"},
	}
	for i := range rows {
		rows[i].Published = pub.match(&rows[i])
	}
	return rows
}

func TestPublished_match(t *testing.T) {
	rows := testRows(t)
	var got []string
	for _, r := range rows {
		for _, p := range r.Published {
			got = append(got, r.Model+" "+p.Source+" "+p.Params+" "+yesNo(p.SameParams))
		}
	}
	// The figure from a table that is not compared is left out.
	want := "philo Table 3.1 8 no,philo Table 3.1 5 yes,moldyn Table 7 2-1 yes"
	if strings.Join(got, ",") != want {
		t.Errorf("match = %s, want %s", strings.Join(got, ","), want)
	}
}

func TestParsePublished_repository(t *testing.T) {
	data, err := os.ReadFile("../../benchmarks/jpf-published.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePublished("jpf-published.json", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range comparedSources {
		if p.Sources[src].Table == "" {
			t.Errorf("jpf-published.json: no table for compared source %s", src)
		}
	}
	if _, err := ParsePublished("x.json", []byte("{")); err == nil || !strings.HasPrefix(err.Error(), "x.json: ") {
		t.Errorf("ParsePublished(bad JSON) error = %v, want one naming x.json", err)
	}
}

func TestWriteTables_markdown(t *testing.T) {
	var b strings.Builder
	WriteTables(&b, true, true, testRows(t))
	want := `| model | params | size | por | verdict | states | transitions | trans/state | max depth | time (s) | peak MB | states/s | reduction |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
| philo | N=5 | thesis | all | deadlock | 100 | 250 | 2.50 | 7 | 2.00 | 12 | 50 | - |
| moldyn | THREADS=2 SIZE=1 | SMALL | all+symmetry gc=memoised | ok (time) | 10 | 11 | 1.10 | 0 | 1.00 | 0 | 0 | 4.4x |
| nothing |  | thesis | none | ok | 0 | 0 | 0.00 | 0 | 0.00 | 0 | 0 | - |

Published figures (JPF unless the tool says otherwise) and ratios mcvm/published.
Their times come from older hardware: the thesis used a Pentium 4 3.2 GHz with 1.5 GB (Windows XP),
MoonWalker's paper 2.4 GHz machines with 2 GB. Both tools use (different) partial-order reductions,
so states and times are not like for like: compare states and transitions per state first.
mcvm's MolDyn and RayTracer are small fixed-point versions of the JGF kernels: THREADS-SIZE names the
configuration, not the same amount of data as MoonWalker's runs.

| model | source | tool | their params | same params | their states | states ratio | their trans/state | their time (s) | time ratio | their MB |
|---|---|---|---|---|---|---|---|---|---|---|
| philo (all) | Table 3.1 | JPF | 5 | yes | 400 | 0.25 | - | 4 | 0.50 | - |
| moldyn (all+symmetry gc=memoised) | Table 7 | MoonWalker 1.0 [stateful DPOR] | 2-1 | yes | 1000 | 0.01 | - | - | - | 1470 |
| moldyn (all+symmetry gc=memoised) | your JPF report | JPF 8.0 | MolDyn | ? | 5 | 2.00 | 2.00 | 4 | 0.25 | 300 |
`
	if got := b.String(); got != want {
		t.Errorf("WriteTables(markdown, compare) =\n%s\nwant\n%s", got, want)
	}
}

func TestWriteTables_text(t *testing.T) {
	var b strings.Builder
	WriteTables(&b, false, false, testRows(t)[:1])
	want := `model  params  size    por  verdict   states  transitions  trans/state  max depth  time (s)  peak MB  states/s  reduction
philo  N=5     thesis  all  deadlock  100     250          2.50         7          2.00      12       50        -
`
	if got := b.String(); got != want {
		t.Errorf("WriteTables(text) =\n%s\nwant\n%s", got, want)
	}
	b.Reset()
	WriteTables(&b, false, true, testRows(t)[2:])
	if !strings.HasSuffix(b.String(), "(no published figures for these models)\n") {
		t.Errorf("WriteTables(compare) of a model without figures =\n%s", b.String())
	}
}
