package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"
)

// packReader reads blobs and trees straight from memory-mapped pack files,
// using go-git's index decoder and delta patcher. go-git's own object path
// re-inflates an object's delta on every read, hashes every object it
// caches and needs an offset-to-hash map of the whole pack (80 ms to build
// for git/git) to resolve offset deltas; here delta bases are cached by
// pack offset and inflated with klauspost's faster zlib. Objects it cannot
// find (loose objects, alternates) are read by go-git as before.
type packReader struct {
	packs []*pack
	cache *genCache[offsetKey, cached]
	zr    io.ReadCloser // reused zlib reader
	// Reused between reads: the chain being resolved, the top delta and
	// the others, each needed only while it is applied, and readTemp's
	// content.
	chain         []deltaLink
	top, mid, out []byte
	head          [20]byte // a delta's header, for its result's size
	recycle       recycler
}

type pack struct {
	idx     *packIndex
	idxData []byte // the mapped index file
	data    []byte // the mapped pack file
}

// Object types of the pack format.
const (
	objCommit   = 1
	objTree     = 2
	objBlob     = 3
	objTag      = 4
	objOFSDelta = 6
	objREFDelta = 7
)

// openPacks maps every pack of the repository whose objects directory is
// dir, and of the repositories it borrows objects from (alternates, as
// `clone --shared` sets up: go-git reopens an alternate's pack index on
// every lookup). It returns nil (use go-git) when there are no packs.
func openPacks(dir string, cacheBytes int) (*packReader, error) {
	var idxs []string
	for _, d := range objectDirs(dir, 0) {
		found, err := filepath.Glob(filepath.Join(d, "pack", "*.idx"))
		if err != nil {
			return nil, err
		}
		idxs = append(idxs, found...)
	}
	if len(idxs) == 0 {
		return nil, nil
	}
	pr := &packReader{cache: newOffsetCache(cacheBytes)}
	for _, ip := range idxs {
		p, err := openPack(ip)
		if err != nil {
			pr.close()
			return nil, err
		}
		pr.packs = append(pr.packs, p)
	}
	return pr, nil
}

// objectDirs lists an objects directory and, recursively (as git does, up
// to five levels), those named in its info/alternates file.
func objectDirs(dir string, depth int) []string {
	dirs := []string{dir}
	b, err := os.ReadFile(filepath.Join(dir, "info", "alternates"))
	if err != nil || depth >= 5 {
		return dirs
	}
	for _, line := range strings.Split(string(b), "\n") {
		alt := strings.TrimSpace(line)
		if alt == "" || strings.HasPrefix(alt, "#") {
			continue
		}
		if !filepath.IsAbs(alt) {
			alt = filepath.Join(dir, alt)
		}
		dirs = append(dirs, objectDirs(alt, depth+1)...)
	}
	return dirs
}

func openPack(idxPath string) (*pack, error) {
	idxData, err := mapFile(idxPath)
	if err != nil {
		return nil, err
	}
	idx, err := parseIndex(idxData)
	if err != nil {
		syscall.Munmap(idxData)
		return nil, fmt.Errorf("read %s: %w", idxPath, err)
	}
	data, err := mapFile(strings.TrimSuffix(idxPath, ".idx") + ".pack")
	if err != nil {
		syscall.Munmap(idxData)
		return nil, err
	}
	return &pack{idx: idx, idxData: idxData, data: data}, nil
}

// mapFile maps a whole file read-only.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return nil, fmt.Errorf("empty file %s", path)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	return data, nil
}

// release drops the mapped pages from the process's resident set (they
// stay in the page cache, so touching them again is a minor fault):
// without it, reading a 500 MB pack end to end adds 500 MB to the RSS.
// The index's pages go too: its lookups are binary searches over the whole
// file, which left git/git's 23 MB index resident by the end of a sync, and
// a batch's lookups fault back only the pages they touch.
func (pr *packReader) release() {
	for _, p := range pr.packs {
		syscall.Madvise(p.data, syscall.MADV_DONTNEED)
		syscall.Madvise(p.idxData, syscall.MADV_DONTNEED)
	}
}

func (pr *packReader) close() {
	for _, p := range pr.packs {
		syscall.Munmap(p.data)
		syscall.Munmap(p.idxData)
	}
	pr.packs = nil
}

var errNotInPack = errors.New("object not in a pack")

