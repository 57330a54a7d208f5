package memory

import (
	"context"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// History returns the commits that changed a file (following renames) or a
// directory, newest first. A path may be given quoted as git prints it
// (model.QuotePath), which is how a file name that is not UTF-8 is asked
// for; the paths of the answer are quoted alike.
func (h *Home) History(ctx context.Context, repo string, q retrieve.HistoryQuery) ([]retrieve.Change, error) {
	var out []retrieve.Change
	q.Path = model.UnquotePath(q.Path)
	err := h.read(ctx, repo, func(st *store.Store) error {
		var err error
		out, err = retrieve.History(ctx, st, q)
		return err
	})
	return quoteChanges(out), err
}

// Recent returns the commits of the last days, under a path if one is given.
func (h *Home) Recent(ctx context.Context, repo string, q retrieve.RecentQuery) ([]retrieve.Change, error) {
	var out []retrieve.Change
	q.Path = model.UnquotePath(q.Path)
	err := h.read(ctx, repo, func(st *store.Store) error {
		var err error
		out, err = retrieve.Recent(ctx, st, q)
		return err
	})
	return quoteChanges(out), err
}

// KeyHistory returns the most important commits of a file's or directory's
// history, most important first.
func (h *Home) KeyHistory(ctx context.Context, repo string, q retrieve.HistoryQuery) ([]retrieve.Change, error) {
	var out []retrieve.Change
	q.Path = model.UnquotePath(q.Path)
	err := h.read(ctx, repo, func(st *store.Store) error {
		var err error
		out, err = retrieve.KeyHistory(ctx, st, q)
		return err
	})
	return quoteChanges(out), err
}

// quoteChanges quotes the paths that JSON could not carry as they are.
func quoteChanges(cs []retrieve.Change) []retrieve.Change {
	for i := range cs {
		cs[i].Path, cs[i].OldPath = model.QuotePath(cs[i].Path), model.QuotePath(cs[i].OldPath)
	}
	return cs
}
