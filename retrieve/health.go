package retrieve

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-enry/go-enry/v2"

	"github.com/gitmemory/gitmemory/store"
)

// StaleCheckMax bounds the entries a health check follows line by line
// for staleness: the newest of those older than the stale threshold.
const StaleCheckMax = 200

// MemoryHealth is seed 004's startup check over a repository's memory.
// Entries are its live commits; Hard entries those with a stated reason
// (a design note). Stale counts the Hard entries older than StaleDays
// whose added lines are mostly rewritten since (the label [Stale?] of a
// query's results), checked newest first up to StaleCheckMax of them;
// SourceWarnings the Hard entries with a file gone from the head (the
// label [Source may be outdated]), all of them checked.
type MemoryHealth struct {
	Entries        int `json:"entries"`
	HardEntries    int `json:"hard_entries"`
	Stale          int `json:"stale"`
	StaleChecked   int `json:"stale_checked"`
	StaleEligible  int `json:"stale_eligible"`
	SourceWarnings int `json:"source_warnings"`
	StaleDays      int `json:"stale_days"`
}

// CheckMemory computes a repository's MemoryHealth.
func CheckMemory(ctx context.Context, db *sql.DB, now time.Time, staleDays int) (*MemoryHealth, error) {
	if staleDays <= 0 {
		staleDays = 90
	}
	m := &MemoryHealth{StaleDays: staleDays}
	cutoff := now.AddDate(0, 0, -staleDays).Unix()
	err := db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM commits WHERE rewritten = 0),
		(SELECT COUNT(*) FROM commits c WHERE rewritten = 0 AND EXISTS (SELECT 1 FROM design_notes n WHERE n.commit_id = c.id)),
		(SELECT COUNT(*) FROM commits c WHERE rewritten = 0 AND committer_time < ? AND EXISTS (SELECT 1 FROM design_notes n WHERE n.commit_id = c.id))`,
		cutoff).Scan(&m.Entries, &m.HardEntries, &m.StaleEligible)
	if err != nil {
		return nil, fmt.Errorf("health counts: %w", err)
	}
	if m.SourceWarnings, err = sourceWarnings(ctx, db); err != nil {
		return nil, err
	}
	hashes, err := store.Strings(ctx, db, `SELECT hash FROM commits c WHERE rewritten = 0 AND committer_time < ?
		AND EXISTS (SELECT 1 FROM design_notes n WHERE n.commit_id = c.id) ORDER BY committer_time DESC LIMIT ?`, cutoff, StaleCheckMax)
	if err != nil {
		return nil, fmt.Errorf("health stale entries: %w", err)
	}
	for _, h := range hashes {
		stale, err := staleEntry(ctx, db, h)
		if err != nil {
			return nil, fmt.Errorf("health stale %s: %w", h, err)
		}
		m.StaleChecked++
		if stale {
			m.Stale++
		}
	}
	return m, nil
}

// staleEntry follows one commit's added lines with a walker of its own,
// so that each entry has the whole of a label run's budget.
func staleEntry(ctx context.Context, db *sql.DB, hash string) (_ bool, err error) {
	w, err := newWalker(ctx, db)
	if err != nil {
		return false, err
	}
	defer func() { err = errors.Join(err, w.Close()) }()
	files, err := w.addedLines(ctx, hash)
	if err != nil {
		return false, err
	}
	return w.stale(ctx, files)
}

// pathState is what the file changes say of a path at the head.
type pathState struct {
	last      int64 // the newest commit id that changed it
	deleted   bool  // that change deleted it
	movedAway int64 // the newest commit id that renamed it away
	language  string
}

// gone reports a path deleted by its newest change or renamed away after it.
func (s *pathState) gone() bool { return s.deleted || s.movedAway > s.last }

// headPaths follows every live file change in order to each path's state
// at the head, in one pass.
func headPaths(ctx context.Context, db *sql.DB) (map[string]*pathState, error) {
	paths := map[string]*pathState{}
	get := func(p string) *pathState {
		s := paths[p]
		if s == nil {
			s = &pathState{}
			paths[p] = s
		}
		return s
	}
	err := store.EachRow(ctx, db, `SELECT f.commit_id, f.path, f.old_path, f.status, f.language FROM file_changes f
		JOIN commits c ON c.id = f.commit_id WHERE c.rewritten = 0 ORDER BY f.commit_id, f.seq`, nil, func(r *sql.Rows) error {
		var id int64
		var path, old, status, lang string
		if err := r.Scan(&id, &path, &old, &status, &lang); err != nil {
			return err
		}
		s := get(path)
		s.last, s.deleted, s.language = id, status == "deleted", lang
		if status == "renamed" && old != "" {
			get(old).movedAway = id
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("files at the head: %w", err)
	}
	return paths, nil
}

// LanguageCount is how many files of a language the head has.
type LanguageCount struct {
	Language string `json:"language"`
	Files    int    `json:"files"`
}

// Languages counts the files at the head by language (seed 003's
// Repository.languages), most files first, data formats (Public Key,
// CSV, JSON, ...) after the languages code and documentation are written
// in, as GitHub's language bar leaves them out: jq's 213 release
// signatures are not what the project is written in. Files of no known
// language are left out.
func Languages(ctx context.Context, db *sql.DB) ([]LanguageCount, error) {
	paths, err := headPaths(ctx, db)
	if err != nil {
		return nil, err
	}
	count := map[string]int{}
	for _, s := range paths {
		if !s.gone() && s.language != "" {
			count[s.language]++
		}
	}
	out := []LanguageCount{}
	for l, n := range count {
		out = append(out, LanguageCount{l, n})
	}
	slices.SortFunc(out, func(a, b LanguageCount) int {
		return cmp.Or(cmp.Compare(isData(a.Language), isData(b.Language)), cmp.Compare(b.Files, a.Files),
			cmp.Compare(a.Language, b.Language))
	})
	return out, nil
}

// isData is 1 for a data format, 0 for a language code, markup or prose
// is written in.
func isData(lang string) int {
	if enry.GetLanguageType(lang) == enry.Data {
		return 1
	}
	return 0
}

// sourceWarnings counts the Hard entries with a file gone from the head.
func sourceWarnings(ctx context.Context, db *sql.DB) (int, error) {
	paths, err := headPaths(ctx, db)
	if err != nil {
		return 0, err
	}
	n := 0
	warned := map[int64]bool{}
	err = store.EachRow(ctx, db, `SELECT DISTINCT f.commit_id, f.path FROM file_changes f JOIN commits c ON c.id = f.commit_id
		WHERE c.rewritten = 0 AND EXISTS (SELECT 1 FROM design_notes n WHERE n.commit_id = c.id)`, nil, func(r *sql.Rows) error {
		var id int64
		var path string
		if err := r.Scan(&id, &path); err != nil {
			return err
		}
		if s := paths[path]; s != nil && !warned[id] && s.gone() {
			warned[id] = true
			n++
		}
		return nil
	})
	return n, err
}
