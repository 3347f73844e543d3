// Readable counterexamples: what each step of a trace did, with objects
// named by class and allocation order and locals by their source names.
//
// All of it is computed when a trace is printed, by replaying the path
// (Describe): the search itself records only threads and choices.

package explorer

import (
	"fmt"
	"strconv"
	"strings"

	"mcvm/bytecode"
	"mcvm/heap"
	"mcvm/vm"
)

// Change is one value a step changed, or one value of a state: a local
// ("i"), a field ("Fork#2.owner"), a static ("Main.count") or an array
// element ("int[]#1[3]"), and its value ("3", "Fork#2", "null"). A new
// object is a Change whose Name is the object and whose Value is "new".
type Change struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// FrameState is one frame of a thread: its method, where it is, and its
// locals by name.
type FrameState struct {
	Method string   `json:"method"`
	Pos    string   `json:"pos"`
	Locals []Change `json:"locals"`
}

// ThreadState is a thread of a state for people: its frames innermost
// first, the monitors it holds and the objects its frames reach with
// their fields.
type ThreadState struct {
	Thread  int32  `json:"thread"`
	Status  string `json:"status"`
	Blocker string `json:"blocker,omitempty"`
	// Next is the operation a blocked or notified thread waits to do,
	// e.g. "monitorenter Fork#2".
	Next    string       `json:"next,omitempty"`
	Frames  []FrameState `json:"frames"`
	Holds   []string     `json:"holds,omitempty"`
	Objects []ObjState   `json:"objects,omitempty"`
}

// ObjState is an object and its fields (or an array and its elements).
type ObjState struct {
	Name   string   `json:"name"`
	Owner  int32    `json:"monitor_owner"` // the thread holding its monitor, -1 if none
	Fields []Change `json:"fields"`
}

// Trace is a counterexample for people: its steps, the fault at its end,
// and the state of the threads the fault involves (see Describe).
type Trace struct {
	Steps []Step
	Fault *vm.Fault
	// Involved are, at the end, the thread that faulted, or for a
	// deadlock or invariant violation every thread that has not ended.
	Involved []ThreadState
	// States, when Describe was asked for them, holds after each step
	// the state of every thread (for the HTML report).
	States [][]ThreadState
}

// maxReached bounds the objects listed as reached from a thread.
const maxReached = 32

// namer names the objects of a replay: "Fork#2" is the second Fork
// allocated, "int[]#1" the first int array, "thread 3" thread 3's object.
// Replays do not collect garbage, so a reference names one object for the
// whole replay and objects are allocated at the end of the heap.
type namer struct {
	p      *bytecode.Program
	layout *heap.Layout
	names  []string // per ref-1
	count  map[string]int
	fields [][]string // per class: slot -> field name
	ghost  [][]bool   // per class: slot -> a ghost field's
}

func newNamer(p *bytecode.Program) *namer {
	n := &namer{p: p, layout: heap.NewLayout(p), count: map[string]int{}}
	n.fields = make([][]string, len(p.Classes))
	n.ghost = make([][]bool, len(p.Classes))
	for c := range p.Classes {
		n.fields[c] = make([]string, p.Classes[c].Slots)
		n.ghost[c] = make([]bool, p.Classes[c].Slots)
	}
	for _, f := range p.Fields {
		for c := range p.Classes {
			if p.IsSubclass(int32(c), f.Class) && int(f.Slot) < len(n.fields[c]) {
				n.fields[c][f.Slot] = f.Name
				n.ghost[c][f.Slot] = f.Ghost()
			}
		}
	}
	return n
}

// update names the objects allocated since the last call, in order.
func (n *namer) update(h *heap.Heap) {
	for i := len(n.names); i < len(h.Objs); i++ {
		o := &h.Objs[i]
		var base string
		switch o.Kind {
		case heap.KindObject:
			if o.Class == bytecode.ClassThread && o.Len > 0 {
				n.names = append(n.names, "thread "+strconv.FormatInt(h.Data[o.Off], 10))
				continue
			}
			base = n.p.Classes[o.Class].Name
		case heap.KindIntArray:
			base = "int[]"
		case heap.KindRefArray:
			base = "ref[]"
		default:
			base = "free"
		}
		n.count[base]++
		n.names = append(n.names, base+"#"+strconv.Itoa(n.count[base]))
	}
}

