package vectors

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	chromem "github.com/philippgille/chromem-go"
	"golang.org/x/sync/errgroup"
)

// memIndex is a loaded collection and what the index keeps beside it.
type memIndex struct {
	// mu is held for reading by queries and for writing while a write
	// changes the fields below, so that a query sees each write whole.
	mu  sync.RWMutex
	col *chromem.Collection
	// byCommit lists each commit's document IDs, so that replacing or
	// deleting a commit does not scan the collection.
	byCommit map[string][]string
	// rewritten holds the IDs of documents marked rewritten. While it is
	// empty, queries leave that condition out of chromem-go's where
	// filter, which costs as much as the similarity itself at 50k docs.
	rewritten map[string]bool
	// docs and pos are every document for the query scan (scan.go), and
	// cols the same documents quantized by dimension (colscan.go).
	docs []scanDoc
	pos  map[string]int
	cols colStore
	// colsOn says whether cols is kept. A loaded index builds it on its
	// second query: the build costs several row scans (150 ms at 124k
	// documents), which a process asking one question (the CLI) never
	// earns back, and a daemon earns back at once.
	colsOn  bool
	queries atomic.Int64
	// colFull says whether col holds every document (see load).
	colFull bool
}

func newMemIndex(col *chromem.Collection) *memIndex {
	return &memIndex{col: col, byCommit: map[string][]string{}, rewritten: map[string]bool{}, pos: map[string]int{}, colsOn: true, colFull: true}
}

// queried counts a query and builds the columns at the second.
func (m *memIndex) queried() {
	if m.queries.Add(1) != 2 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.colsOn {
		m.cols.build(m.docs, max(1, runtime.GOMAXPROCS(0)))
		m.colsOn = true
	}
}

// add stores a commit's documents; the caller holds mu and has dropped
// the commit's old documents.
func (m *memIndex) add(ctx context.Context, commit string, docs []chromem.Document) error {
	if err := m.fillCol(ctx); err != nil {
		return err
	}
	for _, d := range docs {
		if err := m.col.AddDocument(ctx, d); err != nil {
			return fmt.Errorf("add vector %s: %w", d.ID, err)
		}
		m.addScan(d.ID, d.Metadata, d.Embedding)
		m.byCommit[commit] = append(m.byCommit[commit], d.ID)
		if d.Metadata[MetaRewritten] == "true" {
			m.rewritten[d.ID] = true
		}
	}
	return nil
}

// drop removes a commit's documents; the caller holds mu.
func (m *memIndex) drop(ctx context.Context, commit string) error {
	ids := m.byCommit[commit]
	if len(ids) == 0 {
		return nil
	}
	if err := m.fillCol(ctx); err != nil {
		return err
	}
	if err := m.col.Delete(ctx, nil, nil, ids...); err != nil {
		return fmt.Errorf("delete vectors of %s: %w", commit, err)
	}
	m.dropRows(commit)
	return nil
}

// newLoadingIndex returns an index for a log's replay (loadPut, dropRows):
// the scan's rows only. The chromem-go collection is filled by the first
// write (fillCol): filling it (a metadata copy and a norm check per
// document) was a third of the CPU a cold query spent loading 124k
// documents, and a query reads only the scan's copy, so the CLI, which
// asks one question, never needs it. The columns are built by the second
// query (queried).
func newLoadingIndex(col *chromem.Collection) *memIndex {
	m := newMemIndex(col)
	m.colsOn, m.colFull = false, false
	return m
}

// loadPut applies a replayed put: a document replaces the one of its ID.
// Documents go straight into the scan's rows: collecting them by commit
// first, and then copying them over, was a fifth of a cold query's CPU.
func (m *memIndex) loadPut(commit, id string, meta map[string]string, vec []float32) {
	if _, ok := m.pos[id]; !ok || !slices.Contains(m.byCommit[commit], id) {
		m.byCommit[commit] = append(m.byCommit[commit], id)
	}
	m.addRow(id, meta, vec)
	if meta[MetaRewritten] == "true" {
		m.rewritten[id] = true
	} else {
		delete(m.rewritten, id)
	}
}

// dropRows removes a commit's documents from the scan's rows and the
// maps beside them, not from the collection: drop does that too, and a
// replay, whose collection is still empty, needs only this.
func (m *memIndex) dropRows(commit string) {
	for _, id := range m.byCommit[commit] {
		delete(m.rewritten, id)
		m.dropScan(id)
	}
	delete(m.byCommit, commit)
}

// fillCol adds every document to the collection if a load left it empty,
// on as many goroutines as cores; the caller holds mu.
func (m *memIndex) fillCol(ctx context.Context) error {
	if m.colFull {
		return nil
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	g, gctx := errgroup.WithContext(ctx)
	for w := range workers {
		g.Go(func() error {
			for i := w; i < len(m.docs); i += workers {
				d := &m.docs[i]
				if err := m.col.AddDocument(gctx, chromem.Document{ID: d.id, Metadata: d.meta, Embedding: d.vec}); err != nil {
					return fmt.Errorf("add vector %s: %w", d.id, err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	m.colFull = true
	return nil
}

// count is the number of documents.
func (m *memIndex) count() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.docs)
}
