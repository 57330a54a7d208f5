package retrieve

// Seed 003's direct access: a commit by hash or ref (commits.get), the
// commits of a range, an author or dates (commits.range and search), and
// entities by name and type (entities.search).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/store"
)

// ErrUnknownRev: no indexed commit or ref has the name asked for.
var ErrUnknownRev = errors.New("unknown revision")

// Person is an author or committer.
type Person struct {
	Name  string    `json:"name"`
	Email string    `json:"email"`
	When  time.Time `json:"when"`
}

// CommitFile is one file a commit changed.
type CommitFile struct {
	Path       string `json:"path"`
	OldPath    string `json:"old_path,omitempty"`
	Status     string `json:"status"`
	Language   string `json:"language,omitempty"`
	Insertions int    `json:"insertions"`
	Deletions  int    `json:"deletions"`
	// Skipped says why the file's lines were not diffed: binary, huge,
	// vendored, generated, or missing (a blob the repository lacks).
	Skipped string `json:"skipped,omitempty"`
}

// CommitDetail is a commit as the index holds it.
type CommitDetail struct {
	Hash           string       `json:"hash"`
	Parents        []string     `json:"parents"`
	Author         Person       `json:"author"`
	Committer      Person       `json:"committer"`
	Subject        string       `json:"subject"`
	Message        string       `json:"message"`
	Classification string       `json:"classification"`
	Summary        string       `json:"summary,omitempty"`
	Branch         string       `json:"branch,omitempty"`
	Merge          bool         `json:"merge"`
	Rewritten      bool         `json:"rewritten"`
	Files          []CommitFile `json:"files"`
	Issues         []string     `json:"issues,omitempty"`
	DesignNotes    []string     `json:"design_notes,omitempty"`
	// Entities are the functions and types it changed: "action path#qualified".
	Entities []string `json:"entities,omitempty"`
}

// ResolveRev finds the one indexed commit a revision names: a full or
// abbreviated hash (4 hex digits at least), a branch or tag name, or HEAD
// (the tracked default branch as last synced).
func ResolveRev(ctx context.Context, db store.Querier, rev string) (string, error) {
	rev = strings.TrimSpace(rev)
	if rev == "" {
		return "", fmt.Errorf("%w: empty", ErrUnknownRev)
	}
	targets, err := store.Strings(ctx, db, `SELECT target FROM refs WHERE name IN (?1, 'refs/heads/' || ?1, 'refs/tags/' || ?1)
		OR (?1 = 'HEAD' AND name = (SELECT default_branch FROM repository)) ORDER BY name LIMIT 1`, rev)
	if err != nil {
		return "", err
	}
	if len(targets) == 1 {
		rev = targets[0]
	}
	if len(rev) < 4 || strings.Trim(strings.ToLower(rev), "0123456789abcdef") != "" {
		return "", fmt.Errorf("%w %q: want a commit hash (4 hex digits at least), a branch or tag name, or HEAD", ErrUnknownRev, rev)
	}
	low := strings.ToLower(rev)
	hashes, err := store.Strings(ctx, db, `SELECT hash FROM commits WHERE hash >= ? AND hash < ? ORDER BY hash LIMIT 3`, low, low+"g")
	if err != nil {
		return "", err
	}
	switch len(hashes) {
	case 0:
		return "", fmt.Errorf("%w %q: no indexed commit has it (not synced yet, or pruned?)", ErrUnknownRev, rev)
	case 1:
		return hashes[0], nil
	}
	return "", fmt.Errorf("%w %q: ambiguous, it starts %s, %s…: give more digits", ErrUnknownRev, rev, hashes[0][:12], hashes[1][:12])
}

