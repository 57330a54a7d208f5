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
	// Since leaves out commits committed before it (Unix seconds; 0:
	// none), and as git log --since, does not walk past them.
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
//
// The walk reads the graph newest first a chunk of committer times at a
// time, and the changes under the name it follows for each chunk it reads
// (lookup_keys, by time): a history cut by its limit reads only the
// recent part of both. It stops when every commit that could still match
// has been walked.
func (s *Store) History(ctx context.Context, o HistoryOptions) ([]HistoryEntry, error) {
	if o.Path == "" {
		return nil, fmt.Errorf("history: no path")
	}
	f := &follower{st: s, name: o.Path, rows: map[int64][]HistoryRow{}, walked: map[int64]bool{}}
	if err := f.setOldest(ctx); err != nil || f.oldest == math.MaxInt64 {
		return nil, err
	}
	w, err := s.newWalk(ctx)
	if err != nil {
		return nil, err
	}
	w.onLoad = f.fetch
	if o.Since != 0 {
		w.since = o.Since
	}
	var out []HistoryEntry
	for o.Limit <= 0 || len(out) < o.Limit {
		if w.low <= f.oldest && f.left == 0 {
			break // every commit that could match is walked
		}
		n, err := w.next(ctx)
		if err != nil {
			return nil, err
		}
		if n == nil {
			break
		}
		f.walked[n.id] = true
		rs, ok := f.rows[n.id]
		if !ok || n.rewritten {
			continue
		}
		f.left--
		var hit []HistoryRow
		for _, r := range rs {
			if touches(r, f.name) {
				hit = append(hit, r)
			}
		}
		if len(hit) > 0 && (!n.merge || o.Merges) && n.time >= w.since {
			out = append(out, HistoryEntry{CommitID: n.id, Path: f.name, Rows: hit})
		}
		if n.merge {
			continue
		}
		for _, r := range rs {
			if src := r.followed(); r.Path == f.name && src != "" {
				if err := f.switchTo(ctx, src, w.low); err != nil {
					return nil, err
				}
				break
			}
		}
	}
	return out, nil
}

// follower holds the changes that may match the name a history follows,
// for the commits the walk has loaded.
type follower struct {
	st   *Store
	name string
	// rows are the name's candidate changes by commit, of the commits
	// loaded and not walked yet (left counts them); walked are the commits
	// walked.
	rows   map[int64][]HistoryRow
	left   int
	walked map[int64]bool
	// oldest is the committer time of the oldest live commit that
	// touches the name (MaxInt64: none).
	oldest int64
}

// severities are lookup_keys' severity values; naming them lets SQLite
// range-scan its primary key by time within each.
const severities = "0, 1, 2, 3, 4"

// keys are the lookup_keys of a name: changed as itself, or under it.
func (f *follower) keys() []any { return []any{"=" + f.name, "/" + f.name} }

func (f *follower) setOldest(ctx context.Context) error {
	var t sql.NullInt64
	err := f.st.DB.QueryRowContext(ctx, `SELECT MIN(time) FROM lookup_keys WHERE key IN (?, ?) AND live = 1
		AND severity IN (`+severities+`)`, f.keys()...).Scan(&t)
	f.oldest = math.MaxInt64
	if t.Valid {
		f.oldest = t.Int64
	}
	return err
}

// switchTo makes the history follow another name from here on: its
// candidates in the part of the graph loaded so far.
func (f *follower) switchTo(ctx context.Context, name string, low int64) error {
	f.name, f.rows, f.left = name, map[int64][]HistoryRow{}, 0
	if err := f.setOldest(ctx); err != nil {
		return err
	}
	return f.fetch(ctx, low, math.MaxInt64)
}

// fetch adds the name's candidate changes of the live commits committed
// in [lo, hi) and not walked yet.
func (f *follower) fetch(ctx context.Context, lo, hi int64) error {
	if hi <= f.oldest {
		return nil
	}
	var ids []int64
	err := EachRow(ctx, f.st.DB, `SELECT DISTINCT commit_id FROM lookup_keys WHERE key IN (?, ?) AND live = 1
		AND severity IN (`+severities+`) AND time >= ? AND time < ?`, append(f.keys(), lo, hi), func(rs *sql.Rows) error {
		var id int64
		err := rs.Scan(&id)
		if !f.walked[id] {
			ids = append(ids, id)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("history of %s: %w", f.name, err)
	}
	for len(ids) > 0 {
		part := ids[:min(len(ids), 500)]
		ids = ids[len(part):]
		args := []any{f.name, f.name + "/", f.name + "0"}
		for _, id := range part {
			args = append(args, id)
		}
		err := EachRow(ctx, f.st.DB, `SELECT commit_id, seq, path, old_path, status, follow, insertions, deletions
			FROM file_changes WHERE commit_id IN (`+marksFrom(4, len(part))+`)
			AND (path = ?1 OR (path >= ?2 AND path < ?3) OR old_path = ?1 OR (old_path >= ?2 AND old_path < ?3))`,
			args, func(rs *sql.Rows) error {
				var id int64
				var r HistoryRow
				if err := rs.Scan(&id, &r.Seq, &r.Path, &r.OldPath, &r.Status, &r.Follow, &r.Insertions, &r.Deletions); err != nil {
					return err
				}
				if _, ok := f.rows[id]; !ok {
					f.left++
				}
				f.rows[id] = append(f.rows[id], r)
				return nil
			})
		if err != nil {
			return fmt.Errorf("history of %s: %w", f.name, err)
		}
	}
	return nil
}

// marksFrom is n numbered placeholders from ?first: "?4,?5,…".
func marksFrom(first, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "?%d", first+i)
	}
	return b.String()
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
	st *Store
	// since: the parents of a commit older than it are not walked, as
	// git log --since does not.
	since int64
	// onLoad, if set, is told of each range of committer times loaded.
	onLoad  func(ctx context.Context, lo, hi int64) error
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
	w := &walk{st: s, low: math.MaxInt64, since: math.MinInt64, chunk: 1024, nodes: map[string]*walkNode{}, seen: map[string]bool{}}
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
			WHERE p.parent_hash = unhex(c.hash) AND k.rewritten = 0)
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
	if n.time >= w.since {
		for _, p := range n.parents {
			w.discover(p)
		}
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
	err = EachRow(ctx, w.st.DB, `SELECT p.commit_id, lower(hex(p.parent_hash)) FROM commits c JOIN commit_parents p ON p.commit_id = c.id
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
	lo, hi := next, w.low
	w.low = next
	if w.onLoad != nil {
		return w.onLoad(ctx, lo, hi)
	}
	return nil
}
