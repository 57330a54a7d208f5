package graph

import (
	"syscall"

	boltdb "github.com/boltdb/bolt"
)

// ReleaseMemory drops the embedded store's mapped pages from the process's
// resident memory; the kernel keeps them in its page cache, so a later read
// maps them again without reading the disk. bolt reads through a read-only
// shared mapping of the whole file, and each page fault maps up to 16
// neighbouring cached pages with it, so over a long sync the mapping grew
// resident to the size of the file (230 MB for git/git's graph) although
// a write touches far less. A writer calls it between its transactions.
//
// The read transaction holds bolt's mapping lock, under which bolt cannot
// remap the file, so the advised range is the mapping for the whole call.
func (g *Graph) ReleaseMemory() error {
	if g.qs == nil {
		return ErrClosed
	}
	if g.bolt == nil {
		return nil
	}
	tx, err := g.bolt.Begin(false)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return dropMapping(g.bolt, tx.Size())
}

// dropMapping takes the first size bytes of db's mapping out of the
// resident set. The mapping is of the file, shared: the pages stay in the
// page cache, and a later read maps them again.
func dropMapping(db *boltdb.DB, size int64) error {
	if size <= 0 {
		return nil
	}
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, db.Info().Data, uintptr(size), syscall.MADV_DONTNEED); e != 0 {
		return e
	}
	return nil
}
