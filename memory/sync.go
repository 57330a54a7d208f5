package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/secrets"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/understand/llm"
	"github.com/gitmemory/gitmemory/vectors"
)

// SyncOptions configure one sync. A non-empty Policy is saved as the
// repository's configuration before syncing.
type SyncOptions struct {
	Policy   Policy
	Progress func(indexer.Progress)
	// Tune overrides indexer options (workers, batch size) for this run.
	Tune func(*indexer.Options)
	// LLM, if set, summarises commits with an LLM (cached in the store).
	LLM *llm.Config
}

// Sync brings a repository's index up to date with its tracked branches.
// It holds the writer lock for the whole run: a second writer gets
// store.ErrLocked at once, never a corrupt store.
func (h *Home) Sync(ctx context.Context, name string, opts SyncOptions) (*indexer.Result, error) {
	if _, err := h.Get(ctx, name); err != nil {
		return nil, err
	}
	if hd := h.holding(name); hd != nil {
		hd.syncMu.Lock()
		defer hd.syncMu.Unlock()
		return h.syncStores(ctx, hd.st, opts, func(string) (*graph.Graph, *vectors.Index, func(), error) {
			if opts.Policy.Graph != nil {
				return nil, nil, nil, fmt.Errorf("the daemon holds %s's graph: stop it to switch graph stores", name)
			}
			return hd.g, hd.vec, func() {}, nil
		})
	}
	// The secret scanner's rules compile (about 50 ms of CPU, as long as
	// the rest of a one-commit sync) while the stores open and the word
	// vectors load, instead of after: the sync's scanner shares them.
	go secrets.New()
	var res *indexer.Result
	err := h.withStore(ctx, name, func(st *store.Store) error {
		var err error
		var graphAddr string
		res, err = h.syncStores(ctx, st, opts, func(addr string) (*graph.Graph, *vectors.Index, func(), error) {
			graphAddr = addr
			g, err := graph.Open(ctx, addr)
			if err != nil {
				return nil, nil, nil, err
			}
			vec, err := h.openVectors(name)
			if err != nil {
				return nil, nil, nil, errors.Join(err, g.Close())
			}
			return g, vec, func() { g.Close(); vec.Close() }, nil
		})
		if err == nil && res != nil && res.Indexed > 0 {
			// Closed by now, and still under the writer lock. (A daemon
			// holds its graphs open and compacts them when it takes a
			// repository up: Hold.)
			compactGraph(name, graphAddr)
			compactStore(ctx, name, st)
		}
		return err
	})
	return res, err
}

// compactGraph compacts a closed graph that has doubled since it was last
// compacted (graph.CompactIfGrown). A graph left as it was is only
// larger, so a failure is a warning, not the caller's error.
func compactGraph(name, addr string) {
	if _, _, err := graph.CompactIfGrown(addr); err != nil {
		slog.Warn("graph not compacted", "repository", name, "err", err)
	}
}

// compactStore compacts a store that has doubled since it was last
// compacted (store.CompactIfGrown); like the graph's, a failure is a
// warning.
func compactStore(ctx context.Context, name string, st *store.Store) {
	if _, _, err := st.CompactIfGrown(ctx); err != nil {
		slog.Warn("store not compacted", "repository", name, "err", err)
	}
}

// syncStores runs one sync on an open metadata store; stores opens (or
// hands over) the graph at an address and the vector index.
func (h *Home) syncStores(ctx context.Context, st *store.Store, opts SyncOptions,
	stores func(graphAddr string) (*graph.Graph, *vectors.Index, func(), error)) (*indexer.Result, error) {
	repo, err := loadRepository(ctx, st.DB)
	if err != nil {
		return nil, err
	}
	oldGraph := repo.Graph
	applyPolicy(repo, opts.Policy)
	if err := validatePolicy(repo); err != nil {
		return nil, err
	}
	g, vec, closeStores, err := stores(h.graphAddr(repo.Name, repo))
	if err != nil {
		return nil, err
	}
	defer closeStores()
	if err := saveRepository(ctx, st.DB, repo, false); err != nil {
		return nil, err
	}
	if repo.Graph != oldGraph {
		// A new graph store starts empty: rebuild it from SQLite.
		if _, err := st.DB.ExecContext(ctx, `UPDATE commits SET graphed = 0`); err != nil {
			return nil, err
		}
	}
	io := indexer.Options{Mode: repo.BranchMode, Branches: repo.Branches, KeepDays: repo.KeepDays,
		KeepCommits: repo.KeepCommits, Progress: opts.Progress, Graph: g, Vectors: vec}
	if opts.LLM != nil {
		sum, err := llm.New(*opts.LLM, llm.NewSQLCache(st.DB), slog.Default())
		if err != nil {
			return nil, err
		}
		io.Summarizer = sum
	}
	if os.Getenv("GITMEMORY_BENCH_EXTRACT_ONLY") != "" {
		io.ExtractOnly = true // bench/sync-vs-git.sh's baseline
	}
	if os.Getenv("GITMEMORY_BENCH_NO_RELATIONS") != "" {
		io.NoRelations = true // what the code relationships cost (docs/performance.md)
	}
	if os.Getenv("GITMEMORY_ENTITY_CHECK") != "" {
		io.CheckEntities = true // the incremental entity parse against whole parses
	}
	if n, err := strconv.Atoi(os.Getenv("GITMEMORY_BATCH_SIZE")); err == nil && n > 0 {
		io.BatchSize = n // small batches for the crash checks (internal/crashcheck)
	}
	if opts.Tune != nil {
		opts.Tune(&io)
	}
	s, err := indexer.New(repo.Path, st, io)
	if err != nil {
		return nil, err
	}
	return s.Run(ctx)
}

// openVectors opens a repository's vector index with the embedder the
// environment names (GITMEMORY_EMBEDDER: local, the default, deterministic
// and offline; ollama or openai with GITMEMORY_EMBEDDER_URL, _MODEL and
// _API_KEY). Opening reads nothing: the index loads on its first query.
func (h *Home) openVectors(name string) (*vectors.Index, error) {
	emb, err := EmbedderFromEnv()
	if err != nil {
		return nil, err
	}
	return vectors.Open(filepath.Join(h.DataDir(name), "vectors"), emb, nil)
}

// EmbedderFromEnv is the embedder the GITMEMORY_EMBEDDER* variables
// configure (docker-compose sets them for its embedding server).
func EmbedderFromEnv() (vectors.Embedder, error) {
	e, err := vectors.New(vectors.Config{Kind: os.Getenv("GITMEMORY_EMBEDDER"), Remote: vectors.RemoteConfig{
		BaseURL: os.Getenv("GITMEMORY_EMBEDDER_URL"), Model: os.Getenv("GITMEMORY_EMBEDDER_MODEL"),
		APIKey: os.Getenv("GITMEMORY_EMBEDDER_API_KEY")}})
	if err != nil {
		return nil, fmt.Errorf("GITMEMORY_EMBEDDER: %w", err)
	}
	return e, nil
}

// graphAddr is where a repository's graph lives: its DSN, or the bolt
// directory inside its data directory.
func (h *Home) graphAddr(name string, r *Repository) string {
	if r.Graph != "" {
		return r.Graph
	}
	return filepath.Join(h.DataDir(name), "graph")
}
