package vectors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// writableLocked readies the log for appending, creating the index on
// first use and cutting a torn last frame left by a killed writer.
func (ix *Index) writableLocked() error {
	if ix.closed {
		return ErrClosed
	}
	if ix.log != nil {
		return nil
	}
	m, err := readMarker(ix.dir)
	if err != nil {
		return rebuildIfCorrupt(err)
	}
	if m == nil {
		return ix.createLocked()
	}
	if m.Embedder != ix.name {
		return ix.mismatch(m)
	}
	removeStray(ix.dir)
	removeStray(filepath.Join(ix.dir, m.Collection))
	f, err := os.OpenFile(ix.logPath(m), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open vector log: %w", err)
	}
	end, err := validPrefix(f)
	if err == nil && end < int64(len(logMagic)) {
		end, err = writeMagic(f)
	}
	if err == nil {
		err = f.Truncate(end)
	}
	if err != nil {
		f.Close()
		return rebuildIfCorrupt(err)
	}
	ix.mark, ix.log, ix.logEnd = m, f, end
	return nil
}

func writeMagic(f *os.File) (int64, error) {
	if _, err := f.WriteAt([]byte(logMagic), 0); err != nil {
		return 0, fmt.Errorf("write vector log header: %w", err)
	}
	return int64(len(logMagic)), nil
}

// createLocked starts an empty index for the configured embedder: the
// collection's directory and log first, the marker last, so that a crash
// in between leaves "no index" rather than a marker without a log.
func (ix *Index) createLocked() error {
	m := &marker{Format: markerVersion, Embedder: ix.name, Collection: collectionName(ix.name)}
	cdir := filepath.Join(ix.dir, m.Collection)
	if err := os.MkdirAll(cdir, 0o700); err != nil {
		return fmt.Errorf("create vector collection directory: %w", err)
	}
	f, err := os.OpenFile(ix.logPath(m), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create vector log: %w", err)
	}
	end, err := writeMagic(f)
	if err == nil && !ix.opts.NoSync {
		err = errors.Join(f.Sync(), syncDir(cdir))
	}
	if err == nil {
		err = writeMarker(ix.dir, m)
	}
	if err != nil {
		f.Close()
		return err
	}
	// The new index is empty but stays unloaded: a writer that never
	// queries never holds the vectors in memory.
	ix.mark, ix.log, ix.logEnd = m, f, end
	ix.mem, ix.dropped = nil, 0
	return nil
}

// appendLocked writes one frame and syncs it. On failure it cuts the file
// back, so a half-written frame never sits before the next one.
func (ix *Index) appendLocked(frame []byte) error {
	_, err := ix.log.WriteAt(frame, ix.logEnd)
	if err == nil && !ix.opts.NoSync {
		err = ix.log.Sync()
	}
	if err != nil {
		terr := ix.log.Truncate(ix.logEnd)
		ix.log.Close()
		ix.log = nil
		return errors.Join(fmt.Errorf("append to vector log: %w", err), terr)
	}
	ix.logEnd += int64(len(frame))
	return nil
}

// Reset drops the index, whatever embedder built it, and starts an empty
// one for the configured embedder. The caller then adds every document
// again: that is the rebuild.
func (ix *Index) Reset(ctx context.Context) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return ErrClosed
	}
	ix.unloadLocked()
	if err := os.Remove(filepath.Join(ix.dir, markerFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove vector index marker: %w", err)
	}
	entries, err := os.ReadDir(ix.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", ix.dir, err)
	}
	for _, e := range entries {
		p := filepath.Join(ix.dir, e.Name())
		if _, err := os.Stat(filepath.Join(p, logFile)); e.IsDir() && err == nil {
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("remove vector collection: %w", err)
			}
		}
	}
	removeStray(ix.dir)
	if err := os.MkdirAll(ix.dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", ix.dir, err)
	}
	return ix.createLocked()
}
