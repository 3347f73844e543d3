// mcvm improve: shorter counterexamples (trail improvement and reordering).
//
// Trail improvement replays a trail to its error and runs A* (or
// breadth-first search) with explorer.Options.Goal, so that only the
// trail's error state (for a transition's fault, the state it was taken
// from, and the same faulting instruction), a state like it, or any state
// with the same violation ends the search; other errors end their paths
// unreported. The fsm and hamming heuristics take that state as their
// target. A reduction keeps errors, not states, and may prune the state
// itself, so a search under --por can fail to find it, and then says so.
//
// Reordering (--reorder) drops transitions while the trail still replays
// to the same violation (reorderTrail). Every step keeps a trail that
// reaches the violation, so the result is a real counterexample, though
// not necessarily a shortest one: elimination keeps a subsequence, and a
// shortest trail to the violation is often another interleaving. A trail
// names the thread a notify wakes by its place among the waiters, which
// leaving out another thread's steps changes, so the replay makes each
// notify wake the thread it woke in the trail (reach).

package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/por"
	"mcvm/vm"
)

const improveAbout = `Finds a shorter counterexample for the error TRAIL leads to (a trail written
by check --trail or run --seed, under any reduction). It replays TRAIL to its
error and then searches MODEL with A*, guided by a heuristic whose target is
the error's state, for a shorter path to the same state (the default) or,
with --equivalent, to any state that violates the same property with every
thread at the same place, or, with --violation, to any state with the same
violation (trail improvement; Edelkamp, Leue and Lluch-Lafuente, section 3).
It writes the new trail (--out) and prints both lengths; with --search bfs,
or to the same or an equivalent state with an admissible heuristic (fsm),
the new one is a shortest. --reorder instead drops transitions from the
trail (runs of steps, single ones from the last, a thread's steps from one
on, and rounds of one thread's loops) as long as it still reaches the
same violation, and cuts it where it reaches it sooner (after their
section 5; a notify wakes the thread it woke in TRAIL), and lists what it
dropped. Exit codes: 0 a trail was written, 2 bad input, 3 a limit ended
the search, or the reduction (--por) left the state out.`

// improveReport is what improve prints with --json.
type improveReport struct {
	Model     string  `json:"model"`
	Trail     string  `json:"trail"`
	Out       string  `json:"out,omitempty"`
	Mode      string  `json:"mode"` // same-state, equivalent, violation or reorder
	Fault     string  `json:"fault"`
	Search    string  `json:"search,omitempty"`
	Heuristic string  `json:"heuristic,omitempty"`
	POR       string  `json:"por,omitempty"`
	OldLength int     `json:"old_length"`
	NewLength int     `json:"new_length"`
	Shortest  bool    `json:"shortest"` // the new length is the least possible (admissible A*, or BFS, unreduced)
	Verdict   string  `json:"verdict"`  // the search's: the fault's, or limit
	Limit     string  `json:"limit,omitempty"`
	States    int64   `json:"states"`
	Expanded  int64   `json:"expanded_states"`
	Reopened  int64   `json:"reopened_states,omitempty"`
	Dropped   []int   `json:"dropped_steps,omitempty"` // --reorder: the steps dropped, numbered from 1 in the old trail
	ElapsedS  float64 `json:"elapsed_s"`
}

