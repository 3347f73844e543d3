package vm_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/internal/progen"
	"mcvm/vm"
)

// aheadStep is what StepAhead reported for one transition.
type aheadStep struct {
	fp    uint64
	instr int
	fault bool
}

// walkAhead explores m's states depth first as explorer's lookahead does:
// every transition of a state by StepAhead, from the state's snapshot
// (restored only when the machine no longer holds it), and a new state's
// transition executed again and its fingerprint unstashed before the
// state is saved and expanded, until limit states. It returns what
// StepAhead reported for every transition, in order.
func walkAhead(t *testing.T, m *vm.Machine, limit int) []aheadStep {
	t.Helper()
	type level struct {
		snap *vm.Snapshot
		trs  []vm.Trans
		next int
	}
	var out []aheadStep
	var st vm.FPStash
	seen := map[uint64]bool{m.EncodeFingerprint(): true}
	root := &level{snap: new(vm.Snapshot)}
	m.Save(root.snap, nil)
	root.trs = m.Enabled(nil)
	stack := []*level{root}
	held := root // the level whose state the machine holds, or nil
	for len(stack) > 0 && len(seen) < limit {
		top := stack[len(stack)-1]
		if top.next == len(top.trs) {
			stack = stack[:len(stack)-1]
			continue
		}
		if held != top {
			m.Restore(top.snap)
			held = top
		}
		tr := top.trs[top.next]
		top.next++
		fp, instr, f, moved := m.StepAhead(tr, &st)
		if moved {
			held = nil
		}
		out = append(out, aheadStep{fp, instr, f != nil})
		if f != nil || seen[fp] {
			continue
		}
		seen[fp] = true
		if !moved {
			if f := m.Step(tr); f != nil {
				t.Fatalf("a transition kept faults when executed: %v", f.Msg)
			}
			if got, ok := m.UnstashFingerprint(&st); !ok || got != fp {
				t.Fatalf("the stash of a transition kept: %016x %v, want %016x", got, ok, fp)
			}
		}
		m.CollectGarbage()
		l := &level{snap: new(vm.Snapshot)}
		m.Save(l.snap, top.snap)
		l.trs = m.Enabled(nil)
		stack = append(stack, l)
		held = l
	}
	return out
}

// threadLockSrc is a worker whose transitions are kept while main locks
// and unlocks its Thread object, whose monitor is in the worker's record:
// a transition kept from a state where main held it must not serve one
// where main does not.
const threadLockSrc = `
.class W
.method static run()
.locals x
loop:
    yield
    load x
    push 1
    add
    push 3
    rem
    store x
    goto loop
.end
.class Main
.method static main()
.locals w
    newthread W.run
    dup
    store w
    start
again:
    load w
    monitorenter
    load w
    monitorexit
    goto again
.end
`

// notifiedSrc has a waiter that is notified, then runnable, at the same
// pc (a yield) with the same frames and values, whose transitions differ:
// the runnable one writes no object, the notified one takes the monitor
// first. The records differ in their status, waited object and wait
// count, each of which tells them apart. The walks were not seen to look
// the notified record up while the runnable one was kept;
// TestStepAhead_notified drives the program there.
const notifiedSrc = `
.class O
.class W
.method static run(o)
loop:
    load o
    monitorenter
    load o
    wait
    yield
    load o
    monitorexit
    goto loop
.end
.class Main
.method static main()
.locals o k
    new O
    store o
    load o
    newthread W.run
    start
again:
    yield
    load o
    monitorenter
    load o
    notify
    load o
    monitorexit
    load k
    push 1
    add
    push 2
    rem
    store k
    goto again
.end
`

// aheadPrograms returns the programs TestStepAhead_kept walks: every
// model and conformance program, and generated ones (MCVM_GEN_PROGRAMS of
// them, default 30).
func aheadPrograms(t *testing.T) map[string]func(vm.Options) *vm.Machine {
	progs := map[string]func(vm.Options) *vm.Machine{}
	// machine returns a maker of machines for the program at path, or
	// for src if it is not "".
	machine := func(path, src string, defines map[string]int64) func(vm.Options) *vm.Machine {
		return func(o vm.Options) *vm.Machine {
			opts := asm.Options{Defines: defines}
			var p *bytecode.Program
			var err error
			if src != "" {
				p, err = asm.Assemble(path, []byte(src), opts)
			} else {
				p, err = asm.AssembleFile(path, opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			o.Tuning.CheckEncoding = vm.CheckingEncoding()
			m, err := vm.New(p, o)
			if err != nil {
				t.Fatal(err)
			}
			m.Init()
			return m
		}
	}
	for _, path := range models(t) {
		progs[filepath.Base(path)] = machine(path, "", nil)
	}
	progs["philo N=4"] = machine("../benchmarks/models/philo.mcasm", "", map[string]int64{"N": 4})
	progs["thread object locked"] = machine("threadlock.mcasm", threadLockSrc, nil)
	progs["notified"] = machine("notified.mcasm", notifiedSrc, nil)
	n, err := progen.Count(30)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		n = min(n, 8)
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		src := progen.GenerateWith(seed, progen.Options{Handlers: seed%2 == 0})
		progs[fmt.Sprintf("generated %d", seed)] = machine("gen.mcasm", src, nil)
	}
	return progs
}

// TestStepAhead_kept checks the transitions StepAhead takes kept against
// executing them: on every model and conformance program and generated
// programs, at both granularities, with each collector, with dead
// variable reduction and with escape analysis, a lookahead walk must see the same fingerprints,
// instruction counts and faults, in the same order, with kept
// transitions on and off; and the philosophers must take some kept.
func TestStepAhead_kept(t *testing.T) {
	progs := aheadPrograms(t)
	names := make([]string, 0, len(progs))
	for name := range progs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, o := range []vm.Options{
			{Granularity: vm.GranTransition},
			{Granularity: vm.GranInstruction},
			{Granularity: vm.GranTransition, GC: vm.GCMemoised, DeadLocals: true},
			{Granularity: vm.GranTransition, Escape: true},
		} {
			t.Run(fmt.Sprintf("%s/%v/gc=%v/dead=%v/escape=%v", name, o.Granularity, o.GC, o.DeadLocals, o.Escape), func(t *testing.T) {
				m := progs[name](o)
				with := walkAhead(t, m, 2000)
				o.Tuning.NoKeptTransitions = true
				mw := progs[name](o)
				without := walkAhead(t, mw, 2000)
				if mw.KeptSteps() != 0 {
					t.Errorf("%d transitions taken kept with Tuning.NoKeptTransitions", mw.KeptSteps())
				}
				if i := firstDiffSteps(with, without); i >= 0 {
					t.Errorf("transition %d of %d, %d: kept %v, executed %v", i, len(with), len(without), at(with, i), at(without, i))
				}
				if strings.HasPrefix(name, "philo") && !o.Escape && m.KeptSteps() == 0 {
					t.Error("no transition was taken kept")
				}
			})
		}
	}
}

