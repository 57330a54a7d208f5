package memory

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/indexer"
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
	var res *indexer.Result
	err := h.withStore(ctx, name, func(st *store.Store) error {
		repo, err := loadRepository(ctx, st.DB)
		if err != nil {
			return err
		}
		oldGraph := repo.Graph
		applyPolicy(repo, opts.Policy)
		if err := validatePolicy(repo); err != nil {
			return err
		}
		if err := saveRepository(ctx, st.DB, repo, false); err != nil {
			return err
		}
		if repo.Graph != oldGraph {
			// A new graph store starts empty: rebuild it from SQLite.
			if _, err := st.DB.ExecContext(ctx, `UPDATE commits SET graphed = 0`); err != nil {
				return err
			}
		}
		g, err := graph.Open(ctx, h.graphAddr(name, repo))
		if err != nil {
			return err
		}
		defer g.Close()
		vec, err := h.openVectors(name)
		if err != nil {
			return err
		}
		defer vec.Close()
		io := indexer.Options{Mode: repo.BranchMode, Branches: repo.Branches, KeepDays: repo.KeepDays,
			KeepCommits: repo.KeepCommits, Progress: opts.Progress, Graph: g, Vectors: vec}
		if opts.LLM != nil {
			sum, err := llm.New(*opts.LLM, llm.NewSQLCache(st.DB), slog.Default())
			if err != nil {
				return err
			}
			io.Summarizer = sum
		}
		if os.Getenv("GITMEMORY_BENCH_EXTRACT_ONLY") != "" {
			io.ExtractOnly = true // bench/sync-vs-git.sh's baseline
		}
		if opts.Tune != nil {
			opts.Tune(&io)
		}
		s, err := indexer.New(repo.Path, st, io)
		if err != nil {
			return err
		}
		res, err = s.Run(ctx)
		return err
	})
	return res, err
}

// openVectors opens a repository's vector index with the default local
// embedder (deterministic, offline). Opening reads nothing: the index
// loads on its first query.
func (h *Home) openVectors(name string) (*vectors.Index, error) {
	return vectors.Open(filepath.Join(h.DataDir(name), "vectors"), vectors.NewLocal(0), nil)
}

// graphAddr is where a repository's graph lives: its DSN, or the bolt
// directory inside its data directory.
func (h *Home) graphAddr(name string, r *Repository) string {
	if r.Graph != "" {
		return r.Graph
	}
	return filepath.Join(h.DataDir(name), "graph")
}
