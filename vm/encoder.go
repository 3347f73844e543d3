// The canonical encoder: its numbering, its incremental base, and the collectors that mark by it.

package vm

import "mcvm/heap"

// encoder is the canonical encoder of the active state (state.go),
// with its incremental base (encinc.go), the fingerprint (fingerprint.go)
// and the garbage collectors, which mark by its numbering or keep their
// own memo (gc.go). It reads the state and the program's tables through
// the references set by init and changes neither, but for the
// collectors, which free objects. The machine holds it as a value;
// what needs the rest of the machine (the clock that orders changes to
// threads and snapshots, the version of the state, snapshots, the
// whole-encoding checks) stays on Machine and calls it.
type encoder struct {
	// The machine's, read only: the state and the program's tables.
	st         *State
	layout     *heap.Layout
	staticRef  []bool    // per static: it holds a reference
	refStatics []int     // the reference statics
	syncMethod []bool    // per method: synchronized (its frames hold a lock)
	refSlots   [][]int32 // per class: its reference slots
	check      bool      // Options.Tuning.CheckEncoding

	// canon is the numbering of the last encoding: one of canons, the
	// base's (incEnc.bc) or the other for a state written whole while the
	// base is kept.
	canon  *heap.Canon
	canons [2]heap.Canon
	// canonVer is the version whose reachable objects canon has numbered
	// (the last encoding's); the mark of mark-and-sweep.
	canonVer uint64
	// inc is what the last encoding was made from (see incEnc); noInc
	// makes encode write whole states (checkIncremental).
	inc   incEnc
	noInc bool

	memo memoGC
	// markLive's marks (object i is live if gcMark[i] == gcEpoch) and stack.
	gcMark  []uint32
	gcEpoch uint32
	gcStack []int32
	gcRoots []int32 // scratch of the collectors: the roots
}

// init sets the encoder of machine m's state and tables.
func (e *encoder) init(m *Machine) {
	e.st, e.layout, e.staticRef, e.refStatics, e.syncMethod, e.refSlots = &m.S, m.layout, m.staticRef, m.refStatics, m.syncMethod, m.refSlots
	e.check = m.opts.Tuning.CheckEncoding
	e.canon = &e.canons[0]
	e.inc.lastFirst = !joins(m.prog)
}