// TestStepAhead_keptChecked walks the philosophers with every transition
// taken kept executed as well and compared (vm.CheckEncoding).
func TestStepAhead_keptChecked(t *testing.T) {
	m := load(t, "../benchmarks/models/philo.mcasm", map[string]int64{"N": 4}, vm.GranTransition)
	m.SetTuning(vm.Tuning{CheckEncoding: true})
	m.Init()
	walkAhead(t, m, 1<<20)
	if m.KeptSteps() == 0 {
		t.Error("no transition was taken kept")
	}
}

func firstDiffSteps(a, b []aheadStep) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func at(s []aheadStep, i int) any {
	if i < len(s) {
		return s[i]
	}
	return "none"
}

// TestStepAhead_notified drives notifiedSrc to the case its walks do not
// reach: the waiter's transition from its runnable record at the yield
// is kept, then the waiter waits, is notified again and stands notified
// at the same yield with the same frames and values, the monitor free;
// StepAhead there must give the fingerprint that executing gives. (With
// the status, the waited object and the wait count all left out of the
// records' comparison, it takes the runnable one's.)
func TestStepAhead_notified(t *testing.T) {
	p, err := asm.Assemble("notified.mcasm", []byte(notifiedSrc), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{Granularity: vm.GranTransition, Tuning: envTuning()})
	if err != nil {
		t.Fatal(err)
	}
	m.Init()
	const main, waiter = 0, 1
	var snap *vm.Snapshot
	// step takes thread's transition, encodes the state and saves it, so
	// that it is the incremental encoder's base.
	step := func(thread int32) vm.Trans {
		t.Helper()
		for _, tr := range m.Enabled(nil) {
			if tr.Thread == thread {
				if f := m.Step(tr); f != nil {
					t.Fatalf("thread %d: %v", thread, f.Msg)
				}
				m.EncodeFingerprint()
				s := new(vm.Snapshot)
				m.Save(s, snap)
				snap = s
				return tr
			}
		}
		t.Fatalf("thread %d cannot move", thread)
		return vm.Trans{}
	}
	status := func(thread int32, want vm.Status) {
		t.Helper()
		if got := m.S.Threads[thread].Status; got != want {
			t.Fatalf("thread %d is %v, want %v", thread, got, want)
		}
	}
	var st vm.FPStash
	step(main)   // new O ... newthread
	step(main)   // start, to the yield
	step(waiter) // to its monitorenter
	step(waiter) // monitorenter, to wait
	step(waiter) // wait
	status(waiter, vm.StatusWaiting)
	step(main) // yield, to monitorenter
	step(main) // monitorenter, to notify
	step(main) // notify
	status(waiter, vm.StatusNotified)
	step(main)         // monitorexit, k = 1, to the yield
	tr := step(waiter) // takes the monitor: runnable at its yield
	status(waiter, vm.StatusRunnable)
	// Kept here: from the runnable record, the yield writes nothing.
	if _, _, f, moved := m.StepAhead(tr, &st); f != nil || !moved {
		t.Fatalf("the first StepAhead: fault %v, moved %v", f, moved)
	}
	m.Restore(snap)
	step(waiter) // yield, to monitorexit
	step(waiter) // monitorexit, round, to monitorenter
	step(waiter) // monitorenter, to wait
	step(waiter) // wait
	step(main)   // yield, to monitorenter
	step(main)   // monitorenter, to notify
	step(main)   // notify
	step(main)   // monitorexit, k = 0, to the yield
	status(waiter, vm.StatusNotified)
	fp, _, f, moved := m.StepAhead(tr, &st)
	if f != nil {
		t.Fatalf("StepAhead: %v", f.Msg)
	}
	if !moved {
		if f := m.Step(tr); f != nil {
			t.Fatal(f.Msg)
		}
	}
	if want := m.EncodeFingerprint(); fp != want {
		t.Errorf("StepAhead of the notified waiter: %016x, executed: %016x", fp, want)
	}
}
