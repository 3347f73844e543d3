// mcvm run, asm and disasm.

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/vm"
)

const runAbout = `Executes MODEL once, like an ordinary VM, and prints the program's output
(print, printi). The schedule is deterministic round-robin by default (each
transition gives the next enabled thread in id order its turn, and every
choice point takes 0); --seed picks threads and choices at random from that
seed. Reports an assertion failure, uncaught exception, invariant violation,
livelock or deadlock on stderr with exit code 1; --trail writes the schedule
that reached it, for mcvm replay and mcvm improve.

A run that reaches --max-steps transitions, --max-instructions instructions
or --time-limit, or is interrupted (SIGINT, SIGTERM), stops with exit code 3
and says where each thread was: a thread whose last transition ran 65,536
instructions is in a loop that does not reach a scheduling point. The
defaults (10 million transitions, 2^30 instructions, a minute) stop a
program that runs for ever well before anyone waits for it, and are far
above what a model's schedule runs; the instruction limit, unlike the time
limit, stops a run at the same place on every machine.`

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", "MODEL", runAbout, stdout)
	var mf modelFlags
	mf.register(fs)
	seed := fs.Int64("seed", -1, "pick a random schedule and random choices from this seed (default: deterministic round-robin, choices 0)")
	maxSteps := fs.Int64("max-steps", 10_000_000, "stop after this many transitions (exit code 3)")
	maxInstr := fs.Int64("max-instructions", 1<<30, "stop after this many instructions in all (exit code 3; 0: no limit)")
	timeLimit := fs.Duration("time-limit", time.Minute, "stop after this long, e.g. 10s (exit code 3; 0: no limit)")
	trail := fs.String("trail", "", "on a violation, write the schedule that reached it to this trail `FILE` (replay it with mcvm replay, shorten it with mcvm improve)")
	if done, code := parse(fs, args, stderr, 1); done {
		return code
	}
	if *maxSteps < 0 || *maxInstr < 0 || *timeLimit < 0 {
		return fail(stderr, "run", fmt.Errorf("limits must not be negative"))
	}
	it, unsignal := catchInterrupts(stderr)
	defer unsignal()
	start := time.Now()
	gran, err := mf.gran()
	if err != nil {
		return fail(stderr, "run", err)
	}
	ignore, err := mf.ignoreUncaught()
	if err != nil {
		return fail(stderr, "run", err)
	}
	p, err := mf.load(fs.Arg(0))
	if err != nil {
		return fail(stderr, "run", err)
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	vo, err := mf.limits(vm.Options{Granularity: gran, Out: out, IgnoreUncaught: ignore})
	if err != nil {
		return fail(stderr, "run", err)
	}
	m, err := vm.New(p, vo)
	if err != nil {
		return fail(stderr, "run", err)
	}
	var rng *rand.Rand
	if *seed >= 0 {
		rng = rand.New(rand.NewPCG(uint64(*seed), 0x6d63766d))
	}
	var trs, path []vm.Trans
	// violation reports a property violation and writes the trail.
	violation := func(msg string, v explorer.Verdict) int {
		out.Flush()
		fmt.Fprintf(stderr, "mcvm run: %s\n", msg)
		if *trail != "" {
			if err := writeTrail(*trail, p, m.Options(), path, v); err != nil {
				return fail(stderr, "run", err)
			}
			fmt.Fprintf(stderr, "trail written to %s\n", *trail)
		}
		return exitViolation
	}
	last := int32(-1)
	var instrs int64
	var spun []bool // per thread: its last transition ran vm.MaxLocalSteps instructions
	// stopped reports a run a limit stopped after step transitions, and
	// where each thread was.
	stopped := func(step int64, why string) int {
		out.Flush()
		fmt.Fprintf(stderr, "mcvm run: stopped after %d transitions, %d instructions (%s)\n", step, instrs, why)
		for tid, long := range spun {
			if long {
				meth, pc := m.Where(int32(tid))
				fmt.Fprintf(stderr, "  thread %d is in a loop that reaches no scheduling point: its last transition ran %d instructions, up to %s at %s\n",
					tid, vm.MaxLocalSteps, p.MethodName(meth), p.PosString(p.InstrPos(meth, pc)))
			}
		}
		fmt.Fprintf(stderr, "threads:%s\n", threadLines(m))
		return exitLimit
	}
	for step := int64(0); ; step++ {
		switch {
		case step >= *maxSteps:
			return stopped(step, "--max-steps")
		case *maxInstr > 0 && instrs >= *maxInstr:
			return stopped(step, "--max-instructions")
		case step&63 == 0 && *timeLimit > 0 && time.Since(start) >= *timeLimit:
			return stopped(step, "--time-limit")
		case step&63 == 0 && it.interrupted():
			return stopped(step, "interrupted")
		}
		trs = m.Enabled(trs[:0])
		if len(trs) == 0 {
			out.Flush()
			if m.Alive() {
				return violation(fmt.Sprintf("deadlock after %d transitions: no thread can run", step)+threadLines(m), explorer.VerdictDeadlock)
			}
			return exitOK
		}
		tr := pick(trs, last, rng)
		last = tr.Thread
		if *trail != "" {
			path = append(path, tr)
		}
		f := m.Step(tr)
		instrs += int64(m.Executed())
		for int(tr.Thread) >= len(spun) {
			spun = append(spun, false)
		}
		spun[tr.Thread] = m.Executed() == vm.MaxLocalSteps
		if f == nil {
			f = m.CheckInvariants()
		}
		if f != nil && f.Kind == vm.FaultLimit {
			out.Flush()
			fmt.Fprintf(stderr, "mcvm run: stopped after %d transitions: %s\n", step+1, faultMessage(p, f))
			return exitLimit
		}
		if f != nil {
			return violation(faultMessage(p, f), explorer.VerdictOf(f.Kind))
		}
		if step%1024 == 1023 {
			// Long runs stay bounded: freed places are reused.
			m.CollectGarbage()
		}
	}
}