// GetCommit returns a commit by revision (see ResolveRev).
func GetCommit(ctx context.Context, db *sql.DB, rev string) (*CommitDetail, error) {
	hash, err := ResolveRev(ctx, db, rev)
	if err != nil {
		return nil, err
	}
	c := &CommitDetail{Hash: hash, Parents: []string{}, Files: []CommitFile{}}
	var id, at, ct int64
	var atz, ctz int
	err = db.QueryRowContext(ctx, `SELECT id, author_name, author_email, author_time, author_tz, committer_name, committer_email,
		committer_time, committer_tz, subject, classification, summary, branch, is_merge, rewritten FROM commits WHERE hash = ?`, hash).Scan(
		&id, &c.Author.Name, &c.Author.Email, &at, &atz, &c.Committer.Name, &c.Committer.Email, &ct, &ctz,
		&c.Subject, &c.Classification, &c.Summary, &c.Branch, &c.Merge, &c.Rewritten)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", hash, err)
	}
	c.Author.When = time.Unix(at, 0).In(time.FixedZone("", atz))
	c.Committer.When = time.Unix(ct, 0).In(time.FixedZone("", ctz))
	msg, err := store.GetBlob(ctx, db, store.MessageKey(hash))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	c.Message = strings.TrimRight(string(msg), "\n")
	if c.Parents, err = store.Strings(ctx, db, `SELECT lower(hex(parent_hash)) FROM commit_parents WHERE commit_id = ? ORDER BY idx`, id); err != nil {
		return nil, err
	}
	err = store.EachRow(ctx, db, `SELECT path, old_path, status, language, insertions, deletions, skipped FROM file_changes WHERE commit_id = ? ORDER BY seq`,
		[]any{id}, func(r *sql.Rows) error {
			var f CommitFile
			err := r.Scan(&f.Path, &f.OldPath, &f.Status, &f.Language, &f.Insertions, &f.Deletions, &f.Skipped)
			c.Files = append(c.Files, f)
			return err
		})
	if err != nil {
		return nil, err
	}
	if c.Issues, err = store.Strings(ctx, db, `SELECT key FROM issue_refs WHERE commit_id = ? ORDER BY ord`, id); err != nil {
		return nil, err
	}
	if c.DesignNotes, err = store.Strings(ctx, db, `SELECT text FROM design_notes WHERE commit_id = ? ORDER BY idx`, id); err != nil {
		return nil, err
	}
	c.Entities, err = store.Strings(ctx, db, `SELECT c.action || ' ' || e.key FROM entity_changes c JOIN entities e ON e.id = c.entity_id
		WHERE c.commit_id = ? ORDER BY e.key`, id)
	return c, err
}

// LogQuery selects commits as git log does: a range (To's ancestors that
// are not From's; To alone is its ancestors), dates (Since inclusive,
// Until inclusive) and an author (a case-insensitive part of the name or
// email). Limit 0 is DefaultHistoryLimit.
type LogQuery struct {
	From, To     string
	Since, Until time.Time
	Author       string
	Limit        int
}

// LogEntry is one commit of a log.
type LogEntry struct {
	Commit         string    `json:"commit"`
	When           time.Time `json:"when"`
	Author         string    `json:"author"`
	Email          string    `json:"email"`
	Subject        string    `json:"subject"`
	Classification string    `json:"classification"`
	Merge          bool      `json:"merge,omitempty"`
}

// ParseRange reads git's FROM..TO, or a single revision (TO).
func ParseRange(s string) (from, to string, err error) {
	from, to, ok := strings.Cut(s, "..")
	if !ok {
		return "", s, nil
	}
	if strings.HasPrefix(to, ".") || strings.TrimSpace(from) == "" || strings.TrimSpace(to) == "" {
		return "", "", fmt.Errorf("%w %q: want FROM..TO with both ends (a hash, branch or tag)", ErrUnknownRev, s)
	}
	return from, to, nil
}