func runImprove(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("improve", "TRAIL MODEL", improveAbout, stdout)
	var mf modelFlags
	mf.registerDefines(fs, "as given when the trail was written")
	mf.registerUncaught(fs)
	mf.registerLimits(fs)
	equivalent := fs.Bool("equivalent", false, "look for any state that violates the same property with every thread at the same place, not only the trail's own error state")
	violation := fs.Bool("violation", false, "look for any state with the same violation (of the same kind, at the same instruction; of the same invariant), wherever the threads are: what --reorder keeps")
	reorder := fs.Bool("reorder", false, "do not search: drop transitions (runs, single ones from the end, a thread's from one on, rounds of a thread's loops) while the trail still reaches the same violation")
	search := fs.String("search", "astar", "search order: astar, best-first or bfs")
	heuristic := fs.String("heuristic", "fsm", "the search's estimate of the distance to the target: "+heuristicNames(true))
	porFlag := fs.String("por", "none", "partial-order reduction for the search (as check's --por, without dpor); it keeps errors, not states, so it may leave the trail's state out")
	out := fs.String("out", "", "write the new trail to this `FILE` (default: TRAIL with .improved added)")
	maxStates := fs.Int("max-states", 0, "stop with verdict limit after storing this many states (0: no limit)")
	timeLimit := fs.Duration("time-limit", 0, "stop with verdict limit after this long (0: no limit)")
	memLimit := fs.String("memory-limit", "auto", "stop with verdict limit when memory use passes this `SIZE` (auto: 3/4 of the machine's memory or of its cgroup's limit, whichever is less; 0: no limit)")
	jsonOut := fs.Bool("json", false, "print one JSON object with both lengths and the search's figures")
	if done, code := parse(fs, args, stderr, 2); done {
		return code
	}
	start := time.Now()
	tr, p, m, err := loadTrail(&mf, fs.Arg(0), fs.Arg(1))
	if err != nil {
		return fail(stderr, "improve", err)
	}
	fault, target, err := errorState(m, tr.Path)
	if err != nil {
		return fail(stderr, "improve", err)
	}
	if fault == nil || fault.Kind == vm.FaultLimit {
		return fail(stderr, "improve", fmt.Errorf("trail %s reaches no error: nothing to improve", fs.Arg(0)))
	}
	rep := improveReport{Model: fs.Arg(1), Trail: fs.Arg(0), Out: *out, Mode: "same-state", Fault: faultMessage(p, fault),
		OldLength: len(tr.Path), Verdict: explorer.VerdictOf(fault.Kind).String()}
	if rep.Out == "" {
		rep.Out = fs.Arg(0) + ".improved"
	}
	var path []vm.Trans
	if *reorder {
		if explicitAny(fs, "equivalent", "violation", "search", "heuristic", "por", "max-states", "time-limit", "memory-limit") {
			return fail(stderr, "improve", fmt.Errorf("--reorder does not search: it takes none of --equivalent, --violation, --search, --heuristic, --por or the limits"))
		}
		rep.Mode = "reorder"
		path, rep.Dropped = reorderTrail(m, tr.Path, fault)
	} else {
		goal := goalState
		switch {
		case *equivalent && *violation:
			return fail(stderr, "improve", fmt.Errorf("--equivalent and --violation are two goals: give one"))
		case *equivalent:
			rep.Mode, goal = "equivalent", goalEquivalent
		case *violation:
			rep.Mode, goal = "violation", goalViolation
		}
		var code int
		if path, code, err = improveBySearch(m, tr.Trail, fault, target, goal, *search, *heuristic, *porFlag, *maxStates, *timeLimit, *memLimit, &rep); err != nil {
			return fail(stderr, "improve", err)
		} else if code != exitOK {
			rep.ElapsedS = time.Since(start).Seconds()
			printImprove(stdout, &rep, *jsonOut)
			return code
		}
	}
	rep.NewLength = len(path)
	if err := writeTrail(rep.Out, p, m.Options(), path, explorer.VerdictOf(fault.Kind)); err != nil {
		return fail(stderr, "improve", err)
	}
	rep.ElapsedS = time.Since(start).Seconds()
	printImprove(stdout, &rep, *jsonOut)
	return exitOK
}

// explicitAny reports whether any of the flags was given.
func explicitAny(fs *pflag.FlagSet, names ...string) bool {
	return slices.ContainsFunc(names, fs.Changed)
}

// heuristicNames lists the heuristics' names, with docs their one-line
// descriptions (for --help).
func heuristicNames(docs bool) string {
	s := ""
	for i, h := range explorer.Heuristics {
		if i > 0 {
			s += map[bool]string{true: "; ", false: ", "}[docs]
		}
		s += h.Name
		if docs {
			s += ": " + h.Doc
		}
	}
	return s
}

// A goal of trail improvement: the trail's error state, one like it (the
// same violation, every thread at the same place), or any state with the
// same violation.
type goal uint8

const (
	goalState goal = iota
	goalEquivalent
	goalViolation
)

