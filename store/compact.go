package store

import (
	"context"
	"fmt"
)

// A sync fills the pages of SQLite's b-trees unevenly: a table keyed
// other than by row id splits its pages about half full even when rows
// arrive in key order, and its indexes take rows in no order at all. On
// git/git, a store synced afresh held 16 MB (4%) of such slack that a
// VACUUM packs. CompactIfGrown does that, and merges the keyword index's
// segments into one, after a sync that doubled the database: once after a
// large first sync, seldom after.

// compactMinBytes: a smaller database is never compacted (a variable for
// the tests).
var compactMinBytes int64 = 32 << 20

// CompactIfGrown compacts the database if its file has doubled since its
// last compaction and is past compactMinBytes. It reports the database's
// size in pages (page count × page size) before and after, both 0 when it
// did nothing; the file matches the size after once a checkpoint that no
// reader holds back has run. Compaction rewrites the
// whole file; run it under the writer lock, as a sync's last step. A
// reader in another process keeps its snapshot; the file shrinks at a
// checkpoint no reader holds back (the one here waits out the busy
// timeout, then leaves it to a later one).
func (s *Store) CompactIfGrown(ctx context.Context) (before, after int64, err error) {
	var pages, last, pageSize int64
	err = s.DB.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count()),
		(SELECT pages FROM compaction), (SELECT page_size FROM pragma_page_size())`).Scan(&pages, &last, &pageSize)
	if err != nil {
		return 0, 0, fmt.Errorf("compact store: %w", err)
	}
	if pages*pageSize < compactMinBytes || pages < 2*last {
		return 0, 0, nil
	}
	if err := s.compact(ctx); err != nil {
		return 0, 0, err
	}
	err = s.DB.QueryRowContext(ctx, `SELECT pages FROM compaction`).Scan(&after)
	return pages * pageSize, after * pageSize, err
}

// compact merges the keyword index into one segment, vacuums the file
// (in WAL mode it shrinks at the checkpoint) and records its page count.
func (s *Store) compact(ctx context.Context) error {
	for _, q := range []string{
		`INSERT INTO search(search) VALUES ('optimize')`,
		`VACUUM`,
		`PRAGMA wal_checkpoint(TRUNCATE)`,
		`UPDATE compaction SET pages = (SELECT page_count FROM pragma_page_count())`,
	} {
		if _, err := s.DB.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("compact store: %w", err)
		}
	}
	return nil
}

// pageBytes is a store's page size. At SQLite's default, 4 KiB, 13 MB of
// git/git's 182 MB of blob pages were unused (rows of one to a few KiB
// fit them badly) and every diff above 4 KiB overflowed: at 8 KiB the
// vacuumed store is 5.5 MB (1.4 %) smaller.
const pageBytes = 8192

// repage gives a store of smaller pages pageBytes ones: a new store (its
// first page was written at the default size when WAL mode was set) and
// an older one, which it vacuums, with the keyword index merged as a
// compaction does. The page size can only change outside WAL mode, so the
// store leaves it for the VACUUM, on one connection, and returns to it.
// Another process that holds the database open keeps it in WAL mode; the
// store then keeps its pages, to be changed at a later opening.
func (s *Store) repage(ctx context.Context) (vacuumed bool, err error) {
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var size int
	if err := conn.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil || size >= pageBytes {
		return false, err
	}
	var mode string
	if err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = DELETE`).Scan(&mode); err != nil {
		return false, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA journal_mode = WAL`)
	if mode != "delete" {
		return false, fmt.Errorf("page size: journal mode stays %s", mode)
	}
	for _, q := range []string{
		`INSERT INTO search(search) VALUES ('optimize')`,
		fmt.Sprintf(`PRAGMA page_size = %d`, pageBytes),
		`VACUUM`,
		// A store never compacted (a new one) stays so: its first large
		// sync is compacted as before.
		`UPDATE compaction SET pages = (SELECT page_count FROM pragma_page_count()) WHERE pages > 0`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return false, fmt.Errorf("page size: %w", err)
		}
	}
	return true, nil
}