// obj names reference r.
func (n *namer) obj(r heap.Ref) string {
	switch {
	case r == heap.Null:
		return "null"
	case int(r) <= len(n.names):
		return n.names[r-1]
	}
	return "ref " + strconv.Itoa(int(r))
}

// value formats a local or operand.
func (n *namer) value(v vm.Value) string {
	if v.Ref {
		return n.obj(heap.Ref(v.I))
	}
	return strconv.FormatInt(v.I, 10)
}

// slotIsRef reports whether slot j of object o holds a reference.
func (n *namer) slotIsRef(o *heap.Object, j int) bool {
	switch o.Kind {
	case heap.KindRefArray:
		return true
	case heap.KindObject:
		return n.layout.IsRef(o.Class, j)
	}
	return false
}

// slotName names slot j of object r: "Fork#2.owner" or "int[]#1[3]".
func (n *namer) slotName(h *heap.Heap, r heap.Ref, j int) string {
	o := h.Obj(r)
	if o.Kind == heap.KindObject {
		name := ""
		if f := n.fields[o.Class]; j < len(f) {
			name = f[j]
		}
		if name == "" {
			name = "slot" + strconv.Itoa(j)
		}
		return n.obj(r) + "." + name
	}
	return n.obj(r) + "[" + strconv.Itoa(j) + "]"
}

// slotValue formats slot j of object r.
func (n *namer) slotValue(h *heap.Heap, r heap.Ref, j int) string {
	o := h.Obj(r)
	x := h.Slots(r)[j]
	if n.slotIsRef(o, j) {
		return n.obj(heap.Ref(x))
	}
	return strconv.FormatInt(x, 10)
}

// staticValue formats static s.
func (n *namer) staticValue(s *vm.State, i int) string {
	x := s.Statics[i]
	if n.p.Statics[i].Kind == bytecode.KindRef {
		return n.obj(heap.Ref(x))
	}
	return strconv.FormatInt(x, 10)
}

// before is what describe keeps of the state before a step to tell what
// the step changed.
type before struct {
	frames  []vm.Frame
	stack   []vm.Value
	statics []int64
	objs    []heap.Object
	data    []int64
	status  []vm.Status
}

func (b *before) save(s *vm.State, t *vm.Thread) {
	b.frames = append(b.frames[:0], t.Frames...)
	b.stack = append(b.stack[:0], t.Stack...)
	b.statics = append(b.statics[:0], s.Statics...)
	b.objs = append(b.objs[:0], s.Heap.Objs...)
	b.data = append(b.data[:0], s.Heap.Data...)
	b.status = b.status[:0]
	for _, u := range s.Threads {
		b.status = append(b.status, u.Status)
	}
}

