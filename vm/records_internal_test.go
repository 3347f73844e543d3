package vm

import (
	"testing"

	"mcvm/heap"
)

// TestRecords_fields keeps a thread's raw record and an object's, as kept
// transitions do, and compares them again with each field the record
// holds changed: every change must tell them apart, the unchanged record
// must compare equal.
func TestRecords_fields(t *testing.T) {
	base := func() *Thread {
		return &Thread{ID: 1, Status: StatusRunnable, Obj: 5,
			Frames: []Frame{{Method: 1, PC: 3, Base: 0}, {Method: 2, PC: 5, Base: 2, Lock: 4}},
			Stack:  []Value{{I: 4, Ref: true}, {I: -1}, {I: 9}}}
	}
	var r threadRec
	r.set(base())
	if !r.same(base()) {
		t.Fatal("the kept thread record differs from itself")
	}
	threadChanges := map[string]func(th *Thread){
		"status":       func(th *Thread) { th.Status = StatusTerminated },
		"object":       func(th *Thread) { th.Obj = 6 },
		"wait object":  func(th *Thread) { th.WaitObj = 4 },
		"wait count":   func(th *Thread) { th.WaitCount = 1 },
		"method":       func(th *Thread) { th.Frames[0].Method = 0 },
		"lower pc":     func(th *Thread) { th.Frames[0].PC = 4 },
		"base":         func(th *Thread) { th.Frames[1].Base = 1 },
		"lock":         func(th *Thread) { th.Frames[1].Lock = 0 },
		"a frame less": func(th *Thread) { th.Frames = th.Frames[1:] },
		"value":        func(th *Thread) { th.Stack[2].I = 8 },
		"reference":    func(th *Thread) { th.Stack[1].Ref = true },
		"a value less": func(th *Thread) { th.Stack = th.Stack[:2] },
		"pending":      func(th *Thread) { th.Pending = []Pending{{Kind: PendUnwind}} },
	}
	for name, change := range threadChanges {
		th := base()
		change(th)
		if r.same(th) {
			t.Errorf("thread, %s changed: compares equal", name)
		}
	}

	h := &heap.Heap{Data: make([]int64, 16)}
	arr := heap.Object{Class: -1, Kind: heap.KindRefArray, Owner: 1, Count: 1, Off: 4, Len: 3}
	copy(h.Data[4:], []int64{5, 0, 6})
	var o objRec
	o.set(&arr, h)
	if !o.same(&arr, h) {
		t.Fatal("the kept object record differs from itself")
	}
	objChanges := map[string]func(o *heap.Object, d []int64){
		"owner":  func(o *heap.Object, _ []int64) { o.Owner = 2 },
		"count":  func(o *heap.Object, _ []int64) { o.Count = 2 },
		"class":  func(o *heap.Object, _ []int64) { o.Class = 0 },
		"kind":   func(o *heap.Object, _ []int64) { o.Kind = heap.KindIntArray },
		"length": func(o *heap.Object, _ []int64) { o.Len = 2 },
		"slot":   func(_ *heap.Object, d []int64) { d[6] = 5 },
	}
	for name, change := range objChanges {
		x, d := arr, append([]int64(nil), h.Data...)
		change(&x, d)
		if o.same(&x, &heap.Heap{Data: d}) {
			t.Errorf("object, %s changed: compares equal", name)
		}
	}
}
