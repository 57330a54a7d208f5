package extract

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// packIndex finds objects in a pack's index file, read in place from its
// mapping. go-git's MemoryIndex copies the names and offsets into the heap
// and remembers every lookup in a map: on git/git that was ~70 MB of live
// heap per copy, which the garbage collector scans and paces against for
// the whole sync.
//
// Both formats git writes are read (gitformat-pack(5)): version 2, with a
// header, then 256 fan-out counts, the sorted names, their CRCs, 4-byte
// offsets (the high bit sends larger ones to a table of 8-byte offsets);
// and version 1, the fan-out then (4-byte offset, name) entries.
type packIndex struct {
	n       int
	fanout  []byte // 256 big-endian counts
	names   []byte // version 2: n sorted 20-byte names
	offsets []byte // version 2: n 4-byte offsets
	large   []byte // version 2: the 8-byte offsets
	entries []byte // version 1: n (offset, name) entries of 24 bytes
}

var idxMagic = []byte{0xff, 't', 'O', 'c'}

// trailerBytes: the pack's checksum and the index's own.
const trailerBytes = 2 * 20

func parseIndex(data []byte) (*packIndex, error) {
	x := &packIndex{}
	body := data
	v2 := bytes.HasPrefix(data, idxMagic)
	if v2 {
		if len(data) < 8 || binary.BigEndian.Uint32(data[4:]) != 2 {
			return nil, errors.New("unsupported pack index version")
		}
		body = data[8:]
	}
	if len(body) < 256*4+trailerBytes {
		return nil, errors.New("truncated pack index")
	}
	x.fanout = body[:256*4]
	prev := uint32(0)
	for i := range 256 {
		c := binary.BigEndian.Uint32(x.fanout[4*i:])
		if c < prev {
			return nil, errors.New("corrupt pack index fan-out")
		}
		prev = c
	}
	x.n = int(prev)
	rest := body[256*4 : len(body)-trailerBytes]
	if !v2 {
		if len(rest) != 24*x.n {
			return nil, fmt.Errorf("pack index of %d objects has %d bytes of entries", x.n, len(rest))
		}
		x.entries = rest
		return x, nil
	}
	if len(rest) < 28*x.n || (len(rest)-28*x.n)%8 != 0 {
		return nil, fmt.Errorf("pack index of %d objects has %d bytes of tables", x.n, len(rest))
	}
	x.names = rest[:20*x.n]
	x.offsets = rest[24*x.n : 28*x.n] // after the CRCs
	x.large = rest[28*x.n:]
	return x, nil
}

// find returns the pack offset of an object, or false if the pack does not
// hold it (or the index is corrupt there).
func (x *packIndex) find(h plumbing.Hash) (int64, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(x.fanout[4*(int(h[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(x.fanout[4*int(h[0]):]))
	if lo > hi || hi > x.n {
		return 0, false
	}
	i := lo + sort.Search(hi-lo, func(k int) bool { return bytes.Compare(x.name(lo+k), h[:]) >= 0 })
	if i == hi || !bytes.Equal(x.name(i), h[:]) {
		return 0, false
	}
	return x.offset(i)
}

func (x *packIndex) name(i int) []byte {
	if x.entries != nil {
		return x.entries[24*i+4 : 24*i+24]
	}
	return x.names[20*i : 20*i+20]
}

func (x *packIndex) offset(i int) (int64, bool) {
	if x.entries != nil {
		return int64(binary.BigEndian.Uint32(x.entries[24*i:])), true
	}
	off := binary.BigEndian.Uint32(x.offsets[4*i:])
	if off&0x80000000 == 0 {
		return int64(off), true
	}
	k := int(off&0x7fffffff) * 8
	if k+8 > len(x.large) {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(x.large[k:])), true
}
