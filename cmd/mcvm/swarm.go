// mcvm swarm: many small diversified searches instead of one large one (Holzmann's swarm verification).

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"mcvm/internal/hll"
)

const swarmAbout = `Swarm verification (Holzmann, Joshi and Groce): for a model whose state
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
above), and together: each job writes a HyperLogLog sketch of the
fingerprints of the states it stored (check --sketch), and the merged
sketches estimate how many distinct states the jobs stored between them
(within 1.6% with 95% confidence). Exit code 1 if a job found an error, 0 if every job finished
without one, 3 if a limit cut a job short, 2 on bad usage.

On a Slurm cluster, --slurm DIR writes the swarm to DIR instead of running
it: swarm.json (the jobs), swarm.sbatch (a job array, one element a job,
each running mcvm swarm --run-job N DIR), collect.sbatch (mcvm swarm
--collect DIR, which prints the report to DIR/collect.txt) and submit.sh,
which submits both, the second to start when the array has ended. DIR,
the model and mcvm itself must be where every node sees them (a shared
file system). docs/slurm.md has the recipe.`

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
	sketch      string   // the file of its sketch of the states it stored
	err         error
}

// swarmReport is mcvm swarm --json's object.
type swarmReport struct {
	Model      string `json:"model"`
	Verdict    string `json:"verdict"`
	Message    string `json:"message,omitempty"`
	FirstError *int   `json:"first_error_job,omitempty"`
	Trail      string `json:"trail,omitempty"`
	StatesSum  int64  `json:"states_sum"`
	// The distinct states the jobs stored between them, estimated from
	// their sketches, and how many jobs' sketches were read.
	StatesDistinct float64     `json:"states_distinct_estimate"`
	Sketches       int         `json:"sketches"`
	Jobs           []*swarmJob `json:"jobs"`
	replay         string      // the model flags and model for mcvm replay
}

func runSwarm(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("swarm", "MODEL", swarmAbout, stdout)
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
	slurm := fs.String("slurm", "", "write the swarm as Slurm batch scripts to `DIR` instead of running it")
	runJob := fs.Int("run-job", -1, "run job `N` of the swarm in DIR (the argument instead of MODEL): what --slurm's array runs")
	collect := fs.Bool("collect", false, "print the report of the swarm in DIR (the argument instead of MODEL) from its jobs' results")
	if done, code := parse(fs, args, stderr, 1); done {
		return code
	}
	switch {
	case *runJob >= 0:
		return swarmRunJob(fs.Arg(0), *runJob, stderr)
	case *collect:
		return swarmCollect(fs.Arg(0), *jsonOut, stdout, stderr)
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
		js[i] = newSwarmJob(out, i, *seed)
	}
	replay := joinArgs(append(mf.passOn(fs), model))
	if *slurm != "" {
		abs, err := filepath.Abs(model)
		if err != nil {
			return fail(stderr, "swarm", err)
		}
		model, replay = abs, joinArgs(append(mf.passOn(fs), abs))
		sw := swarmFile{Model: model, Common: common, Seed: *seed, Jobs: *jobs, Replay: replay, Mcvm: self,
			TimeLimit: timeLimit.String(), MemoryBytes: mem, Parallel: *parallel}
		if fs.Changed("parallel") {
			sw.Throttle = *parallel
		}
		if err := writeSlurmSwarm(*slurm, &sw); err != nil {
			return fail(stderr, "swarm", err)
		}
		fmt.Fprintf(stdout, "wrote the swarm of %d jobs to %s: submit it with sh %s\n", *jobs, *slurm, filepath.Join(*slurm, "submit.sh"))
		return exitOK
	}
	it, unsignal := catchInterrupts(stderr)
	defer unsignal()
	runSwarmJobs(self, model, common, js, *parallel, it)
	for _, j := range js {
		if j.err != nil {
			return fail(stderr, "swarm", fmt.Errorf("job %d: %w", j.Index, j.err))
		}
	}
	rep := summarise(model, replay, js)
	if temporary && rep.FirstError == nil {
		os.RemoveAll(out)
		for _, j := range js {
			j.Trail = ""
		}
	}
	return reportSwarm(stdout, rep, *jsonOut)
}

// newSwarmJob returns job i of the swarm seeded with seed whose files
// are in dir.
func newSwarmJob(dir string, i int, seed uint64) *swarmJob {
	return &swarmJob{Index: i, Args: swarmDiversify(i, seed), Trail: filepath.Join(dir, fmt.Sprintf("job-%d.trail", i)),
		sketch: filepath.Join(dir, fmt.Sprintf("job-%d.hll", i))}
}