// Describe replays path like Replay and describes each step: the shared
// operation and what it did (Step.Op, Step.Woke), the values it changed
// (Step.Changes) and its source line; and, at the end, the threads the
// fault involves. With states, it also records every thread's state after
// each step. The machine is left in the path's last state.
func Describe(m *vm.Machine, path []vm.Trans, states bool) (*Trace, error) {
	p := m.Program()
	n := newNamer(p)
	m.Init()
	n.update(&m.S.Heap)
	tr := &Trace{}
	var buf []vm.Trans
	var b before
	begun := map[int32]bool{}
	for i, t := range path {
		var k int32
		var err error
		if buf, k, err = enabledStep(m, buf, i, t); err != nil {
			return tr, err
		}
		th := m.S.Threads[t.Thread]
		st := Step{Thread: t.Thread, Choice: -1, Choices: k}
		if meth, pc := m.Where(t.Thread); meth >= 0 {
			in := p.Methods[meth].Code[pc]
			pos := p.InstrPos(meth, pc)
			st.Method, st.PC = p.MethodName(meth), pc
			st.Instr = bytecode.FormatInstr(p, in)
			st.Pos = p.PosString(pos)
			if pos.Line > 0 && pos.File >= 0 && int(pos.File) < len(p.Files) {
				st.File, st.Line = p.Files[pos.File], pos.Line
			}
			if in.Op.Is(bytecode.FlagChoice) {
				st.Choice = t.Choice
			}
		}
		st.Resume = th.Status == vm.StatusNotified
		if st.Resume {
			st.Instr, st.Choice = "(reacquire monitor after wait)", -1
			if w := m.WaitPC(t.Thread); w >= 0 {
				meth, _ := m.Where(t.Thread)
				pos := p.InstrPos(meth, w)
				st.Pos = p.PosString(pos)
				if pos.Line > 0 && int(pos.File) < len(p.Files) {
					st.File, st.Line = p.Files[pos.File], pos.Line
				}
			}
		}
		st.Peer = -1
		st.Op = n.op(m, th, t, !begun[t.Thread], &st)
		begun[t.Thread] = true
		b.save(&m.S, th)
		f := m.Step(t)
		n.update(&m.S.Heap)
		for id, s := range b.status {
			if s == vm.StatusWaiting && m.S.Threads[id].Status == vm.StatusNotified {
				st.Woke = append(st.Woke, int32(id))
			}
		}
		switch {
		case len(st.Woke) > 0:
			ids := make([]string, len(st.Woke))
			for j, w := range st.Woke {
				ids[j] = strconv.Itoa(int(w))
			}
			st.Op += ": wakes thread " + strings.Join(ids, ", thread ")
		case strings.HasPrefix(st.Op, "notify"):
			st.Op += ": no thread waits"
		}
		st.Changes = n.changes(m, &b, th)
		if g := n.ghostWrites(m, &b); g != "" {
			st.Op += "; " + g
		}
		tr.Steps = append(tr.Steps, st)
		if states {
			tr.States = append(tr.States, n.threads(m, nil))
		}
		if f != nil {
			if i != len(path)-1 {
				return tr, fmt.Errorf("%w: step %d faults before the end of the trail", ErrReplay, i+1)
			}
			c := *f
			tr.Fault = &c
			break
		}
	}
	if tr.Fault == nil {
		if f := m.CheckInvariants(); f != nil {
			c := *f
			tr.Fault = &c
		} else if len(m.Enabled(buf[:0])) == 0 && m.Alive() {
			tr.Fault = DeadlockFault()
		}
	}
	if tr.Fault != nil {
		var only []int32
		if tr.Fault.Thread >= 0 && tr.Fault.Kind != vm.FaultInvariant && tr.Fault.Kind != vm.FaultDeadlock {
			only = []int32{tr.Fault.Thread}
		}
		tr.Involved = n.threads(m, only)
	}
	return tr, nil
}

