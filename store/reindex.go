package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/gitmemory/gitmemory/model"
)

// reindexChunk is how many commits Reindex does per transaction.
const reindexChunk = 256

// Reindex makes again what was derived the old way from the commits
// listed in reindex (migration 18): through redo, when set, what the
// caller derives from a commit (the syncer's summary and vector
// documents), then their summaries and keyword rows here. A commit leaves
// the list once all are written, so an interrupted Reindex resumes where
// it stopped. Commits marked rewritten, which have no vectors and no
// place in answers, get their keyword rows only. It reports how many
// commits it did.
func (s *Store) Reindex(ctx context.Context, redo func(context.Context, []*model.Understood) error) (int, error) {
	done := 0
	for {
		ids, err := Ints(ctx, s.DB, `SELECT commit_id FROM reindex ORDER BY commit_id LIMIT ?`, reindexChunk)
		if err != nil || len(ids) == 0 {
			return done, err
		}
		us := make([]*model.Understood, 0, len(ids))
		var live []*model.Understood // not rewritten: those have no vectors
		for _, id := range ids {
			var hash string
			var rewritten bool
			err := s.DB.QueryRowContext(ctx, `SELECT hash, rewritten FROM commits WHERE id = ?`, id).Scan(&hash, &rewritten)
			if err == sql.ErrNoRows {
				continue // pruned since
			}
			if err != nil {
				return done, err
			}
			u, _, err := s.GetUnderstood(ctx, hash)
			if err != nil {
				return done, fmt.Errorf("reindex %s: %w", hash, err)
			}
			us = append(us, u)
			if !rewritten {
				live = append(live, u)
			}
		}
		if redo != nil && len(live) > 0 {
			if err := redo(ctx, live); err != nil {
				return done, err
			}
		}
		err = s.Tx(ctx, func(tx *sql.Tx) error {
			for _, u := range us {
				if _, err := tx.ExecContext(ctx, `UPDATE commits SET summary = ? WHERE hash = ?`, u.Summary, u.Commit.Hash); err != nil {
					return err
				}
				r := searchRow(u)
				if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO search(rowid, subject, body, summary, notes, paths, entities)
					SELECT id, ?, ?, ?, ?, ?, ? FROM commits WHERE hash = ?`, r[0], r[1], r[2], r[3], r[4], r[5], u.Commit.Hash); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, `DELETE FROM reindex WHERE commit_id BETWEEN ? AND ?`, ids[0], ids[len(ids)-1])
			return err
		})
		if err != nil {
			return done, err
		}
		done += len(us)
	}
}
