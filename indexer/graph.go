package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/understand"
	"github.com/gitmemory/gitmemory/vectors"
)

// Graph node id prefixes.
const (
	commitNode = "commit:"
	fileNode   = "file:"
	entityNode = "entity:"
	issueNode  = "issue:"
	authorNode = "author:"
	noteNode   = "note:"
)

// CommitNode is the graph id of a commit.
func CommitNode(hash string) string { return commitNode + hash }

// FileNode is the graph id of a file path.
func FileNode(path string) string { return fileNode + path }

// EntityNode is the graph id of an entity key.
func EntityNode(key string) string { return entityNode + key }

// edgesOf returns the edges a commit contributes to the graph. Node types
// follow from the id prefixes and node properties live in SQLite, so the
// graph holds structure only: each edge is one quad.
func edgesOf(u *model.Understood) []graph.Edge {
	c := u.Commit
	id := CommitNode(c.Hash)
	es := make([]graph.Edge, 0, 2+len(c.Parents)+len(c.Changes)+2*len(u.Entities))
	for _, p := range c.Parents {
		es = append(es, graph.Edge{From: CommitNode(p), Type: "PARENT_OF", To: id})
	}
	if c.Author.Email != "" {
		es = append(es, graph.Edge{From: id, Type: "AUTHORED_BY", To: authorNode + strings.ToLower(c.Author.Email)})
	}
	if !c.IsMerge {
		for _, fc := range c.Changes {
			es = append(es, fileEdges(id, fc)...)
		}
	}
	for _, r := range c.IssueRefs {
		es = append(es, graph.Edge{From: id, Type: string(r.Action), To: issueNode + r.Key})
	}
	for _, e := range u.Entities {
		ent := EntityNode(e.Key())
		es = append(es, graph.Edge{From: id, Type: strings.ToUpper(e.Action), To: ent})
		if e.Action == model.EntityIntroduced {
			es = append(es, graph.Edge{From: FileNode(e.Path), Type: "CONTAINS", To: ent})
		}
		if e.Replaces != "" {
			es = append(es, graph.Edge{From: EntityNode(e.Replaces), Type: "REPLACED_BY", To: ent})
		}
	}
	for i, n := range u.Notes {
		note := fmt.Sprintf("%s%s:%d", noteNode, c.Hash, i)
		es = append(es, graph.Edge{From: id, Type: "CONTAINS", To: note})
		if n.Path != "" {
			es = append(es, graph.Edge{From: note, Type: "REFERENCES", To: FileNode(n.Path)})
		}
	}
	return es
}

// fileEdges are a file change's edges: what the commit did to the file,
// and for a rename the old path REPLACED_BY the new one with the
// similarity as confidence.
func fileEdges(id string, fc model.FileChange) []graph.Edge {
	f := FileNode(fc.Path)
	switch fc.Status {
	case model.Added, model.Copied:
		return []graph.Edge{{From: id, Type: "INTRODUCES", To: f}}
	case model.Deleted:
		return []graph.Edge{{From: id, Type: "DELETES", To: f}}
	case model.Renamed:
		conf := float64(fc.Similarity) / 100
		if conf <= 0 || conf > 1 {
			conf = 1
		}
		return []graph.Edge{{From: id, Type: "INTRODUCES", To: f}, {From: id, Type: "DELETES", To: FileNode(fc.OldPath)},
			{From: FileNode(fc.OldPath), Type: "REPLACED_BY", To: f, Confidence: conf}}
	}
	return []graph.Edge{{From: id, Type: "MODIFIES", To: f}}
}

// graphBatches is how many written batches the graph stage gathers into
// one write: each of Cayley's bolt transactions rewrites every page its
// quads touch and syncs the file, so fewer and larger ones cost less; but
// a transaction's pages stay resident until it ends (bolt's mapping of the
// file, and its dirty nodes in the Go heap), and those grow with the
// graph: late in git/git's history, eight batches' transactions held
// about 150 MB of the mapping and 66 MB of nodes.
const graphBatches = 4

