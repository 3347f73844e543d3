// The search-script file format: header, entries, Subgraphs, reading and writing.
//
// Grammar (docs/scc-format.md explains each field):
//
//	file      = magic version header payloadLen checksum zstdFrame
//	magic     = "MCVMSCC\n"
//	version   = uvarint                       ; FormatVersion
//	header    = kind:byte digest:u64le granularity:str por:str symmetry:str
//	            flags:uvarint verdict:str states:uvarint transitions:uvarint
//	            entries:uvarint initEntries:uvarint initCols:sizes bodyCols:sizes
//	            subgraphs:uvarint [task] [coverage]
//	sizes     = 7 uvarints: bytes of the tag, thread, instruction, choice, new-state, visited-ID and sync columns
//	task      = index:uvarint count:uvarint root:uvarint   ; kind 'P' and 'Q' only
//	coverage  = estimator:str seed:u64le budget:uvarint visited:uvarint
//	            share:f64 low:f64 high:f64 total:f64       ; flag coverage only; f64: IEEE 754 bits, u64le
//	str       = len:uvarint bytes                          ; len <= 64
//	payloadLen= uvarint                                    ; bytes of the payload
//	checksum  = u64le                                      ; XXH64 of magic to payloadLen, then the payload
//	zstdFrame = zstd(payload)
//	payload   = init:columns body:columns subgraphs:varint*   ; each: value - the count the body's tags imply
//	columns   = tags threads instrs choices news ids syncs
//	tags      = tag:byte per entry
//	tag       = op:2 bits | last:1 << 2 | hasChoice:1 << 3 | expThread:1 << 4    ; bits 5-7 zero
//	op        = 0 backtrack | 1 new state | 2 visited state | 3 fault (no state)
//	threads   = per transition without expThread: varint (thread - expected thread), not 0
//	instrs    = per transition: k:byte (k < 8: the thread's k-th recent instruction)
//	            | 0xff opcode:byte [a:varint] [b:varint]
//	choices   = per transition with hasChoice: uvarint
//	news      = per new-state entry: uvarint (ID - (lastNew+1))
//	ids       = per visited-state entry: varint (ID - prevVisited[thread])
//	syncs     = per sync point: 5 uvarints (growth of the thread, instruction, choice,
//	            new-state and visited-ID columns since the last) and uvarint (growth of lastNew)
//
// An entry's fields are the next items of the columns it uses; a backtrack
// is its tag 0 alone. thread is omitted when expThread is set: the
// expected thread is the one after the thread of the previous transition
// from the same state, 0 for a state's first (the coder follows the
// section's depth-first stack: a new-state entry enters a level, a
// backtrack leaves one). The operands follow the opcode's operand
// kind (bytecode.Info). Each thread has a move-to-front list of the (at
// most 8) distinct instructions that began its recent transitions in the
// section: an instruction in it is coded by its index and moved to the
// front, one not in it is written out and put at the front. lastNew is
// the highest state ID introduced so far (0 at the start of the init path
// and of a full script, the root in a task's body). prevVisited[t] is the
// ID of the previous visited-state entry of thread t in the same section
// (0 at first). Before entries syncEvery, 2*syncEvery, ... of a section
// is a sync point: the coder forgets its stack of levels (keeping one, of
// unknown depth), prevVisited and the instruction lists there, so decoding
// can start at one. Fields in
// columns of their own and instructions coded against the thread's recent
// ones make scripts 2.2x smaller than version 1, where each entry's fields
// were together (docs/scc-format.md). Version 3 codes each Subgraphs value
// as its difference from the count the body's tags imply
// (impliedSubgraphs), zero for an honest script: 1.06x-3.9x smaller
// scripts than version 2. Version 4 predicts each transition's thread from
// its state's previous transition (expThread) instead of taking the previous
// entry's: unreduced scripts 0.85x-1.00x the size of version 3's, reduced
// ones 0.94x-1.06x (benchmarks/RESULTS.md, "Script size"). Version 5's
// checksum covers the header too, so that its verdict and figures cannot
// change unnoticed. The flags limit and coverage came later within version
// 5: a script of a search cut off by a limit, and the coverage estimate
// its header carries. They change nothing in other scripts, which stay
// byte for byte what they were, and an mcvm that predates them refuses a
// script with them as it refuses any unknown flag.

package scc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"

	"mcvm/bytecode"
	"mcvm/explorer"
)

// FormatVersion is the version of the script format written and read.
// Version 1 had no columns, version 2 wrote the Subgraphs values
// themselves, version 3 coded a transition's thread against the previous
// entry's and version 4's checksum left out the header
// (docs/scc-format.md); all are refused.
const FormatVersion = 5

const magic = "MCVMSCC\n"

// Limits on what a reader accepts.
const (
	MaxPayload = 1 << 31 // bytes of uncompressed payload
	maxRatio   = 1 << 13 // of payload to compressed bytes: a bound on what a small file can make the reader allocate
	maxStr     = 64
)

// Script kinds (the header's kind byte).
const (
	KindFull         = 'F' // tamper-proof: every transition and backtrack, with destination IDs
	KindTrustful     = 'T' // productive (and faulting) transitions and backtracks only
	KindTask         = 'P' // one task of a partitioned full script
	KindTrustfulTask = 'Q' // one task of a partitioned trustful script
)

// SymmetryThreads is the header's symmetry for thread symmetry reduction
// (verify --symmetry); "none" without.
const SymmetryThreads = "threads"

