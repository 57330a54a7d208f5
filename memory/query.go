package memory

import (
	"context"
	"errors"
	"time"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// graphWaitQuery bounds how long a query waits for the embedded graph, which
// a running sync holds; without it, relations come from SQLite's mirror.
const graphWaitQuery = 150 * time.Millisecond

// Searcher opens a repository's stores for questions: the metadata store,
// the vector index (loaded on the first query) and, when no sync holds it,
// the graph. Close releases them.
type Searcher struct {
	*retrieve.Searcher
	Store *store.Store
	close func() error
}

// Close releases the stores.
func (s *Searcher) Close() error { return s.close() }

// OpenSearcher opens a repository for questions. It never waits for a
// running sync: the graph it cannot have is replaced by SQLite's mirror of
// the same relations.
func (h *Home) OpenSearcher(ctx context.Context, name string, opts retrieve.SearchOptions) (*Searcher, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	if hd := h.holding(name); hd != nil {
		noop := func() error { return nil }
		opts.Terms = hd.terms
		return &Searcher{Searcher: retrieve.NewSearcher(hd.st, hd.vec, hd.g, opts), Store: hd.st, close: noop}, nil
	}
	if err := h.registered(name); err != nil {
		return nil, err // before the open, which would create a store
	}
	st, err := store.Open(ctx, h.DataDir(name))
	if err != nil {
		return nil, err
	}
	repo, err := loadRepository(ctx, st.DB)
	if err != nil {
		return nil, errors.Join(err, st.Close())
	}
	vec, releaseVec, err := h.questionVectors(name)
	if err != nil {
		return nil, errors.Join(err, st.Close())
	}
	gctx, cancel := context.WithTimeout(ctx, graphWaitQuery)
	defer cancel()
	g, gerr := graph.Open(gctx, h.graphAddr(name, repo))
	if gerr != nil {
		g = nil
	}
	closeAll := func() error {
		err := errors.Join(releaseVec(), st.Close())
		if g != nil {
			err = errors.Join(err, g.Close())
		}
		return err
	}
	return &Searcher{Searcher: retrieve.NewSearcher(st, vec, g, opts), Store: st, close: closeAll}, nil
}
