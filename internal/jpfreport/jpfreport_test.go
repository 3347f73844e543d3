package jpfreport

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParse_logs(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Report
	}{
		{"DiningPhil-3-first-error.log", Report{Version: "8.0", Target: `DiningPhil.main("3")`,
			StatesNew: 85, StatesVisited: 66, StatesBacktracked: 138, StatesEnd: 15, MaxDepth: 17,
			Instructions: 12167, MaxMemoryMB: 382, ElapsedS: 1, ThreadCGs: 84, DataCGs: 0, HeapNew: 578, Errors: 1}},
		{"DiningPhil-6-multiple-errors.log", Report{Version: "8.0", Target: `DiningPhil.main("6")`,
			StatesNew: 385128, StatesVisited: 1538105, StatesBacktracked: 1923233, StatesEnd: 68, MaxDepth: 48,
			Instructions: 29798894, MaxMemoryMB: 382, ElapsedS: 200, ThreadCGs: 385127, DataCGs: 0, HeapNew: 396210, Errors: 13}},
		{"v5-layout.log", Report{Version: "5.0", Target: "application: oldclassic.java",
			StatesNew: 1391, StatesVisited: 2540, StatesBacktracked: 3931, StatesEnd: 5, MaxDepth: 44,
			Instructions: 86117, MaxMemoryMB: 15, ElapsedS: 1, ThreadCGs: 1389, DataCGs: 0, HeapNew: 3087, Errors: 1}},
	} {
		data, err := os.ReadFile("testdata/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(tc.file, data)
		if err != nil {
			t.Fatalf("Parse(%s): %v", tc.file, err)
		}
		classes := got.ErrorClasses
		got.ErrorClasses = nil
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("Parse(%s) =\n%+v\nwant\n%+v", tc.file, *got, tc.want)
		}
		if len(classes) != 1 || !strings.HasSuffix(classes[0].Property, ".NotDeadlockedProperty") || classes[0].Count != tc.want.Errors {
			t.Errorf("Parse(%s) error classes = %+v, want %d NotDeadlockedProperty", tc.file, classes, tc.want.Errors)
		}
	}
}

func TestParse_notReport(t *testing.T) {
	for _, in := range []string{
		"",
		"hello world\n",
		"verdict: ok\nstates: 12 stored\n",
		"====================================================== results\nno errors detected\n",
		"====================================================== statistics\nloaded code: classes=1\n",
	} {
		_, err := Parse("x.log", []byte(in))
		if !errors.Is(err, ErrNotReport) {
			t.Errorf("Parse(%q) error = %v, want ErrNotReport", in, err)
		}
	}
}

func TestParse_badStatistics(t *testing.T) {
	in := "====================================================== statistics\nstates:             new=x1\n"
	_, err := Parse("x.log", []byte(in))
	if err == nil || !strings.Contains(err.Error(), "x.log:2:") {
		t.Errorf("Parse(bad states) error = %v, want one naming x.log:2", err)
	}
}

func TestParse_noErrors(t *testing.T) {
	in := `====================================================== results
no errors detected

====================================================== statistics
elapsed time:       00:01:02
states:             new=10,visited=3,backtracked=13,end=1
search:             maxDepth=9,constraints=0
instructions:       1,234
max memory:         512KB
`
	r, err := Parse("ok.log", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors != 0 || len(r.ErrorClasses) != 0 || r.ElapsedS != 62 || r.Instructions != 1234 || r.MaxMemoryMB != 0.5 || r.MaxDepth != 9 {
		t.Errorf("Parse = %+v", r)
	}
}

// FuzzParse checks that Parse never panics and that what it accepts is
// consistent.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"DiningPhil-3-first-error.log", "v5-layout.log"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("==========statistics\nstates: new=1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("f", data)
		if err != nil {
			return
		}
		n := 0
		for _, c := range r.ErrorClasses {
			n += c.Count
		}
		if n > r.Errors {
			t.Fatalf("error classes count %d > errors %d", n, r.Errors)
		}
	})
}