// Header flags.
const (
	FlagComplete   = 1 << iota // the search ended by itself, not stopped at its first error
	FlagContinue               // the search went on after errors
	FlagDeadLocals             // the machine zeroed dead locals after every transition (--dead-locals)
	FlagChains                 // the search ran chains (explorer.Options.Chain, --chain)
	FlagLimit                  // a limit cut the search off: the script records the part it explored
	FlagCoverage               // the header carries the search's coverage estimate (with FlagLimit only)
	flagsEnd                   // the flags below are all there are
)

// Op is the kind of a script entry.
type Op uint8

// Entry kinds.
const (
	OpBacktrack Op = iota // B: leave the state on top of the stack
	OpNew                 // a transition to a state not visited before
	OpOld                 // a transition to a visited state
	OpFault               // a transition that faults and reaches no state
)

const (
	tagLast      = 1 << 2
	tagChoice    = 1 << 3
	tagExpThread = 1 << 4
	tagUnused    = 0xe0
)

var opNames = [...]string{"backtrack", "new", "visited", "fault"}

func (o Op) String() string { return opNames[o&3] }

// Entry is one step of a script: a backtrack, or a transition (thread,
// choice and the instruction that begins it) and where it leads.
type Entry struct {
	Op     Op
	Last   bool // the last occurrence of ID in the script (section 4.4)
	Thread int32
	Choice int32
	Instr  bytecode.Instr // OpInvalid when the thread had no frame
	ID     int32          // destination state (OpNew, OpOld)
}

// Header is what a script says about itself and the search that made it.
type Header struct {
	Kind        byte
	Digest      uint64 // bytecode.Digest of the program
	Granularity string // vm granularity: "transition" or "instruction"
	POR         string // partial-order reduction: "none", or mode/proviso ("all/stack")
	Symmetry    string // symmetry reduction: "none" or SymmetryThreads
	Flags       uint64
	Verdict     string // the verification's verdict
	States      int64  // states the verification stored
	Transitions int64  // transitions it executed
	Entries     int64  // entries in the body
	InitEntries int64  // entries in the init path (tasks)
	Subgraphs   int64  // entries in the Subgraphs list
	Task        int    // tasks: this task's index (1-based)
	Tasks       int    // tasks: how many tasks the script was split into
	Root        int32  // tasks: the state the body starts from
	// Coverage is the search's estimate of the share of the reachable
	// states it visited, with FlagCoverage.
	Coverage Coverage
}

// Coverage is the coverage estimate a script's header carries (flag
// coverage): what explorer.EstimateStored needs to compute it again, the
// estimator, seed and sample budget, and its figures (explorer.Coverage).
type Coverage struct {
	Estimator string // an explorer.Estimator that is Stored
	Seed      uint64 // the random choices' seed
	Budget    int64  // transitions the estimator could sample
	Visited   int64  // the states the search stored
	Share     float64
	Low, High float64 // the share's 95% interval
	Total     float64 // the estimated number of reachable states
}

// Same reports whether e, an estimate computed again, has the estimator
// and figures of c, exactly: the same states, seed and budget give the
// same figures.
func (c *Coverage) Same(e *explorer.Coverage) bool {
	return e != nil && e.Estimator.String() == c.Estimator && e.Visited == c.Visited &&
		e.Share == c.Share && e.Low == c.Low && e.High == c.High && e.Total == c.Total
}

// Limited reports whether a limit cut the search that wrote the script
// off: the script records the part it explored.
func (h *Header) Limited() bool { return h.Flags&FlagLimit != 0 }

// HasCoverage reports whether the header carries a coverage estimate.
func (h *Header) HasCoverage() bool { return h.Flags&FlagCoverage != 0 }

// Trustful reports whether the script is a trustful one (or a task of one).
func (h *Header) Trustful() bool { return h.Kind == KindTrustful || h.Kind == KindTrustfulTask }

// IsTask reports whether the script is one task of a partition.
func (h *Header) IsTask() bool { return h.Kind == KindTask || h.Kind == KindTrustfulTask }

// Complete reports whether the search that wrote the script ended by itself.
func (h *Header) Complete() bool { return h.Flags&FlagComplete != 0 }

// Chains reports whether the search that wrote the script ran chains
// (explorer.Options.Chain), which change its states.
func (h *Header) Chains() bool { return h.Flags&FlagChains != 0 }

// DeadLocals reports whether the search that wrote the script ran with
// dead variable reduction, which changes the states.
func (h *Header) DeadLocals() bool { return h.Flags&FlagDeadLocals != 0 }

// Script is a decoded search script: its header, the raw encoded entries
// of the init path and the body, and the Subgraphs list.
type Script struct {
	Header
	Init      Columns // a task's init path
	Body      Columns
	Subgraph  []int64 // per state ID, the transitions of the region rooted there (Definition 3.2.2)
	FileBytes int64   // size of the file it was read from or encoded to
	RawBytes  int64   // size of the uncompressed payload

	// A task made by Split holds its entries as ranges of the whole
	// script's, decoded as they are followed, until Encode needs them as
	// bytes of their own.
	view *taskView
}

