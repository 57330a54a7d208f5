package retrieve

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/gitmemory/gitmemory/store"
)

// Seed 004's labels. A result is Stale ("[Stale?]": the memory may no
// longer hold) when fewer than half of the lines it added survive to the
// newest indexed version, counted as `git blame` credits lines; a commit
// that added no lines (a pure deletion) is never stale. Gone ("[Source may
// be outdated]") lists its files deleted or renamed away since.
//
// Following lines. The lines a commit added are the '+' lines of its
// diffs (a merge's: what it brought to its first parent). They are
// followed through the later changes of their file in commit id order
// (ids grow in processing order, parents first), across renames: a line
// inside a later change's replaced range is rewritten, the lines after it
// shift by the change's net line count. Stored hunks carry
// context lines (3, read from the diffs), so a hunk less its context is
// enough to shift lines; when it still touches a followed line, the
// change's exact edits are read from its diff blob.
//
// Branches and merges. A file's later changes include other branches'
// commits and merges; a merge records only the files that differ from
// every parent, diffed against its first parent, so its diff repeats what
// its side branch's commits carry. To apply each change once, the walk
// follows the file's versions (blob hashes): it applies the chain of
// changes, each from the version the one before made, that leads to the
// file's newest version (chainToEnd). Of a side branch's commits and the
// merge that brings them in, the chain holds one or the other, never both.
// Lines on a side branch enter the chain at the merge that brings their
// branch in (bringsIn); no stored diff starts from their version, so they
// are found by their text among the lines the merge's diff adds (cross,
// Survival.Approx). If the newest version does not descend from theirs at
// all (a merge kept the other side's file), they count as gone, as blame
// would not credit them either. Not seen: a file that a merge drops by
// keeping its first parent's lack of it leaves no row, so its lines count
// as surviving (and Gone misses it).
//
// Bounds. Per result at most labelFiles files, the largest first, until
// the answer is certain either way; per file at most maxLaterChanges later
// changes, beyond which the lines count as surviving (Survival.Capped);
// per label run at most labelRows file_changes rows, spent on the results
// in rank order and shared between them (the results of a question often
// change the same busy files). A later change's diff blob is read only
// when the change touches followed lines (or is a merge crossed), and only
// up to labelBlobMax bytes: in a larger rewrite the hunks less their
// context count as rewritten (Survival.Approx).
const (
	labelFiles      = 20
	maxLaterChanges = 256
	labelRows       = 2048
	labelBlobMax    = 64 << 10 // a later change's diff read for exact edits, at most
)

// Survival is what became of the lines a commit added to one file.
type Survival struct {
	Path  string `json:"path"`  // the file as the commit left it
	Added int    `json:"added"` // lines the commit added ('+' lines of its diff)
	Alive int    `json:"alive"` // of those, lines no later change on the chain rewrote
	// Now is the file's path where the walk ended (renames followed), ""
	// when the file was deleted.
	Now string `json:"now"`
	// Capped: the walk stopped at a bound, at a change without a line
	// diff, or early; Alive is then an upper bound.
	Capped bool `json:"capped,omitempty"`
	// Approx: the walk crossed a merge by the lines' text, or found that
	// the newest version does not descend from theirs (see the note on
	// merges above).
	Approx bool `json:"approx,omitempty"`
}

// label sets each result's Stale and Gone.
func (s *Searcher) label(ctx context.Context, a *Answer) (err error) {
	w, err := newWalker(ctx, s.st.DB)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, w.Close()) }()
	// Seed 004: a memory is stale when it has not held for StaleDays. A
	// commit younger than that is not followed at all.
	cutoff := s.opts.Now().AddDate(0, 0, -s.opts.StaleDays).Unix()
	for i := range a.Items { // in rank order: the run's budget goes to the best results first
		it := &a.Items[i]
		if it.Gone, err = goneFiles(ctx, w.q, it.Commit); err != nil {
			return fmt.Errorf("gone label %s: %w", it.Commit, err)
		}
		var when int64
		if err := w.q.QueryRowContext(ctx, `SELECT committer_time FROM commits WHERE hash = ?`, it.Commit).Scan(&when); err != nil {
			return fmt.Errorf("stale label %s: %w", it.Commit, err)
		}
		if when >= cutoff {
			continue
		}
		files, err := w.addedLines(ctx, it.Commit)
		if err == nil {
			it.Stale, err = w.stale(ctx, files)
		}
		if err != nil {
			return fmt.Errorf("stale label %s: %w", it.Commit, err)
		}
	}
	return nil
}

