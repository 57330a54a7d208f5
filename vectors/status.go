package vectors

import (
	"errors"
	"os"
)

// Status is what an index holds, read without loading vectors.
type Status struct {
	Embedder string // the configured embedder's Name
	BuiltBy  string // the embedder that built the index; "" if none
	Dims     int    // the vectors' size; 0 before the first write
	// NeedsRebuild is true when there is no index yet, when another
	// embedder built it, or when its files are damaged; Reason says which.
	// Queries then fail with ErrNeedsRebuild (or find nothing, when there
	// is no index); Reset and re-adding every document rebuild it.
	NeedsRebuild bool
	Reason       string
	Empty        bool  // nothing written since the index was created or Reset
	LogBytes     int64 // size of the vector log
	// NeedsCompaction is true when the log has more than doubled since the
	// last compaction (deleted and replaced documents still take space).
	NeedsCompaction bool
	Loaded          bool
	Docs            int // documents in memory when Loaded, else -1
	// TornBytes is the size of a torn last frame the load skipped (a
	// writer killed mid-write); the next write cuts it.
	TornBytes int64
}

// Status reads the marker and the log's size.
func (ix *Index) Status() (Status, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	st := Status{Embedder: ix.name, Docs: -1, Empty: true}
	if ix.closed {
		return st, ErrClosed
	}
	m, err := readMarker(ix.dir)
	switch {
	case errors.Is(err, ErrCorrupt):
		st.NeedsRebuild, st.Reason = true, err.Error()
		return st, nil
	case err != nil:
		return st, err
	case m == nil:
		st.NeedsRebuild, st.Reason = true, "no vector index"
		return st, nil
	}
	st.BuiltBy, st.Dims = m.Embedder, m.Dims
	if fi, err := os.Stat(ix.logPath(m)); err == nil {
		st.LogBytes = fi.Size()
	}
	st.Empty = st.LogBytes <= int64(len(logMagic))
	st.NeedsCompaction = st.LogBytes > 2*max(m.Compacted, 1<<20)
	if ix.foreign(m) {
		st.NeedsRebuild, st.Reason = true, ix.mismatchReason(m)
	}
	if ix.mem != nil {
		st.Loaded, st.Docs, st.TornBytes = true, ix.mem.count(), ix.dropped
	}
	return st, nil
}
