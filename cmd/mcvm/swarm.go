// mcvm swarm: many small diversified searches instead of one large one (Holzmann's swarm verification).

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"
)

const swarmDoc = `Usage: mcvm swarm [flags] MODEL

Swarm verification (Holzmann, Joshi and Groce): for a model whose state
space is out of reach of one search, K independent bitstate searches,
each diversified and each within a time and a memory budget, run --parallel
at a time as separate mcvm check processes. Each job has its own hash
function for the bitstate array (--bitstate-seed), and its own search:
job 0 takes transitions in thread order, the others in an order shuffled
by their seed (--random-order); odd jobs search unreduced (--por none),
even ones with the default reduction, and every fourth breadth-first.
Different searches miss different states, so together they reach far more
than one search in the same time. The jobs and their seeds follow from
--seed: the same flags give the same jobs.

mcvm swarm prints each job's verdict and figures and, if any job found an
error, the error of the first such job (in job order) and its trail, which
mcvm replay replays. The states of the jobs are counted per job (states
reached by several jobs count once in each: the sum bounds the union from
above). Exit code 1 if a job found an error, 0 if every job finished
without one, 3 if a limit cut a job short, 2 on bad usage.

Flags:
`

// swarmJob is one search of a swarm and, once it ran, its result.
type swarmJob struct {
	Index       int      `json:"job"`
	Args        []string `json:"args"` // the check flags that make it differ
	Verdict     string   `json:"verdict"`
	Message     string   `json:"message,omitempty"`
	Limit       string   `json:"limit,omitempty"`
	States      int64    `json:"states"`
	Transitions int64    `json:"transitions"`
	ElapsedS    float64  `json:"elapsed_s"`
	Trail       string   `json:"trail,omitempty"`
	err         error
}

// swarmReport is mcvm swarm --json's object.
type swarmReport struct {
	Model      string      `json:"model"`
	Verdict    string      `json:"verdict"`
	Message    string      `json:"message,omitempty"`
	FirstError *int        `json:"first_error_job,omitempty"`
	Trail      string      `json:"trail,omitempty"`
	StatesSum  int64       `json:"states_sum"`
	Jobs       []*swarmJob `json:"jobs"`
	replay     string      // the model flags and model for mcvm replay
}

func runSwarm(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("swarm", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, swarmDoc)
		fs.PrintDefaults()
	}
	var mf modelFlags
	mf.register(fs)
	jobs := fs.Int("jobs", 8, "number of searches")
	parallel := fs.Int("parallel", runtime.NumCPU(), "searches run at once")
	timeLimit := fs.Duration("time-limit", time.Minute, "each search's time limit, e.g. 30s or 5m")
	memLimit := fs.String("memory-limit", "auto", "each search's memory `SIZE` (e.g. 2GiB; auto: the default limit divided by --parallel)")
	bits := fs.Int("bitstate", 0, "each search's bitstate array: 2^`BITS` bits (0: the largest power of two within an eighth of the memory limit, at most 2^30)")
	seed := fs.Uint64("seed", 1, "seed of the jobs' hash functions and search orders")
	dir := fs.String("dir", "", "write each job's trail here as job-N.trail (default: a new directory under the system's temporary one, removed if no job found an error)")
	jsonOut := fs.Bool("json", false, "print one JSON object with every job and the swarm's verdict")
	if done, code := parse(fs, args, stderr, 1); done {
		return code
	}
	model := fs.Arg(0)
	if *jobs < 1 || *parallel < 1 || *timeLimit <= 0 {
		return fail(stderr, "swarm", fmt.Errorf("--jobs and --parallel must be at least 1, --time-limit positive"))
	}
	// The model must load here, so that a mistake is reported once.
	if _, err := mf.load(model); err != nil {
		return fail(stderr, "swarm", err)
	}
	mem, err := parseMemoryLimit(*memLimit)
	if err != nil {
		return fail(stderr, "swarm", err)
	}
	if *memLimit == "auto" && mem > 0 {
		mem /= int64(*parallel)
	}
	b := *bits
	if b == 0 {
		b = 27
		for b < 30 && mem > 0 && int64(1)<<(b+1-3) <= mem/8 {
			b++
		}
	}
	out := *dir
	temporary := out == ""
	if temporary {
		if out, err = os.MkdirTemp("", "mcvm-swarm-"); err != nil {
			return fail(stderr, "swarm", err)
		}
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		return fail(stderr, "swarm", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail(stderr, "swarm", err)
	}
	common := append(mf.passOn(fs), "--json", "--no-progress", "--time-limit", timeLimit.String(),
		"--memory-limit", strconv.FormatInt(mem, 10), "--bitstate", strconv.Itoa(b))
	js := make([]*swarmJob, *jobs)
	for i := range js {
		js[i] = &swarmJob{Index: i, Args: swarmDiversify(i, *seed), Trail: filepath.Join(out, fmt.Sprintf("job-%d.trail", i))}
	}
	it, unsignal := catchInterrupts(stderr)
	defer unsignal()
	runSwarmJobs(self, model, common, js, *parallel, it)

	rep := &swarmReport{Model: model, Verdict: "limit", Jobs: js, replay: joinArgs(append(mf.passOn(fs), model))}
	for _, j := range js {
		if j.err != nil {
			return fail(stderr, "swarm", fmt.Errorf("job %d: %w", j.Index, j.err))
		}
		rep.StatesSum += j.States
		if _, e := os.Stat(j.Trail); e != nil {
			j.Trail = ""
		}
		if rep.FirstError == nil && j.Verdict != "limit" && j.Verdict != "ok" {
			k := j.Index
			rep.FirstError, rep.Verdict, rep.Message, rep.Trail = &k, j.Verdict, j.Message, j.Trail
		}
	}
	if rep.FirstError == nil && allOK(js) {
		rep.Verdict = "ok"
	}
	if temporary && rep.FirstError == nil {
		os.RemoveAll(out)
		for _, j := range js {
			j.Trail = ""
		}
	}
	if *jsonOut {
		writeJSON(stdout, rep)
	} else {
		printSwarm(stdout, rep, model)
	}
	switch {
	case rep.FirstError != nil:
		return exitViolation
	case rep.Verdict == "ok":
		return exitOK
	}
	return exitLimit
}

