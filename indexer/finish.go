package indexer

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/queue"
	"github.com/gitmemory/gitmemory/store"
)

// markRewritten flags stored commits that no tracked branch reaches any
// more (force push, rebase, reset, deleted branch). They are kept, and
// excluded from answers by default; queued ones are dropped.
func (s *Syncer) markRewritten(ctx context.Context, repo *extract.Repo, res *Result) error {
	var heads []string
	for _, b := range res.Branches {
		heads = append(heads, b.Head)
	}
	reach, err := repo.Reachable(heads)
	if err != nil {
		return fmt.Errorf("reachability: %w", err)
	}
	reached := func(h string) bool { return reach[h] }
	orphans, err := store.Strings(ctx, s.st.DB, `SELECT hash FROM commits WHERE rewritten = 0`)
	if err != nil {
		return err
	}
	orphans = slices.DeleteFunc(orphans, reached)
	stale, err := store.Strings(ctx, s.st.DB, `SELECT commit_hash FROM queue`)
	if err != nil {
		return err
	}
	stale = slices.DeleteFunc(stale, reached)
	err = s.st.Tx(ctx, func(tx *sql.Tx) error {
		for _, h := range orphans {
			if _, err := tx.ExecContext(ctx, `UPDATE commits SET rewritten = 1, graphed = 0 WHERE hash = ?`, h); err != nil {
				return err
			}
		}
		if len(orphans) > 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE relations_state SET stale = 1`); err != nil {
				return err
			}
		}
		for _, h := range stale {
			if _, err := tx.ExecContext(ctx, `DELETE FROM queue WHERE commit_hash = ?`, h); err != nil {
				return err
			}
		}
		return nil
	})
	res.Rewritten += len(orphans)
	return err
}

// advance records each branch's head as processed, last of all writes.
func (s *Syncer) advance(ctx context.Context, res *Result, untracked []string) error {
	now := s.opts.Now()
	return s.st.Tx(ctx, func(tx *sql.Tx) error {
		for _, b := range res.Branches {
			if err := queue.SetState(ctx, tx, b.Name, b.Head, now); err != nil {
				return err
			}
		}
		for _, b := range untracked {
			if err := queue.DeleteState(ctx, tx, b); err != nil {
				return err
			}
		}
		return nil
	})
}

// prune applies the retention policy: commits older than KeepDays, or
// beyond the newest KeepCommits, are deleted with everything stored about
// them; only their hash stays, so that no later sync indexes them again.
func (s *Syncer) prune(ctx context.Context, res *Result) error {
	var victims []string
	var err error
	if s.opts.KeepDays > 0 {
		cutoff := s.opts.Now().AddDate(0, 0, -s.opts.KeepDays).Unix()
		victims, err = store.Strings(ctx, s.st.DB, `SELECT hash FROM commits WHERE committer_time < ?`, cutoff)
		if err != nil {
			return err
		}
	}
	if s.opts.KeepCommits > 0 {
		more, err := store.Strings(ctx, s.st.DB, `SELECT hash FROM commits
			ORDER BY committer_time DESC, id DESC LIMIT -1 OFFSET ?`, s.opts.KeepCommits)
		if err != nil {
			return err
		}
		victims = append(victims, more...)
	}
	if len(victims) == 0 {
		return nil
	}
	if err := s.forgetGraph(ctx, victims); err != nil {
		return err
	}
	err = s.st.Tx(ctx, func(tx *sql.Tx) error {
		for _, h := range victims {
			if err := store.DeleteCommit(ctx, tx, h); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE relations_state SET stale = 1`); err != nil {
			return err
		}
		return markPruned(ctx, tx, victims)
	})
	if err == nil {
		res.Pruned += len(victims)
	}
	return err
}

func (s *Syncer) finish(ctx context.Context, res *Result, start time.Time) error {
	res.Duration = time.Since(start)
	now := s.opts.Now().Unix()
	return s.st.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE repository SET last_synced_at = ?, shallow = ?`, now, res.Shallow); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sync_runs(started_at, finished_at, indexed, failed, rewritten, pruned, redactions)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, start.Unix(), now, res.Indexed, res.Failed, res.Rewritten, res.Pruned, res.Redactions)
		return err
	})
}