// checkArgs are the arguments of mcvm check that run job j.
func (j *swarmJob) checkArgs(common []string, model string) []string {
	a := append(append([]string{}, common...), j.Args...)
	return append(a, "--trail", j.Trail, "--sketch", j.sketch, model)
}

// summarise makes the swarm's report from its jobs' results. A job's
// sketch that is missing (the job did not run) or damaged is left out of
// the estimate of the distinct states, which says how many it merged.
func summarise(model, replay string, js []*swarmJob) *swarmReport {
	rep := &swarmReport{Model: model, Verdict: "limit", Jobs: js, replay: replay}
	var all hll.Sketch
	for _, j := range js {
		var sk hll.Sketch
		if data, err := readInput(j.sketch); err == nil && sk.UnmarshalBinary(data) == nil {
			all.Merge(&sk)
			rep.Sketches++
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
	rep.StatesDistinct = math.Round(all.Estimate())
	return rep
}

// reportSwarm prints the report and returns the swarm's exit code.
func reportSwarm(stdout io.Writer, rep *swarmReport, jsonOut bool) int {
	if jsonOut {
		writeJSON(stdout, rep)
	} else {
		printSwarm(stdout, rep)
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
// seeded with seed differ from the others (see swarmAbout).
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
// passed on to the running ones (it.started), which then report what
// they explored.
func runSwarmJobs(self, model string, common []string, js []*swarmJob, parallel int, it *interrupt) {
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
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
			cmd := exec.Command(self, append([]string{"check"}, j.checkArgs(common, model)...)...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				j.err = err
				return
			}
			it.started(cmd.Process)
			err := cmd.Wait()
			it.ended(cmd.Process)
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
			j.err = j.read(out.Bytes())
		}(j)
	}
	wg.Wait()
}

// printSwarm prints the swarm's jobs and verdict.
func printSwarm(w io.Writer, rep *swarmReport) {
	fmt.Fprintf(w, "%-4s %-12s %12s %14s %9s  %s\n", "job", "verdict", "states", "transitions", "seconds", "search")
	for _, j := range rep.Jobs {
		v := j.Verdict
		if j.Limit != "" && v == "limit" {
			v += " (" + j.Limit + ")"
		}
		fmt.Fprintf(w, "%-4d %-12s %12d %14d %9.2f  %s\n", j.Index, v, j.States, j.Transitions, j.ElapsedS, joinArgs(j.Args))
	}
	fmt.Fprintf(w, "states:      %d in all (a state reached by several jobs counts in each)\n", rep.StatesSum)
	if rep.Sketches > 0 {
		fmt.Fprintf(w, "distinct:    about %.0f states stored by the jobs between them (HyperLogLog, within %.1f%% at 95%%; %d of %d jobs' sketches)\n",
			rep.StatesDistinct, 196*hll.StdError, rep.Sketches, len(rep.Jobs))
	}
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

// read takes the job's result from check's JSON report.
func (j *swarmJob) read(data []byte) error {
	var r report
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("reading its report: %v", err)
	}
	j.Verdict, j.Message, j.Limit = r.Verdict, r.Message, r.Limit
	j.States, j.Transitions, j.ElapsedS = r.States, r.Transitions, r.ElapsedS
	return nil
}

// swarmFile is swarm.json, the swarm --slurm writes: what its jobs run.
type swarmFile struct {
	Mcvm        string   `json:"mcvm"`  // the mcvm binary
	Model       string   `json:"model"` // absolute
	Common      []string `json:"common"`
	Seed        uint64   `json:"seed"`
	Jobs        int      `json:"jobs"`
	Parallel    int      `json:"parallel"`
	Throttle    int      `json:"throttle,omitempty"` // the array's %N: jobs at once (0: as Slurm allows)
	TimeLimit   string   `json:"time_limit"`
	MemoryBytes int64    `json:"memory_bytes"`
	Replay      string   `json:"replay"`
}

// swarmSpec is the name of the file that describes a swarm written by
// --slurm, in its directory.
const swarmSpec = "swarm.json"

// writeSlurmSwarm writes the swarm sw to dir as swarm.json, the job
// array, the collection job and submit.sh.
func writeSlurmSwarm(dir string, sw *swarmFile) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if strings.ContainsAny(dir, " \t\n'\"\\%") {
		// (#SBATCH lines take no quotes, and % starts a Slurm pattern.)
		return fmt.Errorf("--slurm %q: the directory's path must not contain blanks, quotes, backslashes or %%", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(sw, "", "  ")
	if err != nil {
		return err
	}
	if err := replaceFile(filepath.Join(dir, swarmSpec), append(data, '\n')); err != nil {
		return err
	}
	limit, err := time.ParseDuration(sw.TimeLimit)
	if err != nil {
		return err
	}
	// Slurm's time limit: the search's, a minute more for starting and
	// reporting, in whole minutes.
	minutes := int(limit.Minutes()) + 2
	array := fmt.Sprintf("0-%d", sw.Jobs-1)
	if sw.Throttle > 0 {
		array += fmt.Sprintf("%%%d", sw.Throttle)
	}
	mem := ""
	if sw.MemoryBytes > 0 {
		// What the search may use, and a quarter more for the process.
		mem = fmt.Sprintf("#SBATCH --mem=%dM\n", sw.MemoryBytes*5/4>>20+1)
	}
	q := shellQuote
	job := fmt.Sprintf(`#!/bin/sh
# One job of an mcvm swarm (mcvm swarm --slurm): a diversified bitstate search.
#SBATCH --job-name=mcvm-swarm
#SBATCH --array=%s
#SBATCH --cpus-per-task=1
#SBATCH --time=%d
%s#SBATCH --output=%s
exec %s swarm --run-job "$SLURM_ARRAY_TASK_ID" %s
`, array, minutes, mem, filepath.Join(dir, "job-%a.log"), q(sw.Mcvm), q(dir))
	collect := fmt.Sprintf(`#!/bin/sh
# The report of an mcvm swarm, once its jobs have ended.
#SBATCH --job-name=mcvm-swarm-collect
#SBATCH --cpus-per-task=1
#SBATCH --time=5
#SBATCH --output=%s
exec %s swarm --collect %s
`, filepath.Join(dir, "collect.txt"), q(sw.Mcvm), q(dir))
	submit := slurmSubmit(dir, "the swarm's job array", "swarm.sbatch", "the job that writes the report to collect.txt", "collect.sbatch")
	for name, text := range map[string]string{"swarm.sbatch": job, "collect.sbatch": collect, "submit.sh": submit} {
		if err := replaceFile(filepath.Join(dir, name), []byte(text)); err != nil {
			return err
		}
	}
	return nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// readSwarmFile reads dir's swarm.json.
func readSwarmFile(dir string) (*swarmFile, error) {
	data, err := readInput(filepath.Join(dir, swarmSpec))
	if err != nil {
		return nil, err
	}
	var sw swarmFile
	if err := json.Unmarshal(data, &sw); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, swarmSpec), err)
	}
	if sw.Jobs < 1 || sw.Model == "" {
		return nil, fmt.Errorf("%s: not a swarm (no jobs or no model)", filepath.Join(dir, swarmSpec))
	}
	return &sw, nil
}

// swarmRunJob runs job n of the swarm in dir (check, in this process)
// and writes its JSON report to job-N.json and its trail, if it found an
// error, to job-N.trail.
func swarmRunJob(dir string, n int, stderr io.Writer) int {
	sw, err := readSwarmFile(dir)
	if err != nil {
		return fail(stderr, "swarm", err)
	}
	if n >= sw.Jobs {
		return fail(stderr, "swarm", fmt.Errorf("--run-job %d: the swarm has jobs 0 to %d", n, sw.Jobs-1))
	}
	var out bytes.Buffer
	code := runCheck(newSwarmJob(dir, n, sw.Seed).checkArgs(sw.Common, sw.Model), &out, stderr)
	if code != exitOK && code != exitViolation && code != exitLimit {
		return code
	}
	if err := replaceFile(filepath.Join(dir, fmt.Sprintf("job-%d.json", n)), out.Bytes()); err != nil {
		return fail(stderr, "swarm", err)
	}
	return code
}

// swarmCollect prints the report of the swarm in dir from its jobs'
// reports; a job without one (not run, or failed) counts as cut short.
func swarmCollect(dir string, jsonOut bool, stdout, stderr io.Writer) int {
	sw, err := readSwarmFile(dir)
	if err != nil {
		return fail(stderr, "swarm", err)
	}
	js := make([]*swarmJob, sw.Jobs)
	for i := range js {
		j := newSwarmJob(dir, i, sw.Seed)
		js[i] = j
		data, err := readInput(filepath.Join(dir, fmt.Sprintf("job-%d.json", i)))
		if err != nil {
			j.Verdict, j.Limit = "limit", "no report"
			continue
		}
		if err := j.read(data); err != nil {
			return fail(stderr, "swarm", fmt.Errorf("job %d: %w", i, err))
		}
	}
	return reportSwarm(stdout, summarise(sw.Model, sw.Replay, js), jsonOut)
}