// allOK reports whether every job ended with verdict ok: each finished
// its bitstate search without an error.
func allOK(js []*swarmJob) bool {
	for _, j := range js {
		if j.Verdict != "ok" {
			return false
		}
	}
	return true
}

// swarmDiversify returns the check flags that make job i of a swarm
// seeded with seed differ from the others (see swarmDoc).
func swarmDiversify(i int, seed uint64) []string {
	s := seed + uint64(i)
	a := []string{"--bitstate-seed", strconv.FormatUint(s, 10)}
	if i%4 == 3 {
		a = append(a, "--search", "bfs")
	} else if i > 0 {
		a = append(a, "--random-order", strconv.FormatUint(s, 10))
	}
	if i%2 == 1 {
		a = append(a, "--por", "none")
	}
	return a
}

// passOn returns the model flags given on the command line, for the jobs.
func (f *modelFlags) passOn(fs *pflag.FlagSet) []string {
	var a []string
	for _, d := range f.defines {
		a = append(a, "-D", d)
	}
	fs.Visit(func(fl *pflag.Flag) {
		switch fl.Name {
		case "granularity", "uncaught", "max-threads", "max-objects", "max-heap-slots", "max-invariant-steps":
			a = append(a, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	return a
}

// runSwarmJobs runs the jobs, parallel at a time, each as mcvm check in
// a process group of its own; an interrupt stops launching jobs and is
// passed on to the running ones, which then report what they explored.
func runSwarmJobs(self, model string, common []string, js []*swarmJob, parallel int, it *interrupt) {
	var mu sync.Mutex
	running := map[*os.Process]bool{} // the jobs running, and whether they were passed an interrupt
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() { // pass an interrupt on
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if it.interrupted() {
					mu.Lock()
					for p, told := range running {
						if !told { // once: a second signal ends a job without a report
							p.Signal(syscall.SIGINT)
							running[p] = true
						}
					}
					mu.Unlock()
				}
			}
		}
	}()
	for _, j := range js {
		sem <- struct{}{}
		if it.interrupted() {
			j.Verdict, j.Limit = "limit", "interrupted"
			<-sem
			continue
		}
		wg.Add(1)
		go func(j *swarmJob) {
			defer func() { <-sem; wg.Done() }()
			args := append([]string{"check"}, common...)
			args = append(append(args, j.Args...), "--trail", j.Trail, model)
			cmd := exec.Command(self, args...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				j.err = err
				return
			}
			mu.Lock()
			running[cmd.Process] = false // not yet told of an interrupt
			mu.Unlock()
			err := cmd.Wait()
			mu.Lock()
			delete(running, cmd.Process)
			mu.Unlock()
			code := cmd.ProcessState.ExitCode()
			if err != nil && it.interrupted() && code != exitViolation && code != exitLimit {
				// Interrupted before it caught signals: it ended at once,
				// with nothing explored worth a report.
				j.Verdict, j.Limit = "limit", "interrupted"
				return
			}
			if err != nil && code != exitViolation && code != exitLimit {
				j.err = fmt.Errorf("%v: %s", err, bytes.TrimSpace(errb.Bytes()))
				return
			}
			var r report
			if e := json.Unmarshal(out.Bytes(), &r); e != nil {
				j.err = fmt.Errorf("reading its report: %v", e)
				return
			}
			j.Verdict, j.Message, j.Limit = r.Verdict, r.Message, r.Limit
			j.States, j.Transitions, j.ElapsedS = r.States, r.Transitions, r.ElapsedS
		}(j)
	}
	wg.Wait()
	close(stop)
}

// printSwarm prints the swarm's jobs and verdict.
func printSwarm(w io.Writer, rep *swarmReport, model string) {
	fmt.Fprintf(w, "%-4s %-12s %12s %14s %9s  %s\n", "job", "verdict", "states", "transitions", "seconds", "search")
	for _, j := range rep.Jobs {
		v := j.Verdict
		if j.Limit != "" && v == "limit" {
			v += " (" + j.Limit + ")"
		}
		fmt.Fprintf(w, "%-4d %-12s %12d %14d %9.2f  %s\n", j.Index, v, j.States, j.Transitions, j.ElapsedS, joinArgs(j.Args))
	}
	fmt.Fprintf(w, "states:      %d in all (a state reached by several jobs counts in each)\n", rep.StatesSum)
	switch {
	case rep.FirstError == nil && rep.Verdict == "ok":
		fmt.Fprintln(w, "verdict:     ok (every job finished without an error; a bitstate search may miss states)")
		return
	case rep.FirstError == nil:
		fmt.Fprintln(w, "verdict:     limit (no job found an error within its limits)")
		return
	}
	fmt.Fprintf(w, "verdict:     %s (job %d)\n", rep.Verdict, *rep.FirstError)
	if rep.Message != "" {
		fmt.Fprintf(w, "error:       %s\n", rep.Message)
	}
	if rep.Trail != "" {
		fmt.Fprintf(w, "trail:       %s (mcvm replay %s %s)\n", rep.Trail, rep.Trail, rep.replay)
	}
}

func joinArgs(a []string) string {
	var b bytes.Buffer
	for i, s := range a {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}
