package memory

import (
	"context"

	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// Commit returns a commit of a repository by revision (seed 003's
// commits.get).
func (h *Home) Commit(ctx context.Context, name, rev string) (*retrieve.CommitDetail, error) {
	var c *retrieve.CommitDetail
	err := h.read(ctx, name, func(st *store.Store) (err error) {
		c, err = retrieve.GetCommit(ctx, st.DB, rev)
		return err
	})
	return c, err
}

// Log lists a repository's commits by range, dates and author (seed 003's
// commits.range and commits.search).
func (h *Home) Log(ctx context.Context, name string, q retrieve.LogQuery) ([]retrieve.LogEntry, error) {
	var out []retrieve.LogEntry
	err := h.read(ctx, name, func(st *store.Store) (err error) {
		out, err = retrieve.Log(ctx, st.DB, q)
		return err
	})
	return out, err
}

// SearchEntities finds a repository's entities by name and kind (seed
// 003's entities.search).
func (h *Home) SearchEntities(ctx context.Context, name, q, kind string, limit int) ([]retrieve.EntityHit, error) {
	var out []retrieve.EntityHit
	err := h.read(ctx, name, func(st *store.Store) (err error) {
		out, err = retrieve.SearchEntities(ctx, st.DB, q, kind, limit)
		return err
	})
	return out, err
}