// op describes the shared operation thread t is about to begin its
// transition with, before it runs (a value read is the one there now).
func (n *namer) op(m *vm.Machine, t *vm.Thread, tr vm.Trans, first bool, st *Step) string {
	p := m.Program()
	s := &m.S
	// mark records the kind of access and its target in st, if any.
	mark := func(access, target string, peer int64) {
		if st != nil {
			st.Access, st.Target, st.Peer = access, target, int32(peer)
		}
	}
	if t.Status == vm.StatusNotified {
		mark("acquire", n.obj(t.WaitObj), -1)
		return "reacquires " + n.obj(t.WaitObj) + " after wait"
	}
	if len(t.Frames) == 0 {
		return ""
	}
	f := t.Frames[len(t.Frames)-1]
	meth := &p.Methods[f.Method]
	in := meth.Code[f.PC]
	peek := func(d int) vm.Value {
		if d < 1 || len(t.Stack) < d {
			return vm.Value{}
		}
		return t.Stack[len(t.Stack)-d]
	}
	prefix := ""
	if first && f.PC == 0 && len(t.Frames) == 1 {
		var args []string
		for l := int32(0); l < meth.Args && int(f.Base+l) < len(t.Stack); l++ {
			args = append(args, p.LocalName(f.Method, l)+"="+n.value(t.Stack[f.Base+l]))
		}
		prefix = "begins " + p.MethodName(f.Method) + "(" + strings.Join(args, ", ") + ")"
		mark("begin", "", -1)
		if !in.Op.Is(bytecode.FlagSched) || p.Hidden(in) {
			return prefix
		}
		prefix += "; "
	}
	valid := func(v vm.Value) bool { return v.Ref && s.Heap.Valid(heap.Ref(v.I)) }
	switch in.Op {
	case bytecode.OpGetfield:
		r := peek(1)
		if !valid(r) {
			break
		}
		rr := heap.Ref(r.I)
		mark("read", n.obj(rr)+"."+p.Fields[in.A].Name, -1)
		return prefix + n.obj(rr) + "." + p.Fields[in.A].Name + " -> " + n.slotValue(&s.Heap, rr, int(p.Fields[in.A].Slot))
	case bytecode.OpPutfield:
		r, v := peek(2), peek(1)
		if valid(r) {
			mark("write", n.obj(heap.Ref(r.I))+"."+p.Fields[in.A].Name, -1)
			return prefix + n.obj(heap.Ref(r.I)) + "." + p.Fields[in.A].Name + " := " + n.value(v)
		}
	case bytecode.OpGetstatic:
		mark("read", p.StaticName(int32(in.A)), -1)
		return prefix + p.StaticName(int32(in.A)) + " -> " + n.staticValue(s, int(in.A))
	case bytecode.OpPutstatic:
		mark("write", p.StaticName(int32(in.A)), -1)
		return prefix + p.StaticName(int32(in.A)) + " := " + n.value(peek(1))
	case bytecode.OpArrload:
		r, i := peek(2), peek(1)
		if valid(r) {
			rr := heap.Ref(r.I)
			if i.I >= 0 && i.I < int64(s.Heap.Obj(rr).Len) {
				mark("read", n.slotName(&s.Heap, rr, int(i.I)), -1)
				return prefix + n.slotName(&s.Heap, rr, int(i.I)) + " -> " + n.slotValue(&s.Heap, rr, int(i.I))
			}
		}
	case bytecode.OpArrstore:
		r, i, v := peek(3), peek(2), peek(1)
		if valid(r) && i.I >= 0 && i.I < int64(s.Heap.Obj(heap.Ref(r.I)).Len) {
			mark("write", n.slotName(&s.Heap, heap.Ref(r.I), int(i.I)), -1)
			return prefix + n.slotName(&s.Heap, heap.Ref(r.I), int(i.I)) + " := " + n.value(v)
		}
	case bytecode.OpMonitorenter, bytecode.OpMonitorexit, bytecode.OpWait, bytecode.OpNotify, bytecode.OpNotifyall:
		r := peek(1)
		if !valid(r) {
			break
		}
		o := s.Heap.Obj(heap.Ref(r.I))
		d := in.Op.String() + " " + n.obj(heap.Ref(r.I))
		mark(map[bytecode.Opcode]string{bytecode.OpMonitorenter: "acquire", bytecode.OpMonitorexit: "release",
			bytecode.OpWait: "wait", bytecode.OpNotify: "notify", bytecode.OpNotifyall: "notify"}[in.Op], n.obj(heap.Ref(r.I)), -1)
		switch {
		case in.Op == bytecode.OpMonitorenter && o.Owner == t.ID+1:
			d += fmt.Sprintf(" (again: held %d times)", o.Count+1)
		case in.Op == bytecode.OpMonitorexit && o.Owner == t.ID+1 && o.Count > 1:
			d += fmt.Sprintf(" (still held %d times)", o.Count-1)
		case in.Op == bytecode.OpWait:
			d = "wait on " + n.obj(heap.Ref(r.I)) + " (releases its monitor)"
		}
		return prefix + d
	case bytecode.OpStart, bytecode.OpJoin:
		v := peek(1)
		if !valid(v) {
			break
		}
		o := s.Heap.Obj(heap.Ref(v.I))
		if o.Kind != heap.KindObject || o.Class != bytecode.ClassThread {
			break
		}
		id := s.Heap.Slots(heap.Ref(v.I))[0]
		mark(in.Op.String(), "thread "+strconv.FormatInt(id, 10), id)
		if in.Op == bytecode.OpJoin {
			return prefix + "join thread " + strconv.FormatInt(id, 10) + " (it has ended)"
		}
		d := prefix + "start thread " + strconv.FormatInt(id, 10)
		if mi, _ := m.Where(int32(id)); mi >= 0 {
			d += " (" + p.MethodName(mi) + ")"
		}
		return d
	case bytecode.OpChoose:
		mark("choose", "", -1)
		return prefix + fmt.Sprintf("choose -> %d (of 0..%d)", tr.Choice, in.A-1)
	case bytecode.OpChooseb:
		mark("choose", "", -1)
		return prefix + fmt.Sprintf("chooseb -> %d", tr.Choice)
	case bytecode.OpInvokestatic, bytecode.OpInvokevirtual:
		callee := int32(in.A)
		args := int(p.Methods[callee].Args)
		recv := peek(args)
		if in.Op == bytecode.OpInvokevirtual && valid(recv) {
			if o := s.Heap.Obj(heap.Ref(recv.I)); o.Kind == heap.KindObject {
				if c := p.FindMethod(o.Class, p.Methods[callee].Name); c >= 0 {
					callee = c
				}
			}
		}
		d := "call " + p.MethodName(callee)
		if p.Methods[callee].Sync() {
			if p.Methods[callee].Static() {
				d += " (synchronized: class " + p.Classes[p.Methods[callee].Class].Name + "'s monitor)"
			} else if valid(recv) {
				d += " (synchronized): monitorenter " + n.obj(heap.Ref(recv.I))
				mark("acquire", n.obj(heap.Ref(recv.I)), -1)
			}
		}
		return prefix + d
	case bytecode.OpReturn, bytecode.OpRetval:
		d := "return from " + p.MethodName(f.Method)
		if f.Lock != 0 {
			d += ": monitorexit " + n.obj(f.Lock)
			mark("release", n.obj(f.Lock), -1)
		}
		if len(t.Frames) == 1 {
			if f.Lock == 0 {
				mark("end", "", -1)
			}
			d += "; thread " + strconv.Itoa(int(t.ID)) + " ends"
		}
		return prefix + d
	case bytecode.OpYield:
		return prefix + "yield"
	case bytecode.OpAssert:
		if peek(1).I == 0 {
			return prefix + "assert fails"
		}
		return prefix + "assert holds"
	}
	return prefix + bytecode.FormatInstr(p, in)
}

