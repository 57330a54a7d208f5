package vectors

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"sync"
	"unsafe"
)

// The persisted form of a collection is one append-only file:
//
//	log   = magic frame*
//	magic = "GMVLOG1\n"
//	frame = length:u32le crc32c(payload):u32le payload
//	payload = op*
//	op    = 1 id meta dims float32le*dims   (put a document)
//	      | 3 id meta dims mask float32le*n  (put a document, sparse vector)
//	      | 4 id meta dims mask exp int8*n   (put a document, quantized)
//	      | 5 doc dims mask exp int8*n       (put a document of the usual shape)
//	      | 2 commit                         (delete a commit's documents)
//	id, commit, key, value = uvarint length, bytes
//	meta  = uvarint count, (key value)*
//	dims  = uvarint
//	mask  = ceil(dims/8) bytes, bit i (LSB first) set when element i is
//	        stored; n is the number of set bits, the others are +0
//	exp   = zig-zag varint: a stored element is its int8 × 2^exp
//
// The local embedder's hashed half sets a few dozen to a few hundred of
// its 384 dimensions, so most of a vector is zeros: with the sparse put,
// git/git's log (124k documents) takes 150 MB instead of 271 MB, and a
// cold query, which reads the whole log, reads that much less. Writers
// store each element in a byte (op 4): a power-of-two scale, chosen so
// that the largest element is 64 to 127 times it, keeps every element
// within 0.8 % of the largest (a cosine moves by about 0.001), and makes
// the encoding idempotent: a decoded vector encodes to the same bytes,
// so compacting a log does not change what it holds. A document whose id
// and metadata have the shape Doc gives them is written as op 5, which
// stores only what is not implied (logdoc.go); others as op 4. Ops 1, 3
// and 4, which older builds wrote, are still read.
//
// Every write call appends whole frames with one write and an fsync, so a
// killed writer leaves at most one torn frame at the end: readers ignore
// it and the next writer truncates it. A bad frame with data after it is
// corruption (ErrCorrupt). chromem-go's own persistence (one gob file per
// document, every file read at open) measured 2.5 s to open 50k documents;
// this file opens in a fraction of that (see the package benchmarks).

const (
	logMagic     = "GMVLOG1\n"
	frameHeader  = 8
	maxFrameSize = 256 << 20
	opPut        = 1
	opDelCommit  = 2
	opPutSparse  = 3
	opPutQuant   = 4
	opPutDoc     = 5
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// record is one decoded op.
type record struct {
	op     byte
	id     string // opPut
	meta   map[string]string
	vec    []float32
	commit string // opDelCommit
}

// docOverhead is about what a put costs the payload besides its vector:
// the op, the id and the metadata.
const docOverhead = 256

// encoder builds one frame's payload.
type encoder struct {
	buf   []byte
	table map[string]int // the frame's strings op 5 refers back to
}

func (e *encoder) str(s string) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) put(id string, meta map[string]string, vec []float32) {
	e.buf = append(e.buf, opPutQuant)
	e.str(id)
	e.buf = binary.AppendUvarint(e.buf, uint64(len(meta)))
	for _, k := range sortedKeys(meta) {
		e.str(k)
		e.str(meta[k])
	}
	e.quantVec(vec)
}

// quantVec appends a vector as op 4 stores it: dims mask exp int8*n.
func (e *encoder) quantVec(vec []float32) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(vec)))
	mask := len(e.buf)
	e.buf = append(e.buf, make([]byte, maskBytes(len(vec)))...)
	exp := quantExp(vec)
	e.buf = binary.AppendVarint(e.buf, int64(exp))
	for i, x := range vec {
		if math.Float32bits(x) != 0 {
			e.buf[mask+i/8] |= 1 << (i % 8)
			e.buf = append(e.buf, byte(quantizeExp(x, exp)))
		}
	}
}

// quantExp is the exponent of a vector's scale: the smallest power of two
// that the largest magnitude is at most 127 times, so that it is more
// than 63.5 times it.
func quantExp(vec []float32) int {
	var m float64
	for _, x := range vec {
		m = max(m, math.Abs(float64(x)))
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return 0
	}
	frac, exp := math.Frexp(m / 127) // m/127 = frac·2^exp, frac in [0.5, 1)
	if frac == 0.5 {
		exp--
	}
	return exp
}

