// The search-script file format: header, entries, Subgraphs, reading and writing.
//
// Grammar (docs/scc-format.md explains each field):
//
//	file      = magic version header payloadLen checksum zstdFrame
//	magic     = "MCVMSCC\n"
//	version   = uvarint                       ; FormatVersion
//	header    = kind:byte digest:u64le granularity:str por:str symmetry:str
//	            flags:uvarint verdict:str states:uvarint transitions:uvarint
//	            entries:uvarint initEntries:uvarint initBytes:uvarint bodyBytes:uvarint
//	            idBytes:uvarint subgraphs:uvarint [task]
//	task      = index:uvarint count:uvarint root:uvarint   ; kind 'P' and 'Q' only
//	str       = len:uvarint bytes                          ; len <= 64
//	payloadLen= uvarint                                    ; bytes of the payload
//	checksum  = u64le                                      ; XXH64 of the payload
//	zstdFrame = zstd(payload)
//	payload   = init:entry* body:entry* ids:varint* subgraphs:uvarint*
//	entry     = tag:byte [transition]
//	tag       = op:2 bits | last:1 << 2 | hasChoice:1 << 3 | sameThread:1 << 4   ; bits 5-7 zero
//	op        = 0 backtrack | 1 new state | 2 visited state | 3 fault (no state)
//	transition= [thread:uvarint] opcode:byte [a:varint] [b:varint] [choice:uvarint] [dest]
//	dest      = new: uvarint (ID - (lastNew+1)) | visited: nothing (its ID is in ids) | fault: nothing
//	ids       = per visited-state entry of the body, in order: varint (ID - prevVisited[thread])
//
// thread is omitted when sameThread is set (the previous transition's
// thread); the operands follow the opcode's operand kind (bytecode.Info);
// lastNew is the highest state ID introduced so far (0 at the start of the
// init path and of a full script, the root in a task's body). A backtrack
// has tag 0 exactly. prevVisited[t] is the ID of the previous visited-state
// entry of thread t in the same section (0 at first): keeping the IDs in a
// column of their own, coded against the same thread's last one, halves the
// compressed size (docs/scc-format.md).

package scc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"

	"mcvm/bytecode"
)

// FormatVersion is the version of the script format written and read.
const FormatVersion = 1

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

// Header flags.
const (
	FlagComplete = 1 << iota // the search ended by itself, not stopped at its first error
	FlagContinue             // the search went on after errors
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
	tagLast       = 1 << 2
	tagChoice     = 1 << 3
	tagSameThread = 1 << 4
	tagUnused     = 0xe0
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
	POR         string // partial-order reduction mode ("none")
	Symmetry    string // symmetry reduction ("none")
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
}

// Trustful reports whether the script is a trustful one (or a task of one).
func (h *Header) Trustful() bool { return h.Kind == KindTrustful || h.Kind == KindTrustfulTask }

// IsTask reports whether the script is one task of a partition.
func (h *Header) IsTask() bool { return h.Kind == KindTask || h.Kind == KindTrustfulTask }

// Complete reports whether the search that wrote the script ended by itself.
func (h *Header) Complete() bool { return h.Flags&FlagComplete != 0 }

// Script is a decoded search script: its header, the raw encoded entries
// of the init path and the body, and the Subgraphs list.
type Script struct {
	Header
	Init      []byte
	Body      []byte
	IDs       []byte  // the body's visited-state ID column
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
	if v == nil || s.Body != nil {
		return
	}
	body := make([]Entry, 0, s.Entries)
	for e, err := range v.entries() {
		if err != nil {
			break
		}
		body = append(body, *e)
	}
	s.Init, _ = EncodeEntries(v.init, 0)
	s.Body, s.IDs = EncodeEntries(body, s.Root)
}

// ErrMismatch is wrapped by errors saying a script belongs to another
// program or other exploration options.
var ErrMismatch = errors.New("script does not match")