// ghostWrites describes the ghost fields and statics the last step
// changed ("ghost S.writes := 2"), which its first instruction, the one
// Step.Op describes, need not show: ghost writes are not scheduling
// points, so they happen inside transitions that begin elsewhere.
func (n *namer) ghostWrites(m *vm.Machine, b *before) string {
	p := m.Program()
	s := &m.S
	var out []string
	for i := range s.Statics {
		if p.Statics[i].Ghost() && i < len(b.statics) && s.Statics[i] != b.statics[i] {
			out = append(out, "ghost "+p.StaticName(int32(i))+" := "+n.staticValue(s, i))
		}
	}
	h := &s.Heap
	for i := range h.Objs {
		r := heap.Ref(i + 1)
		o := &h.Objs[i]
		if o.Kind != heap.KindObject || int(o.Class) >= len(n.ghost) {
			continue
		}
		g := n.ghost[o.Class]
		slots := h.Slots(r)
		for j := range slots {
			if j >= len(g) || !g[j] {
				continue
			}
			old := int64(0) // a new object's fields start at 0
			if i < len(b.objs) {
				if bo := b.objs[i]; bo.Off == o.Off && bo.Len == o.Len && int(o.Off)+j < len(b.data) {
					old = b.data[int(o.Off)+j]
				}
			}
			if slots[j] != old {
				out = append(out, "ghost "+n.slotName(h, r, j)+" := "+n.slotValue(h, r, j))
			}
		}
	}
	return strings.Join(out, ", ")
}

// changes lists what the step of thread t changed: its locals (frames it
// kept), then statics, then objects by allocation order, new ones as
// "new".
func (n *namer) changes(m *vm.Machine, b *before, t *vm.Thread) []Change {
	p := m.Program()
	s := &m.S
	var out []Change
	for fi := range t.Frames {
		if fi >= len(b.frames) {
			break
		}
		f, g := t.Frames[fi], b.frames[fi]
		if f.Method != g.Method || f.Base != g.Base {
			break
		}
		nl := p.Methods[f.Method].Locals
		for l := int32(0); l < nl; l++ {
			i := int(f.Base + l)
			if i >= len(t.Stack) || i >= len(b.stack) {
				break
			}
			if t.Stack[i] != b.stack[i] {
				out = append(out, Change{p.LocalName(f.Method, l), n.value(t.Stack[i])})
			}
		}
	}
	for i := range s.Statics {
		if i < len(b.statics) && s.Statics[i] != b.statics[i] {
			out = append(out, Change{p.StaticName(int32(i)), n.staticValue(s, i)})
		}
	}
	h := &s.Heap
	for i := range h.Objs {
		r := heap.Ref(i + 1)
		o := &h.Objs[i]
		if o.Kind == heap.KindFree {
			continue
		}
		if i >= len(b.objs) {
			v := "new"
			if o.Kind != heap.KindObject {
				v = "new, length " + strconv.Itoa(int(o.Len))
			}
			out = append(out, Change{n.obj(r), v})
			continue
		}
		old := b.objs[i]
		if old.Off != o.Off || old.Len != o.Len || int(o.Off+o.Len) > len(b.data) {
			continue
		}
		slots := h.Slots(r)
		for j := range slots {
			if slots[j] != b.data[int(o.Off)+j] {
				out = append(out, Change{n.slotName(h, r, j), n.slotValue(h, r, j)})
			}
		}
	}
	return out
}

