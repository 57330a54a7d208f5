package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/queue"
	"github.com/gitmemory/gitmemory/secrets"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// Syncer syncs one repository into one store. The caller holds the store's
// writer lock.
type Syncer struct {
	path string
	st   *store.Store
	q    *queue.Queue
	opts Options
	// scanner is built in the background by New (compiling gitleaks' rules
	// takes ~100 ms, as long as the rest of a small incremental sync) and
	// taken with scan when the first commit needs it.
	scannerReady chan struct{}
	scanner      *secrets.Scanner
	scannerErr   error
	// parserSet holds one entity parser per worker while the queue is
	// processed; each keeps its grammars and caches from batch to batch,
	// and always gets the same paths (see entityStage).
	parserSet []*entity.Parser
	// entityIDs caches the ids of the entities this sync's committed
	// batches stored, for the writer of the next batch; nodeIDs those of
	// the code relationships' nodes, with oldNodeIDs the generation before
	// (see nodeIDsMax).
	entityIDs, nodeIDs, oldNodeIDs map[string]int64
	// rel resolves code relationships while the queue is processed.
	rel *relater
	// sources holds the file contents of the batches between extraction
	// and the end of their entity stage (see sourceBudget).
	sources *semaphore.Weighted
}

// New prepares a sync of the repository at path into st.
func New(path string, st *store.Store, opts Options) (*Syncer, error) {
	opts = opts.withDefaults()
	q := queue.New(st.DB)
	q.Now = opts.Now
	if opts.ExtractOnly {
		opts.Graph, opts.Vectors, opts.Summarizer = nil, nil, nil
	}
	s := &Syncer{path: path, st: st, q: q, opts: opts, scannerReady: make(chan struct{}), entityIDs: map[string]int64{},
		nodeIDs: map[string]int64{}}
	go func() {
		defer close(s.scannerReady)
		if s.scanner, s.scannerErr = secrets.New(); s.scannerErr != nil {
			s.scannerErr = fmt.Errorf("secret scanner: %w", s.scannerErr)
		}
	}()
	return s, nil
}

// secretScanner waits for the scanner New started building.
func (s *Syncer) secretScanner() (*secrets.Scanner, error) {
	<-s.scannerReady
	return s.scanner, s.scannerErr
}

// Run performs the sync.
func (s *Syncer) Run(ctx context.Context) (*Result, error) {
	start := time.Now()
	res := &Result{}
	repo, err := extract.Open(s.path, s.opts.Extract)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	res.Shallow = repo.IsShallow()
	branches, err := s.branches(repo)
	if errors.Is(err, extract.ErrEmpty) {
		res.Empty = true
		return res, s.finish(ctx, res, start)
	}
	if err != nil {
		return nil, err
	}
	if err := s.saveRefs(ctx, repo); err != nil {
		return nil, err
	}
	if err := s.checkVectors(ctx); err != nil {
		return nil, err
	}
	// Commits an interrupted sync stored but did not graph come first: a
	// relationship edge is added and removed by commits in order, so an
	// old commit's replay after newer ones would undo their changes.
	if err := s.syncGraph(ctx); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	untracked, err := s.untracked(ctx, branches)
	if err != nil {
		return nil, err
	}
	checkRewrites := len(untracked) > 0
	for _, b := range branches {
		br, missing, err := s.discover(ctx, repo, b, res)
		if err != nil {
			return nil, err
		}
		res.Branches = append(res.Branches, br)
		res.Missing = append(res.Missing, missing...)
		checkRewrites = checkRewrites || br.Rewritten
	}
	if s.opts.RetryFailed {
		if res.Retried, err = s.q.RetryAll(ctx); err != nil {
			return nil, err
		}
	}
	if err := s.process(ctx, repo, res); err != nil {
		return nil, err
	}
	repo.DropCaches()
	if err := s.reconcile(ctx, repo.Root(), res.Branches); err != nil {
		return nil, err
	}
	if checkRewrites {
		if err := s.markRewritten(ctx, repo, res); err != nil {
			return nil, err
		}
	}
	if err := s.syncGraph(ctx); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	if !s.opts.ExtractOnly {
		if err := s.relate(ctx); err != nil {
			return nil, fmt.Errorf("relations: %w", err)
		}
	}
	// Commits stored before the keyword index existed join it.
	if _, err := s.st.IndexSearchBackfill(ctx); err != nil {
		return nil, fmt.Errorf("keyword index: %w", err)
	}
	// Those stored before the way their row and vectors are made changed
	// are made again (an extract-only sync leaves them for a whole one).
	if !s.opts.ExtractOnly {
		if _, err := s.st.Reindex(ctx, s.reembed); err != nil {
			return nil, fmt.Errorf("reindex: %w", err)
		}
	}
	// So do those stored before paths fingerprints were lookup keys.
	if _, err := s.st.FingerprintBackfill(ctx); err != nil {
		return nil, fmt.Errorf("lookup fingerprints: %w", err)
	}
	if len(res.Branches) > 0 {
		if err := s.indexDocs(ctx, repo, res.Branches[0].Head); err != nil {
			return nil, err
		}
	}
	if err := s.advance(ctx, res, untracked); err != nil {
		return nil, err
	}
	if err := s.prune(ctx, res); err != nil {
		return nil, err
	}
	if res.Pruned > 0 { // pruned commits no longer count in co-evolution
		if err := s.relate(ctx); err != nil {
			return nil, fmt.Errorf("relations: %w", err)
		}
	}
	return res, s.finish(ctx, res, start)
}

