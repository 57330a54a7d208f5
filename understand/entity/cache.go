package entity

// blobCache remembers the entities of recently parsed blobs. It keeps two
// generations of maps: lookups promote entries from the old generation,
// and when the new one is full the old one is dropped. It holds at most
// maxBlobs entries and about maxEntities entities (a few hundred bytes
// each), costs no bookkeeping per hit, and drops blobs unused for a while.
type blobCache struct {
	maxBlobs, maxEntities int
	cur, old              map[string][]Entity
	curEntities           int // entities in cur
}

func newBlobCache(maxBlobs, maxEntities int) *blobCache {
	c := &blobCache{maxBlobs: max(maxBlobs/2, 1), maxEntities: max(maxEntities/2, 1)}
	c.cur = make(map[string][]Entity)
	return c
}

func (c *blobCache) get(key string) ([]Entity, bool) {
	if v, ok := c.cur[key]; ok {
		return v, true
	}
	v, ok := c.old[key]
	if ok {
		delete(c.old, key)
		c.put(key, v)
	}
	return v, ok
}

func (c *blobCache) put(key string, v []Entity) {
	if len(c.cur) >= c.maxBlobs || c.curEntities+len(v) > c.maxEntities {
		c.old, c.cur, c.curEntities = c.cur, make(map[string][]Entity), 0
	}
	c.cur[key] = v
	c.curEntities += len(v)
}

func (c *blobCache) len() int { return len(c.cur) + len(c.old) }
