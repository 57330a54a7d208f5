package entity

import (
	"container/list"

	sitter "github.com/smacker/go-tree-sitter"
)

// treeCacheBytes bounds the estimated memory of the chunks that a Parser
// keeps for Changes: about 10 MB of source at 27 bytes of tree per byte.
const treeCacheBytes = 256 << 20

// incState is what a Parser keeps for Changes.
type incState struct {
	states *stateCache
	cursor *sitter.QueryCursor // for queries limited to byte ranges
	stamp  uint64              // tells diffStates calls' marks on chunks apart
}

// incremental returns the Parser's state for Changes, creating it on
// first use.
func (p *Parser) incremental() *incState {
	if p.inc == nil {
		p.inc = &incState{states: newStateCache(treeCacheBytes), cursor: sitter.NewQueryCursor()}
	}
	return p.inc
}

func (s *incState) close() {
	s.states.clear()
	s.cursor.Close()
}

// stateCache keeps the states of recent file versions by language and
// blob, least recently used first out, while the chunks they hold and the
// sources kept (see latest) are estimated at more than budget bytes. A
// state's chunks are shared with other versions of its file, so a state
// costs what its own chunks add.
type stateCache struct {
	budget, used int
	srcUsed      int // bytes of the sources the latest versions keep
	byKey        map[string]*list.Element
	// latest holds, by language and path, the entry of the version last
	// cached under that path, which keeps its source: a version that
	// Changes never saw (a merge's result, the commonest) is derived from
	// it by a line diff instead of being parsed whole.
	latest map[string]*list.Element
	// prev holds, by language and path, the entry that was latest before,
	// which keeps its source too: the two are often the two sides of a
	// merge to come, and its result is nearer to one of them.
	prev map[string]*list.Element
	lru  list.List // of *cacheEntry, most recent at the front
}

type cacheEntry struct {
	key   string
	state *fileState
	path  string // the latest (or prev) key this entry is under, if any
	src   []byte // the version's bytes, while it is its path's latest or prev
	prev  bool   // under path in prev, not latest
}

func newStateCache(budget int) *stateCache {
	return &stateCache{budget: budget, byKey: make(map[string]*list.Element),
		latest: make(map[string]*list.Element), prev: make(map[string]*list.Element)}
}

func (c *stateCache) get(key string) *fileState {
	e, ok := c.byKey[key]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).state
}

// put caches a state, taking over the caller's hold on it, and evicts
// others while over budget.
func (c *stateCache) put(key string, s *fileState) {
	c.push(&cacheEntry{key: key, state: s})
}

// putLatest caches a state as put does, as the latest version under
// pathKey, whose bytes are src (kept, never modified).
func (c *stateCache) putLatest(key, pathKey string, s *fileState, src []byte) {
	if e, ok := c.latest[pathKey]; ok {
		if p, ok := c.prev[pathKey]; ok {
			c.unlatest(p.Value.(*cacheEntry))
		}
		delete(c.latest, pathKey)
		e.Value.(*cacheEntry).prev = true
		c.prev[pathKey] = e
	}
	c.push(&cacheEntry{key: key, state: s, path: pathKey, src: src})
}

// push caches an entry in place of any under its key, and evicts others
// while over budget.
func (c *stateCache) push(ent *cacheEntry) {
	if e, ok := c.byKey[ent.key]; ok {
		c.remove(e)
	}
	e := c.lru.PushFront(ent)
	c.byKey[ent.key] = e
	if ent.path != "" {
		c.latest[ent.path] = e
		c.srcUsed += len(ent.src)
	}
	c.evict()
}

// bases returns the states cached under pathKey as latest and prev, with
// their bytes.
func (c *stateCache) bases(pathKey string) []*cacheEntry {
	var out []*cacheEntry
	for _, m := range []map[string]*list.Element{c.latest, c.prev} {
		if e, ok := m[pathKey]; ok {
			out = append(out, e.Value.(*cacheEntry))
		}
	}
	return out
}

func (c *stateCache) evict() {
	for c.used+c.srcUsed > c.budget && c.lru.Len() > 1 {
		c.remove(c.lru.Back())
	}
}

// unlatest drops an entry's latest mark and source.
func (c *stateCache) unlatest(ent *cacheEntry) {
	if ent.path == "" {
		return
	}
	if ent.prev {
		delete(c.prev, ent.path)
	} else {
		delete(c.latest, ent.path)
	}
	c.srcUsed -= len(ent.src)
	ent.path, ent.src, ent.prev = "", nil, false
}

func (c *stateCache) remove(e *list.Element) {
	ent := c.lru.Remove(e).(*cacheEntry)
	delete(c.byKey, ent.key)
	c.unlatest(ent)
	ent.state.release()
}

func (c *stateCache) clear() {
	for c.lru.Len() > 0 {
		c.remove(c.lru.Back())
	}
}

func (c *stateCache) len() int { return c.lru.Len() }
