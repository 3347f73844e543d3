package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for mcvm check (fakeCheck), so
// that Run's child processes need no checker.
func TestMain(m *testing.M) {
	if os.Getenv("BENCH_FAKE_CHECK") == "1" {
		os.Exit(fakeCheck(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeCheck answers like mcvm check --json: 100 states without reduction,
// 40 with; it fails (exit 2) for a model whose path contains "broken".
func fakeCheck(args []string) int {
	if len(args) == 0 || args[0] != "check" || args[len(args)-1] == "" {
		fmt.Fprintln(os.Stderr, "fake check: bad arguments", args)
		return 2
	}
	if strings.Contains(args[len(args)-1], "broken") {
		fmt.Fprintln(os.Stderr, "broken: no such model")
		return 2
	}
	mode := args[slices.Index(args, "--por")+1]
	states := int64(40)
	if mode == "none" {
		states = 100
	}
	out := map[string]any{"verdict": "deadlock", "states": states, "transitions": 250, "max_depth": 7,
		"errors": 1, "elapsed_s": 0.5, "symmetry": slices.Contains(args, "--symmetry")}
	if !strings.Contains(mode, "dpor") {
		out["gc"] = "mark-sweep"
	}
	json.NewEncoder(os.Stdout).Encode(out)
	return 1 // a violation: not a failure of the tool
}

func fakeOptions(t *testing.T) Options {
	t.Helper()
	t.Setenv("BENCH_FAKE_CHECK", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Options{Exe: exe, ToolFailure: 2, POR: []string{"none", "all"}}
}

func TestRun_rows(t *testing.T) {
	o := fakeOptions(t)
	o.Size = SizeSmall
	o.Overrides = map[string]map[string]int64{"buffer": {"N": 1}}
	o.Repeat = 3
	var done []string
	o.Progress = func(r Row) { done = append(done, r.Model+"/"+r.POR) }
	suite := []*Model{
		{Name: "philo", Path: "philo.mcasm", Consts: []Const{{"N", "5"}}, Small: Config{Defines: map[string]int64{"N": 3}}},
		{Name: "buffer", Path: "buffer.mcasm", Consts: []Const{{"SIZE", "5"}, {"N", "2"}}},
	}
	rows, err := Run(suite, o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s %s %s %s %s %d %.1f %.2f %.0f %s", r.Model, r.Params, r.Size, r.porLabel(), r.Verdict,
			r.States, r.Reduction, r.TransPerState, r.StatesPerS, r.GC))
	}
	want := []string{
		"philo N=3 SMALL none deadlock 100 0.0 2.50 200 mark-sweep",
		"philo N=3 SMALL all deadlock 40 2.5 6.25 80 mark-sweep",
		"buffer SIZE=5 N=1 --set none deadlock 100 0.0 2.50 200 mark-sweep",
		"buffer SIZE=5 N=1 --set all deadlock 40 2.5 6.25 80 mark-sweep",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Run rows =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if want := []string{"philo/none", "philo/all", "buffer/none", "buffer/all"}; !reflect.DeepEqual(done, want) {
		t.Errorf("Progress saw %v, want %v", done, want)
	}
}

func TestRun_symmetry(t *testing.T) {
	o := fakeOptions(t)
	o.Symmetry = true
	o.POR = []string{"all"}
	philo, err := LoadModel("../../benchmarks/models/philo.mcasm")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Run([]*Model{philo}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || !rows[0].Symmetry || rows[0].porLabel() != "all+symmetry" || rows[0].Size != "thesis" {
		t.Errorf("Run with Symmetry = %+v, want one row all+symmetry at the thesis size", rows)
	}
	o.POR = []string{"all", "dpor"}
	if _, err := Run([]*Model{philo}, o); !errors.Is(err, ErrSymmetryDPOR) {
		t.Errorf("Run with Symmetry and dpor: error %v, want ErrSymmetryDPOR", err)
	}
}

func TestRun_toolFailure(t *testing.T) {
	o := fakeOptions(t)
	_, err := Run([]*Model{{Name: "broken", Path: "broken.mcasm"}}, o)
	if err == nil || err.Error() != "broken: exit status 2 broken: no such model" {
		t.Errorf("Run of a model check cannot read: error %v", err)
	}
}

func TestOptions_checkArgs(t *testing.T) {
	m := &Model{Name: "philo", Path: "models/philo.mcasm"}
	defs := map[string]int64{"N": 3, "BUG": 0}
	for _, tc := range []struct {
		o    Options
		mode string
		want string
	}{
		{Options{}, "all",
			"check --continue --max-errors 1 --json --no-progress --por all --time-limit 0s -D BUG=0 -D N=3 models/philo.mcasm"},
		{Options{TimeLimit: time.Minute, MemoryLimit: "auto", MaxStates: 1000, CheckArgs: []string{"--hash-compact"}, GC: "memoised", NoSII: true}, "all",
			"check --continue --max-errors 1 --json --no-progress --por all --time-limit 1m0s --memory-limit auto --max-states 1000 --hash-compact --gc=memoised -D BUG=0 -D N=3 models/philo.mcasm"},
		{Options{CheckArgs: []string{"--chain=false"}, GC: "memoised", NoSII: true}, "ample+dpor",
			"check --continue --max-errors 1 --json --no-progress --por ample+dpor --time-limit 0s --chain=false --sii=false -D BUG=0 -D N=3 models/philo.mcasm"},
	} {
		got := strings.Join(tc.o.checkArgs(m, defs, tc.mode, tc.o.modeArgs(tc.o.CheckArgs, tc.mode)), " ")
		if got != tc.want {
			t.Errorf("checkArgs(%+v, %s) =\n%s\nwant\n%s", tc.o, tc.mode, got, tc.want)
		}
	}
}
