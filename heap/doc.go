// Package heap models the objects and arrays of one program state: a flat
// slab of int64 slots with a header per object (class or array kind,
// monitor owner and entry count). It canonicalises a heap given ordered
// roots (objects renumbered by a deterministic breadth-first traversal, so
// that allocation order and garbage do not distinguish states), encodes
// the reachable objects, and computes the terms a state's fingerprint sums
// (term.go). docs/design.md, "The state and its canonical form", gives
// the reasons.
//
// Canon serves the vm's incremental encoder too: Verify, Verified and
// VerifiedPrefix check that a component written again with an earlier
// numbering refers only to objects numbered before it or, in order, to
// exactly those that numbering introduced from it (or a prefix of them),
// and RefersPast checks that no object up to a prefix refers past it.
//
// Freed objects (Free) stay in Objs with kind KindFree, on free lists by
// size whose heads and count are the first Reserved words of Data, so that
// copying, diffing and restoring Data for snapshots carries them; the next
// allocation of as many slots reuses the most recently freed.
//
// Invariants: a Ref is 1 + an index into Heap.Objs, 0 is null; the slots of
// object r are Data[Off:Off+Len], never below Reserved; which slots hold
// references is a property of the class (Layout) or the array kind, never
// of the value. A term depends on its component's position and the
// integers its record holds, so it is the same on every machine.
//
// heap never sees threads: the VM supplies the roots. It imports only
// bytecode.
package heap