// materialize encodes a task's entries. Split decoded the same bytes
// already, so they decode again; if they did not, the task would hold
// fewer entries than its header says and fail certification.
func (s *Script) materialize() {
	v := s.view
	if v == nil || s.Body[colTag] != nil {
		return
	}
	body := make([]Entry, 0, s.Entries)
	for e, err := range v.entries() {
		if err != nil {
			break
		}
		body = append(body, *e)
	}
	s.Init = EncodeEntries(v.init(), 0)
	s.Body = EncodeEntries(body, s.Root)
}

// reductionOf is a header's partial-order reduction without its revision
// ("all/stack/r3": "all/stack"; a script of the first revision has none).
func reductionOf(por string) string {
	if i := strings.LastIndex(por, "/r"); i >= 0 {
		return por[:i]
	}
	return por
}

// ErrMismatch is wrapped by errors saying a script belongs to another
// program or other exploration options.
var ErrMismatch = errors.New("script does not match")

// Match checks that the script belongs to a program with digest and to
// exploration with the given granularity and partial-order reduction (its
// header name: "none", or the mode, the proviso and the reduction's
// revision, "all/stack/r3"; see Options.POR), with or without dead
// variable reduction, and with or without thread symmetry reduction (the
// header's symmetry "threads" or "none"), and with or without chains.
func (h *Header) Match(digest uint64, granularity, por string, deadLocals, symmetry, chains bool) error {
	if h.Digest != digest {
		return fmt.Errorf("%w: it was written for another program (digest %016x, this program has %016x): were the same model and -D values given?", ErrMismatch, h.Digest, digest)
	}
	if h.Granularity != granularity {
		return fmt.Errorf("%w: it was written with --granularity %s, not %s", ErrMismatch, h.Granularity, granularity)
	}
	if h.POR != por {
		if reductionOf(h.POR) == reductionOf(por) {
			return fmt.Errorf("%w: it was written by an mcvm whose partial-order reduction %q differs from this one's (%q), though the mode is the same: verify it again with this mcvm", ErrMismatch, h.POR, por)
		}
		mode, _, _ := strings.Cut(h.POR, "/")
		return fmt.Errorf("%w: it was written with partial-order reduction %q, and this certifier applies %q: give --por %s", ErrMismatch, h.POR, por, mode)
	}
	switch {
	case h.Symmetry == SymmetryThreads && !symmetry:
		return fmt.Errorf("%w: it was written with thread symmetry reduction: give --symmetry", ErrMismatch)
	case h.Symmetry == "none" && symmetry:
		return fmt.Errorf("%w: it was written without symmetry reduction: drop --symmetry", ErrMismatch)
	case h.Symmetry != "none" && h.Symmetry != SymmetryThreads:
		return fmt.Errorf("%w: it was written with symmetry reduction %q, which this certifier does not know", ErrMismatch, h.Symmetry)
	}
	if h.DeadLocals() != deadLocals {
		if h.DeadLocals() {
			return fmt.Errorf("%w: it was written with dead variable reduction: give --dead-locals", ErrMismatch)
		}
		return fmt.Errorf("%w: it was written without dead variable reduction: drop --dead-locals", ErrMismatch)
	}
	if h.Chains() != chains {
		if h.Chains() {
			return fmt.Errorf("%w: it was written with chains: drop --chain=false", ErrMismatch)
		}
		return fmt.Errorf("%w: it was written without chains: give --chain=false", ErrMismatch)
	}
	return nil
}

// The columns of a section of entries: each field goes to a column of its
// own, so that zstd sees homogeneous data.
const (
	colTag    = iota // one byte per entry
	colThread        // uvarint, when the thread changes
	colInstr         // MTF index, or escape opcode operands
	colChoice        // uvarint, when the tag says so
	colNew           // uvarint, per new-state entry
	colID            // varint, per visited-state entry
	colSync          // per sync point: where the other columns are, and lastNew
	nCols
)

var colNames = [nCols]string{"tag", "thread", "instruction", "choice", "new-state", "visited-ID", "sync"}

// syncEvery is the distance in entries between sync points: before entry
// k*syncEvery (k >= 1) of a section the coder forgets its per-thread
// context and the sync column says where each column is, so that decoding
// can start there (a task certified in parallel decodes its own ranges).
const syncEvery = 16384

// Columns are the encoded columns of a section of entries.
type Columns [nCols][]byte

// Len returns the total size of the columns in bytes.
func (cs *Columns) Len() int {
	n := 0
	for _, c := range cs {
		n += len(c)
	}
	return n
}

// mtfLen is the length of each thread's move-to-front list of the
// instructions that began its recent transitions; instrEscape in the
// instruction column says the instruction is not in the list and follows.
const (
	mtfLen      = 8
	instrEscape = 0xff
)

// mtf is a thread's move-to-front list of instructions.
type mtf struct {
	n int
	l [mtfLen]bytecode.Instr
}

// find returns the index of in in the list, or -1.
func (m *mtf) find(in bytecode.Instr) int {
	for i := 0; i < m.n; i++ {
		if m.l[i] == in {
			return i
		}
	}
	return -1
}

// front moves the k-th instruction to the front (k = -1: inserts in,
// dropping the last if the list is full).
func (m *mtf) front(k int, in bytecode.Instr) {
	if k < 0 {
		if m.n < mtfLen {
			m.n++
		}
		k = m.n - 1
	}
	copy(m.l[1:k+1], m.l[:k])
	m.l[0] = in
}

