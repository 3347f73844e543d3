// Executors for objects, fields, statics and arrays.

package vm

import (
	"mcvm/bytecode"
	"mcvm/heap"
)

// object checks that v is a non-null reference; it throws
// NullPointerException for null and records a type error for an int.
func (m *Machine) object(t *Thread, v Value) (heap.Ref, bool) {
	if !v.Ref {
		m.typeError(t, "%s of an int, want a reference", m.next(t).op)
		return 0, false
	}
	if v.I == 0 {
		m.throwNew(t, bytecode.ClassNullPointer)
		return 0, false
	}
	return heap.Ref(v.I), true
}

// threadIDField is the index of Thread.id, the first field of every program.
const threadIDField = 0

// checkKind records a type error unless v has kind k.
func (m *Machine) checkKind(t *Thread, v Value, k bytecode.Kind) bool {
	if v.Ref != (k == bytecode.KindRef) {
		m.typeError(t, "storing a value of the wrong kind into a %s slot", k)
		return false
	}
	return true
}

func execNew(m *Machine, t *Thread, o *op) bool {
	if m.S.Heap.Len() >= m.opts.MaxObjects {
		return m.limitFault(t, LimitObjects, "object limit of %d reached", m.opts.MaxObjects)
	}
	if len(m.S.Heap.Data)+m.layout.Slots(int32(o.a)) > m.opts.MaxSlots {
		return m.limitFault(t, LimitSlots, "heap slot limit of %d reached allocating a %s", m.opts.MaxSlots, m.className(int32(o.a)))
	}
	r := m.allocated(t, m.S.Heap.New(m.layout, int32(o.a)))
	t.Stack = append(t.Stack, Value{I: int64(r), Ref: true})
	t.top().PC++
	return true
}

// fieldSlot returns the slots of r after checking it has field f.
func (m *Machine) fieldSlots(t *Thread, r heap.Ref, f int32) ([]int64, bool) {
	obj := m.S.Heap.Obj(r)
	fc := m.prog.Fields[f].Class
	if obj.Kind != heap.KindObject || !m.sub[int(obj.Class)*m.nclasses+int(fc)] {
		m.typeError(t, "%s has no field %s", m.className(obj.Class), m.prog.FieldName(f))
		return nil, false
	}
	return m.S.Heap.Slots(r), true
}

func execGetfield(m *Machine, t *Thread, o *op) bool {
	r, ok := m.object(t, t.Stack[len(t.Stack)-1])
	if !ok {
		return m.resume
	}
	slots, ok := m.fieldSlots(t, r, int32(o.a))
	if !ok {
		return m.resume
	}
	f := &m.prog.Fields[o.a]
	t.Stack[len(t.Stack)-1] = Value{I: slots[f.Slot], Ref: f.Kind == bytecode.KindRef}
	t.top().PC++
	return true
}

func execPutfield(m *Machine, t *Thread, o *op) bool {
	if o.a == threadIDField {
		return m.typeError(t, "Thread.id is read-only")
	}
	n := len(t.Stack)
	r, ok := m.object(t, t.Stack[n-2])
	if !ok {
		return m.resume
	}
	slots, ok := m.fieldSlots(t, r, int32(o.a))
	if !ok {
		return m.resume
	}
	f := &m.prog.Fields[o.a]
	v := t.Stack[n-1]
	if !m.checkKind(t, v, f.Kind) {
		return m.resume
	}
	slots[f.Slot] = v.I
	m.wrote(heap.Ref(t.Stack[n-2].I))
	if m.invField[o.a] {
		m.invDirty = true
	}
	t.Stack = t.Stack[:n-2]
	t.top().PC++
	return true
}

func execGetstatic(m *Machine, t *Thread, o *op) bool {
	t.Stack = append(t.Stack, Value{I: m.S.Statics[o.a], Ref: m.staticRef[o.a]})
	t.top().PC++
	return true
}

func execPutstatic(m *Machine, t *Thread, o *op) bool {
	v := t.Stack[len(t.Stack)-1]
	if !m.checkKind(t, v, m.prog.Statics[o.a].Kind) {
		return m.resume
	}
	m.S.Statics[o.a] = v.I
	m.wroteStatic()
	if m.invStatic[o.a] {
		m.invDirty = true
	}
	t.Stack = t.Stack[:len(t.Stack)-1]
	t.top().PC++
	return true
}

// instance reports whether v is a non-null instance of class c. Arrays
// are instances of Object only, as in Java.
func (m *Machine) instance(v Value, c int32) bool {
	if v.I == 0 {
		return false
	}
	return m.isA(m.S.Heap.Obj(heap.Ref(v.I)), c)
}

