package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/model"
)

// Entity identifies a function, method or type across history.
type Entity struct {
	ID        int64  `json:"-"`
	Key       string `json:"key"`
	Path      string `json:"path"`
	Qualified string `json:"qualified"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Language  string `json:"language"`
}

// EntityEvent is one commit's change to an entity, with the commit's
// classification and summary.
type EntityEvent struct {
	Commit         string    `json:"commit"`
	When           time.Time `json:"when"`
	Author         string    `json:"author"`
	Subject        string    `json:"subject"`
	Classification string    `json:"classification"`
	Summary        string    `json:"summary,omitempty"`
	Action         string    `json:"action"`
	StartLine      int       `json:"start_line"`
	EndLine        int       `json:"end_line"`
	Signature      string    `json:"signature,omitempty"`
	// Replaces is the key of the entity this one continues (a rename or a
	// move); the history before this event is that entity's.
	Replaces string `json:"replaces,omitempty"`
	// Entity is the key of the entity the event belongs to: the one asked
	// for, or one it replaced.
	Entity string `json:"entity"`
}

// insertEntities records what a commit did to entities. The commit's own
// entities are named first: an entity a change replaces is mostly one
// the same commit deletes (a rename, a move), and its row must carry its
// own name, not the name of the entity that replaces it, whose change can
// come first. A replaced entity neither stored nor changed here is named
// by its key.
func (w *Writer) insertEntities(ctx context.Context, id int64, changes []model.EntityChange) error {
	ids := make([]int64, len(changes))
	for i, e := range changes {
		eid, err := w.entityID(ctx, e.Path, e.Qualified, e.Name, e.Kind, e.Language)
		if err != nil {
			return err
		}
		ids[i] = eid
	}
	for i, e := range changes {
		var replaces int64
		if e.Replaces != "" {
			path, qual, _ := strings.Cut(e.Replaces, "#")
			var err error
			if replaces, err = w.entityID(ctx, path, qual, lastComponent(qual), e.Kind, e.Language); err != nil {
				return err
			}
		}
		w.entityChanges = append(w.entityChanges, id, ids[i], e.Action, e.StartLine, e.EndLine,
			e.Signature, replaces)
	}
	return nil
}

// entityID returns the id of the entity with the key of path and
// qualified, creating it. The first writer's name, kind and language stay.
func (w *Writer) entityID(ctx context.Context, path, qualified, name, kind, lang string) (int64, error) {
	key := model.EntityKey(path, qualified)
	if id, ok := w.entityIDs[key]; ok {
		return id, nil
	}
	if id, ok := w.known[key]; ok {
		return id, nil
	}
	var id int64
	err := w.stmts["entity"].QueryRowContext(ctx, key, path, qualified, name, kind, lang).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("entity %s: %w", key, err)
	}
	w.entityIDs[key] = id
	return id, nil
}

// entityChanges loads what a stored commit did to entities.
func (s *Store) entityChanges(ctx context.Context, id int64) ([]model.EntityChange, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT e.path, e.language, e.kind, e.name, e.qualified, c.action,
		c.start_line, c.end_line, c.signature, COALESCE(r.key, '')
		FROM entity_changes c JOIN entities e ON e.id = c.entity_id LEFT JOIN entities r ON r.id = c.replaces
		WHERE c.commit_id = ? ORDER BY e.path, c.start_line, e.key`, id)
	if err != nil {
		return nil, fmt.Errorf("entity changes: %w", err)
	}
	defer rows.Close()
	var out []model.EntityChange
	for rows.Next() {
		var e model.EntityChange
		if err := rows.Scan(&e.Path, &e.Language, &e.Kind, &e.Name, &e.Qualified, &e.Action,
			&e.StartLine, &e.EndLine, &e.Signature, &e.Replaces); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

const entityCols = `id, key, path, qualified, name, kind, language`

func scanEntities(rows *sql.Rows) ([]Entity, error) {
	defer rows.Close()
	var out []Entity
	for rows.Next() {
		var e Entity
		if err := rows.Scan(&e.ID, &e.Key, &e.Path, &e.Qualified, &e.Name, &e.Kind, &e.Language); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// FindEntities returns the entities a name may mean, best first: an exact
// key ("path#qualified"), then a qualified name or its last components
// ("Options.Apply"), then a plain name; optionally only of one kind and
// only those a live commit touched. Within a rank the most recently changed
// come first.
func (s *Store) FindEntities(ctx context.Context, name, kind string, limit int) ([]Entity, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = 20
	}
	rows, err := s.DB.QueryContext(ctx, `SELECT `+entityCols+` FROM (
		SELECT e.*, CASE
			WHEN e.key = ?1 THEN 0
			WHEN e.qualified = ?1 OR e.qualified LIKE '%.' || ?5 ESCAPE '\' OR e.qualified LIKE '%:' || ?5 ESCAPE '\' THEN 1
			ELSE 2 END AS rank,
			(SELECT MAX(k.committer_time) FROM entity_changes c JOIN commits k ON k.id = c.commit_id
				WHERE c.entity_id = e.id AND k.rewritten = 0) AS last
		FROM entities e
		WHERE (e.key = ?1 OR e.name = ?2 OR e.qualified = ?1
			OR e.qualified LIKE '%.' || ?5 ESCAPE '\' OR e.qualified LIKE '%:' || ?5 ESCAPE '\')
			AND (?3 = '' OR e.kind = ?3))
		WHERE last IS NOT NULL
		ORDER BY rank, last DESC, key LIMIT ?4`, name, lastComponent(name), kind, limit, likeEscape(name))
	if err != nil {
		return nil, fmt.Errorf("find entity %q: %w", name, err)
	}
	return scanEntities(rows)
}

// EntityNames returns the distinct entity names, for suggesting the
// closest one to a name that matches nothing.
func (s *Store) EntityNames(ctx context.Context) ([]string, error) {
	return Strings(ctx, s.DB, `SELECT DISTINCT name FROM entities ORDER BY name`)
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// lastComponent is the plain name at the end of a qualified one.
func lastComponent(s string) string {
	if i := strings.LastIndexAny(s, ".:#"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// maxReplacements bounds how far EntityHistory follows renames and moves
// back, against a cycle (a function renamed back and forth).
const maxReplacements = 64

// EntityHistory returns the changes of live commits to the entity with the
// key, newest first, followed back through renames and moves: when an
// event replaces another entity, that entity's earlier history follows.
func (s *Store) EntityHistory(ctx context.Context, key string) ([]EntityEvent, error) {
	var out []EntityEvent
	seen := map[string]bool{}
	before, skip := int64(1<<63-1), ""
	for range maxReplacements {
		if seen[key] {
			break
		}
		seen[key] = true
		evs, err := s.entityEvents(ctx, key, before)
		if err != nil {
			return nil, err
		}
		next := ""
		for _, e := range evs {
			if e.Commit == skip { // the replaced entity's end, told by the replacement
				continue
			}
			out = append(out, e)
			if e.Replaces != "" {
				next, before, skip = e.Replaces, e.When.Unix(), e.Commit
				break
			}
		}
		if next == "" {
			break
		}
		key = next
	}
	return out, nil
}

// entityEvents is one entity's events at or before a time, newest first.
// A replacement ends the list: what precedes it belongs to the replaced
// entity (whose own events are read next).
func (s *Store) entityEvents(ctx context.Context, key string, before int64) ([]EntityEvent, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT k.hash, k.committer_time, k.committer_tz, k.author_name, k.subject,
		k.classification, k.summary, c.action, c.start_line, c.end_line, c.signature, COALESCE(r.key, '')
		FROM entities e JOIN entity_changes c ON c.entity_id = e.id JOIN commits k ON k.id = c.commit_id
		LEFT JOIN entities r ON r.id = c.replaces
		WHERE e.key = ? AND k.rewritten = 0 AND k.committer_time <= ?
		ORDER BY k.committer_time DESC, k.id DESC`, key, before)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", key, err)
	}
	defer rows.Close()
	var out []EntityEvent
	for rows.Next() {
		e := EntityEvent{Entity: key}
		var t int64
		var tz int
		if err := rows.Scan(&e.Commit, &t, &tz, &e.Author, &e.Subject, &e.Classification, &e.Summary,
			&e.Action, &e.StartLine, &e.EndLine, &e.Signature, &e.Replaces); err != nil {
			return nil, err
		}
		e.When = time.Unix(t, 0).In(zone(tz))
		out = append(out, e)
		if e.Replaces != "" {
			break
		}
	}
	return out, rows.Err()
}
