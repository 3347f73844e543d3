// FP maps of certified tasks: their file format and the merge that checks them together.

package scc

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/cespare/xxhash/v2"

	"mcvm/explorer"
)

// FPMap is what certifying one task leaves behind: for every state ID it
// met, the fingerprint and whether the task explored it (defined) or only
// reached it (a state of another region, or of its init path), with the
// task's figures.
//
// File format: "MCVMFPM\n" version:uvarint digest:u64le trustful task tasks root
// states transitions revisits errors instructions chained chainedReduced
// (uvarints) verdict:str count:uvarint then count times (idDelta:uvarint
// fp:u64le defined:byte), IDs ascending, then checksum:u64le, the XXH64 of
// every byte before it.
type FPMap struct {
	Digest       uint64
	Trustful     bool // a trustful task: no fingerprints, figures only
	Task, Tasks  int
	Root         int32
	States       int64
	Transitions  int64
	Revisits     int64
	Errors       int64
	Instructions int64
	// With chains: the transitions the task ran from states it did not
	// store, and how many of them from reduced states (explorer.Stats).
	Chained, ChainedReduced int64
	Verdict                 string
	IDs                     []int32
	FPs                     []uint64
	Defined                 []bool
}

const fpMagic = "MCVMFPM\n"

// FPMapVersion is the version of the FP map format written and read
// (independent of the script format's).
// Version 2 added the chained transitions' counts; version 3 holds the
// fingerprints combined from component hashes (vm.Fingerprint), which
// differ from version 2's hashes of whole encodings, so that maps of the
// two kinds are never merged; version 4's fingerprints are of encodings
// whose thread records run from the last thread to the first in a
// program without join (they ran from the first), which differ from
// version 3's; version 5's terms hash the integers each record holds
// instead of its bytes (heap.TermAdd), which differ from version 4's;
// version 6 ends with a checksum. Older versions are refused: a map is
// made and merged in one certification, and a merge must rest on checked
// files only.
const FPMapVersion = 6

// fpChecksumLen is the size of an FP map's checksum.
const fpChecksumLen = 8

func (c *certifier) fpMap() *FPMap {
	st := c.res.Stats
	fm := &FPMap{Digest: c.s.Digest, Trustful: c.trust, Task: c.s.Task, Tasks: c.s.Tasks, Root: c.s.Root,
		States: st.States, Transitions: st.Transitions, Revisits: st.Revisits, Errors: st.Errors,
		Instructions: st.Instructions, Chained: st.Chained, ChainedReduced: st.ChainedReduced, Verdict: c.res.Verdict.String()}
	if c.trust {
		return fm // figures only
	}
	fm.IDs = c.fpIDs()
	fm.FPs = make([]uint64, len(fm.IDs))
	fm.Defined = make([]bool, len(fm.IDs))
	for i, id := range fm.IDs {
		fm.FPs[i], _ = c.fpGet(id)
		fm.Defined[i] = c.isDefined(id)
	}
	return fm
}

