package memory

import (
	"sync"

	"github.com/gitmemory/gitmemory/vectors"
)

// sharedVectors keeps each repository's vector index loaded between the
// questions of a long-lived process that does not hold the stores
// (`gitmemory mcp` with no daemon running): loading git/git's log costs
// 0.8 s, which every question paid. An index is reloaded when its log
// changes on disk (a sync in another process), and closed when the last
// question using it is done.
type sharedVectors struct {
	mu sync.Mutex
	m  map[string]*sharedIndex
}

type sharedIndex struct {
	ix       *vectors.Index
	logBytes int64
	users    int
	stale    bool // replaced: close when no longer used
}

// ShareVectors makes this Home keep vector indexes loaded between
// questions (see sharedVectors). For processes that answer many.
func (h *Home) ShareVectors() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.vecs == nil {
		h.vecs = &sharedVectors{m: map[string]*sharedIndex{}}
	}
}

// questionVectors returns name's vector index for one question and the
// function that gives it back.
func (h *Home) questionVectors(name string) (*vectors.Index, func() error, error) {
	h.mu.Lock()
	sv := h.vecs
	h.mu.Unlock()
	if sv == nil {
		ix, err := h.openVectors(name)
		if err != nil {
			return nil, nil, err
		}
		return ix, ix.Close, nil
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	cur := sv.m[name]
	if cur != nil {
		if st, err := cur.ix.Status(); err != nil || st.LogBytes != cur.logBytes {
			cur.stale = true // changed on disk: the next question loads it anew
			if cur.users == 0 {
				cur.ix.Close()
			}
			delete(sv.m, name)
			cur = nil
		}
	}
	if cur == nil {
		ix, err := h.openVectors(name)
		if err != nil {
			return nil, nil, err
		}
		var size int64
		if st, err := ix.Status(); err == nil {
			size = st.LogBytes
		}
		cur = &sharedIndex{ix: ix, logBytes: size}
		sv.m[name] = cur
	}
	cur.users++
	release := func() error {
		sv.mu.Lock()
		defer sv.mu.Unlock()
		cur.users--
		if cur.stale && cur.users == 0 {
			return cur.ix.Close()
		}
		return nil
	}
	return cur.ix, release, nil
}