// read returns an object's type and content, or errNotInPack. Content
// larger than limit is not inflated: it returns nil content and no error.
func (pr *packReader) read(h plumbing.Hash, limit int64) (int, []byte, error) {
	for pi, p := range pr.packs {
		if off, ok := p.idx.find(h); ok {
			return pr.at(pi, off, limit, false)
		}
	}
	return 0, nil, errNotInPack
}

// readTemp is read for content that is only looked at: unless the cache
// holds the object, it is rebuilt into a buffer the reader reuses and is
// not cached (the objects of its delta chain are). The content is valid
// until the next read.
func (pr *packReader) readTemp(h plumbing.Hash, limit int64) (int, []byte, error) {
	for pi, p := range pr.packs {
		if off, ok := p.idx.find(h); ok {
			return pr.at(pi, off, limit, true)
		}
	}
	return 0, nil, errNotInPack
}

// maxDeltaDepth bounds delta chains, so that a corrupt pack whose deltas
// refer to each other fails instead of looping forever. (git's own packs
// stay under 4,096; its default depth is 50.)
const maxDeltaDepth = 10000

// maxObjectBytes bounds what a (possibly corrupt) header may make us
// allocate.
const maxObjectBytes = 1 << 32

// deltaLink is one delta of a chain being resolved: the object and where
// its compressed delta starts.
type deltaLink struct {
	pi        int
	off, pos  int64
	deltaSize int64
}

// at reads the object at a pack offset, resolving deltas: down the chain
// to a cached or whole object, then the deltas applied from there up.
//
// A delta is needed only while it is applied, so each is inflated into a
// reused buffer (allocating them was 6 % of what extraction allocated).
// Every object rebuilt is allocated for itself: the cache keeps it, and a
// caller may keep what it is given for good (a decoded tree's names point
// into it, the entity stage keeps a file's source); with temp, the object
// asked for is the exception (readTemp).
func (pr *packReader) at(pi int, off int64, limit int64, temp bool) (int, []byte, error) {
	if e, ok := pr.cache.get(offsetKey{pi, off}); ok {
		if int64(len(e.data)) > limit {
			return e.typ, nil, nil
		}
		if !temp && !e.lent {
			e.lent = true
			pr.cache.set(offsetKey{pi, off}, e)
		}
		return e.typ, e.data, nil
	}
	defer pr.dropLargeScratch()
	typ, data, err := pr.descend(pi, off, limit, temp)
	if err != nil || data == nil {
		return typ, nil, err
	}
	return pr.ascend(typ, data, limit, temp)
}

// descend walks a delta chain down from the object at off to a cached or
// whole object, which it returns, leaving the deltas on the way in
// pr.chain (the first one inflated in pr.top). Content too large for
// limit comes back nil, with its type. With temp, an object stored whole
// is inflated into pr.out and not cached.
func (pr *packReader) descend(pi int, off int64, limit int64, temp bool) (int, []byte, error) {
	pr.chain = pr.chain[:0]
	for depth := 0; depth <= maxDeltaDepth; depth++ {
		if depth > 0 {
			if e, ok := pr.cache.get(offsetKey{pi, off}); ok {
				return e.typ, e.data, nil
			}
		}
		p := pr.packs[pi]
		typ, size, n, err := header(p.data, off)
		if err != nil {
			return 0, nil, err
		}
		if size > maxObjectBytes {
			return 0, nil, fmt.Errorf("object at %d claims %d bytes", off, size)
		}
		pos := off + int64(n)
		switch typ {
		case objCommit, objTree, objBlob, objTag:
			if depth == 0 && size > limit {
				return typ, nil, nil
			}
			if depth == 0 && temp {
				pr.out, err = pr.inflateInto(pr.out, p.data[pos:], size)
				return typ, pr.out, err
			}
			data, err := pr.inflateInto(pr.alloc(size, nil, depth == 0), p.data[pos:], size)
			if err != nil {
				return 0, nil, err
			}
			// A commit or tag is read once, for itself: cached, the
			// history's commits would push out the trees and blobs that
			// later reads and deltas need. (As a delta's base it is kept.)
			if depth > 0 || (typ != objCommit && typ != objTag) {
				pr.cache.put(offsetKey{pi, off}, cached{typ: typ, data: data, lent: depth == 0})
			}
			return typ, data, nil
		case objOFSDelta, objREFDelta:
		default:
			return 0, nil, fmt.Errorf("bad object type %d at %d", typ, off)
		}
		bpi, boff, pos, err := pr.deltaBase(pi, off, typ, pos)
		if err != nil {
			return 0, nil, err
		}
		if depth == 0 {
			if pr.top, err = pr.inflateInto(pr.top, p.data[pos:], size); err != nil {
				return 0, nil, err
			}
			// The delta names its result's size: a huge blob is not
			// rebuilt.
			if target := deltaTargetSize(pr.top); target > limit {
				t, err := pr.typeAt(bpi, boff, 1)
				return t, nil, err
			}
		}
		pr.chain = append(pr.chain, deltaLink{pi: pi, off: off, pos: pos, deltaSize: size})
		pi, off = bpi, boff
	}
	return 0, nil, fmt.Errorf("delta chain deeper than %d at %d", maxDeltaDepth, off)
}