// EncodeFPMap serialises m.
func EncodeFPMap(m *FPMap) []byte {
	b := []byte(fpMagic)
	b = binary.AppendUvarint(b, FPMapVersion)
	b = binary.LittleEndian.AppendUint64(b, m.Digest)
	trust := int64(0)
	if m.Trustful {
		trust = 1
	}
	for _, x := range []int64{trust, int64(m.Task), int64(m.Tasks), int64(m.Root), m.States, m.Transitions, m.Revisits, m.Errors, m.Instructions, m.Chained, m.ChainedReduced} {
		b = binary.AppendUvarint(b, uint64(x))
	}
	b = appendStr(b, m.Verdict)
	b = binary.AppendUvarint(b, uint64(len(m.IDs)))
	prev := int64(-1)
	for i, id := range m.IDs {
		b = binary.AppendUvarint(b, uint64(int64(id)-prev-1))
		prev = int64(id)
		b = binary.LittleEndian.AppendUint64(b, m.FPs[i])
		if m.Defined[i] {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
}

// ReadFPMap parses an FP map file, checking its checksum before anything
// else; it never panics.
func ReadFPMap(data []byte) (*FPMap, error) {
	if len(data) < len(fpMagic) || string(data[:len(fpMagic)]) != fpMagic {
		return nil, corrupt(-1, "not an FP map (bad magic number)")
	}
	r := &hreader{b: data, off: len(fpMagic)}
	if v := r.u(); r.err != nil {
		return nil, r.err
	} else if v != FPMapVersion {
		return nil, corrupt(-1, "FP map version %d, this mcvm reads version %d: certify the task again with this mcvm", v, FPMapVersion)
	}
	if len(data)-r.off < fpChecksumLen {
		return nil, truncated("the FP map ends before its checksum")
	}
	sum := binary.LittleEndian.Uint64(data[len(data)-fpChecksumLen:])
	data = data[:len(data)-fpChecksumLen]
	if xxhash.Sum64(data) != sum {
		return nil, corrupt(-1, "FP map checksum mismatch: the file is damaged or truncated; certify the task again")
	}
	r.b = data
	m := &FPMap{Digest: r.u64()}
	switch r.count() {
	case 0:
	case 1:
		m.Trustful = true
	default:
		return nil, corrupt(-1, "bad FP map flags")
	}
	m.Task, m.Tasks, m.Root = int(r.count()), int(r.count()), r.root()
	m.States, m.Transitions, m.Revisits, m.Errors, m.Instructions = r.count(), r.count(), r.count(), r.count(), r.count()
	m.Chained, m.ChainedReduced = r.count(), r.count()
	m.Verdict = r.str()
	n := r.count()
	if r.err != nil {
		return nil, r.err
	}
	if !knownVerdict(m.Verdict) {
		return nil, corrupt(-1, "unknown verdict %q in the FP map", m.Verdict)
	}
	if n > int64(len(data)-r.off)/10 {
		return nil, corrupt(-1, "the FP map announces %d entries, the file has room for at most %d", n, (len(data)-r.off)/10)
	}
	prev := int64(-1)
	for i := int64(0); i < n; i++ {
		d := r.u()
		fp := r.u64()
		def := r.byte()
		if r.err != nil {
			return nil, r.err
		}
		id := prev + 1 + int64(d)
		if d >= 1<<31 || id >= 1<<31 || def > 1 {
			return nil, corrupt(-1, "bad FP map entry %d", i)
		}
		prev = id
		m.IDs = append(m.IDs, int32(id))
		m.FPs = append(m.FPs, fp)
		m.Defined = append(m.Defined, def == 1)
	}
	if r.off != len(data) {
		return nil, corrupt(-1, "%d bytes after the FP map", len(data)-r.off)
	}
	return m, nil
}

// knownVerdict reports whether s names a verdict.
func knownVerdict(s string) bool {
	for v := explorer.VerdictOK; v <= explorer.VerdictLimit; v++ {
		if v.String() == s {
			return true
		}
	}
	return false
}

// MergeResult is the outcome of merging the FP maps of all tasks.
type MergeResult struct {
	Verdict      string
	States       int64 // IDs explored by some task
	Transitions  int64
	Revisits     int64
	Errors       int64
	Instructions int64
	Chained      int64 // transitions run in chains (from states not stored)
	ChainedRed   int64 // of those, from reduced states
	Comparisons  int64 // fingerprint comparisons made
}

// Merge checks the FP maps of all k tasks of one partition together: every
// ID maps to one fingerprint in all of them, is explored by exactly one
// task, every ID reached is explored by some task, and so is the initial
// state (ID 0). Only then do the tasks together cover the reachability
// graph. It returns a *Discrepancy when they do not.
func Merge(maps []*FPMap) (*MergeResult, error) {
	if err := checkTasks(maps); err != nil {
		return nil, err
	}
	total, minID, maxID := 0, int32(0), int32(-1)
	for _, m := range maps {
		total += len(m.IDs)
		for _, id := range m.IDs {
			minID, maxID = min(minID, id), max(maxID, id)
		}
	}
	// IDs are dense (0 to the number of states) in FP maps of real
	// tasks: a table indexed by ID is several times faster than a Go map.
	// Maps from files may hold any IDs; a map then bounds the memory.
	var all mergeTable = mapTable{}
	if minID >= 0 && int64(maxID) < 4*int64(total)+1<<16 {
		all = newDenseTable(int(maxID) + 1)
	}
	return merge(maps, all)
}

// checkTasks checks that maps are those of all tasks of one partition,
// each once.
func checkTasks(maps []*FPMap) error {
	if len(maps) == 0 {
		return fmt.Errorf("no FP maps to merge")
	}
	k := maps[0].Tasks
	seen := make(map[int]bool, len(maps)) // (k comes from a file: no table of k)
	for _, m := range maps {
		if m.Digest != maps[0].Digest || m.Tasks != k || m.Trustful != maps[0].Trustful {
			return fmt.Errorf("%w: the FP maps come from different programs or partitions (task %d of %d, digest %016x; task %d of %d, digest %016x)",
				ErrMismatch, maps[0].Task, k, maps[0].Digest, m.Task, m.Tasks, m.Digest)
		}
		if m.Task < 1 || m.Task > k || seen[m.Task] {
			return fmt.Errorf("task %d of %d given twice or out of range", m.Task, k)
		}
		seen[m.Task] = true
	}
	if len(seen) < k {
		var missing []string
		for i := 1; i <= k && len(missing) < 10; i++ {
			if !seen[i] {
				missing = append(missing, fmt.Sprint(i))
			}
		}
		more := ""
		if n := k - len(seen); n > len(missing) {
			more = fmt.Sprintf(" and %d more", n-len(missing))
		}
		return discrepancy(Undefined, -1, "the FP maps of tasks %s%s of %d are missing", strings.Join(missing, ", "), more, k)
	}
	return nil
}

// merge does Merge's work with table all.
func merge(maps []*FPMap, all mergeTable) (*MergeResult, error) {
	res := &MergeResult{Verdict: explorer.VerdictOK.String()}
	for _, m := range maps {
		if m.Root != 0 && !m.Trustful {
			res.Revisits-- // the transition into the root, a visited state in its parent's task
		}
		res.Transitions += m.Transitions
		res.Revisits += m.Revisits
		res.Errors += m.Errors
		res.Instructions += m.Instructions
		res.Chained += m.Chained
		res.ChainedRed += m.ChainedReduced
		if m.Verdict != res.Verdict && res.Verdict == explorer.VerdictOK.String() {
			res.Verdict = m.Verdict
		}
		if m.Trustful {
			res.States += m.States
			continue
		}
		for i, id := range m.IDs {
			e, ok := all.get(id)
			if ok {
				res.Comparisons++
				if e.fp != m.FPs[i] {
					return nil, discrepancy(FPMismatch, -1, "state %d has fingerprint %016x in task %d and %016x in task %d", id, e.fp, e.task, m.FPs[i], m.Task)
				}
			} else {
				e = mergeEnt{fp: m.FPs[i], task: int32(m.Task)}
			}
			if m.Defined[i] {
				if e.definer != 0 {
					return nil, discrepancy(BadID, -1, "state %d is explored by tasks %d and %d", id, e.definer, m.Task)
				}
				e.definer = int32(m.Task)
				res.States++
			}
			all.put(id, e)
		}
	}
	if maps[0].Trustful {
		return res, nil
	}
	if e, ok := all.get(0); !ok || e.definer == 0 {
		return nil, discrepancy(Undefined, -1, "no task explores the initial state")
	}
	undef, first := all.undefined()
	if undef > 0 {
		e, _ := all.get(first)
		return nil, discrepancy(Undefined, -1, "%d states are reached but explored by no task (the first is state %d, reached in task %d)", undef, first, e.task)
	}
	return res, nil
}

// mergeEnt is what Merge knows of one ID.
type mergeEnt struct {
	fp      uint64
	task    int32 // the task it was first seen in (0: not seen)
	definer int32 // the task that explored it, or 0
}

// mergeTable holds Merge's entries by ID.
type mergeTable interface {
	get(id int32) (mergeEnt, bool)
	put(id int32, e mergeEnt)
	// undefined returns how many IDs seen no task explores, and the least.
	undefined() (n int, first int32)
}

type denseTable []mergeEnt

func newDenseTable(n int) denseTable { return make(denseTable, n) }

func (t denseTable) get(id int32) (mergeEnt, bool) {
	if int(id) >= len(t) || t[id].task == 0 {
		return mergeEnt{}, false
	}
	return t[id], true
}

func (t denseTable) put(id int32, e mergeEnt) { t[id] = e }

func (t denseTable) undefined() (n int, first int32) {
	for id := range t {
		if t[id].task != 0 && t[id].definer == 0 {
			if n == 0 {
				first = int32(id)
			}
			n++
		}
	}
	return n, first
}

type mapTable map[int32]mergeEnt

func (t mapTable) get(id int32) (mergeEnt, bool) { e, ok := t[id]; return e, ok }

func (t mapTable) put(id int32, e mergeEnt) { t[id] = e }

func (t mapTable) undefined() (n int, first int32) {
	for id, e := range t {
		if e.definer == 0 {
			if n == 0 || id < first {
				first = id
			}
			n++
		}
	}
	return n, first
}