// quantizeExp is x in units of 2^exp, rounded, within int8.
func quantizeExp(x float32, exp int) int8 {
	q := math.RoundToEven(math.Ldexp(float64(x), -exp))
	return int8(min(max(q, -127), 127))
}

func maskBytes(dims int) int { return (dims + 7) / 8 }

func (e *encoder) delCommit(sha string) {
	e.buf = append(e.buf, opDelCommit)
	e.str(sha)
}

// frame returns the payload framed with its length and checksum.
func (e *encoder) frame() []byte {
	out := make([]byte, frameHeader, frameHeader+len(e.buf))
	binary.LittleEndian.PutUint32(out, uint32(len(e.buf)))
	binary.LittleEndian.PutUint32(out[4:], crc32.Checksum(e.buf, castagnoli))
	return append(out, e.buf...)
}

// decodePayload calls fn for each op of a frame's payload. With a nil fn
// it only checks that the ops parse, allocating nothing.
func decodePayload(p []byte, fn func(*record) error) error {
	d := decoder{p: p}
	build := fn != nil
	if build {
		d.names = map[string]string{}
	}
	for len(d.p) > 0 && d.err == nil {
		var r record
		r.op = d.byte()
		switch r.op {
		case opPut:
			d.head(&r, build)
			dims := d.uvarint(1 << 16)
			raw := d.bytes(4 * dims)
			if build && d.err == nil {
				r.vec = decodeFloats(raw, dims)
			}
		case opPutSparse:
			r.op = opPut // to the reader, a put like any other
			d.head(&r, build)
			dims := d.uvarint(1 << 16)
			mask := d.bytes(maskBytes(dims))
			raw := d.bytes(4 * storedCount(mask))
			if d.err == nil && dims%8 != 0 && mask[len(mask)-1]>>(dims%8) != 0 {
				return fmt.Errorf("%w: sparse vector marks elements past its %d dimensions", ErrCorrupt, dims)
			}
			if build && d.err == nil {
				r.vec = decodeSparse(mask, raw, dims)
			}
		case opPutQuant:
			r.op = opPut
			d.head(&r, build)
			r.vec = d.quantVec(build)
		case opPutDoc:
			replace := d.doc(&r, build)
			r.vec = d.quantVec(build)
			if replace && build && d.err == nil {
				if err := fn(&record{op: opDelCommit, commit: r.meta[MetaCommit]}); err != nil {
					return err
				}
			}
		case opDelCommit:
			r.commit = d.str(build)
		default:
			return fmt.Errorf("%w: unknown op %d", ErrCorrupt, r.op)
		}
		if d.err != nil || !build {
			continue
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	return d.err
}

// internedValues are the metadata whose values repeat from document to
// document (a handful of kinds and classes), kept once per frame like the
// keys: a cold query decodes every document's metadata.
var internedValues = map[string]bool{MetaKind: true, MetaClassification: true, MetaRewritten: true}

// head decodes a put's id and metadata.
func (d *decoder) head(r *record, build bool) {
	r.id = d.str(build)
	n := d.uvarint(1 << 10)
	if build {
		r.meta = make(map[string]string, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		k := d.name(build)
		var v string
		if internedValues[k] {
			v = d.name(build)
		} else {
			v = d.str(build)
		}
		if build {
			r.meta[k] = v
		}
	}
}

// littleEndian: the log's floats are little-endian, so on such a machine
// decoding is a copy.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// decodeFloats decodes dims little-endian float32s. The copy into the
// new slice's bytes was a third of a cold query's decoding of 124k
// documents when done a float at a time.
func decodeFloats(raw []byte, dims int) []float32 {
	v := make([]float32, dims)
	if littleEndian && dims > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*dims), raw)
		return v
	}
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v
}

// storedCount is the number of elements a sparse vector's mask stores.
func storedCount(mask []byte) int {
	n := 0
	for _, b := range mask {
		n += bits.OnesCount8(b)
	}
	return n
}