// ascend applies the deltas descend left in pr.chain to their base, from
// the deepest up, caching each object rebuilt (the one asked for only when
// it is not a commit or tag, as in descend; with temp, it is rebuilt into
// pr.out and not cached).
func (pr *packReader) ascend(typ int, data []byte, limit int64, temp bool) (int, []byte, error) {
	for i := len(pr.chain) - 1; i >= 0; i-- {
		l := pr.chain[i]
		delta := pr.top
		if i > 0 {
			var err error
			if pr.mid, err = pr.inflateInto(pr.mid, pr.packs[l.pi].data[l.pos:], l.deltaSize); err != nil {
				return 0, nil, err
			}
			delta = pr.mid
		}
		var into []byte
		if i == 0 && temp {
			into = pr.out[:0]
		} else if target := deltaTargetSize(delta); target >= 0 && target <= maxObjectBytes {
			into = pr.alloc(target, data, i == 0)[:0]
		}
		out, err := patchDeltaInto(into, data, delta)
		if err != nil {
			return 0, nil, fmt.Errorf("delta at %d: %w", l.off, err)
		}
		if data = out; data == nil {
			data = []byte{} // an empty result, not "too large"
		}
		if i == 0 && temp {
			pr.out = data
		}
		if i == 0 && int64(len(data)) > limit {
			return typ, nil, nil
		}
		if i > 0 || (!temp && typ != objCommit && typ != objTag) {
			pr.cache.put(offsetKey{l.pi, l.off}, cached{typ: typ, data: data, lent: i == 0})
		}
	}
	return typ, data, nil
}

// dropLargeScratch lets a buffer larger than maxScratch go once used.
func (pr *packReader) dropLargeScratch() {
	if cap(pr.top) > maxScratch {
		pr.top = nil
	}
	if cap(pr.mid) > maxScratch {
		pr.mid = nil
	}
	if cap(pr.out) > maxScratch {
		pr.out = nil
	}
}

// deltaBase locates a delta's base object and returns where the delta's
// compressed data starts.
func (pr *packReader) deltaBase(pi int, off int64, typ int, pos int64) (int, int64, int64, error) {
	data := pr.packs[pi].data
	if typ == objOFSDelta {
		rel, k := ofsDistance(data[pos:])
		if k == 0 || rel <= 0 || rel > off {
			return 0, 0, 0, fmt.Errorf("bad delta offset at %d", off)
		}
		return pi, off - rel, pos + int64(k), nil
	}
	if pos+20 > int64(len(data)) {
		return 0, 0, 0, fmt.Errorf("truncated object at %d", off)
	}
	var h plumbing.Hash
	copy(h[:], data[pos:pos+20])
	for bpi, p := range pr.packs {
		if boff, ok := p.idx.find(h); ok {
			return bpi, boff, pos + 20, nil
		}
	}
	return 0, 0, 0, fmt.Errorf("delta base %s of the object at %d: %w", h, off, errNotInPack)
}

// typeAt follows a delta chain by its headers alone to the type of the
// object it rebuilds.
func (pr *packReader) typeAt(pi int, off int64, depth int) (int, error) {
	for ; depth <= maxDeltaDepth; depth++ {
		typ, _, n, err := header(pr.packs[pi].data, off)
		if err != nil {
			return 0, err
		}
		switch typ {
		case objCommit, objTree, objBlob, objTag:
			return typ, nil
		case objOFSDelta, objREFDelta:
			if pi, off, _, err = pr.deltaBase(pi, off, typ, off+int64(n)); err != nil {
				return 0, err
			}
		default:
			return 0, fmt.Errorf("bad object type %d at %d", typ, off)
		}
	}
	return 0, fmt.Errorf("delta chain deeper than %d at %d", maxDeltaDepth, off)
}

