package store

import (
	"container/heap"
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
)

// HistoryOptions selects a file's or directory's history.
type HistoryOptions struct {
	// Path is a normalised repository-relative path.
	Path string
	// Since leaves out commits committed before it (Unix seconds; 0: none).
	Since int64
	// Merges keeps merge commits whose own changes touch the path.
	Merges bool
	// Limit stops the history after this many commits (0: all).
	Limit int
}

// HistoryRow is one stored file change that a history shows.
type HistoryRow struct {
	Seq        int
	Path       string
	OldPath    string
	Status     string
	Follow     string
	Insertions int
	Deletions  int
}

// HistoryEntry is one commit of a history, with the changes that concern
// the path it had at that commit (Path: the name followed there).
type HistoryEntry struct {
	CommitID int64
	Path     string
	Rows     []HistoryRow
}

// maxFollowNames bounds the names a history gathers candidates under
// (the path and the sources of its renames, transitively).
const maxFollowNames = 256

// History lists the live commits that changed a file, following its
// renames as git log --follow does, or anything under a directory,
// in git log's order: the commits are walked from the tracked heads
// newest committer date first (parents only after a child, ties in the
// order met), and when the walk reaches the commit that created the file
// from another (FileChange.Follow), the commits walked after it are
// matched against that name instead. A commit with the same timestamp as
// the rename, or older than it by the clock but walked before it, is
// matched as git matches it. Merges are left out unless asked for, and
// never switch names (git does not diff them).
func (s *Store) History(ctx context.Context, o HistoryOptions) ([]HistoryEntry, error) {
	if o.Path == "" {
		return nil, fmt.Errorf("history: no path")
	}
	rows, left, err := s.historyCandidates(ctx, o.Path)
	if err != nil || left == 0 {
		return nil, err
	}
	w, err := s.newWalk(ctx)
	if err != nil {
		return nil, err
	}
	cur := o.Path
	var out []HistoryEntry
	for left > 0 && (o.Limit <= 0 || len(out) < o.Limit) {
		n, err := w.next(ctx)
		if err != nil {
			return nil, err
		}
		if n == nil {
			break
		}
		rs, ok := rows[n.id]
		if !ok || n.rewritten {
			continue
		}
		left--
		var hit []HistoryRow
		for _, r := range rs {
			if touches(r, cur) {
				hit = append(hit, r)
			}
		}
		if len(hit) > 0 && (!n.merge || o.Merges) && n.time >= o.Since {
			out = append(out, HistoryEntry{CommitID: n.id, Path: cur, Rows: hit})
		}
		if n.merge {
			continue
		}
		for _, r := range rs {
			if f := r.followed(); r.Path == cur && f != "" {
				cur = f
				break
			}
		}
	}
	return out, nil
}

// touches reports whether a file change concerns path, as a pathspec
// limited git diff shows it: the path itself or a file under it, changed
// there, or renamed away from there.
func touches(r HistoryRow, path string) bool {
	if r.Path == path || under(r.Path, path) {
		return true
	}
	return r.Status == "renamed" && (r.OldPath == path || under(r.OldPath, path))
}