// coder holds the context entries are coded against.
type coder struct {
	sibs     []int32 // per level of the section's DFS stack: the thread of its last transition coded (-1: none yet)
	lastNew  int32
	prevOld  []int32 // per thread: the last visited-state ID
	mtfs     []mtf   // per thread: recent instructions
	out      Columns // encoding
	in       Columns // decoding
	off      [nCols]int
	n        int        // entries coded so far
	nextSync int        // the entry before which the next sync point comes
	syncAt   [nCols]int // the columns' offsets at the last sync point (colTag: unused)
	syncNew  int32      // lastNew at the last sync point
}

// syncCols are the columns whose offsets a sync point gives.
var syncCols = [...]int{colThread, colInstr, colChoice, colNew, colID}

// reset forgets the per-thread context (at a sync point).
func (c *coder) reset() {
	c.sibs = c.sibs[:0]
	c.prevOld = c.prevOld[:0]
	c.mtfs = c.mtfs[:0]
}

// writeSync writes a sync point before entry c.n.
func (c *coder) writeSync() {
	b := c.out[colSync]
	for _, col := range syncCols {
		b = binary.AppendUvarint(b, uint64(len(c.out[col])-c.syncAt[col]))
		c.syncAt[col] = len(c.out[col])
	}
	b = binary.AppendUvarint(b, uint64(c.lastNew-c.syncNew))
	c.syncNew = c.lastNew
	c.out[colSync] = b
	c.reset()
	c.nextSync += syncEvery
}

// readSync reads the sync point before entry c.n into c.syncAt and
// c.syncNew.
func (c *coder) readSync() error {
	for _, col := range syncCols {
		x, err := c.u(colSync)
		if err != nil {
			return err
		}
		if x > uint64(len(c.in[col])-c.syncAt[col]) {
			return errEntry
		}
		c.syncAt[col] += int(x)
	}
	x, err := c.u(colSync)
	if err != nil {
		return err
	}
	if x >= 1<<31 || int64(c.syncNew)+int64(x) >= 1<<31 {
		return errEntry
	}
	c.syncNew += int32(x)
	c.nextSync += syncEvery
	return nil
}

// checkSync reads the sync point before entry c.n and checks that it
// agrees with where decoding is.
func (c *coder) checkSync() error {
	if err := c.readSync(); err != nil {
		return err
	}
	for _, col := range syncCols {
		if c.syncAt[col] != c.off[col] {
			return errEntry
		}
	}
	if c.syncNew != c.lastNew {
		return errEntry
	}
	c.reset()
	return nil
}

// prev returns the slot of thread t's last visited-state ID.
func (c *coder) prev(t int32) *int32 {
	for int(t) >= len(c.prevOld) {
		c.prevOld = append(c.prevOld, 0)
	}
	return &c.prevOld[t]
}

// mtfOf returns thread t's instruction list.
func (c *coder) mtfOf(t int32) *mtf {
	for int(t) >= len(c.mtfs) {
		c.mtfs = append(c.mtfs, mtf{})
	}
	return &c.mtfs[t]
}

// clone returns a copy of c's decoding context.
func (c *coder) clone() coder {
	d := *c
	d.sibs = append([]int32(nil), c.sibs...)
	d.prevOld = append([]int32(nil), c.prevOld...)
	d.mtfs = append([]mtf(nil), c.mtfs...)
	d.out = Columns{}
	return d
}

func newCoder(lastNew int32) coder {
	return coder{lastNew: lastNew, syncNew: lastNew, nextSync: syncEvery}
}

// expected returns the thread predicted for the next transition: the one
// after the thread of the last transition coded from the same state (0 for
// the state's first). Depth-first search tries a state's threads in order,
// so the prediction holds for most transitions of an unreduced search. The
// stack of levels starts empty at a sync point (one level, unknown depth):
// encoder and decoder keep it alike, so a wrong prediction costs bytes only.
func (c *coder) expected() int32 {
	if len(c.sibs) == 0 {
		c.sibs = append(c.sibs, -1)
	}
	return c.sibs[len(c.sibs)-1] + 1
}

// moved notes that the section's next transition, from the top level, was
// thread t's, and that it entered a new state if isNew.
func (c *coder) moved(t int32, isNew bool) {
	c.sibs[len(c.sibs)-1] = t
	if isNew {
		c.sibs = append(c.sibs, -1)
	}
}

// backtracked notes a backtrack: the top level is left (at the bottom
// level, whose depth a section started at a sync point does not know, it
// starts again).
func (c *coder) backtracked() {
	switch n := len(c.sibs); {
	case n > 1:
		c.sibs = c.sibs[:n-1]
	case n == 1:
		c.sibs[0] = -1
	}
}