// decodeSparse expands a sparse vector: the stored elements in order,
// zeros elsewhere.
func decodeSparse(mask, raw []byte, dims int) []float32 {
	v := make([]float32, dims)
	k := 0
	for i := 0; i < len(mask); i += 8 {
		for w := maskWord(mask, i); w != 0; w &= w - 1 {
			j := 8*i + bits.TrailingZeros64(w)
			if j >= len(v) || k+4 > len(raw) {
				return v // the caller checked both; this lets the compiler drop the bounds checks
			}
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[k : k+4]))
			k += 4
		}
	}
	return v
}

// maskWord is the mask's bits from byte i on, eight bytes at a time (what
// is left at its end, zero-padded): the decoders walk a mask by words.
func maskWord(mask []byte, i int) uint64 {
	if i+8 <= len(mask) {
		return binary.LittleEndian.Uint64(mask[i:])
	}
	var w uint64
	for j := len(mask) - 1; j >= i; j-- {
		w = w<<8 | uint64(mask[j])
	}
	return w
}

// decodeQuant expands a quantized vector: each stored byte, as an int8,
// times 2^exp, in the masked elements' places; zeros elsewhere.
func decodeQuant(mask, raw []byte, exp, dims int) []float32 {
	v := make([]float32, dims)
	scale := float32(math.Ldexp(1, exp))
	k := 0
	for i := 0; i < len(mask); i += 8 {
		for w := maskWord(mask, i); w != 0; w &= w - 1 {
			j := 8*i + bits.TrailingZeros64(w)
			if j >= len(v) || k >= len(raw) {
				return v // the caller checked both
			}
			v[j] = float32(int8(raw[k])) * scale
			k++
		}
	}
	return v
}

// quantVec decodes the vector of an op 4 or 5 put: dims mask exp int8*n.
func (d *decoder) quantVec(build bool) []float32 {
	dims := d.uvarint(1 << 16)
	mask := d.bytes(maskBytes(dims))
	exp := d.varint(-1100, 1100)
	raw := d.bytes(storedCount(mask))
	if d.err == nil && dims%8 != 0 && mask[len(mask)-1]>>(dims%8) != 0 {
		d.err = fmt.Errorf("%w: quantized vector marks elements past its %d dimensions", ErrCorrupt, dims)
		d.p = nil
	}
	if !build || d.err != nil {
		return nil
	}
	return decodeQuant(mask, raw, exp, dims)
}

type decoder struct {
	p     []byte
	err   error
	names map[string]string // strings decoded once per frame (see name)
	table []string          // a frame's strings that op 5 refers back to (see ref)
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated op", ErrCorrupt)
	}
	d.p = nil
}

func (d *decoder) byte() byte {
	if len(d.p) < 1 {
		d.fail()
		return 0
	}
	b := d.p[0]
	d.p = d.p[1:]
	return b
}

func (d *decoder) uvarint(limit int) int {
	v, n := binary.Uvarint(d.p)
	if n <= 0 || v > uint64(limit) {
		d.fail()
		return 0
	}
	d.p = d.p[n:]
	return int(v)
}

func (d *decoder) varint(lo, hi int64) int {
	v, n := binary.Varint(d.p)
	if n <= 0 || v < lo || v > hi {
		d.fail()
		return 0
	}
	d.p = d.p[n:]
	return int(v)
}

func (d *decoder) bytes(n int) []byte {
	if n > len(d.p) {
		d.fail()
		return nil
	}
	b := d.p[:n]
	d.p = d.p[n:]
	return b
}

// name is str for a string that recurs in a frame (a metadata key, a
// kind): the first occurrence is allocated, the others share it.
func (d *decoder) name(build bool) string {
	b := d.bytes(d.uvarint(len(d.p)))
	if !build {
		return ""
	}
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	s := string(b)
	d.names[s] = s
	return s
}

func (d *decoder) str(build bool) string {
	b := d.bytes(d.uvarint(len(d.p)))
	if !build {
		return ""
	}
	return string(b)
}

