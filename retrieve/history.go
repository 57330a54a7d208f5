package retrieve

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
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

// History returns the live commits that changed a file (following its
// renames back, as git log --follow does) or anything under a directory,
// in git log's order: newest first, by the commit graph where dates tie or
// disagree (store.History). Path is normalised; the root is refused.
func History(ctx context.Context, st *store.Store, q HistoryQuery) ([]Change, error) {
	path := model.NormalizePath(q.Path)
	if path == "" || path == "." {
		return nil, fmt.Errorf("history: give a file or directory, not the repository root")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	since := int64(math.MinInt64)
	if !q.Since.IsZero() {
		since = q.Since.Unix()
	}
	entries, err := st.History(ctx, store.HistoryOptions{Path: path, Since: since, Merges: q.Merges, Limit: limit})
	if err != nil {
		return nil, err
	}
	return historyChanges(ctx, st, entries)
}

// historyChanges gives each entry of a history its commit's columns. A
// commit that changed several files under a directory is one change,
// with the first of them by path and summed counts.
func historyChanges(ctx context.Context, st *store.Store, entries []store.HistoryEntry) ([]Change, error) {
	byID := make(map[int64]Change, len(entries))
	for lo := 0; lo < len(entries); lo += 500 {
		part := entries[lo:min(lo+500, len(entries))]
		args := make([]any, len(part))
		for i, e := range part {
			args[i] = e.CommitID
		}
		err := store.EachRow(ctx, st.DB, `SELECT id, hash, committer_time, committer_tz, author_name, subject, classification, summary
			FROM commits WHERE id IN (`+store.Marks(len(args))+`)`, args, func(rows *sql.Rows) error {
			var id, t int64
			var tz int
			var ch Change
			if err := rows.Scan(&id, &ch.Commit, &t, &tz, &ch.Author, &ch.Subject, &ch.Classification, &ch.Summary); err != nil {
				return err
			}
			ch.When = time.Unix(t, 0).In(time.FixedZone("", tz))
			byID[id] = ch
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	out := make([]Change, 0, len(entries))
	for _, e := range entries {
		ch := byID[e.CommitID]
		first := e.Rows[0]
		for _, r := range e.Rows {
			if r.Path < first.Path {
				first = r
			}
			ch.Insertions += r.Insertions
			ch.Deletions += r.Deletions
		}
		ch.Path, ch.Status, ch.OldPath = first.Path, first.Status, first.OldPath
		out = append(out, ch)
	}
	return out, nil
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
