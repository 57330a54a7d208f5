package entity

import (
	"container/list"

	sitter "github.com/smacker/go-tree-sitter"
)

// treeCacheBytes bounds the estimated memory of the chunks that a Parser
// keeps for Changes: about 5 MB of source at 27 bytes of tree per byte.
// The trees are C memory, outside the Go runtime's memory limit, and a
// sync runs a parser per core: at 256 MiB each, git/git's sync held about
// 230 MB of them, a fifth of its peak resident memory; at 128 MiB about
// 150 MB. A path's latest version keeps its source when its trees go (see
// stateCache), so its next change costs the parse of the chunks it
// touches, not of the file.
const treeCacheBytes = 128 << 20

// coldCacheBytes bounds the sources and items of the paths' latest
// versions that the state cache keeps without trees (see stateCache.chilled).
const coldCacheBytes = 32 << 20

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
		p.inc = &incState{states: newStateCache(treeCacheBytes, coldCacheBytes), cursor: sitter.NewQueryCursor()}
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
//
// A path's latest version is not dropped but chilled: its chunks free
// their trees, and it waits in a second list, within coldBudget bytes of
// sources and items, for its path's next change, which then costs the
// parse of the chunks it touches instead of a parse of the whole file.
// (On git/git, versions parsed whole because the cache had evicted their
// path's latest version were 45 MB of the 161 MB parsed from scratch.)
type stateCache struct {
	budget, used int
	srcUsed      int // bytes of the sources the latest versions keep
	coldBudget   int
	coldUsed     int // what the chilled entries cost, in used and srcUsed
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
	cold list.List // of chilled *cacheEntry, most recent at the front
}

type cacheEntry struct {
	key   string
	state *fileState
	path  string // the latest (or prev) key this entry is under, if any
	src   []byte // the version's bytes, while it is its path's latest or prev
	prev  bool   // under path in prev, not latest
	cold  int    // its share of coldUsed, while chilled
	chill bool   // in the cold list
}

func newStateCache(budget, coldBudget int) *stateCache {
	return &stateCache{budget: budget, coldBudget: coldBudget, byKey: make(map[string]*list.Element),
		latest: make(map[string]*list.Element), prev: make(map[string]*list.Element)}
}

func (c *stateCache) get(key string) *fileState {
	e, ok := c.byKey[key]
	if !ok {
		return nil
	}
	ent := e.Value.(*cacheEntry)
	if ent.chill {
		c.warm(e)
	} else {
		c.lru.MoveToFront(e)
	}
	return ent.state
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
			if p.Value.(*cacheEntry).chill {
				c.remove(p) // a chilled entry is kept for its path only
			} else {
				c.unlatest(p.Value.(*cacheEntry))
			}
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
	for c.used+c.srcUsed-c.coldUsed > c.budget && c.lru.Len() > 1 {
		e := c.lru.Back()
		if ent := e.Value.(*cacheEntry); ent.path != "" && !ent.prev && c.coldBudget > 0 {
			c.chilled(e)
		} else {
			c.remove(e)
		}
	}
	for c.coldUsed > c.coldBudget && c.cold.Len() > 0 {
		c.remove(c.cold.Back())
	}
}

// chilled moves a path's latest version to the cold list, freeing its
// chunks' trees (a hot version sharing a chunk loses its tree too: its
// next edit there parses the chunk's text from scratch).
func (c *stateCache) chilled(e *list.Element) {
	ent := c.lru.Remove(e).(*cacheEntry)
	ent.cold = len(ent.src)
	for _, ch := range ent.state.chunks {
		if ch.tree != nil {
			closeTree(ch.tree)
			ch.tree = nil
			ch.mem -= treeBytesPerSourceByte * ch.size
			c.used -= treeBytesPerSourceByte * ch.size
		}
		ent.cold += ch.mem
	}
	c.coldUsed += ent.cold
	ent.chill = true
	c.relink(ent, c.cold.PushFront(ent))
}

// warm moves a chilled entry back to the front of the hot list.
func (c *stateCache) warm(e *list.Element) {
	ent := c.cold.Remove(e).(*cacheEntry)
	c.coldUsed -= ent.cold
	ent.cold, ent.chill = 0, false
	c.relink(ent, c.lru.PushFront(ent))
}

// relink points the maps at an entry's new list element.
func (c *stateCache) relink(ent *cacheEntry, e *list.Element) {
	c.byKey[ent.key] = e
	switch {
	case ent.path == "":
	case ent.prev:
		c.prev[ent.path] = e
	default:
		c.latest[ent.path] = e
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
	ent := e.Value.(*cacheEntry)
	if ent.chill {
		c.cold.Remove(e)
		c.coldUsed -= ent.cold
		ent.cold, ent.chill = 0, false
	} else {
		c.lru.Remove(e)
	}
	delete(c.byKey, ent.key)
	c.unlatest(ent)
	ent.state.release()
}

func (c *stateCache) clear() {
	for c.lru.Len() > 0 {
		c.remove(c.lru.Back())
	}
	for c.cold.Len() > 0 {
		c.remove(c.cold.Back())
	}
}

func (c *stateCache) len() int { return c.lru.Len() + c.cold.Len() }