// appendEntry encodes e.
func (c *coder) appendEntry(e *Entry) {
	if c.n == c.nextSync {
		c.writeSync()
	}
	c.n++
	if e.Op == OpBacktrack {
		c.out[colTag] = append(c.out[colTag], 0)
		c.backtracked()
		return
	}
	tag := byte(e.Op)
	if e.Last {
		tag |= tagLast
	}
	if e.Choice != 0 {
		tag |= tagChoice
	}
	exp := c.expected()
	if e.Thread == exp {
		tag |= tagExpThread
	}
	c.out[colTag] = append(c.out[colTag], tag)
	if e.Thread != exp {
		c.out[colThread] = binary.AppendVarint(c.out[colThread], int64(e.Thread)-int64(exp))
	}
	c.moved(e.Thread, e.Op == OpNew)
	m := c.mtfOf(e.Thread)
	k := m.find(e.Instr)
	if k >= 0 {
		c.out[colInstr] = append(c.out[colInstr], byte(k))
	} else {
		b := append(c.out[colInstr], instrEscape, byte(e.Instr.Op))
		switch operands(e.Instr.Op) {
		case 2:
			b = binary.AppendVarint(b, e.Instr.A)
			b = binary.AppendVarint(b, e.Instr.B)
		case 1:
			b = binary.AppendVarint(b, e.Instr.A)
		}
		c.out[colInstr] = b
	}
	m.front(k, e.Instr)
	if e.Choice != 0 {
		c.out[colChoice] = binary.AppendUvarint(c.out[colChoice], uint64(e.Choice))
	}
	switch e.Op {
	case OpNew:
		c.out[colNew] = binary.AppendUvarint(c.out[colNew], uint64(int64(e.ID)-int64(c.lastNew)-1))
		c.lastNew = e.ID
	case OpOld:
		p := c.prev(e.Thread)
		c.out[colID] = binary.AppendVarint(c.out[colID], int64(e.ID)-int64(*p))
		*p = e.ID
	}
}

// operands returns how many operands an instruction with opcode op has.
func operands(op bytecode.Opcode) int {
	if !op.Valid() {
		return 0
	}
	switch op.Info().Operand {
	case bytecode.OperandNone:
		return 0
	case bytecode.OperandLocInt:
		return 2
	}
	return 1
}

// errEntry is returned by decodeEntry for malformed bytes.
var errEntry = errors.New("malformed entry")

// more reports whether the tag column has entries left.
func (c *coder) more() bool { return c.off[colTag] < len(c.in[colTag]) }

// u reads a uvarint from column col: io.ErrUnexpectedEOF at its end,
// errEntry if it does not decode.
func (c *coder) u(col int) (uint64, error) {
	if in, off := c.in[col], c.off[col]; off < len(in) && in[off] < 0x80 {
		c.off[col] = off + 1 // one byte: most values
		return uint64(in[off]), nil
	}
	b := c.in[col][c.off[col]:]
	x, n := binary.Uvarint(b)
	if n <= 0 {
		if n == 0 {
			return 0, io.ErrUnexpectedEOF
		}
		return 0, errEntry
	}
	c.off[col] += n
	return x, nil
}

// s reads a varint (a zig-zag uvarint, as binary.Varint reads it) from
// column col, with u's errors.
func (c *coder) s(col int) (int64, error) {
	ux, err := c.u(col)
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x, err
}

// byte1 reads a byte from column col.
func (c *coder) byte1(col int) (byte, error) {
	if c.off[col] >= len(c.in[col]) {
		return 0, io.ErrUnexpectedEOF
	}
	c.off[col]++
	return c.in[col][c.off[col]-1], nil
}

// decodeEntry decodes the next entry into e. It returns io.ErrUnexpectedEOF
// when a column ends inside the entry and errEntry for malformed bytes.
func (c *coder) decodeEntry(e *Entry) error {
	if c.n == c.nextSync {
		if err := c.checkSync(); err != nil {
			return err
		}
	}
	c.n++
	tag, err := c.byte1(colTag)
	if err != nil {
		return err
	}
	*e = Entry{Op: Op(tag & 3), Last: tag&tagLast != 0}
	if e.Op == OpBacktrack {
		if tag != 0 {
			return errEntry
		}
		c.backtracked()
		return nil
	}
	if tag&tagUnused != 0 {
		return errEntry
	}
	exp := c.expected()
	if tag&tagExpThread != 0 {
		e.Thread = exp
	} else {
		d, err := c.s(colThread)
		if err != nil {
			return err
		}
		// The writer sets the tag bit for the expected thread (d = 0);
		// the thread must be at least 0 (and below 2^16, checked next).
		if d == 0 || d < -int64(exp) || d >= 1<<16 {
			return errEntry
		}
		e.Thread = exp + int32(d)
	}
	if e.Thread >= 1<<16 {
		return errEntry
	}
	c.moved(e.Thread, e.Op == OpNew)
	m := c.mtfOf(e.Thread)
	k, err := c.byte1(colInstr)
	if err != nil {
		return err
	}
	switch {
	case k == instrEscape:
		op, err := c.byte1(colInstr)
		if err != nil {
			return err
		}
		e.Instr.Op = bytecode.Opcode(op)
		if e.Instr.Op != bytecode.OpInvalid && !e.Instr.Op.Valid() {
			return errEntry
		}
		switch operands(e.Instr.Op) {
		case 2:
			if e.Instr.A, err = c.s(colInstr); err == nil {
				e.Instr.B, err = c.s(colInstr)
			}
		case 1:
			e.Instr.A, err = c.s(colInstr)
		}
		if err != nil {
			return err
		}
		if m.find(e.Instr) >= 0 {
			return errEntry // the writer gives the index of an instruction in the list
		}
		m.front(-1, e.Instr)
	case int(k) < m.n:
		e.Instr = m.l[k]
		m.front(int(k), e.Instr)
	default:
		return errEntry
	}
	if tag&tagChoice != 0 {
		x, err := c.u(colChoice)
		if err != nil {
			return err
		}
		if x == 0 || x >= 1<<31 {
			return errEntry
		}
		e.Choice = int32(x)
	}
	switch e.Op {
	case OpNew:
		x, err := c.u(colNew)
		if err != nil {
			return err
		}
		if x >= 1<<31 || int64(c.lastNew)+1+int64(x) >= 1<<31 {
			return errEntry
		}
		e.ID = c.lastNew + 1 + int32(x)
		c.lastNew = e.ID
	case OpOld:
		x, err := c.s(colID)
		if err != nil {
			return err
		}
		p := c.prev(e.Thread)
		id := int64(*p) + x
		if id < 0 || id >= 1<<31 {
			return errEntry
		}
		e.ID = int32(id)
		*p = e.ID
	case OpFault:
		if e.Last {
			return errEntry
		}
	}
	return nil
}

