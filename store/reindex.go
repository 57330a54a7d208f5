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
		// A listed commit pruned since has no row in commits: it only
		// leaves the list.
		type listed struct {
			id        int64
			hash      sql.NullString
			rewritten sql.NullBool
		}
		var chunk []listed
		err := EachRow(ctx, s.DB, `SELECT r.commit_id, c.hash, c.rewritten FROM reindex r LEFT JOIN commits c ON c.id = r.commit_id
			ORDER BY r.commit_id LIMIT ?`, []any{reindexChunk}, func(rows *sql.Rows) error {
			var l listed
			err := rows.Scan(&l.id, &l.hash, &l.rewritten)
			chunk = append(chunk, l)
			return err
		})
		if err != nil || len(chunk) == 0 {
			return done, err
		}
		var ids []int64
		var us, live []*model.Understood // live: not rewritten, those have no vectors
		for _, l := range chunk {
			if !l.hash.Valid {
				continue
			}
			u, _, err := s.GetUnderstood(ctx, l.hash.String)
			if err != nil {
				return done, fmt.Errorf("reindex %s: %w", l.hash.String, err)
			}
			ids, us = append(ids, l.id), append(us, u)
			if !l.rewritten.Bool {
				live = append(live, u)
			}
		}
		if redo != nil && len(live) > 0 {
			if err := redo(ctx, live); err != nil {
				return done, err
			}
		}
		err = s.Tx(ctx, func(tx *sql.Tx) error {
			for i, u := range us {
				if _, err := tx.ExecContext(ctx, `UPDATE commits SET summary = ? WHERE id = ?`, u.Summary, ids[i]); err != nil {
					return err
				}
				if err := putSearchRow(ctx, tx, ids[i], u); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, `DELETE FROM reindex WHERE commit_id BETWEEN ? AND ?`, chunk[0].id, chunk[len(chunk)-1].id)
			return err
		})
		if err != nil {
			return done, err
		}
		done += len(us)
	}
}