// improveBySearch searches for a shorter path to the goal (sameError) and
// returns it, or an exit code other than exitOK when the search ended
// without one.
func improveBySearch(m *vm.Machine, tr *explorer.Trail, fault *vm.Fault, target []byte, gl goal, search, heuristic, porName string,
	maxStates int, timeLimit time.Duration, memLimit string, rep *improveReport) ([]vm.Trans, int, error) {
	order, ok := explorer.ParseOrder(search)
	if !ok || order == explorer.DFS || order == explorer.IDA {
		return nil, 0, fmt.Errorf("--search: want astar, best-first or bfs, got %q", search)
	}
	opts := explorer.Options{Order: order, MaxStates: maxStates, TimeLimit: timeLimit}
	var err error
	if opts.MemoryLimit, err = parseMemoryLimit(memLimit); err != nil {
		return nil, 0, err
	}
	mode, err := por.ParseMode(porName)
	if err != nil || mode&por.DPOR != 0 {
		return nil, 0, fmt.Errorf("--por: want none, escape, ample or all, got %q", porName)
	}
	if mode.VMOptions(vm.Options{}).Escape && !m.Options().Escape {
		// (The search runs with the trail's options, in which a
		// transition ends where it ended when the trail was written.)
		return nil, 0, fmt.Errorf("--por %s needs escape analysis, and the trail was written without it: use --por none or ample", porName)
	}
	if r := por.New(m.Program(), mode); r != nil && r.Reduces() {
		opts.Reducer = r
	}
	rep.POR = mode.String()
	if order != explorer.BFS {
		if opts.Heuristic, err = explorer.NewHeuristic(heuristic, m, target); err != nil {
			return nil, 0, fmt.Errorf("--heuristic: %w", err)
		}
		rep.Heuristic = heuristic
	}
	rep.Search = order.String()
	opts.Goal = sameError(m, fault, target, gl)
	if err := opts.Validate(); err != nil {
		return nil, 0, err
	}
	res := explorer.Search(m, opts)
	rep.States, rep.Expanded, rep.Reopened, rep.Limit = res.Stats.States, res.Stats.Expanded, res.Stats.Reopened, res.Limit
	if res.Fault == nil {
		rep.Verdict, rep.NewLength = "limit", len(tr.Path)
		if res.Limit == "" {
			rep.Limit = "reduction" // the reduced state space does not hold the state
		}
		return nil, exitLimit, nil
	}
	admissible := order == explorer.BFS
	for _, h := range explorer.Heuristics {
		// (Aimed at the trail's state, which another state with the same
		// violation may be nearer than.)
		admissible = admissible || order == explorer.AStar && h.Name == heuristic && h.Admissible && h.Target != explorer.TargetNone && gl != goalViolation
	}
	rep.Shortest = admissible && opts.Reducer == nil
	return res.Path, exitOK, nil
}

// errorState replays path and returns the error at its end and the
// canonical encoding of the state it is found in: the last state for a
// violation of a state (deadlock, invariant) or no error, the state
// before the last transition for a fault of that transition.
func errorState(m *vm.Machine, path []vm.Trans) (*vm.Fault, []byte, error) {
	_, f, err := explorer.Replay(m, path)
	if err != nil {
		return nil, nil, err
	}
	if f != nil && !stateError(f) {
		explorer.Replay(m, path[:len(path)-1])
	}
	return f, m.Encode(nil), nil
}

// stateError reports whether f is a violation of a state rather than a
// fault of a transition.
func stateError(f *vm.Fault) bool {
	return f.Kind == vm.FaultDeadlock || f.Kind == vm.FaultInvariant
}

// sameViolation reports whether g is the violation f is: of the same
// kind, at the same instruction (a transition's fault), of the same
// invariant.
func sameViolation(f, g *vm.Fault) bool {
	return g.Kind == f.Kind && (stateError(f) || g.Method == f.Method && g.PC == f.PC) &&
		(f.Kind != vm.FaultInvariant || g.Msg == f.Msg)
}

// sameError returns the search goal of trail improvement: error f in the
// state whose encoding is target or, goalEquivalent, the same violation
// (sameViolation) in a state where every thread is where it is in target
// or, goalViolation, in any state.
func sameError(m *vm.Machine, f *vm.Fault, target []byte, gl goal) func(*vm.Fault, []byte) bool {
	scratch, _ := vm.New(m.Program(), m.Options())
	want := places(scratch, target)
	return func(g *vm.Fault, state []byte) bool {
		switch {
		case !sameViolation(f, g):
			return false
		case gl == goalState:
			return bytes.Equal(state, target)
		case gl == goalEquivalent:
			return slices.Equal(places(scratch, state), want)
		}
		return true
	}
}

// places decodes state into m and returns where each thread is (place).
func places(m *vm.Machine, state []byte) []int32 {
	m.Decode(state)
	var out []int32
	for _, t := range m.S.Threads {
		out = place(out, t)
	}
	return out
}

// place appends where thread t is: a separator, its status and every
// frame's method and pc.
func place(out []int32, t *vm.Thread) []int32 {
	out = append(out, -1, int32(t.Status))
	for _, fr := range t.Frames {
		out = append(out, fr.Method, fr.PC)
	}
	return out
}