// LineSurvival follows the lines commit hash added to each of its files
// (at most labelFiles) to the newest indexed version, without stopping
// early: what the Stale label decides on, file by file.
func LineSurvival(ctx context.Context, db *sql.DB, hash string) (_ []Survival, err error) {
	w, err := newWalker(ctx, db)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, w.Close()) }()
	files, err := w.addedLines(ctx, hash)
	if err != nil {
		return nil, err
	}
	out := make([]Survival, 0, len(files))
	for _, f := range files {
		sv, err := w.follow(ctx, f, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, sv)
	}
	return out, nil
}

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
	err := store.EachRow(ctx, w.q, `SELECT c.id, f.seq, f.path, f.new_blob, f.status = 'added', f.insertions
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
	err = w.q.QueryRowContext(ctx, `SELECT COALESCE((SELECT c.id FROM commit_parents p JOIN commits c ON c.hash = p.parent_hash
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
	const cols = `commit_id, seq, status = 'deleted', binary OR skipped != '', old_blob, new_blob`
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
		var id, seq, os, ol, ns, nl int64 // int64s scan without strconv
		if err := r.Scan(&id, &seq, &os, &ol, &ns, &nl); err != nil {
			return err
		}
		if i, ok := at[[2]int64{id, seq}]; ok {
			rows[i].edits = append(rows[i].edits, normalize(edit{int(os), int(ol), int(ns), int(nl)}))
		}
		return nil
	}
	err := store.EachRow(ctx, w.q, `SELECT h.commit_id, h.seq, h.old_start, h.old_lines, h.new_start, h.new_lines
		FROM file_changes f JOIN hunks h ON h.commit_id = f.commit_id AND h.seq = f.seq
		WHERE f.path = ?1 AND f.commit_id > ?2 AND f.commit_id <= ?3`, []any{path, after, rows[len(rows)-1].id}, add)
	for _, x := range rows {
		if err == nil && x.path != path {
			err = store.EachRow(ctx, w.q, `SELECT commit_id, seq, old_start, old_lines, new_start, new_lines
				FROM hunks WHERE commit_id = ? AND seq = ?`, []any{x.id, x.seq}, add)
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

// trimContext narrows hunks to the lines that may have changed, given that
// each carries n lines of context: all n before its first change unless
// it starts the file, and after its last unless it ends the file, which it
// does not when another hunk or a followed line comes after it.
func trimContext(edits []edit, n int, spans []span) []edit {
	if n == 0 || len(edits) == 0 {
		return edits
	}
	last := 0 // the last followed line
	if len(spans) > 0 {
		last = spans[len(spans)-1].to - 1
	}
	out := make([]edit, len(edits))
	for i, e := range edits {
		lead, trail := 0, 0
		if e.old > 1 {
			lead = n
		}
		if i+1 < len(edits) || last >= e.old+e.oldN {
			trail = n
		}
		if c := lead + trail; c <= min(e.oldN, e.newN) && c < max(e.oldN, e.newN) { // else not as assumed
			e = edit{e.old + lead, e.oldN - lead - trail, e.new + lead, e.newN - lead - trail}
		}
		out[i] = e
	}
	return out
}

// contextOf reads how many context lines a diff blob's hunks carry: those
// before the first change of a hunk that does not start the file.
func contextOf(text []byte) (n int, ok bool) {
	counting := false
	for line := range bytes.Lines(text) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case len(line) == 0:
		case line[0] == '@':
			h := parseHunkHeader(line)
			counting, n = h.old > 1 && h.oldN > 0, 0
		case !counting:
		case line[0] == ' ':
			n++
		case line[0] == '-' || line[0] == '+':
			return n, true
		}
	}
	return 0, false
}

// normalize turns a hunk header's starts into first lines: an empty side's
// start names the line before it.
func normalize(e edit) edit {
	if e.oldN == 0 {
		e.old++
	}
	if e.newN == 0 {
		e.new++
	}
	return e
}

// touches reports whether an edit replaces a line of spans; both are sorted.
func touches(spans []span, edits []edit) bool {
	i := 0
	for _, e := range edits {
		for i < len(spans) && spans[i].to <= e.old {
			i++
		}
		if i == len(spans) {
			return false
		}
		if e.oldN > 0 && spans[i].from < e.old+e.oldN {
			return true
		}
	}
	return false
}

// mapSpans moves sorted spans through sorted edits: lines an edit replaces
// are dropped, lines after it shift by its net line count.
func mapSpans(spans []span, edits []edit) []span {
	if len(spans) == 0 || len(edits) == 0 || edits[0].old >= spans[len(spans)-1].to {
		return spans // nothing before or in them
	}
	var out []span
	emit := func(from, to, orig int) {
		if n := len(out); n > 0 && out[n-1].to == from && out[n-1].orig+out[n-1].to-out[n-1].from == orig {
			out[n-1].to = to
			return
		}
		out = append(out, span{from, to, orig})
	}
	delta, j := 0, 0
	for _, s := range spans {
		for at := s.from; at < s.to; {
			for j < len(edits) && edits[j].old+edits[j].oldN <= at {
				delta += edits[j].newN - edits[j].oldN
				j++
			}
			if j < len(edits) && edits[j].old <= at { // inside a replaced range
				at = min(s.to, edits[j].old+edits[j].oldN)
				continue
			}
			end := s.to
			if j < len(edits) {
				end = min(end, edits[j].old)
			}
			emit(at+delta, end+delta, s.orig+at-s.from)
			at = end
		}
	}
	return out
}

// appendLine adds line at, the added line orig, to sorted spans.
func appendLine(spans []span, at, orig int) []span {
	if n := len(spans); n > 0 && spans[n-1].to == at && spans[n-1].orig+spans[n-1].to-spans[n-1].from == orig {
		spans[n-1].to++
		return spans
	}
	return append(spans, span{at, at + 1, orig})
}

func countLines(spans []span) int {
	n := 0
	for _, s := range spans {
		n += s.to - s.from
	}
	return n
}

// parseEdits reads the changed blocks of a diff blob (store.FormatHunks):
// each run of '-' and '+' lines between context lines is one edit.
func parseEdits(text []byte) []edit {
	var out []edit
	open := false
	diffLines(text, func(kind byte, old, new int, _ []byte) {
		if kind != '-' && kind != '+' {
			open = false
			return
		}
		if !open {
			out, open = append(out, edit{old: old, new: new}), true
		}
		if kind == '-' {
			out[len(out)-1].oldN++
		} else {
			out[len(out)-1].newN++
		}
	})
	return out
}

// diffLines calls fn with each line of a diff blob: its kind (' ', '-' or
// '+'; '@' for a hunk header), the line's position in the old and the new
// version (for '-' the new position is the next new line's, for '+' the
// old position the next old line's), and its text.
func diffLines(text []byte, fn func(kind byte, old, new int, line []byte)) {
	o, n := 0, 0
	for line := range bytes.Lines(text) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) == 0 {
			continue
		}
		switch line[0] {
		case '@':
			h := normalize(parseHunkHeader(line))
			o, n = h.old, h.new
			fn('@', o, n, nil)
		case ' ':
			fn(' ', o, n, line[1:])
			o, n = o+1, n+1
		case '-':
			fn('-', o, n, line[1:])
			o++
		case '+':
			fn('+', o, n, line[1:])
			n++
		}
	}
}