// branches resolves the tracked branch names.
func (s *Syncer) branches(repo *extract.Repo) ([]string, error) {
	switch s.opts.Mode {
	case AllBranches:
		bs, err := repo.Branches()
		if err == nil && len(bs) == 0 {
			return nil, extract.ErrEmpty
		}
		return bs, err
	case ListedBranch:
		for _, b := range s.opts.Branches {
			if _, err := repo.ResolveBranch(b); err != nil {
				return nil, err
			}
		}
		return s.opts.Branches, nil
	default:
		b, err := repo.DefaultBranch()
		if err != nil {
			return nil, err
		}
		return []string{b}, nil
	}
}

// saveRefs records the repository's refs, writing only those that changed:
// a repository has hundreds or thousands of tags, and a sync of one commit
// moves one branch (rewriting all of git/git's 1,016 refs took 9 ms of
// such a sync's 180 ms of CPU).
func (s *Syncer) saveRefs(ctx context.Context, repo *extract.Repo) error {
	known, err := s.loadRefs(ctx)
	if err != nil {
		return err
	}
	refs, err := repo.Refs(known)
	if err != nil {
		return err
	}
	if err := s.redactRefs(refs); err != nil {
		return err
	}
	changed, gone := refChanges(refs, known)
	if len(changed) == 0 && len(gone) == 0 {
		return nil
	}
	return s.st.Tx(ctx, func(tx *sql.Tx) error {
		for _, name := range gone {
			if _, err := tx.ExecContext(ctx, `DELETE FROM refs WHERE name = ?`, name); err != nil {
				return fmt.Errorf("delete ref %s: %w", name, err)
			}
		}
		for _, r := range changed {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO refs(name, kind, target, object) VALUES (?, ?, ?, ?)`,
				r.Name, r.Kind, r.Target, r.Object); err != nil {
				return fmt.Errorf("save ref %s: %w", r.Name, err)
			}
		}
		return nil
	})
}

// redactRefs replaces secrets in ref names (a token pushed as a tag) by
// markers unique to them.
func (s *Syncer) redactRefs(refs []extract.Ref) error {
	sc, err := s.secretScanner()
	if err != nil {
		return err
	}
	for i := range refs {
		refs[i].Name, _ = sc.RedactName(refs[i].Name)
	}
	return nil
}

func (s *Syncer) loadRefs(ctx context.Context) (map[string]extract.Ref, error) {
	rows, err := s.st.DB.QueryContext(ctx, `SELECT name, kind, object, target FROM refs`)
	if err != nil {
		return nil, fmt.Errorf("load refs: %w", err)
	}
	defer rows.Close()
	known := map[string]extract.Ref{}
	for rows.Next() {
		var r extract.Ref
		if err := rows.Scan(&r.Name, &r.Kind, &r.Object, &r.Target); err != nil {
			return nil, err
		}
		known[r.Name] = r
	}
	return known, rows.Err()
}

// refChanges returns the refs that are new or differ from the known ones,
// and the names of known refs that are gone.
func refChanges(refs []extract.Ref, known map[string]extract.Ref) (changed []extract.Ref, gone []string) {
	seen := make(map[string]bool, len(refs))
	for _, r := range refs {
		seen[r.Name] = true
		if k, ok := known[r.Name]; !ok || k != r {
			changed = append(changed, r)
		}
	}
	for name := range known {
		if !seen[name] {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	return changed, gone
}

// untracked lists branches with a sync state that are no longer tracked (a
// deleted branch, or a narrower strategy). Their commits may have become
// unreachable, so they call for a rewrite check; their state is dropped
// only after it, so a sync killed in between checks again.
func (s *Syncer) untracked(ctx context.Context, branches []string) ([]string, error) {
	states, err := queue.States(ctx, s.st.DB)
	if err != nil {
		return nil, err
	}
	tracked := map[string]bool{}
	for _, b := range branches {
		tracked[b] = true
	}
	var out []string
	for _, st := range states {
		if !tracked[st.Branch] {
			out = append(out, st.Branch)
		}
	}
	return out, nil
}
