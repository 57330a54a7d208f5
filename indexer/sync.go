package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/queue"
	"github.com/gitmemory/gitmemory/secrets"
	"github.com/gitmemory/gitmemory/store"
)

// Syncer syncs one repository into one store. The caller holds the store's
// writer lock.
type Syncer struct {
	path    string
	st      *store.Store
	q       *queue.Queue
	opts    Options
	scanner *secrets.Scanner
}

// New prepares a sync of the repository at path into st.
func New(path string, st *store.Store, opts Options) (*Syncer, error) {
	opts = opts.withDefaults()
	sc, err := secrets.New()
	if err != nil {
		return nil, fmt.Errorf("secret scanner: %w", err)
	}
	q := queue.New(st.DB)
	q.Now = opts.Now
	return &Syncer{path: path, st: st, q: q, opts: opts, scanner: sc}, nil
}

// Run performs the sync.
func (s *Syncer) Run(ctx context.Context) (*Result, error) {
	start := time.Now()
	res := &Result{}
	repo, err := extract.Open(s.path, s.opts.Extract)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	res.Shallow = repo.IsShallow()
	branches, err := s.branches(repo)
	if errors.Is(err, extract.ErrEmpty) {
		res.Empty = true
		return res, s.finish(ctx, res, start)
	}
	if err != nil {
		return nil, err
	}
	if err := s.saveRefs(ctx, repo); err != nil {
		return nil, err
	}
	untracked, err := s.untracked(ctx, branches)
	if err != nil {
		return nil, err
	}
	checkRewrites := len(untracked) > 0
	for _, b := range branches {
		br, missing, err := s.discover(ctx, repo, b, res)
		if err != nil {
			return nil, err
		}
		res.Branches = append(res.Branches, br)
		res.Missing = append(res.Missing, missing...)
		checkRewrites = checkRewrites || br.Rewritten
	}
	if err := s.process(ctx, repo, res); err != nil {
		return nil, err
	}
	if checkRewrites {
		if err := s.markRewritten(ctx, repo, res); err != nil {
			return nil, err
		}
	}
	if err := s.advance(ctx, res, untracked); err != nil {
		return nil, err
	}
	if err := s.prune(ctx, res); err != nil {
		return nil, err
	}
	return res, s.finish(ctx, res, start)
}

// branches resolves the tracked branch names.
func (s *Syncer) branches(repo *extract.Repo) ([]string, error) {
	switch s.opts.Mode {
	case AllBranches:
		bs, err := repo.Branches()
		if err == nil && len(bs) == 0 {
			return nil, extract.ErrEmpty
		}
		return bs, err
	case ListedBranch:
		for _, b := range s.opts.Branches {
			if _, err := repo.ResolveBranch(b); err != nil {
				return nil, err
			}
		}
		return s.opts.Branches, nil
	default:
		b, err := repo.DefaultBranch()
		if err != nil {
			return nil, err
		}
		return []string{b}, nil
	}
}

func (s *Syncer) saveRefs(ctx context.Context, repo *extract.Repo) error {
	refs, err := repo.Refs()
	if err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM refs`); err != nil {
			return err
		}
		for _, r := range refs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO refs VALUES (?, ?, ?)`, r.Name, r.Kind, r.Target); err != nil {
				return fmt.Errorf("save ref %s: %w", r.Name, err)
			}
		}
		return nil
	})
}

// untracked lists branches with a sync state that are no longer tracked (a
// deleted branch, or a narrower strategy). Their commits may have become
// unreachable, so they call for a rewrite check; their state is dropped
// only after it, so a sync killed in between checks again.
func (s *Syncer) untracked(ctx context.Context, branches []string) ([]string, error) {
	states, err := queue.States(ctx, s.st.DB)
	if err != nil {
		return nil, err
	}
	tracked := map[string]bool{}
	for _, b := range branches {
		tracked[b] = true
	}
	var out []string
	for _, st := range states {
		if !tracked[st.Branch] {
			out = append(out, st.Branch)
		}
	}
	return out, nil
}