// isA reports whether obj is an instance of class c.
func (m *Machine) isA(obj *heap.Object, c int32) bool {
	if obj.Kind != heap.KindObject {
		return c == bytecode.ClassObject
	}
	return m.sub[int(obj.Class)*m.nclasses+int(c)]
}

func execInstanceof(m *Machine, t *Thread, o *op) bool {
	v := &t.Stack[len(t.Stack)-1]
	if !v.Ref {
		return m.typeError(t, "instanceof of an int")
	}
	*v = Value{I: b2i(m.instance(*v, int32(o.a)))}
	t.top().PC++
	return true
}

func execCheckcast(m *Machine, t *Thread, o *op) bool {
	v := t.Stack[len(t.Stack)-1]
	if !v.Ref {
		return m.typeError(t, "checkcast of an int")
	}
	if v.I != 0 && !m.instance(v, int32(o.a)) {
		return m.throwNew(t, bytecode.ClassClassCast)
	}
	t.top().PC++
	return true
}

func execNewarray(m *Machine, t *Thread, o *op) bool    { return m.newArray(t, heap.KindIntArray) }
func execNewrefarray(m *Machine, t *Thread, o *op) bool { return m.newArray(t, heap.KindRefArray) }

func (m *Machine) newArray(t *Thread, kind heap.ObjKind) bool {
	v := t.Stack[len(t.Stack)-1]
	if v.Ref {
		return m.typeError(t, "array length is a reference")
	}
	if v.I < 0 {
		return m.throwNew(t, bytecode.ClassNegativeArraySize)
	}
	if m.S.Heap.Len() >= m.opts.MaxObjects {
		return m.limitFault(t, LimitObjects, "object limit of %d reached", m.opts.MaxObjects)
	}
	if v.I > int64(m.opts.MaxSlots-len(m.S.Heap.Data)) {
		return m.limitFault(t, LimitSlots, "heap slot limit of %d reached allocating an array of %d elements", m.opts.MaxSlots, v.I)
	}
	r := m.allocated(t, m.S.Heap.NewArray(kind, int(v.I)))
	t.Stack[len(t.Stack)-1] = Value{I: int64(r), Ref: true}
	t.top().PC++
	return true
}

// element checks an array reference and index and returns the array's slots.
func (m *Machine) element(t *Thread, av, iv Value) ([]int64, heap.ObjKind, bool) {
	r, ok := m.object(t, av)
	if !ok {
		return nil, 0, false
	}
	obj := m.S.Heap.Obj(r)
	if obj.Kind == heap.KindObject {
		m.typeError(t, "%s is not an array", m.className(obj.Class))
		return nil, 0, false
	}
	if iv.Ref {
		m.typeError(t, "array index is a reference")
		return nil, 0, false
	}
	if iv.I < 0 || iv.I >= int64(obj.Len) {
		m.throwNew(t, bytecode.ClassIndexOutOfBounds)
		return nil, 0, false
	}
	return m.S.Heap.Slots(r), obj.Kind, true
}

func execArrload(m *Machine, t *Thread, o *op) bool {
	n := len(t.Stack)
	iv := t.Stack[n-1]
	slots, kind, ok := m.element(t, t.Stack[n-2], iv)
	if !ok {
		return m.resume
	}
	t.Stack[n-2] = Value{I: slots[iv.I], Ref: kind == heap.KindRefArray}
	t.Stack = t.Stack[:n-1]
	t.top().PC++
	return true
}

func execArrstore(m *Machine, t *Thread, o *op) bool {
	n := len(t.Stack)
	iv, v := t.Stack[n-2], t.Stack[n-1]
	slots, kind, ok := m.element(t, t.Stack[n-3], iv)
	if !ok {
		return m.resume
	}
	if v.Ref != (kind == heap.KindRefArray) {
		return m.typeError(t, "storing a value of the wrong kind into an array")
	}
	slots[iv.I] = v.I
	m.wrote(heap.Ref(t.Stack[n-3].I))
	if m.invArrays {
		m.invDirty = true
	}
	t.Stack = t.Stack[:n-3]
	t.top().PC++
	return true
}

func execArrlen(m *Machine, t *Thread, o *op) bool {
	n := len(t.Stack)
	r, ok := m.object(t, t.Stack[n-1])
	if !ok {
		return m.resume
	}
	obj := m.S.Heap.Obj(r)
	if obj.Kind == heap.KindObject {
		return m.typeError(t, "arrlen of %s, not an array", m.className(obj.Class))
	}
	t.Stack[n-1] = Value{I: int64(obj.Len)}
	t.top().PC++
	return true
}
