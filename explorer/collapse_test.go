package explorer_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/vm"
)

// collapseRun is what a search shows of its visited set: the states in
// the order stored, with their fingerprints, every transition with the
// ids it joins, and the result.
type collapseRun struct {
	fps   []uint64
	trans []uint64 // a mix of each transition's ends, thread, choice, place and newness
	res   *explorer.Result
}

func collapseSearch(t *testing.T, p *bytecode.Program, g vm.Granularity, opts explorer.Options) collapseRun {
	t.Helper()
	m, err := vm.New(p, vm.Options{Granularity: g})
	if err != nil {
		t.Fatal(err)
	}
	var r collapseRun
	opts.Listen(explorer.Funcs{OnState: func(id int32, fp uint64) {
		if int(id) != len(r.fps) {
			t.Fatalf("OnState id %d, want %d", id, len(r.fps))
		}
		r.fps = append(r.fps, fp)
	}})
	opts.Listen(explorer.Funcs{OnTransition: func(from int32, tr vm.Trans, method, pc int32, to int32, isNew bool) {
		x := uint64(uint32(from))<<32 | uint64(uint32(to))
		y := uint64(uint32(tr.Thread))<<48 ^ uint64(uint32(tr.Choice))<<32 ^ uint64(uint32(method))<<16 ^ uint64(uint32(pc))
		if isNew {
			y = ^y
		}
		r.trans = append(r.trans, x*0x9e3779b97f4a7c15^y)
	}})
	r.res = explorer.Search(m, opts)
	return r
}

// diffCollapse searches p with the plain exact store and with the collapse
// store (delta collapse on and off, DFS also decoding every level from the
// store, and keeping snapshots only for the top two levels) and reports
// every difference.
func diffCollapse(t *testing.T, name string, p *bytecode.Program, g vm.Granularity, base explorer.Options) {
	t.Helper()
	want := collapseSearch(t, p, g, base)
	for _, delta := range []bool{true, false} {
		for _, c := range []struct{ snap, window int }{{1 << 20, 0}, {0, 0}, {1 << 20, 2}} {
			if c.snap == 0 && base.Order == explorer.BFS || c.window > 0 && !delta {
				continue
			}
			opts := base
			opts.Storage = explorer.StorageCollapse
			opts.Tuning = tuned(func(tu *explorer.Tuning) {
				tu.CollapseDelta, tu.MaxSnapDepth, tu.SnapWindow, tu.WindowExact = delta, c.snap, c.window, false
			})
			got := collapseSearch(t, p, g, opts)
			n := fmt.Sprintf("%s/delta=%v/snapdepth=%d/window=%d", name, delta, c.snap, c.window)
			gr, wr := got.res, want.res
			if !slices.Equal(got.fps, want.fps) || gr.Verdict != wr.Verdict || gr.Limit != wr.Limit ||
				gr.Stats.Transitions != wr.Stats.Transitions || gr.Stats.Revisits != wr.Stats.Revisits ||
				gr.Stats.Errors != wr.Stats.Errors || gr.Stats.MaxDepth != wr.Stats.MaxDepth ||
				!slices.Equal(gr.Path, wr.Path) {
				t.Errorf("%s: collapse store: %s, %d states %d transitions %d errors; exact store: %s, %d %d %d",
					n, gr.Verdict, len(got.fps), gr.Stats.Transitions, gr.Stats.Errors,
					wr.Verdict, len(want.fps), wr.Stats.Transitions, wr.Stats.Errors)
				continue
			}
			if !slices.Equal(got.trans, want.trans) {
				i := 0
				for i < len(got.trans) && i < len(want.trans) && got.trans[i] == want.trans[i] {
					i++
				}
				t.Errorf("%s: transitions differ from the exact store's at #%d", n, i)
			}
			if a := gr.Stats.Store; a.Storage != "collapse" || len(a.Pools) != 3 || a.Bytes <= 0 {
				t.Errorf("%s: store account %+v", n, a)
			}
		}
	}
}

