package vm

import (
	"testing"

	"mcvm/heap"
)

// TestMemoTerm_fields keeps a thread's term and an object's term and asks
// for them again with each field the record depends on changed: every
// change must miss, the unchanged record must hit. For the objects, the
// changed record is put at the kept one's place (an owner that collides
// in the table), so that the comparison itself is what tells them apart.
func TestMemoTerm_fields(t *testing.T) {
	in := &incEnc{gen: 3, memo: make([]threadMemo, 4*memoWays), objMemo: new([objMemoSize]objMemo)}
	obj := heap.Object{Class: 7, Owner: 2, Count: 1}
	base := func() *Thread {
		return &Thread{ID: 1, Status: StatusRunnable, Obj: 5,
			Frames: []Frame{{Method: 1, PC: 3, Base: 0}, {Method: 2, PC: 5, Base: 2, Lock: 4}},
			Stack:  []Value{{I: 4, Ref: true}, {I: -1}, {I: 9}}}
	}
	in.keepTerm(2, base(), &obj, 0xabc)
	if term, ok := in.memoTerm(2, base(), &obj); !ok || term != 0xabc {
		t.Fatalf("the kept record: %x, %v", term, ok)
	}
	threadChanges := map[string]func(th *Thread, o *heap.Object, k *int32, in *incEnc){
		"component":   func(_ *Thread, _ *heap.Object, k *int32, _ *incEnc) { *k = 1 },
		"generation":  func(_ *Thread, _ *heap.Object, _ *int32, in *incEnc) { in.gen++ },
		"status":      func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) { th.Status = StatusTerminated },
		"object":      func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) { th.Obj = 6 },
		"wait object": func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) { th.WaitObj = 4 },
		"wait count":  func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) { th.WaitCount = 1 },
		"owner":       func(_ *Thread, o *heap.Object, _ *int32, _ *incEnc) { o.Owner = 3 },
		"count":       func(_ *Thread, o *heap.Object, _ *int32, _ *incEnc) { o.Count = 2 },
		"method":      func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) { th.Frames[0].Method = 0 },
		"lower pc":    func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) { th.Frames[0].PC = 4 },
		"base":        func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) { th.Frames[1].Base = 1 },
		"lock":        func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) { th.Frames[1].Lock = 0 },
		"a frame less": func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) {
			th.Frames = th.Frames[1:]
		},
		"value":     func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) { th.Stack[2].I = 8 },
		"reference": func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) { th.Stack[1].Ref = true },
		"a value less": func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) {
			th.Stack = th.Stack[:2]
		},
		"pending": func(th *Thread, _ *heap.Object, _ *int32, _ *incEnc) {
			th.Pending = []Pending{{Kind: PendUnwind}}
		},
	}
	for name, change := range threadChanges {
		th, o, k, gen := base(), obj, int32(2), in.gen
		change(th, &o, &k, in)
		if _, ok := in.memoTerm(k, th, &o); ok {
			t.Errorf("thread, %s changed: found kept", name)
		}
		in.gen = gen
	}

	h := &heap.Heap{Data: make([]int64, 16)}
	arr := heap.Object{Class: -1, Kind: heap.KindRefArray, Owner: 1, Count: 1, Off: 4, Len: 3}
	copy(h.Data[4:], []int64{5, 0, 6})
	in.keepObjTerm(9, &arr, h, 0xdef)
	if term, ok := in.objTerm(9, &arr, h); !ok || term != 0xdef {
		t.Fatalf("the kept object: %x, %v", term, ok)
	}
	// An owner other than arr's whose record has arr's place.
	collide := int32(-1)
	for w := int32(2); w < 1<<20; w++ {
		o := arr
		o.Owner = w
		if in.objAt(9, &o) == in.objAt(9, &arr) {
			collide = w
			break
		}
	}
	if collide < 0 {
		t.Fatal("no owner collides with the kept object's place")
	}
	objChanges := map[string]func(o *heap.Object, d []int64, k *int32, in *incEnc){
		"generation": func(_ *heap.Object, _ []int64, _ *int32, in *incEnc) { in.gen++ },
		"owner":      func(o *heap.Object, _ []int64, _ *int32, _ *incEnc) { o.Owner = collide },
		"count":      func(o *heap.Object, _ []int64, _ *int32, _ *incEnc) { o.Count = 2 },
		"class":      func(o *heap.Object, _ []int64, _ *int32, _ *incEnc) { o.Class = 0 },
		"kind":       func(o *heap.Object, _ []int64, _ *int32, _ *incEnc) { o.Kind = heap.KindIntArray },
		"length":     func(o *heap.Object, _ []int64, _ *int32, _ *incEnc) { o.Len = 2 },
		"slot":       func(_ *heap.Object, d []int64, _ *int32, _ *incEnc) { d[6] = 5 },
	}
	for name, change := range objChanges {
		o, d, k, gen := arr, append([]int64(nil), h.Data...), int32(9), in.gen
		change(&o, d, &k, in)
		if in.objAt(k, &o) != in.objAt(9, &arr) {
			t.Fatalf("object, %s changed: another place", name)
		}
		if _, ok := in.objTerm(k, &o, &heap.Heap{Data: d}); ok {
			t.Errorf("object, %s changed: found kept", name)
		}
		in.gen = gen
	}
	// Another component at the kept one's place.
	for k := int32(10); k < 1<<20; k++ {
		if in.objAt(k, &arr) == in.objAt(9, &arr) {
			if _, ok := in.objTerm(k, &arr, h); ok {
				t.Errorf("component %d found object 9's term", k)
			}
			return
		}
	}
	t.Error("no component collides with the kept object's place")
}