// leftover returns an error naming a column with bytes not decoded.
func (c *coder) leftover() error {
	for col := range c.in {
		if c.off[col] != len(c.in[col]) {
			return corrupt(-1, "%d bytes left over in the %s column", len(c.in[col])-c.off[col], colNames[col])
		}
	}
	return nil
}

// EncodeEntries encodes entries with the coding context of a script body
// that starts after state lastNew.
func EncodeEntries(entries []Entry, lastNew int32) Columns {
	c := newCoder(lastNew)
	for i := range entries {
		c.appendEntry(&entries[i])
	}
	return c.out
}

// DecodeEntries decodes all of cols (coded after state lastNew), at most
// max entries.
func DecodeEntries(cols Columns, lastNew int32, max int64) ([]Entry, error) {
	c := newCoder(lastNew)
	c.in = cols
	out := make([]Entry, 0, min(max, int64(len(cols[colTag])))) // an entry takes a tag byte
	for c.more() {
		if int64(len(out)) >= max {
			return nil, corrupt(int64(len(out)), "more entries than the header's %d", max)
		}
		var e Entry
		if err := c.decodeEntry(&e); err != nil {
			return nil, corrupt(int64(len(out)), "bad bytes in entry %d", len(out))
		}
		out = append(out, e)
	}
	if err := c.leftover(); err != nil {
		return nil, err
	}
	return out, nil
}

// impliedSubgraphs returns, for states 0..n-1, the number of transition
// entries between the entry that introduces the state (the start, for
// state 0) and the backtrack from it (or the end), counted from the body's
// tags: the Subgraphs list an honest script carries, against which the
// list is coded. New states take the IDs 1, 2, ... in order, as in a
// whole script; entries that do not fit (a backtrack with nothing on the
// stack, more states than n) are passed over, so the count is only a
// prediction, and a script's list may differ from it (the certifier then
// finds its regions inconsistent with it).
func impliedSubgraphs(tags []byte, n int) []int64 {
	sub := make([]int64, n)
	if n == 0 {
		return sub
	}
	type open struct {
		id    int
		trans int64
	}
	// Only states below n are kept on the stack (so it never holds more
	// than n); above them, beyond counts the open states of higher IDs.
	stack := []open{{0, 0}}
	next, trans, beyond := 1, int64(0), 0
	for _, tag := range tags {
		op := Op(tag & 3)
		if op == OpBacktrack {
			switch {
			case beyond > 0:
				beyond--
			case len(stack) > 0:
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				sub[top.id] = trans - top.trans
			}
			continue
		}
		trans++
		if op == OpNew {
			if next < n && beyond == 0 {
				stack = append(stack, open{next, trans})
			} else {
				beyond++
			}
			next++
		}
	}
	for _, o := range stack {
		sub[o.id] = trans - o.trans
	}
	return sub
}

// Encode serialises s (its header counts must be set) into the file
// format. The output is the same for the same script.
func Encode(s *Script) []byte {
	s.materialize()
	payload := make([]byte, 0, s.Init.Len()+s.Body.Len()+2*len(s.Subgraph))
	for _, cs := range []*Columns{&s.Init, &s.Body} {
		for _, col := range cs {
			payload = append(payload, col...)
		}
	}
	implied := impliedSubgraphs(s.Body[colTag], len(s.Subgraph))
	for i, n := range s.Subgraph {
		payload = binary.AppendVarint(payload, n-implied[i])
	}
	h := s.Header
	h.Subgraphs = int64(len(s.Subgraph))
	b := []byte(magic)
	b = binary.AppendUvarint(b, FormatVersion)
	b = append(b, h.Kind)
	b = binary.LittleEndian.AppendUint64(b, h.Digest)
	for _, str := range []string{h.Granularity, h.POR, h.Symmetry} {
		b = appendStr(b, str)
	}
	b = binary.AppendUvarint(b, h.Flags)
	b = appendStr(b, h.Verdict)
	for _, x := range []int64{h.States, h.Transitions, h.Entries, h.InitEntries} {
		b = binary.AppendUvarint(b, uint64(x))
	}
	for _, cs := range []*Columns{&s.Init, &s.Body} {
		for _, col := range cs {
			b = binary.AppendUvarint(b, uint64(len(col)))
		}
	}
	b = binary.AppendUvarint(b, uint64(h.Subgraphs))
	if h.IsTask() {
		b = binary.AppendUvarint(b, uint64(h.Task))
		b = binary.AppendUvarint(b, uint64(h.Tasks))
		b = binary.AppendUvarint(b, uint64(h.Root))
	}
	if h.HasCoverage() {
		c := &h.Coverage
		b = appendStr(b, c.Estimator)
		b = binary.LittleEndian.AppendUint64(b, c.Seed)
		b = binary.AppendUvarint(b, uint64(c.Budget))
		b = binary.AppendUvarint(b, uint64(c.Visited))
		for _, x := range []float64{c.Share, c.Low, c.High, c.Total} {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(payload)))
	b = binary.LittleEndian.AppendUint64(b, checksum(b, payload))
	b = encoder().EncodeAll(payload, b)
	s.FileBytes, s.RawBytes = int64(len(b)), int64(len(payload))
	return b
}