// threads describes the threads of the machine's state: those in only,
// or, when only is nil, every thread that has not ended.
func (n *namer) threads(m *vm.Machine, only []int32) []ThreadState {
	p := m.Program()
	s := &m.S
	var out []ThreadState
	for _, t := range s.Threads {
		if only != nil {
			found := false
			for _, id := range only {
				found = found || id == t.ID
			}
			if !found {
				continue
			}
		} else if t.Status == vm.StatusTerminated || t.Status == vm.StatusNew {
			continue
		}
		ts := ThreadState{Thread: t.ID, Status: t.Status.String(), Blocker: m.Blocker(t.ID), Frames: []FrameState{}}
		if ts.Blocker != "" && t.Status == vm.StatusRunnable {
			ts.Status = "blocked"
		}
		if t.Status == vm.StatusNotified || ts.Status == "blocked" {
			ts.Next = n.op(m, t, vm.Trans{Thread: t.ID}, false, nil)
		}
		var roots []heap.Ref
		for fi := len(t.Frames) - 1; fi >= 0; fi-- {
			f := t.Frames[fi]
			pc := f.PC
			if fi == len(t.Frames)-1 {
				if w := m.WaitPC(t.ID); w >= 0 {
					pc = w
				}
			}
			fs := FrameState{Method: p.MethodName(f.Method), Pos: p.PosString(p.InstrPos(f.Method, pc)), Locals: []Change{}}
			for l := int32(0); l < p.Methods[f.Method].Locals && int(f.Base+l) < len(t.Stack); l++ {
				v := t.Stack[f.Base+l]
				fs.Locals = append(fs.Locals, Change{p.LocalName(f.Method, l), n.value(v)})
				if v.Ref && s.Heap.Valid(heap.Ref(v.I)) {
					roots = append(roots, heap.Ref(v.I))
				}
			}
			ts.Frames = append(ts.Frames, fs)
		}
		for i := range s.Heap.Objs {
			o := &s.Heap.Objs[i]
			if o.Kind != heap.KindFree && o.Owner == t.ID+1 {
				h := n.obj(heap.Ref(i + 1))
				if o.Count > 1 {
					h += fmt.Sprintf(" (%d times)", o.Count)
				}
				ts.Holds = append(ts.Holds, h)
			}
		}
		ts.Objects = n.reached(s, roots)
		out = append(out, ts)
	}
	return out
}

// reached lists the objects reachable from roots, breadth first, at most
// maxReached of them; Thread objects are not listed.
func (n *namer) reached(s *vm.State, roots []heap.Ref) []ObjState {
	h := &s.Heap
	seen := map[heap.Ref]bool{}
	queue := append([]heap.Ref(nil), roots...)
	var out []ObjState
	for len(queue) > 0 && len(out) < maxReached {
		r := queue[0]
		queue = queue[1:]
		if seen[r] || !h.Valid(r) {
			continue
		}
		seen[r] = true
		o := h.Obj(r)
		if o.Kind == heap.KindFree || o.Kind == heap.KindObject && o.Class == bytecode.ClassThread {
			continue
		}
		os := ObjState{Name: n.obj(r), Owner: o.Owner - 1, Fields: []Change{}}
		for j, x := range h.Slots(r) {
			name := n.slotName(h, r, j)
			os.Fields = append(os.Fields, Change{strings.TrimPrefix(name[len(os.Name):], "."), n.slotValue(h, r, j)})
			if n.slotIsRef(o, j) && x != 0 {
				queue = append(queue, heap.Ref(x))
			}
		}
		out = append(out, os)
	}
	return out
}