// reorderTrail drops transitions from path as long as what is left
// replays to the same violation (the same kind, at the same instruction;
// the same invariant), in four ways, again until none drops any: runs
// of consecutive transitions, of half the trail, a quarter, and so on
// down to one, the last first; each transition alone, the last first
// (Edelkamp, Leue and Lluch-Lafuente's elimination of irrelevant
// transitions, decided by replaying instead of by a static independence
// relation: a thread's last transition that is independent of the later
// ones and enables none of them replays without it); each thread's
// transitions from one on, whose last ones only together do nothing the
// violation needs; and each round of a loop of one thread, the
// transitions between two visits of the thread to one place (its frames'
// methods and pcs), latest first. A trail that reaches the violation
// before its end is cut there (reach). It returns the new path and the
// steps dropped (numbered from 1 in path).
func reorderTrail(m *vm.Machine, path []vm.Trans, f *vm.Fault) ([]vm.Trans, []int) {
	keep := slices.Clone(path)
	idx := make([]int, len(path)) // keep[i] is step idx[i]+1 of path
	for i := range idx {
		idx[i] = i
	}
	wake := wakes(m, path)
	var buf []vm.Trans
	// try makes cand, whose steps are steps cidx of path, the trail if it
	// reaches the same violation in fewer steps than keep (cut where it
	// does), each notify waking the thread it woke in path.
	try := func(cand []vm.Trans, cidx []int) bool {
		var g *vm.Fault
		var n int
		if g, n, buf = reach(m, cand, cidx, wake, buf); g == nil || !sameViolation(f, g) || n >= len(keep) {
			return false
		}
		keep, idx = cand[:n], cidx[:n]
		return true
	}
	// drop leaves out the steps of keep for which out is true (try).
	drop := func(out func(i int) bool) bool {
		var cand []vm.Trans
		var cidx []int
		for i, tr := range keep {
			if !out(i) {
				cand, cidx = append(cand, tr), append(cidx, idx[i])
			}
		}
		return len(cand) < len(keep) && try(cand, cidx)
	}
	for changed := true; changed; {
		changed = false
		// Runs of transitions, halving in length (delta debugging's
		// complements, bounded): a stretch of several threads' rounds
		// that together leave what the error needs as it was.
		for n := 2; n <= len(keep); n *= 2 {
			size := (len(keep) + n - 1) / n
			for start := len(keep) - size; start > -size; start -= size {
				lo := max(start, 0)
				if drop(func(j int) bool { return j >= lo && j < start+size }) {
					changed = true
				}
			}
		}
		for i := len(keep) - 1; i >= 0; i-- {
			if i < len(keep) && drop(func(j int) bool { return j == i }) {
				changed = true
			}
		}
		// A thread's steps from one on, the earliest first: a thread
		// whose last steps together do nothing the error needs, although
		// each alone does (it takes a monitor another thread then needs).
		for i := 0; i < len(keep); i++ {
			t := keep[i].Thread
			if drop(func(j int) bool { return j >= i && keep[j].Thread == t }) {
				changed = true
			}
		}
		at := threadPlaces(m, keep)
		for b := len(keep) - 1; b > 0; b-- {
			if b >= len(keep) {
				continue
			}
			t := keep[b].Thread
			for a := 0; a < b; a++ {
				if keep[a].Thread == t && slices.Equal(at[a], at[b]) {
					if drop(func(j int) bool { return j >= a && j < b && keep[j].Thread == t }) {
						changed = true
						at = threadPlaces(m, keep)
					}
					break
				}
			}
		}
	}
	var dropped []int
	for i := range path {
		if !slices.Contains(idx, i) {
			dropped = append(dropped, i+1)
		}
	}
	return keep, dropped
}

// wakes replays path and returns, for each step, the thread its notify
// woke, or -1.
func wakes(m *vm.Machine, path []vm.Trans) []int32 {
	out := make([]int32, len(path))
	m.Init()
	for i, tr := range path {
		out[i] = -1
		if notifies(m, tr.Thread) {
			r := m.S.Threads[tr.Thread].Stack[len(m.S.Threads[tr.Thread].Stack)-1]
			if u := waiter(m, r, tr.Choice); u >= 0 {
				out[i] = u
			}
		}
		if m.Step(tr) != nil {
			break
		}
	}
	return out
}

// notifies reports whether thread tid's next transition is a notify.
func notifies(m *vm.Machine, tid int32) bool {
	if tid < 0 || int(tid) >= m.NumThreads() {
		return false
	}
	t := m.S.Threads[tid]
	if t.Status != vm.StatusRunnable || len(t.Frames) == 0 {
		return false
	}
	fr := t.Frames[len(t.Frames)-1]
	return m.Program().Methods[fr.Method].Code[fr.PC].Op == bytecode.OpNotify && len(t.Stack) > 0
}

