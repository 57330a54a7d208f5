package extract

import (
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
)

// cache keeps values up to a byte budget with two generations instead of
// per-entry LRU bookkeeping: when the young map is full it becomes the old
// one and the old one is dropped; a hit in the old map moves the entry
// back to the young one. Consecutive commits share most of their trees
// and blobs, so this keeps what the next commit needs at little cost.
type genCache[K comparable, V any] struct {
	max, size  int
	sizeOf     func(V) int
	young, old map[K]V
	turns      int // how many times young became old (or both were cleared)
}

func newCache[K comparable, V any](max int, sizeOf func(V) int) *genCache[K, V] {
	return &genCache[K, V]{max: max, sizeOf: sizeOf, young: map[K]V{}}
}

func (c *genCache[K, V]) get(k K) (V, bool) {
	if v, ok := c.young[k]; ok {
		return v, true
	}
	if v, ok := c.old[k]; ok {
		delete(c.old, k)
		c.put(k, v)
		return v, true
	}
	var zero V
	return zero, false
}

// clear drops every entry.
func (c *genCache[K, V]) clear() {
	c.young, c.old, c.size = map[K]V{}, nil, 0
	c.turns++
}

// set replaces the value of a key the young generation holds (as get
// leaves it), without counting its size again.
func (c *genCache[K, V]) set(k K, v V) {
	if _, ok := c.young[k]; ok {
		c.young[k] = v
	}
}

func (c *genCache[K, V]) put(k K, v V) {
	n := c.sizeOf(v)
	if c.size+n > c.max {
		c.old, c.young, c.size = c.young, map[K]V{}, 0
		c.turns++
	}
	c.young[k] = v
	c.size += n
}

// newTreeCache caches decoded trees by hash: decoding each tree once is
// most of the tree diff's speed.
func newTreeCache(max int) *genCache[plumbing.Hash, *tree] {
	return newCache[plumbing.Hash](max, treeBytes)
}

// newByteCache caches blob contents by hash.
func newByteCache(max int) *genCache[plumbing.Hash, []byte] {
	return newCache[plumbing.Hash](max, func(b []byte) int { return len(b) })
}

// treeBytes is a decoded tree's memory: its entries, and the raw object
// whose bytes hold their names (shared with the offset cache while it
// keeps them, counted here too so that the tree cache alone stays within
// its budget).
func treeBytes(t *tree) int {
	return 64 + len(t.names) + cap(t.Entries)*int(unsafe.Sizeof(treeEntry{}))
}
