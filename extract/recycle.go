package extract

import "math/bits"

// Buffers of the offset cache that no caller was given are written again.
//
// Rebuilding objects was most of what a sync allocated, and the collector
// runs in proportion. Most of what the cache holds is never handed out: the
// objects of delta chains, rebuilt as bases of what was asked for. Such an
// entry is owned by the cache alone, so once it has aged into the old
// generation its buffer is taken for the next object of its size class
// (and the entry dropped). An entry handed to a caller (lent) is never
// written again: trees' names point into it, diffs and the entity stage
// keep file contents. Allocations are rounded up to size classes (at most
// an eighth more) so that a buffer fits any object of its class.

// minRecycle is the smallest object whose buffer is reused: below it the
// allocator's small size classes serve well.
const minRecycle = 16 << 10

// sizeClass rounds n (at least minRecycle) up to one of eight steps per
// power of two, and numbers the class.
func sizeClass(n int64) (int64, int) {
	l := bits.Len64(uint64(n - 1)) // 2^(l-1) < n <= 2^l
	step := int64(1) << (l - 4)
	k := (n + step - 1) / step // 9..16
	return k * step, l*16 + int(k)
}

// recycler lists the old generation's entries that were not lent, by
// size class, rebuilt when the generations turn.
type recycler struct {
	turns   int // the cache's turns when the lists were built
	classes [65 * 16][]offsetKey
	reused  int // buffers taken, for tests
}

// alloc returns a buffer of length n: an unlent old entry's when one of
// n's class is there (never avoid's, the base being patched), else a new
// one, of the class's capacity unless it is to be lent (and so never
// reused).
func (pr *packReader) alloc(n int64, avoid []byte, lend bool) []byte {
	if n < minRecycle {
		return make([]byte, n)
	}
	c, class := sizeClass(n)
	if b := pr.takeOld(class, avoid); b != nil {
		return b[:n]
	}
	if lend {
		c = n
	}
	return make([]byte, n, c)
}

func (pr *packReader) takeOld(class int, avoid []byte) []byte {
	rc, cache := &pr.recycle, pr.cache
	if rc.turns != cache.turns {
		rc.rebuild(cache)
	}
	list := rc.classes[class]
	defer func() { rc.classes[class] = list }()
	for len(list) > 0 {
		k := list[len(list)-1]
		list = list[:len(list)-1]
		e, ok := cache.old[k]
		if !ok || e.lent || len(avoid) > 0 && &e.data[:1][0] == &avoid[0] {
			continue
		}
		delete(cache.old, k)
		rc.reused++
		return e.data[:cap(e.data)]
	}
	return nil
}

// rebuild lists the old generation's unlent entries whose buffers have a
// class's exact capacity.
func (rc *recycler) rebuild(cache *genCache[offsetKey, cached]) {
	rc.turns = cache.turns
	for i := range rc.classes {
		rc.classes[i] = rc.classes[i][:0]
	}
	for k, e := range cache.old {
		n := int64(cap(e.data))
		if e.lent || n < minRecycle {
			continue
		}
		if c, class := sizeClass(n); c == n {
			rc.classes[class] = append(rc.classes[class], k)
		}
	}
}