// deltaTargetSize reads the result size from a delta's header (two
// varints: source size, target size), or -1 if it is malformed.
func deltaTargetSize(delta []byte) int64 {
	i := 0
	varint := func() int64 {
		var v int64
		for shift := 0; i < len(delta) && shift < 63; shift += 7 {
			b := delta[i]
			i++
			v |= int64(b&0x7f) << shift
			if b&0x80 == 0 {
				return v
			}
		}
		return -1
	}
	if varint() < 0 {
		return -1
	}
	return varint()
}

// header parses an object header: type, inflated size, header length.
func header(data []byte, off int64) (typ int, size int64, n int, err error) {
	if off < 0 || off >= int64(len(data)) {
		return 0, 0, 0, fmt.Errorf("offset %d outside the pack", off)
	}
	b := data[off:]
	c := b[0]
	typ, size, n = int(c>>4)&7, int64(c&15), 1
	for shift := 4; c&0x80 != 0; shift += 7 {
		if n >= len(b) || shift > 53 {
			return 0, 0, 0, fmt.Errorf("bad object header at %d", off)
		}
		c = b[n]
		size |= int64(c&0x7f) << shift
		n++
	}
	return typ, size, n, nil
}

// ofsDistance decodes an offset delta's distance to its base (git's
// "offset encoding": big-endian 7-bit groups, each continuation adding 1).
func ofsDistance(b []byte) (int64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	d, n := int64(c&0x7f), 1
	for c&0x80 != 0 {
		// Eight 7-bit groups already exceed any pack's size.
		if n >= len(b) || n >= 8 {
			return 0, 0
		}
		c = b[n]
		d = (d+1)<<7 | int64(c&0x7f)
		n++
	}
	return d, n
}

// size returns an object's inflated size from its pack header, or for a
// delta from the head of the delta (its result's size), without rebuilding
// it: rename detection compares sizes before it reads contents.
func (pr *packReader) size(h plumbing.Hash) (int64, error) {
	for pi, p := range pr.packs {
		off, ok := p.idx.find(h)
		if !ok {
			continue
		}
		if e, ok := pr.cache.get(offsetKey{pi, off}); ok {
			return int64(len(e.data)), nil
		}
		typ, size, n, err := header(p.data, off)
		if err != nil {
			return 0, err
		}
		if typ != objOFSDelta && typ != objREFDelta {
			return size, nil
		}
		_, _, pos, err := pr.deltaBase(pi, off, typ, off+int64(n))
		if err != nil {
			return 0, err
		}
		// Two varints of at most 10 bytes each: the base's size, the result's.
		head, err := pr.inflateInto(pr.head[:0], p.data[pos:], min(size, 20))
		if err != nil {
			return 0, err
		}
		if target := deltaTargetSize(head); target >= 0 {
			return target, nil
		}
		return 0, fmt.Errorf("malformed delta header at %d", off)
	}
	return 0, errNotInPack
}

// inflate inflates the first size bytes of a zlib stream into a new slice.
func (pr *packReader) inflate(src []byte, size int64) ([]byte, error) {
	return pr.inflateInto(nil, src, size)
}

// maxScratch bounds the delta buffers a packReader keeps between reads; a
// larger delta gets a slice of its own.
const maxScratch = 1 << 20

// inflateInto inflates the first size bytes of a zlib stream into buf when
// it has room (and is not larger than maxScratch), else into a new slice.
func (pr *packReader) inflateInto(buf, src []byte, size int64) ([]byte, error) {
	r := bytes.NewReader(src)
	if pr.zr == nil {
		zr, err := zlib.NewReader(r)
		if err != nil {
			return nil, err
		}
		pr.zr = zr
	} else if err := pr.zr.(zlib.Resetter).Reset(r, nil); err != nil {
		return nil, err
	}
	var out []byte
	switch {
	case size == 0:
		return []byte{}, nil // empty, not "too large"
	case int64(cap(buf)) >= size:
		out = buf[:size]
	case buf != nil && size <= maxScratch:
		out = make([]byte, size, max(size, maxScratch/16))
	default:
		out = make([]byte, size)
	}
	if _, err := io.ReadFull(pr.zr, out); err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	return out, nil
}

// offsetKey locates an object: a pack and an offset in it.
type offsetKey struct {
	pack int
	off  int64
}

// cached is an inflated object in the offset cache.
type cached struct {
	typ  int
	data []byte
	lent bool // handed to a caller: never written again (recycle.go)
}

func newOffsetCache(max int) *genCache[offsetKey, cached] {
	return newCache[offsetKey](max, func(c cached) int { return cap(c.data) })
}
