package indexer

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/queue"
)

// discover finds a branch's new commits, revives rewritten commits that are
// reachable again, queues the rest, and detects a rewritten history (force
// push, rebase, reset to an older commit).
func (s *Syncer) discover(ctx context.Context, repo *extract.Repo, branch string, res *Result) (BranchResult, []string, error) {
	head, err := repo.ResolveBranch(branch)
	if err != nil {
		return BranchResult{}, nil, err
	}
	st, err := queue.State(ctx, s.st.DB, branch)
	if err != nil {
		return BranchResult{}, nil, err
	}
	br := BranchResult{Name: branch, Head: head, Previous: st.LastHead}
	known, err := s.st.PrepareKnown(ctx)
	if err != nil {
		return br, nil, err
	}
	defer known.Close()
	var qerr error
	isKnown := func(h string) bool {
		ok, err := known.Has(ctx, h)
		if err != nil && qerr == nil {
			qerr = err
		}
		return ok
	}
	var stop func(int64) bool
	if s.opts.KeepDays > 0 {
		cutoff := s.opts.Now().AddDate(0, 0, -s.opts.KeepDays).Unix()
		stop = func(t int64) bool { return t < cutoff }
	}
	w, err := repo.Discover(head, isKnown, stop)
	if err == nil {
		err = qerr
	}
	if err != nil {
		return br, nil, fmt.Errorf("walk %s: %w", branch, err)
	}
	if st.LastHead != "" && st.LastHead != head && !w.Boundary[st.LastHead] && !slices.Contains(w.New, st.LastHead) {
		anc, err := repo.IsAncestor(st.LastHead, head)
		if err != nil {
			return br, nil, fmt.Errorf("check %s: %w", branch, err)
		}
		br.Rewritten = !anc
	}
	err = s.st.Tx(ctx, func(tx *sql.Tx) error {
		fresh, revived, err := splitRevived(ctx, tx, w.New)
		if err != nil {
			return err
		}
		res.Revived += revived
		if n := s.opts.KeepCommits; n > 0 && len(fresh) > n {
			if err := markPruned(ctx, tx, fresh[:len(fresh)-n]); err != nil {
				return err
			}
			fresh = fresh[len(fresh)-n:]
		}
		br.New = len(fresh) + revived
		return s.q.Enqueue(ctx, tx, fresh, branch, 0)
	})
	return br, w.Missing, err
}

// splitRevived marks stored-but-rewritten commits live again (their data is
// kept, nothing to extract) and returns the commits that need processing.
func splitRevived(ctx context.Context, tx *sql.Tx, hashes []string) (fresh []string, revived int, err error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM commits WHERE rewritten = 1`).Scan(&n); err != nil {
		return nil, 0, err
	}
	if n == 0 {
		return hashes, 0, nil
	}
	for _, h := range hashes {
		r, err := tx.ExecContext(ctx, `UPDATE commits SET rewritten = 0, graphed = 0 WHERE hash = ? AND rewritten = 1`, h)
		if err != nil {
			return nil, 0, err
		}
		if k, _ := r.RowsAffected(); k > 0 {
			revived++
			if _, err := tx.ExecContext(ctx, `UPDATE relations_state SET stale = 1`); err != nil {
				return nil, 0, err
			}
			continue
		}
		fresh = append(fresh, h)
	}
	return fresh, revived, nil
}

func markPruned(ctx context.Context, tx *sql.Tx, hashes []string) error {
	for _, h := range hashes {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO pruned VALUES (?)`, h); err != nil {
			return fmt.Errorf("prune %s: %w", h, err)
		}
	}
	return nil
}
