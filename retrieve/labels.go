package retrieve

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

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
		if it.Gone, it.Moved, err = goneFiles(ctx, w.q, it.Commit); err != nil {
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

// goneFiles lists the commit's files whose newest change deleted them or
// that a later rename moved away (a copy leaves its source in place), and,
// for those a rename moved, the path the file has now.
func goneFiles(ctx context.Context, q store.Querier, hash string) ([]string, map[string]string, error) {
	var gone []string
	type move struct {
		id int64
		to string
	}
	away := map[string]move{}
	err := store.EachRow(ctx, q, `SELECT f.path,
		COALESCE((SELECT g.commit_id FROM file_changes g JOIN commits k ON k.id = g.commit_id
			WHERE g.path = f.path AND k.rewritten = 0 ORDER BY g.commit_id DESC LIMIT 1), 0),
		COALESCE((SELECT g.status FROM file_changes g JOIN commits k ON k.id = g.commit_id
			WHERE g.path = f.path AND k.rewritten = 0 ORDER BY g.commit_id DESC, g.seq DESC LIMIT 1), ''),
		COALESCE((SELECT g.commit_id FROM file_changes g JOIN commits k ON k.id = g.commit_id
			WHERE g.old_path = f.path AND g.old_path != '' AND g.status = 'renamed' AND k.rewritten = 0
			ORDER BY g.commit_id DESC, g.seq LIMIT 1), 0),
		COALESCE((SELECT g.path FROM file_changes g JOIN commits k ON k.id = g.commit_id
			WHERE g.old_path = f.path AND g.old_path != '' AND g.status = 'renamed' AND k.rewritten = 0
			ORDER BY g.commit_id DESC, g.seq LIMIT 1), '')
		FROM file_changes f JOIN commits c ON c.id = f.commit_id WHERE c.hash = ? ORDER BY f.seq LIMIT ?`,
		[]any{hash, labelFiles}, func(r *sql.Rows) error {
			var path, status, to string
			var last, movedAway int64
			if err := r.Scan(&path, &last, &status, &movedAway, &to); err != nil {
				return err
			}
			if status == "deleted" || movedAway > last {
				gone = append(gone, path)
			}
			if movedAway > last {
				away[path] = move{movedAway, to}
			}
			return nil
		})
	if err != nil || len(away) == 0 {
		return gone, nil, err
	}
	moved := map[string]string{}
	for _, p := range gone {
		if m, ok := away[p]; ok {
			to, err := whereNow(ctx, q, m.to, m.id)
			if err != nil {
				return nil, nil, err
			}
			if to != "" {
				moved[p] = to
			}
		}
	}
	return gone, moved, nil
}

// maxRenameHops bounds the renames followed from a moved file to its
// path now (jq's builtin.c went to src/builtin.c in one; a file that
// moves back and forth must not loop).
const maxRenameHops = 8

// whereNow follows the file that a rename at commit id put at path
// through its later renames to the path it has now; "" when a later
// change deleted it or the renames run past maxRenameHops. One query a
// rename: a mass rename (git/git's manuals from .txt to .adoc) makes
// every result's files moved ones.
func whereNow(ctx context.Context, q store.Querier, path string, id int64) (string, error) {
	for range maxRenameHops {
		var next int64
		var to, status string
		// old_path != '': the old_path index is partial, and without
		// it SQLite walks every change after id.
		err := q.QueryRowContext(ctx, `SELECT COALESCE(n.commit_id, 0), COALESCE(n.path, ''),
			COALESCE((SELECT g.status FROM file_changes g JOIN commits k ON k.id = g.commit_id
				WHERE g.path = ?1 AND k.rewritten = 0 ORDER BY g.commit_id DESC, g.seq DESC LIMIT 1), '')
			FROM (SELECT 1) LEFT JOIN (SELECT g.commit_id, g.path FROM file_changes g JOIN commits k ON k.id = g.commit_id
				WHERE g.old_path = ?1 AND g.old_path != '' AND g.status = 'renamed' AND g.commit_id > ?2 AND k.rewritten = 0
				ORDER BY g.commit_id, g.seq LIMIT 1) n`,
			path, id).Scan(&next, &to, &status)
		if err != nil {
			return "", fmt.Errorf("after the rename to %s: %w", path, err)
		}
		switch {
		case next > 0:
			path, id = to, next
		case status == "deleted":
			return "", nil
		default:
			return path, nil
		}
	}
	return "", nil
}