// threadLines lists where the threads that have not ended are, a line
// each.
func threadLines(m *vm.Machine) string {
	var b strings.Builder
	for _, e := range threadEnds(m) {
		if e.Status != "terminated" {
			fmt.Fprintf(&b, "\n  thread %d  %-10s at %s %s (%s)", e.Thread, e.Status, e.Instr, e.Pos, e.Method)
			if e.Blocker != "" {
				fmt.Fprintf(&b, " [%s]", e.Blocker)
			}
		}
	}
	return b.String()
}

// pick chooses the next transition: at random with rng, otherwise the
// first transition (choice 0) of the next enabled thread after last.
func pick(trs []vm.Trans, last int32, rng *rand.Rand) vm.Trans {
	if rng != nil {
		return trs[rng.IntN(len(trs))]
	}
	for _, tr := range trs {
		if tr.Thread > last && tr.Choice == 0 {
			return tr
		}
	}
	return trs[0]
}

const asmAbout = `Assembles FILE.mcasm into bytecode, written to FILE.mcb (or -o). Errors are
reported as file:line:col: message. An existing output file is replaced
only if it is .mcb bytecode itself (it starts with the .mcb magic number),
so that a slip such as -o FILE.mcasm cannot overwrite a source.`

func runAsm(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("asm", "FILE.mcasm", asmAbout, stdout)
	var mf modelFlags
	mf.registerDefines(fs, "repeatable")
	outPath := fs.StringP("output", "o", "", "output `FILE` (default: the input with .mcb)")
	if done, code := parse(fs, args, stderr, 1); done {
		return code
	}
	in := fs.Arg(0)
	if strings.HasSuffix(in, ".mcb") {
		return fail(stderr, "asm", fmt.Errorf("%s is already bytecode", in))
	}
	p, err := mf.load(in)
	if err != nil {
		return fail(stderr, "asm", err)
	}
	out := *outPath
	if out == "" {
		out = strings.TrimSuffix(in, ".mcasm") + ".mcb"
	}
	if err := writeBytecode(out, bytecode.Encode(p)); err != nil {
		return fail(stderr, "asm", err)
	}
	return exitOK
}

// writeBytecode writes .mcb data to path (replaceFile). It refuses to replace a regular file that is not .mcb bytecode
// (an assembly source given as -o, say); other files (devices, pipes)
// are written in place.
func writeBytecode(path string, data []byte) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return os.WriteFile(path, data, 0o644)
	case err == nil:
		head := make([]byte, len(bytecode.Magic))
		fh, err := os.Open(path)
		if err != nil {
			return err
		}
		n, _ := io.ReadFull(fh, head)
		fh.Close()
		if string(head[:n]) != bytecode.Magic {
			return fmt.Errorf("%s exists and is not .mcb bytecode: not overwriting it (remove it or give another -o)", path)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return replaceFile(path, data)
}

const disasmAbout = `Prints the assembly of FILE (.mcb bytecode, or .mcasm, which is assembled
first). The output assembles back to the same bytecode.`

func runDisasm(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("disasm", "FILE", disasmAbout, stdout)
	var mf modelFlags
	mf.registerDefines(fs, ".mcasm input only")
	if done, code := parse(fs, args, stderr, 1); done {
		return code
	}
	p, err := mf.load(fs.Arg(0))
	if err != nil {
		return fail(stderr, "disasm", err)
	}
	io.WriteString(stdout, bytecode.Disassemble(p))
	return exitOK
}