// Log lists the live indexed commits a LogQuery selects, newest first.
func Log(ctx context.Context, db *sql.DB, q LogQuery) ([]LogEntry, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultHistoryLimit
	}
	var in map[string]bool
	if q.To != "" {
		var err error
		if in, err = rangeSet(ctx, db, q.From, q.To); err != nil {
			return nil, err
		}
	}
	var until int64 = 1 << 62
	if !q.Until.IsZero() {
		until = q.Until.Unix()
	}
	out := []LogEntry{}
	err := store.EachRow(ctx, db, `SELECT hash, committer_time, committer_tz, author_name, author_email, subject, classification, is_merge
		FROM commits WHERE rewritten = 0 AND committer_time >= ? AND committer_time <= ?
		AND (?3 = '' OR instr(lower(author_name), lower(?3)) > 0 OR instr(lower(author_email), lower(?3)) > 0)
		ORDER BY committer_time DESC, id DESC`, []any{q.Since.Unix(), until, q.Author}, func(r *sql.Rows) error {
		if len(out) == q.Limit {
			return nil
		}
		var e LogEntry
		var t int64
		var tz int
		if err := r.Scan(&e.Commit, &t, &tz, &e.Author, &e.Email, &e.Subject, &e.Classification, &e.Merge); err != nil {
			return err
		}
		if in == nil || in[e.Commit] {
			e.When = time.Unix(t, 0).In(time.FixedZone("", tz))
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// rangeSet is the set of commits reachable from to and not from from,
// walked over the indexed parents.
func rangeSet(ctx context.Context, db *sql.DB, from, to string) (map[string]bool, error) {
	toHash, err := ResolveRev(ctx, db, to)
	if err != nil {
		return nil, err
	}
	parents := map[string][]string{}
	err = store.EachRow(ctx, db, `SELECT c.hash, lower(hex(p.parent_hash)) FROM commit_parents p JOIN commits c ON c.id = p.commit_id ORDER BY p.commit_id, p.idx`,
		nil, func(r *sql.Rows) error {
			var h, p string
			err := r.Scan(&h, &p)
			parents[h] = append(parents[h], p)
			return err
		})
	if err != nil {
		return nil, err
	}
	walk := func(start string, stop map[string]bool) map[string]bool {
		seen := map[string]bool{}
		stack := []string{start}
		for len(stack) > 0 {
			h := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[h] || stop[h] {
				continue
			}
			seen[h] = true
			stack = append(stack, parents[h]...)
		}
		return seen
	}
	var exclude map[string]bool
	if from != "" {
		fromHash, err := ResolveRev(ctx, db, from)
		if err != nil {
			return nil, err
		}
		exclude = walk(fromHash, nil)
	}
	return walk(toHash, exclude), nil
}

// EntityHit is an entity found by SearchEntities.
type EntityHit struct {
	Key       string    `json:"key"`
	Path      string    `json:"path"`
	Qualified string    `json:"qualified"`
	Name      string    `json:"name"`
	Kind      string    `json:"kind"`
	Language  string    `json:"language"`
	Changes   int       `json:"changes"`
	Last      time.Time `json:"last_changed"`
	// Deleted: the last change to it deleted it.
	Deleted bool `json:"deleted,omitempty"`
}

// SearchEntities finds the entities whose name or qualified name holds q
// (case-insensitive; empty q is every entity of the kind), of kind when
// given: exact names first, then the most recently changed.
func SearchEntities(ctx context.Context, db *sql.DB, q, kind string, limit int) ([]EntityHit, error) {
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	out := []EntityHit{}
	err := store.EachRow(ctx, db, `SELECT key, path, qualified, name, kind, language, n, last, action FROM (
		SELECT e.*, COUNT(*) AS n, MAX(k.committer_time) AS last,
			(SELECT c2.action FROM entity_changes c2 JOIN commits k2 ON k2.id = c2.commit_id
				WHERE c2.entity_id = e.id AND k2.rewritten = 0 ORDER BY c2.commit_id DESC LIMIT 1) AS action
		FROM entities e JOIN entity_changes c ON c.entity_id = e.id JOIN commits k ON k.id = c.commit_id AND k.rewritten = 0
		WHERE (?1 = '' OR instr(lower(e.name), lower(?1)) > 0 OR instr(lower(e.qualified), lower(?1)) > 0)
			AND (?2 = '' OR e.kind = ?2)
		GROUP BY e.id)
		ORDER BY lower(name) = lower(?1) DESC, last DESC, key LIMIT ?3`, []any{q, kind, limit}, func(r *sql.Rows) error {
		var h EntityHit
		var last int64
		var action string
		if err := r.Scan(&h.Key, &h.Path, &h.Qualified, &h.Name, &h.Kind, &h.Language, &h.Changes, &last, &action); err != nil {
			return err
		}
		h.Last, h.Deleted = time.Unix(last, 0).UTC(), action == "deletes"
		out = append(out, h)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search entities: %w", err)
	}
	return out, nil
}
