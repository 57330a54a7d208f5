package extract

import (
	"github.com/go-git/go-git/v5/plumbing"
)

// byteCache keeps blob contents by hash up to a byte budget, with the same
// two-generation scheme as treeCache.
type byteCache struct {
	max, size  int
	young, old map[plumbing.Hash][]byte
}

func newByteCache(max int) *byteCache {
	return &byteCache{max: max, young: map[plumbing.Hash][]byte{}}
}

func (c *byteCache) get(h plumbing.Hash) ([]byte, bool) {
	if b, ok := c.young[h]; ok {
		return b, true
	}
	if b, ok := c.old[h]; ok {
		c.put(h, b)
		return b, true
	}
	return nil, false
}

func (c *byteCache) put(h plumbing.Hash, b []byte) {
	if c.size+len(b) > c.max {
		c.old, c.young, c.size = c.young, map[plumbing.Hash][]byte{}, 0
	}
	c.young[h] = b
	c.size += len(b)
}

// treeCache keeps decoded trees by hash. Consecutive commits share almost
// all their trees, so decoding each once is most of the tree diff's speed.
// Two generations bound its size (an estimate of bytes) without per-entry
// LRU bookkeeping: when the young map is full it becomes the old one and
// the old one is dropped.
type treeCache struct {
	max, size  int
	young, old map[plumbing.Hash]*tree
}

func newTreeCache(max int) *treeCache {
	return &treeCache{max: max, young: map[plumbing.Hash]*tree{}}
}

func (c *treeCache) get(h plumbing.Hash) (*tree, bool) {
	if t, ok := c.young[h]; ok {
		return t, true
	}
	if t, ok := c.old[h]; ok {
		c.put(h, t)
		return t, true
	}
	return nil, false
}

func (c *treeCache) put(h plumbing.Hash, t *tree) {
	n := treeBytes(t)
	if c.size+n > c.max {
		c.old, c.young, c.size = c.young, map[plumbing.Hash]*tree{}, 0
	}
	c.young[h] = t
	c.size += n
}

// treeBytes estimates a decoded tree's memory: entries (name header, mode,
// hash) plus names, and the map go-git builds to look entries up by name.
func treeBytes(t *tree) int {
	n := 128
	for i := range t.Entries {
		n += 96 + len(t.Entries[i].Name)
	}
	return n
}