var (
	encOnce sync.Once
	enc     *zstd.Encoder
	decOnce sync.Once
	dec     *zstd.Decoder
)

// decoder returns the zstd decoder shared by all Read calls (DecodeAll may
// be called concurrently).
func decoder() *zstd.Decoder {
	decOnce.Do(func() {
		dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(4), zstd.WithDecoderMaxMemory(MaxPayload))
	})
	return dec
}

// encoder returns the zstd encoder shared by all Encode calls (EncodeAll
// may be called concurrently); making one allocates large tables.
func encoder() *zstd.Encoder {
	encOnce.Do(func() {
		enc, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithSingleSegment(true))
	})
	return enc
}

// checksum returns a script's checksum: the XXH64 of its header (the
// bytes from the magic number to the payload's length) and its payload.
func checksum(head, payload []byte) uint64 {
	d := xxhash.New()
	d.Write(head)
	d.Write(payload)
	return d.Sum64()
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Read parses a script file. Damaged or truncated input is reported as a
// *Discrepancy of kind Corrupt or Truncated; it never panics, and it
// allocates in proportion to len(data) and the data actually decompressed.
func Read(data []byte) (*Script, error) {
	s, _, _, err := read(data)
	return s, err
}

// read is Read; it also returns where the checksum is and the payload,
// with a checksum mismatch too.
func read(data []byte) (_ *Script, sumAt int, payload []byte, _ error) {
	r := &hreader{b: data}
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		if len(data) < len(magic) && string(data) == magic[:len(data)] {
			return nil, 0, nil, truncated("the file ends inside its magic number")
		}
		return nil, 0, nil, corrupt(-1, "not a search script (bad magic number)")
	}
	r.off = len(magic)
	if v := r.u(); r.err == nil && v != FormatVersion {
		if v < FormatVersion {
			return nil, 0, nil, corrupt(-1, "format version %d, this mcvm reads version %d only: the script was written by an older mcvm; write it again with mcvm verify --script", v, FormatVersion)
		}
		return nil, 0, nil, corrupt(-1, "format version %d, this mcvm reads version %d", v, FormatVersion)
	}
	s := &Script{}
	h := &s.Header
	h.Kind = r.byte()
	switch h.Kind {
	case KindFull, KindTrustful, KindTask, KindTrustfulTask:
	default:
		if r.err == nil {
			return nil, 0, nil, corrupt(-1, "unknown script kind %q", h.Kind)
		}
	}
	h.Digest = r.u64()
	h.Granularity, h.POR, h.Symmetry = r.str(), r.str(), r.str()
	h.Flags = r.u()
	h.Verdict = r.str()
	h.States, h.Transitions, h.Entries, h.InitEntries = r.count(), r.count(), r.count(), r.count()
	var sizes [2 * nCols]int64
	var sections int64
	for i := range sizes {
		sizes[i] = r.count()
		sections += sizes[i]
	}
	h.Subgraphs = r.count()
	if h.IsTask() {
		h.Task, h.Tasks, h.Root = int(r.count()), int(r.count()), r.root()
	}
	if h.Flags&FlagCoverage != 0 && h.Flags < flagsEnd {
		c := &h.Coverage
		c.Estimator, c.Seed, c.Budget, c.Visited = r.str(), r.u64(), r.count(), r.count()
		c.Share, c.Low, c.High, c.Total = r.f64(), r.f64(), r.f64(), r.f64()
	}
	payloadLen := r.count()
	sumAt = r.off
	sum := r.u64()
	if r.err != nil {
		return nil, 0, nil, r.err
	}
	if h.Flags >= flagsEnd {
		return nil, 0, nil, corrupt(-1, "unknown header flags %#x", h.Flags)
	}
	if err := h.checkLimit(); err != nil {
		return nil, 0, nil, err
	}
	if payloadLen > MaxPayload {
		return nil, 0, nil, corrupt(-1, "payload of %d bytes is larger than the limit of %d", payloadLen, MaxPayload)
	}
	if sections > payloadLen {
		return nil, 0, nil, corrupt(-1, "header's section sizes exceed the payload")
	}
	frame := data[r.off:]
	if payloadLen > int64(len(frame))*maxRatio+1024 {
		return nil, 0, nil, corrupt(-1, "the header announces %d bytes of payload from %d compressed bytes, more than a ratio of %d", payloadLen, len(frame), maxRatio)
	}
	var zh zstd.Header
	if err := zh.Decode(frame); err != nil {
		if len(frame) < zstd.HeaderMaxSize {
			return nil, 0, nil, truncated("the file ends inside the compressed payload's header")
		}
		return nil, 0, nil, corrupt(-1, "compressed payload: %v", err)
	}
	if !zh.HasFCS || zh.FrameContentSize != uint64(payloadLen) {
		return nil, 0, nil, corrupt(-1, "the compressed payload's size disagrees with the header's %d bytes", payloadLen)
	}
	payload, err := decoder().DecodeAll(frame, make([]byte, 0, payloadLen))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, 0, nil, truncated("the compressed payload ends early")
		}
		return nil, 0, nil, corrupt(-1, "compressed payload: %v", err)
	}
	if int64(len(payload)) != payloadLen {
		return nil, 0, nil, corrupt(-1, "the payload has %d bytes, the header says %d", len(payload), payloadLen)
	}
	if checksum(data[:sumAt], payload) != sum {
		return nil, sumAt, payload, corrupt(-1, "checksum mismatch: the header or the payload is damaged")
	}
	rest := payload
	for i, n := range sizes {
		cs := &s.Init
		if i >= nCols {
			cs = &s.Body
		}
		cs[i%nCols], rest = rest[:n:n], rest[n:]
	}
	if h.Subgraphs > int64(len(rest)) {
		return nil, 0, nil, corrupt(-1, "the header announces %d Subgraphs entries, the payload has room for at most %d", h.Subgraphs, len(rest))
	}
	implied := impliedSubgraphs(s.Body[colTag], int(h.Subgraphs))
	s.Subgraph = make([]int64, 0, h.Subgraphs)
	for i := int64(0); i < h.Subgraphs; i++ {
		d, n := binary.Varint(rest)
		x := implied[i] + d
		if n <= 0 || d <= -1<<62 || d >= 1<<62 || x < 0 || x >= 1<<62 {
			return nil, 0, nil, corrupt(-1, "bad Subgraphs entry %d", i)
		}
		rest = rest[n:]
		s.Subgraph = append(s.Subgraph, x)
	}
	if len(rest) != 0 {
		return nil, 0, nil, corrupt(-1, "%d bytes after the Subgraphs list", len(rest))
	}
	s.FileBytes, s.RawBytes = int64(len(data)), payloadLen
	return s, sumAt, payload, nil
}