// TestCollapse_vsExact is the differential test of collapse compression:
// on every conformance program, the golden models, the documentation's
// examples and generated programs, in both search orders, with and without
// --continue, the collapse store must store the same states in the same
// order (ids and fingerprints), with the same transitions (and the same
// ids at both ends of each), errors, verdicts and counterexamples as the
// plain exact store; also with delta collapse off, and with depth-first
// search decoding every level from the store (Get) or the levels below
// the top two. MCVM_GEN_PROGRAMS sets how many programs of each generator
// (default 40).
func TestCollapse_vsExact(t *testing.T) {
	var progs []model
	progs = append(progs, smallModels(t)...)
	ex, _ := filepath.Glob("../docs/examples/*.mcasm")
	for _, path := range ex {
		p, err := asm.AssembleFile(path, asm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, model{path, p})
	}
	for _, md := range progs {
		for _, order := range []explorer.Order{explorer.DFS, explorer.BFS} {
			for _, cont := range []bool{true, false} {
				name := fmt.Sprintf("model=%s/search=%s/continue=%v", filepath.Base(md.path), order, cont)
				diffCollapse(t, name, md.prog, vm.GranTransition, explorer.Options{Order: order, Continue: cont, MaxStates: 50000})
			}
		}
		diffCollapse(t, fmt.Sprintf("model=%s/gran=instruction", filepath.Base(md.path)), md.prog, vm.GranInstruction,
			explorer.Options{Continue: true, MaxStates: 50000})
	}
	n, err := progen.Count(40)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		n = 15
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for _, o := range []progen.Options{{}, {Handlers: true}} {
			src := progen.GenerateWith(seed, o)
			p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			for _, order := range []explorer.Order{explorer.DFS, explorer.BFS} {
				name := fmt.Sprintf("seed=%d/handlers=%v/search=%s", seed, o.Handlers, order)
				diffCollapse(t, name, p, vm.GranTransition, explorer.Options{Order: order, Continue: true, MaxStates: 5000})
			}
		}
	}
}

// TestCollapse_heapModel runs the differential test on a heap-heavy
// benchmark model (raytracer, SMALL: 12,432 states, objects and arrays
// with many fields) depth first.
func TestCollapse_heapModel(t *testing.T) {
	if testing.Short() {
		t.Skip("12,000 states six times")
	}
	defs := map[string]int64{"THREADS": 2, "SIZE": 1, "GRID": 1, "LIGHTS": 1, "MAXLEVEL": 0}
	p, err := asm.AssembleFile("../benchmarks/models/raytracer.mcasm", asm.Options{Defines: defs})
	if err != nil {
		t.Fatal(err)
	}
	diffCollapse(t, "model=raytracer", p, vm.GranTransition, explorer.Options{Continue: true})
}

