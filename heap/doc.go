// Package heap models the objects and arrays of one program state: a flat
// slab of int64 slots with a header per object (class or array kind, monitor
// owner and entry count). It canonicalises a heap given ordered roots
// (objects renumbered by a deterministic breadth-first traversal, so that
// allocation order and garbage do not distinguish states) and encodes the
// reachable objects; unreachable objects are thereby collected.
//
// Invariants: a Ref is 1 + an index into Heap.Objs, 0 is null; the slots of
// object r are Data[Off:Off+Len]; which slots hold references is a
// property of the class (Layout) or the array kind, never of the value.
//
// heap never sees threads: the VM supplies the roots. It imports only
// bytecode.
package heap
