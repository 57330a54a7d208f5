package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/vectors"
)

// held is a repository whose stores a long-lived process (the daemon) keeps
// open. It owns the writer lock, so other processes go through that
// process's API; queries reuse the warm stores instead of opening them per
// call, and run concurrently with a sync (SQLite WAL readers, bolt read
// transactions and the vector index's read lock never wait for the writer).
type held struct {
	lock *store.Lock
	st   *store.Store
	g    *graph.Graph
	vec  *vectors.Index
	// terms keeps keyword terms' BM25 parts across the daemon's questions.
	terms *retrieve.TermCache
	// syncMu serialises the writes: syncs and registration updates.
	syncMu sync.Mutex
}

func (hd *held) close() error {
	return errors.Join(hd.vec.Close(), hd.g.Close(), hd.st.Close(), hd.lock.Release())
}

// Hold opens a registered repository's stores and keeps them open, with
// its writer lock, until Release or ReleaseAll; the Home's methods then use
// them. Holding a held repository does nothing.
func (h *Home) Hold(ctx context.Context, name string) error {
	h.holdMu.Lock()
	defer h.holdMu.Unlock()
	if h.holding(name) != nil {
		return nil
	}
	repo, err := h.Get(ctx, name)
	if err != nil {
		return err
	}
	dir := h.DataDir(name)
	hd := &held{terms: retrieve.NewTermCache(0)}
	if hd.lock, err = store.AcquireLock(dir); err != nil {
		return err
	}
	fail := func(err error) error {
		return errors.Join(err, hd.lock.Release())
	}
	if hd.st, err = store.Open(ctx, dir); err != nil {
		return fail(err)
	}
	// A daemon holds the graph and the store open while it syncs, so it
	// compacts what its earlier syncs grew when it takes the repository up
	// again.
	addr := h.graphAddr(name, repo)
	compactGraph(name, addr)
	compactStore(ctx, name, hd.st)
	if hd.g, err = graph.Open(ctx, addr); err != nil {
		return fail(errors.Join(err, hd.st.Close()))
	}
	if hd.vec, err = h.openVectors(name); err != nil {
		return fail(errors.Join(err, hd.g.Close(), hd.st.Close()))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil {
		h.held = map[string]*held{}
	}
	h.held[name] = hd
	return nil
}

// Release closes a held repository's stores and frees its lock, after the
// write in flight (if any) has finished.
func (h *Home) Release(name string) error {
	h.holdMu.Lock()
	defer h.holdMu.Unlock()
	return h.releaseLocked(name)
}

// releaseLocked releases name; the caller holds holdMu.
func (h *Home) releaseLocked(name string) error {
	hd := h.holding(name)
	if hd == nil {
		return nil
	}
	hd.syncMu.Lock()
	defer hd.syncMu.Unlock()
	h.mu.Lock()
	delete(h.held, name)
	h.mu.Unlock()
	if err := hd.close(); err != nil {
		return fmt.Errorf("release %s: %w", name, err)
	}
	return nil
}

// ReleaseAll releases every held repository.
func (h *Home) ReleaseAll() error {
	h.holdMu.Lock()
	defer h.holdMu.Unlock()
	var errs []error
	for _, name := range h.Held() {
		errs = append(errs, h.releaseLocked(name))
	}
	return errors.Join(errs...)
}

// Held lists the held repositories, by name.
func (h *Home) Held() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for name := range h.held {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func (h *Home) holding(name string) *held {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held[name]
}
