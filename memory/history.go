package memory

import (
	"context"

	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// History returns the commits that changed a file (following renames) or a
// directory, newest first.
func (h *Home) History(ctx context.Context, repo string, q retrieve.HistoryQuery) ([]retrieve.Change, error) {
	var out []retrieve.Change
	err := h.read(ctx, repo, func(st *store.Store) error {
		var err error
		out, err = retrieve.History(ctx, st, q)
		return err
	})
	return out, err
}

// Recent returns the commits of the last days, under a path if one is given.
func (h *Home) Recent(ctx context.Context, repo string, q retrieve.RecentQuery) ([]retrieve.Change, error) {
	var out []retrieve.Change
	err := h.read(ctx, repo, func(st *store.Store) error {
		var err error
		out, err = retrieve.Recent(ctx, st, q)
		return err
	})
	return out, err
}

// KeyHistory returns the most important commits of a file's or directory's
// history, most important first.
func (h *Home) KeyHistory(ctx context.Context, repo string, q retrieve.HistoryQuery) ([]retrieve.Change, error) {
	var out []retrieve.Change
	err := h.read(ctx, repo, func(st *store.Store) error {
		var err error
		out, err = retrieve.KeyHistory(ctx, st, q)
		return err
	})
	return out, err
}