// Match checks that the script belongs to a program with digest and to
// exploration with the given granularity (and no POR or symmetry, which
// mcvm does not have yet).
func (h *Header) Match(digest uint64, granularity string) error {
	if h.Digest != digest {
		return fmt.Errorf("%w: it was written for another program (digest %016x, this program has %016x): were the same model and -D values given?", ErrMismatch, h.Digest, digest)
	}
	if h.Granularity != granularity {
		return fmt.Errorf("%w: it was written with --granularity %s, not %s", ErrMismatch, h.Granularity, granularity)
	}
	if h.POR != "none" {
		return fmt.Errorf("%w: it was written with partial-order reduction %q, which this certifier does not apply", ErrMismatch, h.POR)
	}
	if h.Symmetry != "none" {
		return fmt.Errorf("%w: it was written with symmetry reduction %q, which this certifier does not apply", ErrMismatch, h.Symmetry)
	}
	return nil
}

// coder holds the context entries are delta-coded against.
type coder struct {
	prevThread int32
	lastNew    int32
	prevOld    []int32 // per thread: the last visited-state ID
	ids        []byte  // encoding: the visited-state IDs
	idr        []byte  // decoding: the visited-state IDs
	idOff      int
}

// prev returns the slot of thread t's last visited-state ID.
func (c *coder) prev(t int32) *int32 {
	for int(t) >= len(c.prevOld) {
		c.prevOld = append(c.prevOld, 0)
	}
	return &c.prevOld[t]
}

func newCoder(lastNew int32) coder { return coder{prevThread: -1, lastNew: lastNew} }