// maxGraphEdges bounds the edges of one graph write, whatever its commits:
// Cayley's transaction holds two deltas an edge, and the plan a map entry,
// about 400 bytes an edge in all. git/git's writes of graphBatches batches
// carry 6,000-12,000 edges; Homebrew's history, where a commit may touch
// hundreds of formulae and each is a class with its methods, carried
// 380,000, and the transaction's 260 MB of live heap left the collector
// running back to back under the sync's memory limit.
var maxGraphEdges = 50_000

// derivedWrite is what the graph stage writes for some commits: their
// graph edges and vector documents, taken from the commits as they come,
// so that the commits themselves (diffs and all) are not kept waiting.
type derivedWrite struct {
	edges  []graph.Edge
	docs   []vectors.Doc
	hashes []string
	// code are the code relationships' edges, the last change of each in
	// commit order: added (with its confidence) or removed.
	code map[graph.Edge]codeEdge
}

// addDerived takes a commit's edges and documents.
func (s *Syncer) addDerived(w *derivedWrite, u *model.Understood) {
	if s.opts.Graph != nil {
		w.edges = append(w.edges, edgesOf(u)...)
		w.addCode(u.Relations)
	}
	if s.opts.Vectors != nil {
		w.docs = append(w.docs, vectors.CommitDocs(u)...)
	}
	w.hashes = append(w.hashes, u.Commit.Hash)
}

