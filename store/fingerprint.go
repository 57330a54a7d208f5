package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/gitmemory/gitmemory/model"
)

// FingerprintKey is the lookup_keys key of a paths fingerprint.
func FingerprintKey(fp string) string { return "#" + fp }

// fingerprintChunk is how many records FingerprintBackfill does per
// transaction.
const fingerprintChunk = 2000

// FingerprintBackfill gives the records stored before paths fingerprints
// were lookup keys theirs, and reports how many it did.
func (s *Store) FingerprintBackfill(ctx context.Context) (int, error) {
	done := 0
	for {
		n, err := s.fingerprintChunk(ctx)
		if err != nil || n == 0 {
			return done, err
		}
		done += n
	}
}

// fingerprintChunk backfills up to fingerprintChunk records in one
// transaction: their keys are written and they leave the waiting list
// together.
func (s *Store) fingerprintChunk(ctx context.Context) (int, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	paths := map[int64][]string{}
	var ids []any
	err = EachRow(ctx, tx, `SELECT b.commit_id, f.path FROM (SELECT commit_id FROM fingerprint_backfill ORDER BY commit_id
		LIMIT ?) b LEFT JOIN file_changes f ON f.commit_id = b.commit_id`, []any{fingerprintChunk},
		func(r *sql.Rows) error {
			var id int64
			var p sql.NullString
			if err := r.Scan(&id, &p); err != nil {
				return err
			}
			if _, ok := paths[id]; !ok {
				ids = append(ids, id)
				paths[id] = nil
			}
			if p.Valid {
				paths[id] = append(paths[id], p.String)
			}
			return nil
		})
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	for id, ps := range paths {
		if len(ps) == 0 {
			continue // no file changes: no fingerprint
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO lookup_keys
			SELECT ?, c.rewritten = 0, c.severity, c.committer_time, c.id FROM commits c WHERE c.id = ?`,
			FingerprintKey(model.PathsFingerprint(ps)), id); err != nil {
			return 0, fmt.Errorf("fingerprint key: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM fingerprint_backfill WHERE commit_id IN (`+Marks(len(ids))+`)`, ids...); err != nil {
		return 0, err
	}
	return len(ids), tx.Commit()
}

// FingerprintsIndexed reports whether every record's paths fingerprint is
// a lookup key.
func (s *Store) FingerprintsIndexed(ctx context.Context) (bool, error) {
	var waiting bool
	err := s.DB.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM fingerprint_backfill)`).Scan(&waiting)
	return !waiting, err
}