// appendEntry encodes e.
func (c *coder) appendEntry(b []byte, e *Entry) []byte {
	if e.Op == OpBacktrack {
		return append(b, 0)
	}
	tag := byte(e.Op)
	if e.Last {
		tag |= tagLast
	}
	if e.Choice != 0 {
		tag |= tagChoice
	}
	if e.Thread == c.prevThread {
		tag |= tagSameThread
	}
	b = append(b, tag)
	if e.Thread != c.prevThread {
		b = binary.AppendUvarint(b, uint64(e.Thread))
		c.prevThread = e.Thread
	}
	b = append(b, byte(e.Instr.Op))
	switch operands(e.Instr.Op) {
	case 2:
		b = binary.AppendVarint(b, e.Instr.A)
		b = binary.AppendVarint(b, e.Instr.B)
	case 1:
		b = binary.AppendVarint(b, e.Instr.A)
	}
	if e.Choice != 0 {
		b = binary.AppendUvarint(b, uint64(e.Choice))
	}
	switch e.Op {
	case OpNew:
		b = binary.AppendUvarint(b, uint64(int64(e.ID)-int64(c.lastNew)-1))
		c.lastNew = e.ID
	case OpOld:
		p := c.prev(e.Thread)
		c.ids = binary.AppendVarint(c.ids, int64(e.ID)-int64(*p))
		*p = e.ID
	}
	return b
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

// decodeEntry decodes the entry at b[off:] into e and returns the offset
// after it.
func (c *coder) decodeEntry(b []byte, off int, e *Entry) (int, error) {
	if off >= len(b) {
		return off, io.ErrUnexpectedEOF
	}
	tag := b[off]
	off++
	*e = Entry{Op: Op(tag & 3), Last: tag&tagLast != 0}
	if e.Op == OpBacktrack {
		if tag != 0 {
			return off, errEntry
		}
		return off, nil
	}
	if tag&tagUnused != 0 {
		return off, errEntry
	}
	uv := func() (uint64, error) {
		x, n := binary.Uvarint(b[off:])
		if n <= 0 {
			return 0, errEntry
		}
		off += n
		return x, nil
	}
	sv := func() (int64, error) {
		x, n := binary.Varint(b[off:])
		if n <= 0 {
			return 0, errEntry
		}
		off += n
		return x, nil
	}
	if tag&tagSameThread != 0 {
		if c.prevThread < 0 {
			return off, errEntry
		}
		e.Thread = c.prevThread
	} else {
		x, err := uv()
		if err != nil || x >= 1<<16 || int32(x) == c.prevThread {
			return off, errEntry
		}
		e.Thread = int32(x)
		c.prevThread = e.Thread
	}
	if off >= len(b) {
		return off, errEntry
	}
	e.Instr.Op = bytecode.Opcode(b[off])
	off++
	if e.Instr.Op != bytecode.OpInvalid && !e.Instr.Op.Valid() {
		return off, errEntry
	}
	var err error
	switch operands(e.Instr.Op) {
	case 2:
		if e.Instr.A, err = sv(); err == nil {
			e.Instr.B, err = sv()
		}
	case 1:
		e.Instr.A, err = sv()
	}
	if err != nil {
		return off, err
	}
	if tag&tagChoice != 0 {
		x, err := uv()
		if err != nil || x == 0 || x >= 1<<31 {
			return off, errEntry
		}
		e.Choice = int32(x)
	}
	switch e.Op {
	case OpNew:
		x, err := uv()
		if err != nil || x >= 1<<31 || int64(c.lastNew)+1+int64(x) >= 1<<31 {
			return off, errEntry
		}
		e.ID = c.lastNew + 1 + int32(x)
		c.lastNew = e.ID
	case OpOld:
		x, n := binary.Varint(c.idr[c.idOff:])
		if n <= 0 {
			return off, errEntry
		}
		c.idOff += n
		p := c.prev(e.Thread)
		id := int64(*p) + x
		if id < 0 || id >= 1<<31 {
			return off, errEntry
		}
		e.ID = int32(id)
		*p = e.ID
	case OpFault:
		if e.Last {
			return off, errEntry
		}
	}
	return off, nil
}

// EncodeEntries encodes entries with the coding context of a script body
// that starts after state lastNew; it returns the entries' bytes and the
// visited-state ID column.
func EncodeEntries(entries []Entry, lastNew int32) (body, ids []byte) {
	c := newCoder(lastNew)
	for i := range entries {
		body = c.appendEntry(body, &entries[i])
	}
	return body, c.ids
}

// DecodeEntries decodes all of b with ID column ids (coded after state
// lastNew), at most max entries.
func DecodeEntries(b, ids []byte, lastNew int32, max int64) ([]Entry, error) {
	c := newCoder(lastNew)
	c.idr = ids
	out := make([]Entry, 0, min(max, int64(len(b)))) // an entry takes at least a byte
	for off := 0; off < len(b); {
		if int64(len(out)) >= max {
			return nil, corrupt(int64(len(out)), "more entries than the header's %d", max)
		}
		var e Entry
		n, err := c.decodeEntry(b, off, &e)
		if err != nil {
			return nil, corrupt(int64(len(out)), "bad bytes at payload offset %d", off)
		}
		off = n
		out = append(out, e)
	}
	if c.idOff != len(ids) {
		return nil, corrupt(-1, "%d bytes left over in the ID column", len(ids)-c.idOff)
	}
	return out, nil
}

// Encode serialises s (its header counts must be set) into the file
// format. The output is the same for the same script.
func Encode(s *Script) []byte {
	s.materialize()
	var payload []byte
	payload = append(payload, s.Init...)
	payload = append(payload, s.Body...)
	payload = append(payload, s.IDs...)
	for _, n := range s.Subgraph {
		payload = binary.AppendUvarint(payload, uint64(n))
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
	for _, x := range []int64{h.States, h.Transitions, h.Entries, h.InitEntries, int64(len(s.Init)), int64(len(s.Body)), int64(len(s.IDs)), h.Subgraphs} {
		b = binary.AppendUvarint(b, uint64(x))
	}
	if h.IsTask() {
		b = binary.AppendUvarint(b, uint64(h.Task))
		b = binary.AppendUvarint(b, uint64(h.Tasks))
		b = binary.AppendUvarint(b, uint64(h.Root))
	}
	b = binary.AppendUvarint(b, uint64(len(payload)))
	b = binary.LittleEndian.AppendUint64(b, xxhash.Sum64(payload))
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

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Read parses a script file. Damaged or truncated input is reported as a
// *Discrepancy of kind Corrupt or Truncated; it never panics, and it
// allocates in proportion to len(data) and the data actually decompressed.
func Read(data []byte) (*Script, error) {
	r := &hreader{b: data}
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		if len(data) < len(magic) && string(data) == magic[:len(data)] {
			return nil, truncated("the file ends inside its magic number")
		}
		return nil, corrupt(-1, "not a search script (bad magic number)")
	}
	r.off = len(magic)
	if v := r.u(); r.err == nil && v != FormatVersion {
		return nil, corrupt(-1, "format version %d, this mcvm reads version %d", v, FormatVersion)
	}
	s := &Script{}
	h := &s.Header
	h.Kind = r.byte()
	switch h.Kind {
	case KindFull, KindTrustful, KindTask, KindTrustfulTask:
	default:
		if r.err == nil {
			return nil, corrupt(-1, "unknown script kind %q", h.Kind)
		}
	}
	h.Digest = r.u64()
	h.Granularity, h.POR, h.Symmetry = r.str(), r.str(), r.str()
	h.Flags = r.u()
	h.Verdict = r.str()
	h.States, h.Transitions, h.Entries, h.InitEntries = r.count(), r.count(), r.count(), r.count()
	initBytes, bodyBytes, idBytes := r.count(), r.count(), r.count()
	h.Subgraphs = r.count()
	if h.IsTask() {
		h.Task, h.Tasks, h.Root = int(r.count()), int(r.count()), int32(r.count())
	}
	payloadLen := r.count()
	sum := r.u64()
	if r.err != nil {
		return nil, r.err
	}
	if h.Flags >= 1<<2 {
		return nil, corrupt(-1, "unknown header flags %#x", h.Flags)
	}
	if payloadLen > MaxPayload {
		return nil, corrupt(-1, "payload of %d bytes is larger than the limit of %d", payloadLen, MaxPayload)
	}
	if initBytes+bodyBytes+idBytes > payloadLen {
		return nil, corrupt(-1, "header's section sizes exceed the payload")
	}
	frame := data[r.off:]
	if payloadLen > int64(len(frame))*maxRatio+1024 {
		return nil, corrupt(-1, "the header announces %d bytes of payload from %d compressed bytes, more than a ratio of %d", payloadLen, len(frame), maxRatio)
	}
	var zh zstd.Header
	if err := zh.Decode(frame); err != nil {
		if len(frame) < zstd.HeaderMaxSize {
			return nil, truncated("the file ends inside the compressed payload's header")
		}
		return nil, corrupt(-1, "compressed payload: %v", err)
	}
	if !zh.HasFCS || zh.FrameContentSize != uint64(payloadLen) {
		return nil, corrupt(-1, "the compressed payload's size disagrees with the header's %d bytes", payloadLen)
	}
	payload, err := decoder().DecodeAll(frame, make([]byte, 0, payloadLen))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, truncated("the compressed payload ends early")
		}
		return nil, corrupt(-1, "compressed payload: %v", err)
	}
	if int64(len(payload)) != payloadLen {
		return nil, corrupt(-1, "the payload has %d bytes, the header says %d", len(payload), payloadLen)
	}
	if xxhash.Sum64(payload) != sum {
		return nil, corrupt(-1, "payload checksum mismatch")
	}
	s.Init = payload[:initBytes]
	s.Body = payload[initBytes : initBytes+bodyBytes]
	s.IDs = payload[initBytes+bodyBytes : initBytes+bodyBytes+idBytes]
	rest := payload[initBytes+bodyBytes+idBytes:]
	if h.Subgraphs > int64(len(rest)) {
		return nil, corrupt(-1, "the header announces %d Subgraphs entries, the payload has room for at most %d", h.Subgraphs, len(rest))
	}
	s.Subgraph = make([]int64, 0, h.Subgraphs)
	for i := int64(0); i < h.Subgraphs; i++ {
		x, n := binary.Uvarint(rest)
		if n <= 0 || x >= 1<<62 {
			return nil, corrupt(-1, "bad Subgraphs entry %d", i)
		}
		rest = rest[n:]
		s.Subgraph = append(s.Subgraph, int64(x))
	}
	if len(rest) != 0 {
		return nil, corrupt(-1, "%d bytes after the Subgraphs list", len(rest))
	}
	s.FileBytes, s.RawBytes = int64(len(data)), payloadLen
	return s, nil
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
	if n < 0 {
		r.err = corrupt(-1, "bad number in the header at byte %d", r.off)
		return 0
	}
	r.off += n
	return x
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
