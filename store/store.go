// Package store is gitmemory's metadata store: one SQLite database per
// repository (WAL mode, versioned migrations) holding commits, file changes,
// refs, issue references, sync state, the processing queue and the blob
// store of full messages and diff text. It is the source of truth for what
// has been processed (DESIGN.md decision 3).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Sentinel errors; test with errors.Is.
var (
	// ErrLocked: another process holds the data directory's writer lock.
	ErrLocked = errors.New("store is locked by another process")
	// ErrNotFound: the requested row or blob does not exist.
	ErrNotFound = errors.New("not found")
	// ErrTooNew: the database was written by a newer gitmemory.
	ErrTooNew = errors.New("store was created by a newer gitmemory")
)

// DBFile is the metadata database's file name inside a data directory.
const DBFile = "meta.db"

// Store is an open metadata database.
type Store struct {
	DB  *sql.DB
	now func() time.Time
}

// Open opens (creating if needed) the database in dir and migrates it.
// Open does not take the writer lock: callers that write take it first
// with Lock, so that readers never wait on a writer (WAL mode).
func Open(ctx context.Context, dir string) (*Store, error) {
	path := filepath.Join(dir, DBFile)
	// The path is escaped: in a URI filename '#' and '?' would end it, and
	// a data directory named "C#" would silently open another database.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{DB: db, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.DB.Close() }

// Tx runs fn in one transaction, committing if it returns nil.
func (s *Store) Tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.DB.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return err
	}
	var have int
	if err := s.DB.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return err
	}
	if have > len(migrations) {
		return fmt.Errorf("%w (schema version %d, this binary knows %d)", ErrTooNew, have, len(migrations))
	}
	for v := have + 1; v <= len(migrations); v++ {
		err := s.Tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, migrations[v-1]); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, ?)`, v, s.now().Unix())
			return err
		})
		if err != nil {
			return err
		}
	}
	// Both best effort: a store that stays larger is still correct.
	vacuumed, _ := s.repage(ctx)
	if !vacuumed && have > 0 && have < compactedAt && len(migrations) >= compactedAt {
		// The pages migrations 11, 12, 14, 15 and 16 freed stay in the file until a
		// VACUUM.
		_ = s.compact(ctx)
	}
	return nil
}

// compactedAt is the last migration that freed many pages (11 dropped the
// keyword index's copy of its text and rebuilt blobs, 12 rebuilt blobs
// without their key texts, 14 halved the file changes' object ids, 15 the
// parents' hashes, 16 packed the hunks), after which an older store is
// vacuumed.
const compactedAt = 16

// SchemaVersion reports the migration version the database is at.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.DB.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}
