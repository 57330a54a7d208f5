package retrieve

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// Change is one commit in a file's or directory's history.
type Change struct {
	Commit         string    `json:"commit"`
	When           time.Time `json:"when"`
	Author         string    `json:"author"`
	Subject        string    `json:"subject"`
	Classification string    `json:"classification"`
	Summary        string    `json:"summary,omitempty"`
	// Path is the path the commit changed: the one asked for, a file under
	// it, or (for history before a rename) an older name.
	Path   string `json:"path"`
	Status string `json:"status"`
	// OldPath is the previous name, for a rename.
	OldPath    string `json:"old_path,omitempty"`
	Insertions int    `json:"insertions"`
	Deletions  int    `json:"deletions"`
}

// HistoryQuery selects a history. The zero Since means all time; Limit 0
// means DefaultHistoryLimit.
type HistoryQuery struct {
	Path  string
	Since time.Time
	Limit int
	// Merges includes merge commits (what a merge itself changed).
	Merges bool
}

// DefaultHistoryLimit bounds a history when the query does not.
const DefaultHistoryLimit = 50

// maxRenames bounds how far History follows a file's renames back.
const maxRenames = 32

// History returns the live commits that changed a file (following its
// renames back, as git log --follow does) or anything under a directory,
// newest first. Path is normalised; the root is refused.
func History(ctx context.Context, st *store.Store, q HistoryQuery) ([]Change, error) {
	path := model.NormalizePath(q.Path)
	if path == "" || path == "." {
		return nil, fmt.Errorf("history: give a file or directory, not the repository root")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	dir := strings.TrimSuffix(path, "/") + "/"
	var out []Change
	before, seen := int64(1<<62), map[string]bool{}
	for range maxRenames {
		if seen[path] {
			break
		}
		seen[path] = true
		cs, err := changesOf(ctx, st, path, dir, before, q, limit-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
		if len(out) >= limit || len(cs) == 0 {
			break
		}
		// The oldest change of a file may be the rename that created it:
		// the history goes on under the old name, before that commit.
		last := cs[len(cs)-1]
		if last.Status != string(model.Renamed) || last.OldPath == "" {
			break
		}
		path, dir, before = last.OldPath, last.OldPath+"/", last.When.Unix()
	}
	return out, nil
}

// changesOf is one name's part of a history: changes to the path, or under
// it as a directory, strictly before the time (newest first). A commit that
// changed several files under a directory appears once, with the first of
// them (SQLite takes the bare columns from the MIN row) and summed counts.
func changesOf(ctx context.Context, st *store.Store, path, dir string, before int64, q HistoryQuery, limit int) ([]Change, error) {
	// A path changed in thousands of commits (git's Makefile: 3,500) made
	// the query below join and sort them all to return fifty. The newest
	// commits that touched the path come first from lookup_keys, in index
	// order; only when merges or a short list leave fewer than the limit
	// does the whole query decide.
	var ids []any
	all := false
	if historyByKeys {
		var err error
		if ids, all, err = newestTouching(ctx, st, path, before, q.Since.Unix(), 2*limit+16); err != nil {
			return nil, fmt.Errorf("history of %s: %w", path, err)
		}
	}
	if len(ids) == 0 && all {
		return nil, nil
	}
	restrict := ""
	if len(ids) > 0 {
		// Numbered from ?8: a bare ? would take the number after the
		// largest before it in the text, and LIMIT ?7 comes later.
		nums := make([]string, len(ids))
		for i := range ids {
			nums[i] = fmt.Sprintf("?%d", 8+i)
		}
		restrict = " AND commit_id IN (" + strings.Join(nums, ",") + ")"
	}
	args := append([]any{path, dir, dir[:len(dir)-1] + "0", before, q.Since.Unix(), q.Merges, limit}, ids...)
	out, err := historyRows(ctx, st, restrict, args)
	if err == nil && len(out) < limit && !all {
		out, err = historyRows(ctx, st, "", args[:7])
	}
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", path, err)
	}
	return out, nil
}

// historyByKeys turns the lookup_keys shortcut on; tests turn it off to
// compare with the whole query.
var historyByKeys = true

// historyRows is changesOf's query, each file change also matching
// restrict. The commit filter goes inside each scan: the path indexes hold
// commit_id, so the changes of other commits are skipped in the index,
// neither read nor joined.
func historyRows(ctx context.Context, st *store.Store, restrict string, args []any) ([]Change, error) {
	// The four ways a change can concern the path are four index range
	// scans; OR-ing them in one WHERE made SQLite scan every file change.
	rows, err := st.DB.QueryContext(ctx, `WITH f AS (
			SELECT commit_id, path, status, old_path, insertions, deletions FROM file_changes WHERE path = ?1`+restrict+`
			UNION ALL SELECT commit_id, path, status, old_path, insertions, deletions FROM file_changes
				WHERE path >= ?2 AND path < ?3`+restrict+`
			UNION ALL SELECT commit_id, path, status, old_path, insertions, deletions FROM file_changes
				WHERE old_path = ?1 AND old_path != ''`+restrict+`
			UNION ALL SELECT commit_id, path, status, old_path, insertions, deletions FROM file_changes
				WHERE old_path >= ?2 AND old_path < ?3 AND old_path != ''`+restrict+`)
		SELECT c.hash, c.committer_time, c.committer_tz, c.author_name, c.subject,
			c.classification, c.summary, MIN(f.path), f.status, f.old_path, SUM(f.insertions), SUM(f.deletions)
		FROM f JOIN commits c ON c.id = f.commit_id
		WHERE c.rewritten = 0 AND c.committer_time < ?4 AND c.committer_time >= ?5 AND (?6 OR c.is_merge = 0)
		GROUP BY c.id ORDER BY c.committer_time DESC, c.id DESC LIMIT ?7`, args...)
	if err != nil {
		return nil, err
	}
	return scanChanges(rows)
}

// newestTouching returns the ids of the n newest live commits that
// changed path, a file under it, or either under an old name, in
// [since, before), newest first (committer time, then id), and whether
// that is all of them. lookup_keys holds these as "=path" and "/dir" keys
// ordered by severity before time, so each severity is read newest first
// and the lists are merged.
func newestTouching(ctx context.Context, st *store.Store, path string, before, since int64, n int) (ids []any, all bool, err error) {
	var parts []string
	for _, key := range []string{"?1", "?2"} {
		for sev := range len(severityNames) {
			parts = append(parts, fmt.Sprintf(`SELECT * FROM (SELECT commit_id, time FROM lookup_keys
				WHERE key = %s AND live = 1 AND severity = %d AND time < ?3 AND time >= ?4
				ORDER BY time DESC, commit_id DESC LIMIT ?5)`, key, sev))
		}
	}
	// One more than asked, from each list too, says whether there are more.
	rows, err := st.DB.QueryContext(ctx, `SELECT DISTINCT commit_id, time FROM (`+strings.Join(parts, " UNION ALL ")+`)
		ORDER BY time DESC, commit_id DESC LIMIT ?5`, "="+path, "/"+path, before, since, n+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, t int64
		if err := rows.Scan(&id, &t); err != nil {
			return nil, false, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if len(ids) > n {
		return ids[:n], false, nil
	}
	return ids, true, nil
}

// scanChanges reads rows of (hash, committer time and zone, author,
// subject, classification, summary, path, status, old path, insertions,
// deletions).
func scanChanges(rows *sql.Rows) ([]Change, error) {
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var ch Change
		var t int64
		var tz int
		if err := rows.Scan(&ch.Commit, &t, &tz, &ch.Author, &ch.Subject, &ch.Classification, &ch.Summary,
			&ch.Path, &ch.Status, &ch.OldPath, &ch.Insertions, &ch.Deletions); err != nil {
			return nil, err
		}
		ch.When = time.Unix(t, 0).In(time.FixedZone("", tz))
		out = append(out, ch)
	}
	return out, rows.Err()
}

// RecentQuery selects recent changes: the last Days days (default 7),
// optionally under a path.
type RecentQuery struct {
	Path  string
	Days  int
	Limit int
	Now   time.Time
}

// Recent returns the live non-merge commits of the last days, newest first,
// under a path when one is given.
func Recent(ctx context.Context, st *store.Store, q RecentQuery) ([]Change, error) {
	if q.Days <= 0 {
		q.Days = 7
	}
	if q.Now.IsZero() {
		q.Now = time.Now()
	}
	since := q.Now.AddDate(0, 0, -q.Days)
	if q.Path != "" {
		return History(ctx, st, HistoryQuery{Path: q.Path, Since: since, Limit: q.Limit})
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	rows, err := st.DB.QueryContext(ctx, `SELECT c.hash, c.committer_time, c.committer_tz, c.author_name, c.subject,
			c.classification, c.summary, '', '', '', c.insertions, c.deletions
		FROM commits c WHERE c.rewritten = 0 AND c.is_merge = 0 AND c.committer_time >= ?
		ORDER BY c.committer_time DESC, c.id DESC LIMIT ?`, since.Unix(), limit)
	if err != nil {
		return nil, fmt.Errorf("recent changes: %w", err)
	}
	return scanChanges(rows)
}

// keyHistoryScan bounds how much of a history KeyHistory weighs.
const keyHistoryScan = 2000

// KeyHistory returns the commits that matter most in a file's or
// directory's history, most important first: the one that introduced it
// (or brought it under its name), then changes by their type's importance
// and size, with stated rationale counting; ties go to the older commit,
// which the later ones build on.
func KeyHistory(ctx context.Context, st *store.Store, q HistoryQuery) ([]Change, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	q.Limit = keyHistoryScan
	all, err := History(ctx, st, q)
	if err != nil || len(all) == 0 {
		return all, err
	}
	score := make(map[string]float64, len(all))
	for i, c := range all {
		s := importance[c.Classification] + math.Log1p(float64(c.Insertions+c.Deletions))/10
		switch {
		case i == len(all)-1:
			s += 2 // the oldest: where the file came from
		case c.Status == string(model.Added) || c.Status == string(model.Renamed):
			s++
		}
		score[c.Commit] = s
	}
	out := slices.Clone(all)
	slices.SortStableFunc(out, func(a, b Change) int {
		return cmp.Or(cmp.Compare(score[b.Commit], score[a.Commit]), a.When.Compare(b.When))
	})
	return out[:min(limit, len(out))], nil
}
