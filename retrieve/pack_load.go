package retrieve

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// The store reads of the Context Pack builder. Each reads the rows of all
// the pack's commits in one query, the ids or keys passed as a JSON array
// (json_each), instead of one query per commit. Diff text is read only for
// the few diffs a pack can show, not with every file change.

// packCommit is a result's commit with what the pack needs of it.
type packCommit struct {
	id        int64
	rank      int // 0 for the best result
	res       Item
	hash      string
	subject   string
	body      string // the message after the subject; key items only
	summary   string
	class     string
	author    string
	when      time.Time
	rewritten bool
	files     []packFile
	notes     []model.DesignNote
	ents      []packEntity
}

// packFile is a commit's change to a file, without its diff text.
type packFile struct {
	seq     int
	path    string
	oldPath string
	binary  bool
	skipped string
}

// packEntity is a commit's change to an entity.
type packEntity struct {
	key, path, qualified, name, kind, lang string
	action, signature                      string
	start, end                             int
}

// text is what a commit is shown by: its summary, else its subject.
func (c *packCommit) text() string {
	if c.summary != "" {
		return c.summary
	}
	return c.subject
}

func packJSONList[T any](xs []T) string {
	b, _ := json.Marshal(xs)
	return string(b)
}

// loadPackCommits reads the commit rows of hashes; hashes not stored are
// absent from the map.
func loadPackCommits(ctx context.Context, db *sql.DB, hashes []string) (map[string]*packCommit, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, hash, subject, summary, classification, author_name,
		committer_time, committer_tz, rewritten FROM commits WHERE hash IN (SELECT value FROM json_each(?))`, packJSONList(hashes))
	if err != nil {
		return nil, fmt.Errorf("pack commits: %w", err)
	}
	defer rows.Close()
	out := map[string]*packCommit{}
	for rows.Next() {
		c := &packCommit{}
		var t int64
		var tz int
		if err := rows.Scan(&c.id, &c.hash, &c.subject, &c.summary, &c.class, &c.author, &t, &tz, &c.rewritten); err != nil {
			return nil, err
		}
		c.when = time.Unix(t, 0).In(time.FixedZone("", tz))
		out[c.hash] = c
	}
	return out, rows.Err()
}

// packByID indexes the commits by id, and lists the ids as JSON for a
// json_each() query.
func packByID(cs []*packCommit) (map[int64]*packCommit, string) {
	byID := map[int64]*packCommit{}
	var ids []int64
	for _, c := range cs {
		byID[c.id] = c
		ids = append(ids, c.id)
	}
	return byID, packJSONList(ids)
}

// loadPackDetails reads the file changes, design notes and entity changes
// of the commits.
func loadPackDetails(ctx context.Context, db *sql.DB, cs []*packCommit) error {
	byID, idList := packByID(cs)
	err := packRows(ctx, db, `SELECT commit_id, seq, path, old_path, binary, skipped FROM file_changes
		WHERE commit_id IN (SELECT value FROM json_each(?)) ORDER BY commit_id, seq`, idList, func(r *sql.Rows) error {
		var id int64
		var f packFile
		if err := r.Scan(&id, &f.seq, &f.path, &f.oldPath, &f.binary, &f.skipped); err != nil {
			return err
		}
		byID[id].files = append(byID[id].files, f)
		return nil
	})
	if err != nil {
		return fmt.Errorf("pack file changes: %w", err)
	}
	if err := loadPackNotes(ctx, db, idList, byID); err != nil {
		return err
	}
	if err := loadPackBodies(ctx, db, cs[:min(len(cs), packMaxKeyItems)]); err != nil {
		return err
	}
	err = packRows(ctx, db, `SELECT c.commit_id, e.key, e.path, e.qualified, e.name, e.kind, e.language,
			c.action, c.signature, c.start_line, c.end_line
		FROM entity_changes c JOIN entities e ON e.id = c.entity_id
		WHERE c.commit_id IN (SELECT value FROM json_each(?)) ORDER BY c.commit_id, e.path, c.start_line, e.key`,
		idList, func(r *sql.Rows) error {
			var id int64
			var e packEntity
			if err := r.Scan(&id, &e.key, &e.path, &e.qualified, &e.name, &e.kind, &e.lang,
				&e.action, &e.signature, &e.start, &e.end); err != nil {
				return err
			}
			byID[id].ents = append(byID[id].ents, e)
			return nil
		})
	if err != nil {
		return fmt.Errorf("pack entity changes: %w", err)
	}
	return nil
}

func loadPackNotes(ctx context.Context, db *sql.DB, idList string, byID map[int64]*packCommit) error {
	err := packRows(ctx, db, `SELECT commit_id, source, path, line, marker, text, entities FROM design_notes
		WHERE commit_id IN (SELECT value FROM json_each(?)) ORDER BY commit_id, idx`, idList, func(r *sql.Rows) error {
		var id int64
		var n model.DesignNote
		var ents string
		if err := r.Scan(&id, &n.Source, &n.Path, &n.Line, &n.Marker, &n.Text, &ents); err != nil {
			return err
		}
		if ents != "" && ents != "null" {
			// A note whose entity list is unreadable is still a note.
			_ = json.Unmarshal([]byte(ents), &n.Entities)
		}
		c := byID[id]
		n.Commit = c.hash
		c.notes = append(c.notes, n)
		return nil
	})
	if err != nil {
		return fmt.Errorf("pack design notes: %w", err)
	}
	return nil
}

// loadPackBodies reads the message bodies of the commits, for their
// evidence, in one query. A commit without a stored message keeps an
// empty body.
func loadPackBodies(ctx context.Context, db *sql.DB, cs []*packCommit) error {
	keys := make([]string, len(cs))
	for i, c := range cs {
		keys[i] = store.MessageKey(c.hash)
	}
	msgs, err := store.GetBlobs(ctx, db, keys)
	if err != nil {
		return fmt.Errorf("pack message bodies: %w", err)
	}
	for i, c := range cs {
		_, body, _ := strings.Cut(string(msgs[keys[i]]), "\n")
		c.body = body
	}
	return nil
}

// packEntityInfo is an entity the query named, with its newest live change.
type packEntityInfo struct {
	store.Entity
	last *store.EntityEvent // nil when no live commit changed it
}

// loadPackEntities reads the entities of keys, in the keys' order; keys
// not stored are skipped.
func loadPackEntities(ctx context.Context, st *store.Store, keys []string) ([]packEntityInfo, error) {
	found := map[string]store.Entity{}
	err := packRows(ctx, st.DB, `SELECT key, path, qualified, name, kind, language FROM entities
		WHERE key IN (SELECT value FROM json_each(?))`, packJSONList(keys), func(r *sql.Rows) error {
		var e store.Entity
		if err := r.Scan(&e.Key, &e.Path, &e.Qualified, &e.Name, &e.Kind, &e.Language); err != nil {
			return err
		}
		found[e.Key] = e
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pack entities: %w", err)
	}
	var out []packEntityInfo
	for _, k := range keys {
		e, ok := found[k]
		if !ok {
			continue
		}
		info := packEntityInfo{Entity: e}
		hist, err := st.EntityHistory(ctx, k)
		if err != nil {
			return nil, err
		}
		if len(hist) > 0 {
			info.last = &hist[0]
		}
		out = append(out, info)
	}
	return out, nil
}

// packVerification is a verified_by row.
type packVerification struct {
	subject, test, basis string
	confidence           float64
}

// loadPackTests reads the tests of the subjects (graph node ids).
func loadPackTests(ctx context.Context, db *sql.DB, subjects []string) ([]packVerification, error) {
	var out []packVerification
	err := packRows(ctx, db, `SELECT subject, test, basis, confidence FROM verified_by
		WHERE subject IN (SELECT value FROM json_each(?))`, packJSONList(subjects), func(r *sql.Rows) error {
		var v packVerification
		if err := r.Scan(&v.subject, &v.test, &v.basis, &v.confidence); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pack tests: %w", err)
	}
	return out, nil
}

// loadPackDiff reads the diff text of a commit's seq-th file change; ""
// when it has none (binary, skipped, or only a mode change).
func loadPackDiff(ctx context.Context, db *sql.DB, hash string, seq int) (string, error) {
	b, err := store.GetBlob(ctx, db, store.DiffKey(hash, seq))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func packRows(ctx context.Context, db *sql.DB, query, arg string, scan func(*sql.Rows) error) error {
	return store.EachRow(ctx, db, query, []any{arg}, scan)
}
