package vectors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	chromem "github.com/philippgille/chromem-go"
)

// DefaultUpsertBatch is the number of documents Upsert embeds and
// appends as one frame.
const DefaultUpsertBatch = 256

// Options tune an Index.
type Options struct {
	// BatchSize is the number of documents Upsert embeds and appends per
	// step (DefaultUpsertBatch); a commit's documents stay in one step.
	BatchSize int
	// NoSync skips the fsync after each write. A killed process loses
	// nothing either way; a machine crash may then lose the last writes.
	NoSync bool
}

// Index is the vector index of one repository: one chromem-go collection
// for the configured embedder, persisted as an append-only log in a
// directory of its own. Open reads nothing; Status reads only the marker;
// the vectors are loaded by the first Query (or Len, Compact) and then
// kept in memory, where writes keep them current. Writes append to the log
// without loading it.
//
// An Index is safe for concurrent use. Only one process may write a
// directory (the caller holds the data directory's writer lock); readers
// in other processes see every completed write.
type Index struct {
	dir  string
	emb  Embedder
	name string
	opts Options

	mu      sync.Mutex // protects the fields below
	closed  bool
	mark    *marker   // the marker as last read or written
	mem     *memIndex // nil until loaded
	log     *os.File  // open for appending after the first write
	logEnd  int64     // where the next frame goes
	dropped int64     // bytes of a torn last frame ignored at load
}

// Open returns the index kept in dir for embedder e. It does no I/O.
func Open(dir string, e Embedder, opts *Options) (*Index, error) {
	if dir == "" {
		return nil, errors.New("vectors: no directory")
	}
	if e == nil {
		return nil, errors.New("vectors: no embedder")
	}
	ix := &Index{dir: dir, emb: e, name: e.Name()}
	if opts != nil {
		ix.opts = *opts
	}
	if ix.opts.BatchSize <= 0 {
		ix.opts.BatchSize = DefaultUpsertBatch
	}
	return ix, nil
}

func (ix *Index) logPath(m *marker) string {
	return filepath.Join(ix.dir, m.Collection, logFile)
}

// mismatch is the error for an index another embedder built, or whose
// documents were made into vectors another way.
func (ix *Index) mismatch(m *marker) error {
	return fmt.Errorf("%w: %s", ErrNeedsRebuild, ix.mismatchReason(m))
}

// foreign reports whether the index of marker m is not this one's to use.
func (ix *Index) foreign(m *marker) bool {
	return m.Embedder != ix.name || m.Docs != docsVersion
}

func (ix *Index) mismatchReason(m *marker) string {
	if m.Embedder != ix.name {
		return fmt.Sprintf("index built by %s, embedder is %s", m.Embedder, ix.name)
	}
	return fmt.Sprintf("index documents made by version %d, this build makes version %d", m.Docs, docsVersion)
}

// loadLocked loads the collection once. It returns nil (and no error)
// when the directory holds no index yet.
func (ix *Index) loadLocked(ctx context.Context) (*memIndex, error) {
	if ix.closed {
		return nil, ErrClosed
	}
	if ix.mem != nil {
		return ix.mem, nil
	}
	m, err := readMarker(ix.dir)
	if err != nil {
		return nil, rebuildIfCorrupt(err)
	}
	if m == nil {
		return nil, nil
	}
	if ix.foreign(m) {
		return nil, ix.mismatch(m)
	}
	col, err := ix.newCollection(m)
	if err != nil {
		return nil, err
	}
	mem := newLoadingIndex(col)
	valid, size, err := replayLog(ix.logPath(m), func(r *record) error {
		switch r.op {
		case opPut:
			if len(r.vec) != m.Dims {
				return fmt.Errorf("%w: document %s has %d dimensions, index %d", ErrCorrupt, r.id, len(r.vec), m.Dims)
			}
			mem.loadPut(r.meta[MetaCommit], r.id, r.meta, r.vec)
		case opDelCommit:
			mem.dropRows(r.commit)
		}
		return nil
	})
	if err != nil {
		return nil, rebuildIfCorrupt(err)
	}
	ix.mark, ix.mem, ix.dropped = m, mem, size-valid
	return mem, nil
}

func rebuildIfCorrupt(err error) error {
	if errors.Is(err, ErrCorrupt) {
		return fmt.Errorf("%w: %w", ErrNeedsRebuild, err)
	}
	return err
}

// newCollection makes the in-memory chromem-go collection. Its embedding
// function is ours: chromem-go would otherwise default to calling OpenAI.
func (ix *Index) newCollection(m *marker) (*chromem.Collection, error) {
	embed := func(ctx context.Context, text string) ([]float32, error) {
		v, err := ix.emb.Embed(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		return v[0], nil
	}
	col, err := chromem.NewDB().CreateCollection(m.Collection, map[string]string{"embedder": m.Embedder}, embed)
	if err != nil {
		return nil, fmt.Errorf("create collection %s: %w", m.Collection, err)
	}
	return col, nil
}

func (ix *Index) unloadLocked() {
	if ix.log != nil {
		ix.log.Close()
	}
	ix.log, ix.logEnd, ix.mark = nil, 0, nil
	ix.mem, ix.dropped = nil, 0
}

// Loaded reports whether the vectors are in memory.
func (ix *Index) Loaded() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.mem != nil
}

// Len loads the index and returns its number of documents.
func (ix *Index) Len(ctx context.Context) (int, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	mem, err := ix.loadLocked(ctx)
	if err != nil || mem == nil {
		return 0, err
	}
	return mem.count(), nil
}

// Close releases the log and the vectors in memory.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return nil
	}
	var err error
	if ix.log != nil {
		err = ix.log.Close()
		ix.log = nil
	}
	ix.unloadLocked()
	ix.closed = true
	return err
}