// TestCollapseStore_pool checks the store as a set: random encodings of
// random components (length-prefixed, so an encoding determines its cuts,
// as Encode's does), drawn from few distinct ones so that the pools share
// them, with a hash of 16 values so that the pools' and the state table's
// buckets and tags collide;
// every Add must agree with a map, and Get must give every stored encoding
// back byte for byte, with delta collapse on and off.
func TestCollapseStore_pool(t *testing.T) {
	payloads := [][]byte{{}, {1}, {1, 2}, {2, 1}, {0x80, 0x01}, {7, 7, 7, 7, 7}, make([]byte, 200)}
	weak := func(b []byte) uint64 {
		h := xxhash.Sum64(b) % 16
		return h | h<<60
	}
	defer explorer.SetStoreHash(explorer.SetStoreHash(weak))
	for _, delta := range []bool{true, false} {
		c := explorer.NewCollapseStore()
		c.SetDelta(delta)
		rng := rand.New(rand.NewPCG(3, 4))
		want := map[string]int32{}
		var encs [][]byte
		for i := 0; i < 20000; i++ {
			// Few thread counts and components: the parent often shares
			// some with the new state.
			nthreads := rng.IntN(3)
			enc := binary.AppendUvarint(nil, uint64(nthreads))
			enc = append(enc, byte(rng.IntN(3)))
			cuts := []int32{int32(len(enc))}
			for j := 0; j < nthreads+rng.IntN(4); j++ {
				pl := payloads[rng.IntN(len(payloads))]
				enc = append(append(enc, byte(len(pl))), pl...)
				cuts = append(cuts, int32(len(enc)))
			}
			if len(encs) > 0 && rng.IntN(4) == 0 {
				// An ancestor again, or any state (a breadth-first parent).
				c.SetParent(want[string(encs[len(encs)-1-rng.IntN(min(len(encs), 8))])])
			}
			if len(encs) > 0 && rng.IntN(16) == 0 {
				c.SetParent(want[string(encs[rng.IntN(len(encs))])])
			}
			id, isNew := c.Add(enc, cuts)
			old, seen := want[string(enc)]
			if isNew == seen || seen && id != old {
				t.Fatalf("delta=%v: Add(%v) = %d, %v; want new %v (id %d)", delta, enc, id, isNew, !seen, old)
			}
			if !seen {
				want[string(enc)] = id
				encs = append(encs, enc)
				if rng.IntN(2) == 0 {
					c.SetParent(id) // as depth-first search does
				}
			}
		}
		if c.Len() != len(want) {
			t.Errorf("delta=%v: Len() = %d, want %d", delta, c.Len(), len(want))
		}
		for _, enc := range encs {
			id := want[string(enc)]
			if got := c.Get(id); string(got) != string(enc) {
				t.Fatalf("delta=%v: Get(%d) = %v, want %v", delta, id, got, enc)
			}
		}
		lookups, reused := c.Reuse()
		if delta != (reused > 0) || lookups == 0 {
			t.Errorf("delta=%v: %d components looked up, %d reused", delta, lookups, reused)
		}
	}
}

// bigInts keeps ints too large for the small-int form of a stack slot
// (zig-zag >= 2^62) on a thread's stack, in a local and in an object and
// a static, across scheduling points.
const bigInts = `
.const MAX 9223372036854775807
.const MIN -9223372036854775808
.class Box
.field v int
.class S
.static box ref
.static big int
.method static worker(b)
.locals x
    push MIN
    store x
    push MAX
    yield
    load b
    push MIN
    putfield Box.v
    yield
    push MAX
    putstatic S.big
    pop
    return
.end
.method static main()
    new Box
    putstatic S.box
    getstatic S.box
    newthread S.worker
    start
    getstatic S.box
    newthread S.worker
    start
    return
.end
`