// checkLimit checks the flags limit and coverage and the estimate: a
// share and its interval are in [0, 1], the total is finite and at least
// the states visited, the estimator is a known one, and the sample budget
// is at most what a search of any size gets (explorer.SampleBudget), so
// that a forged header cannot make a certifier sample for ever.
func (h *Header) checkLimit() error {
	switch {
	case h.HasCoverage() && !h.Limited():
		return corrupt(-1, "the header carries a coverage estimate, but no limit cut its search off")
	case h.Limited() && (h.Complete() || h.IsTask()):
		return corrupt(-1, "the header says a limit cut its search off, and that it is complete or a task")
	case !h.HasCoverage():
		return nil
	}
	c := &h.Coverage
	if e, ok := explorer.ParseEstimator(c.Estimator); !ok || e == explorer.EstimatorOff {
		return corrupt(-1, "unknown coverage estimator %q in the header", c.Estimator)
	}
	for _, x := range []struct {
		name string
		v    float64
	}{{"share", c.Share}, {"low", c.Low}, {"high", c.High}} {
		if !(x.v >= 0 && x.v <= 1) { // (false for NaN)
			return corrupt(-1, "coverage %s %v in the header is not in [0, 1]", x.name, x.v)
		}
	}
	if most := explorer.SampleBudget(math.MaxInt64); c.Budget > most {
		return corrupt(-1, "sample budget %d in the header is above the %d any search samples", c.Budget, most)
	}
	if !(c.Total >= float64(c.Visited)) || math.IsInf(c.Total, 0) {
		return corrupt(-1, "estimated total %v in the header is not a number of states at least the %d visited", c.Total, c.Visited)
	}
	return nil
}

// hreader reads header fields, remembering the first error.
type hreader struct {
	b   []byte
	off int
	err error
}

func (r *hreader) fail() {
	if r.err == nil {
		r.err = truncated("the file ends inside its header")
	}
}

func (r *hreader) u() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.off:])
	if n == 0 {
		r.fail()
		return 0
	}
	if n < 0 || (n > 1 && r.b[r.off+n-1] == 0) {
		// (A trailing zero byte is an overlong encoding, which the writer
		// never makes: the bytes read must be the ones written.)
		r.err = corrupt(-1, "bad number in the header at byte %d", r.off)
		return 0
	}
	r.off += n
	return x
}

// root reads a task's root state, a state ID (below 2^31).
func (r *hreader) root() int32 {
	x := r.count()
	if x >= 1<<31 && r.err == nil {
		r.err = corrupt(-1, "bad root state %d in the header", x)
	}
	return int32(x)
}

// count reads a non-negative number that fits an int64 comfortably.
func (r *hreader) count() int64 {
	x := r.u()
	if x >= 1<<40 && r.err == nil {
		r.err = corrupt(-1, "implausible count %d in the header", x)
	}
	return int64(x)
}

func (r *hreader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail()
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *hreader) u64() uint64 {
	if r.err != nil {
		return 0
	}
	if r.off+8 > len(r.b) {
		r.fail()
		return 0
	}
	r.off += 8
	return binary.LittleEndian.Uint64(r.b[r.off-8:])
}

func (r *hreader) f64() float64 { return math.Float64frombits(r.u64()) }

func (r *hreader) str() string {
	n := r.u()
	if r.err != nil {
		return ""
	}
	if n > maxStr {
		r.err = corrupt(-1, "header string of %d bytes", n)
		return ""
	}
	if r.off+int(n) > len(r.b) {
		r.fail()
		return ""
	}
	r.off += int(n)
	return string(r.b[r.off-int(n) : r.off])
}
