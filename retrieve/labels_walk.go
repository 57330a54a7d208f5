package retrieve

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/gitmemory/gitmemory/store"
)

// walker follows lines for one label run, keeping what it read.
type walker struct {
	q         *stmtCache
	context   int                // context lines of stored hunks, 0 until seen in a diff
	ctxSeen   bool               // context was read from a diff (a disagreement sets it 0)
	rowsLeft  int                // the run's budget of file_changes rows
	windows   map[string]*window // by path
	exact     map[[2]int64]exactEdits
	commits   map[int64]commitInfo
	rewritten map[int64]bool
	blobs     map[string]string // interned blob hashes: each is one change's new and the next one's old
}

// window is the later changes of a path read so far: those after commit
// from, in order; complete when none follow the last.
type window struct {
	from     int64
	rows     []laterChange
	complete bool
}

// exactEdits are a change's edits read from its diff; none when its diff
// was too large to read.
type exactEdits struct {
	edits []edit
	none  bool
}

type commitInfo struct {
	hash  string
	merge bool
}

func newWalker(ctx context.Context, db *sql.DB) (*walker, error) {
	q, err := newStmtCache(ctx, db)
	if err != nil {
		return nil, err
	}
	w := &walker{q: q, rowsLeft: labelRows, windows: map[string]*window{}, exact: map[[2]int64]exactEdits{},
		commits: map[int64]commitInfo{}, rewritten: map[int64]bool{}, blobs: map[string]string{}}
	err = store.EachRow(ctx, q, `SELECT id FROM commits WHERE rewritten = 1`, nil, func(r *sql.Rows) error {
		var id int64
		err := r.Scan(&id)
		w.rewritten[id] = true
		return err
	})
	if err != nil {
		return nil, errors.Join(err, q.Close())
	}
	return w, nil
}

func (w *walker) intern(b []byte) string {
	if s, ok := w.blobs[string(b)]; ok {
		return s
	}
	s := string(b)
	w.blobs[s] = s
	return s
}

// Close releases the walker's connection.
func (w *walker) Close() error { return w.q.Close() }

// commit returns a commit's hash and whether it is a merge.
func (w *walker) commit(ctx context.Context, id int64) (commitInfo, error) {
	if c, ok := w.commits[id]; ok {
		return c, nil
	}
	var c commitInfo
	if err := w.q.QueryRowContext(ctx, `SELECT hash, is_merge FROM commits WHERE id = ?`, id).Scan(&c.hash, &c.merge); err != nil {
		return c, fmt.Errorf("commit %d: %w", id, err)
	}
	w.commits[id] = c
	return c, nil
}

// stale reports whether fewer than half of the lines of files survive.
// It walks the files with the most added lines first and stops as soon as
// the answer is certain either way: the walked files' survivors already
// make half, or cannot even with every unwalked line.
func (w *walker) stale(ctx context.Context, files []*fileLines) (bool, error) {
	files = slices.Clone(files)
	slices.SortStableFunc(files, func(a, b *fileLines) int { return cmp.Compare(b.sv.Added, a.sv.Added) })
	unwalked := 0
	for _, f := range files {
		unwalked += f.sv.Added
	}
	total, alive := unwalked, 0 // alive: in the walked files
	for _, f := range files {
		unwalked -= f.sv.Added
		sv, err := w.follow(ctx, f, func(n int) bool { return 2*(alive+n+unwalked) < total })
		if err != nil {
			return false, err
		}
		alive += sv.Alive
		switch {
		case 2*(alive+unwalked) < total:
			return true, nil
		case 2*alive >= total:
			return false, nil
		}
	}
	return false, nil
}

// span is the lines [from, to), 1-based, that were the commit's added
// lines orig, orig+1, … (0-based, in the order of its diff).
type span struct{ from, to, orig int }

// edit replaces the old lines [old, old+oldN) with the new lines [new,
// new+newN); a pure insertion (oldN 0) goes before old line old.
type edit struct{ old, oldN, new, newN int }

// fileLines is one file of a commit, with the lines it added.
type fileLines struct {
	id    int64  // the commit
	key   string // its diff blob's
	blob  string // the file's version after the commit
	plus  []string
	spans []span
	sv    Survival
}

// laterChange is a file_changes row after the commit: a change to the
// followed path, or a rename away from it.
type laterChange struct {
	id               int64
	seq              int
	path             string
	deleted          bool
	noDiff           bool // binary or skipped: no line diff stored
	oldBlob, newBlob string
	edits            []edit // its hunks, context included, in order
}