// waiter returns the thread a notify of monitor v with choice k wakes,
// the k-th waiting on it in id order (as the machine picks it), or -1.
func waiter(m *vm.Machine, v vm.Value, k int32) int32 {
	for _, u := range m.S.Threads {
		if v.Ref && u.Status == vm.StatusWaiting && int64(u.WaitObj) == v.I {
			if k == 0 {
				return u.ID
			}
			k--
		}
	}
	return -1
}

// reach replays path, whose steps are steps idx of a trail whose
// notifies woke wake, and returns the first error it reaches and the
// number of steps to it, or nil if it reaches none or a step is not
// enabled. A step that notifies wakes the thread the trail's step woke
// if it waits: its choice, the waiter's place among the waiters, is set
// again in path (a step names the thread a notify wakes by that place,
// which changes when other threads' steps are left out); if it does not,
// the choice stays. buf is scratch, returned.
func reach(m *vm.Machine, path []vm.Trans, idx []int, wake []int32, buf []vm.Trans) (*vm.Fault, int, []vm.Trans) {
	m.Init()
	invariants := len(m.Program().Invariants) > 0
	for i := 0; ; i++ {
		if invariants {
			if f := m.CheckInvariants(); f != nil {
				c := *f
				return &c, i, buf
			}
		}
		buf = m.Enabled(buf[:0])
		if len(buf) == 0 && m.Alive() {
			return explorer.DeadlockFault(), i, buf
		}
		if i == len(path) {
			return nil, i, buf
		}
		tr := &path[i]
		if u := wake[idx[i]]; u >= 0 && notifies(m, tr.Thread) {
			r := m.S.Threads[tr.Thread].Stack[len(m.S.Threads[tr.Thread].Stack)-1]
			for k := int32(0); waiter(m, r, k) >= 0; k++ {
				if waiter(m, r, k) == u {
					tr.Choice = k
					break
				}
			}
		}
		if !slices.Contains(buf, *tr) {
			return nil, i, buf
		}
		if f := m.Step(*tr); f != nil {
			c := *f
			return &c, i + 1, buf
		}
	}
}

// threadPlaces replays path and returns, for each step, where its thread
// is before it (place).
func threadPlaces(m *vm.Machine, path []vm.Trans) [][]int32 {
	m.Init()
	out := make([][]int32, len(path))
	for i, tr := range path {
		out[i] = place(nil, m.S.Threads[tr.Thread])
		if m.Step(tr) != nil {
			break
		}
	}
	return out
}

// ranges writes sorted numbers as ranges: "3, 5-9, 12" ("none" for none).
func ranges(xs []int) string {
	if len(xs) == 0 {
		return "none"
	}
	var b []byte
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if i > 0 {
			b = append(b, ", "...)
		}
		b = fmt.Appendf(b, "%d", xs[i])
		if j > i {
			b = fmt.Appendf(b, "-%d", xs[j])
		}
		i = j + 1
	}
	return string(b)
}

func printImprove(w io.Writer, r *improveReport, asJSON bool) {
	if asJSON {
		writeJSON(w, r)
		return
	}
	fmt.Fprintf(w, "error: %s\n", r.Fault)
	switch {
	case r.Mode == "reorder":
		fmt.Fprintf(w, "reordered: %d transitions, was %d; dropped steps %s\n", r.NewLength, r.OldLength, ranges(r.Dropped))
	case r.Verdict == "limit" && r.Limit == "reduction":
		fmt.Fprintf(w, "not found: the reduced state space (--por %s) does not hold the trail's error state; try --por none or --equivalent\n", r.POR)
	case r.Verdict == "limit":
		fmt.Fprintf(w, "not improved: the search reached its %s limit (%d states stored)\n", r.Limit, r.States)
	default:
		what := "the same error state"
		switch r.Mode {
		case "equivalent":
			what = "an equivalent error state"
		case "violation":
			what = "a state with the same violation"
		}
		short := ""
		if r.Shortest {
			short = " (a shortest)"
		}
		fmt.Fprintf(w, "improved: %d transitions%s to %s, was %d (%s", r.NewLength, short, what, r.OldLength, r.Search)
		if r.Heuristic != "" {
			fmt.Fprintf(w, ", heuristic %s", r.Heuristic)
		}
		fmt.Fprintf(w, ": %d states stored, %d expanded)\n", r.States, r.Expanded)
	}
	if r.Verdict != "limit" {
		fmt.Fprintf(w, "trail written to %s\n", r.Out)
	}
}