// TestCollapseStore_Get checks reconstruction on states of random walks
// of every conformance program and model, among them states with pending
// exception records, waiting threads and big ints: Get must give back the
// encoding Add was given, and decoding it must give a machine that
// encodes to it again.
func TestCollapseStore_Get(t *testing.T) {
	progs := smallModels(t)
	p, err := asm.Assemble("bigints.mcasm", []byte(bigInts), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	progs = append(progs, model{"bigints.mcasm", p})
	var pending, waiting, big int
	for _, md := range progs {
		m, err := vm.New(md.prog, vm.Options{Granularity: vm.GranInstruction})
		if err != nil {
			t.Fatal(err)
		}
		c := explorer.NewCollapseStore()
		encs := map[int32][]byte{}
		rng := rand.New(rand.NewPCG(9, 10))
		var trs []vm.Trans
		var cuts []int32
		for w := 0; w < 20; w++ {
			m.Init()
			for i := 0; i < 100; i++ {
				var enc []byte
				enc, cuts = m.EncodeSplit(nil, cuts[:0])
				id, isNew := c.Add(enc, cuts)
				if old, ok := encs[id]; ok == isNew || ok && string(old) != string(enc) {
					t.Fatalf("%s: Add gave id %d (new %v) to a state stored as %v", md.path, id, isNew, old)
				}
				encs[id] = enc
				for _, th := range m.S.Threads {
					if len(th.Pending) > 0 {
						pending++
					}
					if th.Status == vm.StatusWaiting || th.Status == vm.StatusNotified {
						waiting++
					}
					for _, v := range th.Stack {
						if !v.Ref && (v.I >= 1<<61 || v.I < -1<<61) {
							big++
						}
					}
				}
				trs = m.Enabled(trs[:0])
				if len(trs) == 0 || m.Step(trs[rng.IntN(len(trs))]) != nil {
					break
				}
			}
		}
		for id, want := range encs {
			got := c.Get(id)
			if string(got) != string(want) {
				t.Fatalf("%s: Get(%d) = %v, want %v", md.path, id, got, want)
			}
			m.Decode(got)
			if again := m.Encode(nil); string(again) != string(want) {
				t.Fatalf("%s: Encode(Decode(Get(%d))) = %v, want %v", md.path, id, again, want)
			}
		}
	}
	if pending == 0 || waiting == 0 || big == 0 {
		t.Errorf("walks met %d threads with pending records, %d waiting, %d big ints: want some of each", pending, waiting, big)
	}
}

// TestCollapse_memoryLimit checks that the collapse store refuses to grow
// past the memory limit and says so: directly, where no pool's table nor
// the state table may grow; and in a search, which then ends with verdict
// limit at its next step, long before the runtime's sampled memory check
// (every 16,384 transitions) would stop it.
func TestCollapse_memoryLimit(t *testing.T) {
	c := explorer.NewCollapseStore()
	c.SetMemoryLimit(1) // any growth would pass it
	for i := 0; i < 40000; i++ {
		enc := binary.AppendUvarint([]byte{1, 0}, uint64(i))
		c.Add(enc, []int32{2, int32(len(enc))})
	}
	if !c.Full() || c.Len() != 40000 {
		t.Errorf("Full() = %v, Len() = %d; want true, 40000", c.Full(), c.Len())
	}
	// The state table's 2^16 slots (at load 0.61 when refused) did not
	// grow; the threads' pool, which the store cannot keep from filling,
	// grew only at load 3/4 (to 2^16 slots).
	if a := c.Account(); a.TableSlots != 1<<16 || a.Pools[1].Components != 40000 || a.Pools[1].Bytes > 40000*56+(1<<16)*16 {
		t.Errorf("account %+v: a table grew before it had to", a)
	}
	p, err := asm.AssembleFile("../benchmarks/models/philo_ok.mcasm", asm.Options{Defines: map[string]int64{"N": 7}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := explorer.Search(m, explorer.Options{Continue: true, Storage: explorer.StorageCollapse, MemoryLimit: 1})
	if res.Verdict != explorer.VerdictLimit || res.Limit != "memory" || res.Stats.Transitions >= 1<<14 {
		t.Errorf("verdict %s (%s limit) after %d states, %d transitions; want limit (memory) before 16,384 transitions",
			res.Verdict, res.Limit, res.Stats.States, res.Stats.Transitions)
	}
}

// TestCollapseStore_grows: the state table keeps no keys in its slots;
// growing it past its first 2^16 slots must hash every vector again, or
// states added before would be stored twice.
func TestCollapseStore_grows(t *testing.T) {
	c := explorer.NewCollapseStore()
	enc := func(i int) ([]byte, []int32) {
		// Two threads' records and an object's, from few distinct values,
		// so that the pools stay small and the vectors differ.
		e := []byte{2, 0}
		cuts := []int32{2}
		for _, v := range []int{i % 61, i / 61 % 53, i / 3233} {
			e = append(e, 1, byte(v))
			cuts = append(cuts, int32(len(e)))
		}
		return e, cuts
	}
	const n = 100000
	for i := 0; i < n; i++ {
		e, cuts := enc(i)
		if id, isNew := c.Add(e, cuts); !isNew || id != int32(i) {
			t.Fatalf("Add(state %d) = %d, %v", i, id, isNew)
		}
	}
	for i := 0; i < n; i++ {
		e, cuts := enc(i)
		if id, isNew := c.Add(e, cuts); isNew || id != int32(i) {
			t.Fatalf("after growing: Add(state %d) again = %d, %v", i, id, isNew)
		}
		if got := c.Get(int32(i)); string(got) != string(e) {
			t.Fatalf("Get(%d) = %v, want %v", i, got, e)
		}
	}
	if a := c.Account(); a.TableSlots < n*16/13 {
		t.Errorf("state table of %d slots for %d states: it did not grow", a.TableSlots, n)
	}
}