// addedLines reads the '+' lines of each file the commit changed: all
// the lines of a file it added, else those of its diff.
func (w *walker) addedLines(ctx context.Context, hash string) ([]*fileLines, error) {
	var files []*fileLines
	err := store.EachRow(ctx, w.q, `SELECT c.id, f.seq, f.path, lower(hex(f.new_blob)), f.status = 'added', f.insertions
		FROM file_changes f JOIN commits c ON c.id = f.commit_id
		WHERE c.hash = ? AND f.status != 'deleted' AND NOT f.binary AND f.skipped = '' AND f.insertions > 0
		ORDER BY f.seq LIMIT ?`, []any{hash, labelFiles}, func(r *sql.Rows) error {
		f := &fileLines{}
		var seq, n int
		var added bool
		if err := r.Scan(&f.id, &seq, &f.sv.Path, &f.blob, &added, &n); err != nil {
			return err
		}
		f.key = store.DiffKey(hash, seq)
		if added {
			f.spans = []span{{1, n + 1, 0}}
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	kept := files[:0]
	for _, f := range files {
		if f.spans == nil {
			if err := w.readPlus(ctx, f); err != nil {
				return nil, err
			}
		}
		f.sv.Added = countLines(f.spans)
		f.sv.Alive, f.sv.Now = f.sv.Added, f.sv.Path
		if f.sv.Added > 0 {
			kept = append(kept, f)
		}
	}
	return kept, nil
}

// readPlus reads f's diff: its added lines' positions (if not known yet)
// and text.
func (w *walker) readPlus(ctx context.Context, f *fileLines) error {
	text, err := store.GetBlob(ctx, w.q, f.key)
	if errors.Is(err, store.ErrNotFound) {
		return nil // no line changed
	}
	if err != nil {
		return err
	}
	w.learnContext(text)
	known := f.spans != nil
	f.plus = []string{}
	diffLines(text, func(kind byte, _, at int, line []byte) {
		if kind == '+' {
			if !known {
				f.spans = appendLine(f.spans, at, len(f.plus))
			}
			f.plus = append(f.plus, string(line))
		}
	})
	return nil
}

// learnContext reads the context lines of stored hunks from a diff; should
// two diffs disagree, no context is assumed.
func (w *walker) learnContext(text []byte) {
	if n, ok := contextOf(text); ok {
		if w.ctxSeen && n != w.context {
			n = 0
		}
		w.context, w.ctxSeen = n, true
	}
}

// follow walks f's lines through the later changes; stop, if set, ends the
// walk early when it returns true for the lines alive so far.
func (w *walker) follow(ctx context.Context, f *fileLines, stop func(alive int) bool) (Survival, error) {
	sv, spans := f.sv, f.spans
	path, blob, tip := f.sv.Path, f.blob, f.id // tip: the last change the lines went through
	for budget := maxLaterChanges; budget > 0; {
		later, more, err := w.later(ctx, path, tip, budget)
		if err != nil {
			return sv, err
		}
		budget -= len(later)
		onChain, joined := chainToEnd(later, blob)
		moved := false
		for i, x := range later {
			switch {
			case x.oldBlob == blob && (onChain[i] || !joined):
				if x.noDiff && x.oldBlob != x.newBlob && !x.deleted {
					sv.Capped = true
					return sv, nil
				}
				var approx bool
				if spans, approx, err = w.apply(ctx, x, spans); err != nil {
					return sv, err
				}
				sv.Approx = sv.Approx || approx
			case onChain[i]:
				in, err := w.bringsIn(ctx, x.id, tip)
				if err != nil {
					return sv, err
				}
				if !in {
					continue // a branch the lines are not on
				}
				sv.Approx = true // the lines enter the chain here, without a diff
				if x.deleted {
					spans = nil
				} else if spans, err = w.cross(ctx, x, f, spans); err != nil {
					return sv, err
				}
			default:
				continue // another branch's change, or one a merge carries
			}
			joined = joined || onChain[i]
			blob, tip, sv.Alive = x.newBlob, x.id, countLines(spans)
			if x.deleted {
				sv.Now = ""
			} else if x.path != path {
				path, sv.Now, moved = x.path, x.path, true
			}
			if sv.Alive == 0 || x.deleted {
				return sv, nil
			}
			if stop != nil && stop(sv.Alive) {
				sv.Capped = true
				return sv, nil
			}
			if moved {
				break
			}
		}
		if !moved {
			if !joined && !more && len(later) > 0 {
				// The newest version does not descend from the lines' one
				// through stored diffs: a merge kept the other side's file
				// (or a copy of the lines made elsewhere, which blame credits).
				sv.Alive, sv.Approx = 0, true
			}
			sv.Capped = more
			return sv, nil
		}
	}
	sv.Capped = true
	return sv, nil
}

// bringsIn reports whether merge id (a change on the chain from another
// version than the lines') brings in the branch the lines are on, whose
// last change is commit tip. Ids are a post-order of the history, first
// parents first, so the commits a merge brings in from its other parents
// are exactly those between its first parent's id and its own.
func (w *walker) bringsIn(ctx context.Context, id, tip int64) (bool, error) {
	c, err := w.commit(ctx, id)
	if err != nil || !c.merge {
		return false, err
	}
	var first int64
	err = w.q.QueryRowContext(ctx, `SELECT COALESCE((SELECT c.id FROM commit_parents p JOIN commits c ON c.hash = lower(hex(p.parent_hash))
		WHERE p.commit_id = ? AND p.idx = 0), 0)`, id).Scan(&first)
	return first < tip, err
}

// cross moves spans across merge x, which brings in their branch but is
// diffed against its other parent: the lines are looked for, in order and
// by their text, among the lines the merge's diff adds. A line not found
// there was dropped by the merge, or the other parent had it already (blame
// credits that parent's commit): it does not survive. Without the merge's
// diff the positions are kept as they are.
func (w *walker) cross(ctx context.Context, x laterChange, f *fileLines, spans []span) ([]span, error) {
	if f.plus == nil {
		if err := w.readPlus(ctx, f); err != nil {
			return nil, err
		}
	}
	plus := f.plus
	c, err := w.commit(ctx, x.id)
	if err != nil {
		return nil, err
	}
	text, err := store.GetBlob(ctx, w.q, store.DiffKey(c.hash, x.seq))
	if errors.Is(err, store.ErrNotFound) {
		return spans, nil
	}
	if err != nil {
		return nil, err
	}
	type added struct {
		at   int
		line []byte
	}
	var adds []added
	diffLines(text, func(kind byte, _, at int, line []byte) {
		if kind == '+' {
			adds = append(adds, added{at, line})
		}
	})
	var out []span
	j := 0
	for _, s := range spans {
		for k := s.orig; k < s.orig+s.to-s.from && k < len(plus); k++ {
			for i := j; i < len(adds); i++ {
				if string(adds[i].line) == plus[k] {
					out, j = appendLine(out, adds[i].at, k), i+1
					break
				}
			}
		}
	}
	return out, nil
}

// later returns up to limit changes to path, and renames away from it,
// after commit id, and whether more may follow: from the window read so
// far, extended as needed within the run's budget of rows.
func (w *walker) later(ctx context.Context, path string, id int64, limit int) (_ []laterChange, more bool, err error) {
	win := w.windows[path]
	if win == nil || id < win.from {
		upto := int64(math.MaxInt64)
		if win != nil {
			upto = win.from
		}
		rows, complete, err := w.read(ctx, path, id, upto, limit)
		if err != nil {
			return nil, false, err
		}
		if win != nil && complete { // read up to the window: join them
			win.rows, win.from = append(rows, win.rows...), id
		} else {
			win = &window{from: id, rows: rows, complete: complete}
			w.windows[path] = win
		}
	}
	i := sort.Search(len(win.rows), func(i int) bool { return win.rows[i].id > id })
	if have := len(win.rows) - i; have < limit && !win.complete {
		last := win.from
		if n := len(win.rows); n > 0 {
			last = win.rows[n-1].id
		}
		rows, complete, err := w.read(ctx, path, last, math.MaxInt64, limit-have)
		if err != nil {
			return nil, false, err
		}
		win.rows, win.complete = append(win.rows, rows...), complete
	}
	end := min(len(win.rows), i+limit)
	return win.rows[i:end], end < len(win.rows) || !win.complete, nil
}

// read reads up to limit changes to path, and renames away from it, in
// commits (after, upto], with their hunks, within the run's budget, and
// reports whether that was all of them. Rows of rewritten commits are left
// out.
func (w *walker) read(ctx context.Context, path string, after, upto int64, limit int) (_ []laterChange, all bool, err error) {
	limit = min(limit, w.rowsLeft)
	if limit <= 0 {
		return nil, false, nil
	}
	const cols = `commit_id, seq, status = 'deleted', binary OR skipped != '', lower(hex(old_blob)), lower(hex(new_blob))`
	var out []laterChange
	var oldBlob, newBlob, moved sql.RawBytes
	err = store.EachRow(ctx, w.q, `SELECT `+cols+`, '' FROM file_changes WHERE path = ?1 AND commit_id > ?2 AND commit_id <= ?3
		UNION ALL SELECT `+cols+`, path FROM file_changes WHERE old_path = ?1 AND old_path != '' AND status = 'renamed'
			AND commit_id > ?2 AND commit_id <= ?3
		ORDER BY 1, 2 LIMIT ?4`, []any{path, after, upto, limit}, func(r *sql.Rows) error {
		x := laterChange{path: path}
		var seq, deleted, noDiff int64 // int64s scan without strconv
		if err := r.Scan(&x.id, &seq, &deleted, &noDiff, &oldBlob, &newBlob, &moved); err != nil {
			return err
		}
		x.seq, x.deleted, x.noDiff = int(seq), deleted != 0, noDiff != 0
		x.oldBlob, x.newBlob = w.intern(oldBlob), w.intern(newBlob)
		if len(moved) > 0 {
			x.path = string(moved)
		}
		out = append(out, x)
		return nil
	})
	if err != nil || len(out) == 0 {
		return nil, err == nil, err
	}
	w.rowsLeft -= len(out)
	all = len(out) < limit
	if err := w.hunks(ctx, path, after, out); err != nil {
		return nil, false, err
	}
	return slices.DeleteFunc(out, func(x laterChange) bool { return w.rewritten[x.id] }), all, nil
}

// hunks attaches their hunks to rows, read after commit after: those of
// path in one range scan, a rename's by its key.
func (w *walker) hunks(ctx context.Context, path string, after int64, rows []laterChange) error {
	at := make(map[[2]int64]int, len(rows))
	for i, x := range rows {
		at[[2]int64{x.id, int64(x.seq)}] = i
	}
	add := func(r *sql.Rows) error {
		var id, seq int64 // int64s scan without strconv
		var spans sql.RawBytes
		if err := r.Scan(&id, &seq, &spans); err != nil {
			return err
		}
		i, ok := at[[2]int64{id, seq}]
		if !ok {
			return nil
		}
		hs, err := store.DecodeSpans(spans)
		if err != nil {
			return fmt.Errorf("change %d of commit %d: %w", seq, id, err)
		}
		for _, h := range hs {
			rows[i].edits = append(rows[i].edits, normalize(edit{h.OldStart, h.OldLines, h.NewStart, h.NewLines}))
		}
		return nil
	}
	err := store.EachRow(ctx, w.q, `SELECT h.commit_id, h.seq, h.spans
		FROM file_changes f JOIN hunks h ON h.commit_id = f.commit_id AND h.seq = f.seq
		WHERE f.path = ?1 AND f.commit_id > ?2 AND f.commit_id <= ?3`, []any{path, after, rows[len(rows)-1].id}, add)
	for _, x := range rows {
		if err == nil && x.path != path {
			err = store.EachRow(ctx, w.q, `SELECT commit_id, seq, spans FROM hunks WHERE commit_id = ? AND seq = ?`,
				[]any{x.id, x.seq}, add)
		}
	}
	for _, x := range rows {
		slices.SortFunc(x.edits, func(a, b edit) int { return cmp.Compare(a.old, b.old) })
	}
	return err
}

// chainToEnd marks the changes of the window that lead to its last change:
// from it back, each time to the newest earlier change that made the
// version it starts from, as far as the window goes. The chain reaches
// the lines' version when its first change starts from it. Walking back
// as far as possible (rather than stopping at the first change from the
// lines' version) keeps a revert and its revert on the chain, as blame
// does: the lines a revert restores are the revert's.
func chainToEnd(later []laterChange, from string) (on []bool, reaches bool) {
	on = make([]bool, len(later))
	i := len(later) - 1
	if i < 0 {
		return on, false
	}
	for on[i] = true; later[i].oldBlob != ""; on[i] = true {
		j := i - 1
		for j >= 0 && later[j].newBlob != later[i].oldBlob {
			j--
		}
		if j < 0 {
			break
		}
		i = j
	}
	return on, later[i].oldBlob == from
}

// apply moves spans through change x. Its hunks, less the context lines
// they certainly carry, are enough unless one touches a followed line;
// then the exact edits are read from the change's diff (lines between two
// changes of one hunk are context too), unless it is larger than
// labelBlobMax: then the hunks less their context are used (approx).
func (w *walker) apply(ctx context.Context, x laterChange, spans []span) (_ []span, approx bool, err error) {
	if x.deleted {
		return nil, false, nil
	}
	trimmed := trimContext(x.edits, w.context, spans)
	if !touches(spans, trimmed) {
		return mapSpans(spans, trimmed), false, nil
	}
	k := [2]int64{x.id, int64(x.seq)}
	ex, ok := w.exact[k]
	if !ok {
		c, err := w.commit(ctx, x.id)
		if err != nil {
			return nil, false, err
		}
		text, err := store.GetBlobUpTo(ctx, w.q, store.DiffKey(c.hash, x.seq), labelBlobMax)
		switch {
		case errors.Is(err, store.ErrTooLarge), errors.Is(err, store.ErrNotFound):
			ex.none = true
		case err != nil:
			return nil, false, err
		default:
			w.learnContext(text)
			ex.edits = parseEdits(text)
		}
		w.exact[k] = ex
	}
	if ex.none {
		return mapSpans(spans, trimmed), true, nil
	}
	return mapSpans(spans, ex.edits), false, nil
}