// graphStage writes the graph edges and vector documents of the batches
// the writer has committed, graphBatches at a time.
func (s *Syncer) graphStage(ctx context.Context, written <-chan []outcome) error {
	var pending derivedWrite
	flush := func() error {
		if err := s.writeGraph(ctx, &pending); err != nil {
			return err
		}
		pending = derivedWrite{}
		// Between its own transactions: no write of this sync is
		// open while the pages go (see Graph.ReleaseMemory).
		if g := s.opts.Graph; g != nil {
			g.ReleaseMemory()
		}
		return nil
	}
	for b := range written {
		for _, o := range b {
			if o.err != nil {
				continue
			}
			s.addDerived(&pending, o.commit)
			if len(pending.edges)+len(pending.code) >= maxGraphEdges {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if len(pending.hashes) >= graphBatches*s.opts.BatchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return s.writeGraph(ctx, &pending)
}

// writeGraph writes the edges and documents of commits whose metadata is
// committed, then marks the commits graphed. A crash in between leaves them
// unmarked, and syncGraph writes them again (writes are idempotent).
func (s *Syncer) writeGraph(ctx context.Context, w *derivedWrite) error {
	if len(w.hashes) == 0 {
		return nil
	}
	if err := s.writeDerived(ctx, w); err != nil {
		return err
	}
	return s.markGraphed(ctx, w.hashes)
}

// derived reports whether any store derived from SQLite is configured.
func (s *Syncer) derived() bool { return s.opts.Graph != nil || s.opts.Vectors != nil }

// writeDerived writes edges to the graph and documents to the vector
// index. Both writes are idempotent.
func (s *Syncer) writeDerived(ctx context.Context, w *derivedWrite) error {
	if g := s.opts.Graph; g != nil {
		add, remove := w.codeEdges()
		if err := g.Replace(ctx, nil, append(w.edges, add...), remove); err != nil {
			return err
		}
	}
	if v := s.opts.Vectors; v != nil {
		if err := v.Upsert(ctx, w.docs); err != nil {
			return fmt.Errorf("vectors: %w", err)
		}
	}
	return nil
}

// markGraphed marks commits graphed, many per statement: a statement per
// commit cost 0.9 s of CPU over git/git's 82k commits.
func (s *Syncer) markGraphed(ctx context.Context, hashes []string) error {
	const chunk = 500
	return s.st.Tx(ctx, func(tx *sql.Tx) error {
		for len(hashes) > 0 {
			n := min(len(hashes), chunk)
			args := make([]any, n)
			for i, h := range hashes[:n] {
				args[i] = h
			}
			if _, err := tx.ExecContext(ctx, `UPDATE commits SET graphed = 1 WHERE hash IN (`+store.Marks(n)+`)`, args...); err != nil {
				return fmt.Errorf("mark graphed: %w", err)
			}
			hashes = hashes[n:]
		}
		return nil
	})
}

// graphBatch bounds how many commits syncGraph handles per step.
const graphBatch = 512

// syncGraph brings the graph in line with SQLite for every commit whose
// graphed flag is clear: written after a crash, rewritten (hidden), revived
// (written and shown again). It runs before the sync state advances, so a
// branch is never recorded as synced while its graph lags.
func (s *Syncer) syncGraph(ctx context.Context) error {
	if !s.derived() {
		return nil
	}
	for {
		type row struct {
			hash      string
			rewritten bool
		}
		var rows []row
		err := store.EachRow(ctx, s.st.DB, `SELECT hash, rewritten FROM commits WHERE graphed = 0 ORDER BY id LIMIT ?`,
			[]any{graphBatch}, func(r *sql.Rows) error {
				var x row
				err := r.Scan(&x.hash, &x.rewritten)
				rows = append(rows, x)
				return err
			})
		if err != nil || len(rows) == 0 {
			return err
		}
		var hide, show, hashes, gone []string
		var w derivedWrite
		for _, r := range rows {
			hashes = append(hashes, r.hash)
			if r.rewritten {
				hide = append(hide, CommitNode(r.hash))
				gone = append(gone, r.hash)
				continue
			}
			u, _, err := s.st.GetUnderstood(ctx, r.hash)
			if err != nil {
				return fmt.Errorf("graph replay: %w", err)
			}
			show = append(show, CommitNode(r.hash))
			s.addDerived(&w, u)
		}
		if err := s.writeDerived(ctx, &w); err != nil {
			return err
		}
		if g := s.opts.Graph; g != nil {
			if err := errors.Join(g.Unhide(ctx, show), g.Hide(ctx, hide)); err != nil {
				return err
			}
		}
		if v := s.opts.Vectors; v != nil && len(gone) > 0 {
			if err := v.DeleteCommits(ctx, gone...); err != nil {
				return fmt.Errorf("vectors: %w", err)
			}
		}
		if err := s.markGraphed(ctx, hashes); err != nil {
			return err
		}
	}
}

// forgetGraph deletes pruned commits' nodes and edges from the graph,
// before their rows go: if the process dies in between, the next prune
// finds them again.
func (s *Syncer) forgetGraph(ctx context.Context, hashes []string) error {
	if len(hashes) == 0 {
		return nil
	}
	if v := s.opts.Vectors; v != nil {
		if err := v.DeleteCommits(ctx, hashes...); err != nil {
			return fmt.Errorf("vectors: %w", err)
		}
	}
	if s.opts.Graph == nil {
		return nil
	}
	ids := make([]string, len(hashes))
	for i, h := range hashes {
		ids[i] = CommitNode(h)
	}
	return s.opts.Graph.Delete(ctx, ids)
}

// checkVectors rebuilds the vector index when it was built by another
// embedder (or is damaged): it is emptied, and every commit is marked for
// the replay that follows, which writes graph edges (idempotently) and
// documents again.
func (s *Syncer) checkVectors(ctx context.Context) error {
	v := s.opts.Vectors
	if v == nil {
		return nil
	}
	st, err := v.Status()
	if err != nil && !errors.Is(err, vectors.ErrNeedsRebuild) {
		return fmt.Errorf("vectors: %w", err)
	}
	if err == nil && !st.NeedsRebuild && !st.Empty {
		return nil
	}
	var n int
	if err := s.st.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM commits WHERE graphed = 1`).Scan(&n); err != nil {
		return err
	}
	if err == nil && st.Empty && n == 0 {
		return nil // a fresh store: nothing to rebuild
	}
	if err := v.Reset(ctx); err != nil {
		return fmt.Errorf("vectors: reset: %w", err)
	}
	_, err = s.st.DB.ExecContext(ctx, `UPDATE commits SET graphed = 0`)
	return err
}

// reembed makes again the summary and vector documents of commits
// stored before their subject counted as a placeholder (store.Reindex):
// the summary, when it was that subject, and the documents.
func (s *Syncer) reembed(ctx context.Context, us []*model.Understood) error {
	var docs []vectors.Doc
	for _, u := range us {
		if model.Placeholder(u.Summary) {
			u.Summary = understand.Summarize(u.Commit, u.Classification)
		}
		docs = append(docs, vectors.CommitDocs(u)...)
	}
	v := s.opts.Vectors
	if v == nil {
		return nil
	}
	if err := v.Upsert(ctx, docs); err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	return nil
}