// replayLog reads the log at path and calls fn for every op of every
// complete frame. It returns the length of the valid prefix (a torn last
// frame is left out) and the file's size. A missing file is an empty log.
func replayLog(path string, fn func(*record) error) (valid, size int64, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("open vector log: %w", err)
	}
	defer f.Close()
	return replayFrames(f, fn)
}

// replayFrames decodes the frames on two goroutines and applies their
// records in log order on the caller's: decoding (a map and a vector per
// document) was half of loading 124k documents for a cold query.
func replayFrames(f *os.File, fn func(*record) error) (valid, size int64, err error) {
	type frame struct {
		recs []record
		err  error
		done chan struct{}
	}
	frames := make(chan *frame, 32) // in log order; bounded, so memory stays a few frames
	work := make(chan func(), 32)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range work {
				w()
			}
		}()
	}
	applied := make(chan error, 1)
	go func() {
		var err error
		for fr := range frames {
			<-fr.done
			if err != nil {
				continue // drain
			}
			if err = fr.err; err != nil {
				continue
			}
			for i := range fr.recs {
				if err = fn(&fr.recs[i]); err != nil {
					break
				}
			}
		}
		applied <- err
	}()
	valid, size, err = scanLog(f, func(p []byte) error {
		fr := &frame{done: make(chan struct{})}
		payload := slices.Clone(p) // scanLog reuses its buffer
		frames <- fr
		work <- func() {
			defer close(fr.done)
			fr.err = decodePayload(payload, func(r *record) error {
				fr.recs = append(fr.recs, *r)
				return nil
			})
		}
		return nil
	})
	close(work)
	close(frames)
	wg.Wait()
	if aerr := <-applied; err == nil && aerr != nil {
		err = fmt.Errorf("%s: %w", f.Name(), aerr)
	}
	return valid, size, err
}

// validPrefix checks every frame's checksum and ops and returns where a
// writer may append: after the last good frame, cutting a torn one. It returns
// ErrCorrupt where replayLog would, so a damaged log is found by the
// first write too, not only by the first query.
func validPrefix(f *os.File) (int64, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("read vector log: %w", err)
	}
	valid, _, err := scanLog(f, func(p []byte) error { return decodePayload(p, nil) })
	return valid, err
}

// scanLog reads f from its start: the magic, then frame by frame,
// checking each checksum and passing the payload to fn.
// A log shorter than its magic is empty: its creation was cut short.
func scanLog(f *os.File, fn func([]byte) error) (valid, size int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, fmt.Errorf("stat vector log: %w", err)
	}
	size = fi.Size()
	r := bufio.NewReaderSize(f, 1<<20)
	var m [len(logMagic)]byte
	n, _ := io.ReadFull(r, m[:])
	if string(m[:n]) != logMagic[:n] {
		return 0, size, fmt.Errorf("%w: %s is not a vector log", ErrCorrupt, f.Name())
	}
	if n < len(logMagic) {
		return 0, size, nil
	}
	off := int64(len(logMagic))
	var hdr [frameHeader]byte
	var payload []byte
	for off < size {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return off, size, nil // torn header
		}
		n := int64(binary.LittleEndian.Uint32(hdr[:]))
		end := off + frameHeader + n
		if n == 0 || end > size {
			return off, size, nil // torn frame: the writer died mid-write
		}
		if n > maxFrameSize {
			return off, size, fmt.Errorf("%w: %s: frame of %d bytes at %d", ErrCorrupt, f.Name(), n, off)
		}
		if int64(cap(payload)) < n {
			payload = make([]byte, n)
		}
		payload = payload[:n]
		if _, err := io.ReadFull(r, payload); err != nil {
			return off, size, fmt.Errorf("read vector log: %w", err)
		}
		if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(hdr[4:]) {
			if end == size {
				return off, size, nil // the last frame, partly written
			}
			return off, size, fmt.Errorf("%w: %s: bad checksum at %d", ErrCorrupt, f.Name(), off)
		}
		if err := fn(payload); err != nil {
			return off, size, fmt.Errorf("%s at %d: %w", f.Name(), off, err)
		}
		off = end
	}
	return off, size, nil
}