func under(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// followed is the name git log --follow continues with after the commit
// of this change, when the change created the followed file. A store
// written before follow sources were recorded falls back on the rename's
// old path.
func (r HistoryRow) followed() string {
	if r.Follow == "" && r.Status == "renamed" {
		return r.OldPath
	}
	return r.Follow
}

// historyCandidates gathers, by commit id, the file changes of live
// commits that concern the path or any name it may have had: the rename
// sources of its changes, transitively. The walk decides which of them
// count. It also returns how many commits it found.
func (s *Store) historyCandidates(ctx context.Context, path string) (map[int64][]HistoryRow, int, error) {
	out := map[int64][]HistoryRow{}
	type key struct {
		id  int64
		seq int
	}
	have := map[key]bool{}
	names, seen := []string{path}, map[string]bool{path: true}
	for i := 0; i < len(names) && i < maxFollowNames; i++ {
		name := names[i]
		dir := name + "/"
		q := `WITH f AS (
			SELECT commit_id, seq, path, old_path, status, follow, insertions, deletions FROM file_changes WHERE path = ?1
			UNION ALL SELECT commit_id, seq, path, old_path, status, follow, insertions, deletions FROM file_changes WHERE path >= ?2 AND path < ?3
			UNION ALL SELECT commit_id, seq, path, old_path, status, follow, insertions, deletions FROM file_changes WHERE old_path = ?1 AND old_path != ''
			UNION ALL SELECT commit_id, seq, path, old_path, status, follow, insertions, deletions FROM file_changes
				WHERE old_path >= ?2 AND old_path < ?3 AND old_path != '')
			SELECT f.* FROM f JOIN commits c ON c.id = f.commit_id WHERE c.rewritten = 0`
		err := EachRow(ctx, s.DB, q, []any{name, dir, name + "0"}, func(rs *sql.Rows) error {
			var id int64
			var r HistoryRow
			if err := rs.Scan(&id, &r.Seq, &r.Path, &r.OldPath, &r.Status, &r.Follow, &r.Insertions, &r.Deletions); err != nil {
				return err
			}
			if r.Path == name {
				if f := r.followed(); f != "" && !seen[f] {
					seen[f] = true
					names = append(names, f)
				}
			}
			if k := (key{id, r.Seq}); !have[k] {
				have[k] = true
				out[id] = append(out[id], r)
			}
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("history of %s: %w", path, err)
		}
	}
	return out, len(out), nil
}

// walkNode is a commit as the walk sees it.
type walkNode struct {
	id        int64
	hash      string
	time      int64
	merge     bool
	rewritten bool
	parents   []string
}

// walkItem is a commit in the walk's queue; seq orders equal dates in the
// order they were queued, as git's date-ordered queue does.
type walkItem struct {
	n   *walkNode
	seq int
}

type walkQueue []walkItem

func (q walkQueue) Len() int { return len(q) }
func (q walkQueue) Less(i, j int) bool {
	if q[i].n.time != q[j].n.time {
		return q[i].n.time > q[j].n.time
	}
	return q[i].seq < q[j].seq
}
func (q walkQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *walkQueue) Push(x any)   { *q = append(*q, x.(walkItem)) }
func (q *walkQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// pendingParent is a queued commit whose row is not loaded yet.
type pendingParent struct {
	hash string
	seq  int
}

// walk is git log's default walk over the stored commits (see History).
// Commits are loaded newest first a chunk of committer times at a time,
// so that a history whose last wanted commit is recent reads only the
// recent part of the graph. A commit not loaded is older than every loaded
// one, so the queue's newest loaded commit can be taken whenever it is
// not older than the loaded range.
type walk struct {
	st      *Store
	low     int64 // every commit committed at or after low is loaded
	all     bool  // every commit is loaded
	chunk   int
	nodes   map[string]*walkNode
	seen    map[string]bool
	queue   walkQueue
	pending []pendingParent
	seq     int
}

// newWalk starts a walk at the tracked branches' heads. Commits indexed
// since the heads were recorded (a sync under way, or killed) are walked
// from too, when no stored commit names them as a parent.
func (s *Store) newWalk(ctx context.Context) (*walk, error) {
	w := &walk{st: s, low: math.MaxInt64, chunk: 1024, nodes: map[string]*walkNode{}, seen: map[string]bool{}}
	type head struct {
		hash string
		id   int64
		time int64
	}
	var heads []head
	err := EachRow(ctx, s.DB, `SELECT c.hash, c.id, c.committer_time FROM sync_state s JOIN commits c ON c.hash = s.last_head
		WHERE c.rewritten = 0 ORDER BY c.committer_time DESC, c.id DESC`, nil, func(rs *sql.Rows) error {
		var h head
		err := rs.Scan(&h.hash, &h.id, &h.time)
		heads = append(heads, h)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("history heads: %w", err)
	}
	after := int64(0)
	for _, h := range heads {
		after = max(after, h.id)
	}
	// Tips among the commits stored after the newest head (all of them
	// when no head is recorded yet).
	err = EachRow(ctx, s.DB, `SELECT c.hash FROM commits c WHERE c.id > ? AND c.rewritten = 0
		AND NOT EXISTS (SELECT 1 FROM commit_parents p JOIN commits k ON k.id = p.commit_id
			WHERE p.parent_hash = c.hash AND k.rewritten = 0)
		ORDER BY c.committer_time DESC, c.id DESC`, []any{after}, func(rs *sql.Rows) error {
		var h head
		err := rs.Scan(&h.hash)
		heads = append(heads, h)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("history heads: %w", err)
	}
	for _, h := range heads {
		w.discover(h.hash)
	}
	return w, nil
}

// discover queues a commit the walk has reached, once.
func (w *walk) discover(hash string) {
	if w.seen[hash] {
		return
	}
	w.seen[hash] = true
	w.seq++
	if n, ok := w.nodes[hash]; ok {
		heap.Push(&w.queue, walkItem{n, w.seq})
		return
	}
	w.pending = append(w.pending, pendingParent{hash, w.seq})
}

// next returns the walk's next commit, or nil at its end.
func (w *walk) next(ctx context.Context) (*walkNode, error) {
	for len(w.pending) > 0 && !w.all && (len(w.queue) == 0 || w.queue[0].n.time < w.low) {
		if err := w.load(ctx); err != nil {
			return nil, err
		}
		kept := w.pending[:0]
		for _, p := range w.pending {
			if n, ok := w.nodes[p.hash]; ok {
				heap.Push(&w.queue, walkItem{n, p.seq})
			} else {
				kept = append(kept, p)
			}
		}
		w.pending = kept
	}
	if len(w.queue) == 0 {
		return nil, nil
	}
	n := heap.Pop(&w.queue).(walkItem).n
	for _, p := range n.parents {
		w.discover(p)
	}
	return n, nil
}

// load reads the next chunk of commits, whole seconds at a time, older
// than those loaded.
func (w *walk) load(ctx context.Context) error {
	next := int64(math.MinInt64)
	err := w.st.DB.QueryRowContext(ctx, `SELECT committer_time FROM commits WHERE committer_time < ?
		ORDER BY committer_time DESC LIMIT 1 OFFSET ?`, w.low, w.chunk-1).Scan(&next)
	if err == sql.ErrNoRows {
		next, w.all = math.MinInt64, true
	} else if err != nil {
		return fmt.Errorf("history walk: %w", err)
	}
	w.chunk = min(2*w.chunk, 1<<16)
	byID := map[int64]*walkNode{}
	err = EachRow(ctx, w.st.DB, `SELECT id, hash, committer_time, is_merge, rewritten FROM commits
		WHERE committer_time < ?1 AND committer_time >= ?2`, []any{w.low, next}, func(rs *sql.Rows) error {
		n := &walkNode{}
		if err := rs.Scan(&n.id, &n.hash, &n.time, &n.merge, &n.rewritten); err != nil {
			return err
		}
		w.nodes[n.hash], byID[n.id] = n, n
		return nil
	})
	if err != nil {
		return fmt.Errorf("history walk: %w", err)
	}
	err = EachRow(ctx, w.st.DB, `SELECT p.commit_id, p.parent_hash FROM commits c JOIN commit_parents p ON p.commit_id = c.id
		WHERE c.committer_time < ?1 AND c.committer_time >= ?2 ORDER BY p.commit_id, p.idx`, []any{w.low, next}, func(rs *sql.Rows) error {
		var id int64
		var p string
		if err := rs.Scan(&id, &p); err != nil {
			return err
		}
		if n := byID[id]; n != nil {
			n.parents = append(n.parents, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("history walk: %w", err)
	}
	w.low = next
	return nil
}