// parseHunkHeader reads "@@ -a,b +c,d @@" (a count of 1 may be left out).
func parseHunkHeader(line []byte) edit {
	var e edit
	f := bytes.Fields(line)
	if len(f) < 3 {
		return e
	}
	e.old, e.oldN = parseHunkRange(f[1])
	e.new, e.newN = parseHunkRange(f[2])
	return e
}

func parseHunkRange(r []byte) (start, n int) {
	if len(r) > 0 {
		r = r[1:] // '-' or '+'
	}
	s, c, ok := bytes.Cut(r, []byte{','})
	start, _ = strconv.Atoi(string(s))
	n = 1
	if ok {
		n, _ = strconv.Atoi(string(c))
	}
	return start, n
}

// stmtCache is a store.Querier on one connection that prepares each query
// once: a label run issues the same few queries hundreds of times, and
// preparing them, on whichever pooled connection, was most of their cost.
type stmtCache struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
}

func newStmtCache(ctx context.Context, db *sql.DB) (*stmtCache, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	return &stmtCache{conn: conn, stmts: map[string]*sql.Stmt{}}, nil
}

func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := c.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return c.conn.QueryRowContext(ctx, query, args...) // reports the same error
	}
	return st.QueryRowContext(ctx, args...)
}

// Close closes the statements and returns the connection to the pool.
func (c *stmtCache) Close() error {
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	return errors.Join(append(errs, c.conn.Close())...)
}

// goneFiles lists the commit's files whose newest change deleted them or
// that a later rename moved away (a copy leaves its source in place).
func goneFiles(ctx context.Context, q store.Querier, hash string) ([]string, error) {
	var gone []string
	err := store.EachRow(ctx, q, `SELECT f.path,
		COALESCE((SELECT g.commit_id FROM file_changes g JOIN commits k ON k.id = g.commit_id
			WHERE g.path = f.path AND k.rewritten = 0 ORDER BY g.commit_id DESC LIMIT 1), 0),
		COALESCE((SELECT g.status FROM file_changes g JOIN commits k ON k.id = g.commit_id
			WHERE g.path = f.path AND k.rewritten = 0 ORDER BY g.commit_id DESC, g.seq DESC LIMIT 1), ''),
		COALESCE((SELECT g.commit_id FROM file_changes g JOIN commits k ON k.id = g.commit_id
			WHERE g.old_path = f.path AND g.old_path != '' AND g.status = 'renamed' AND k.rewritten = 0
			ORDER BY g.commit_id DESC LIMIT 1), 0)
		FROM file_changes f JOIN commits c ON c.id = f.commit_id WHERE c.hash = ? ORDER BY f.seq LIMIT ?`,
		[]any{hash, labelFiles}, func(r *sql.Rows) error {
			var path, status string
			var last, movedAway int64
			if err := r.Scan(&path, &last, &status, &movedAway); err != nil {
				return err
			}
			if status == "deleted" || movedAway > last {
				gone = append(gone, path)
			}
			return nil
		})
	return gone, err
}
