package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/model"
)

// Code relationships (model.Relation) are stored as each commit's
// additions and removals in code_relations, their ends named in
// code_nodes. The relationships of the code at the newest indexed version
// are those whose latest row on a live commit adds them; notRewritten is
// the condition a row's commit must meet.
const notRewritten = `commit_id NOT IN (SELECT id FROM commits WHERE rewritten = 1)`

var relationRows = newMultiInsert("code relations", `INSERT OR IGNORE INTO code_relations VALUES `, "", 6, multiChunk)

// KnownNodes lets the writer take code node ids from known, as
// KnownEntities does for entities; merge SeenNodes into it once the
// writer's transaction has committed. Ids it takes from older, a
// generation of the cache that the caller is letting go, count as seen,
// so that merging SeenNodes keeps them.
func (w *Writer) KnownNodes(known, older map[string]int64) {
	w.knownNodes, w.olderNodes = known, older
}

// SeenNodes returns the code node ids this writer looked up or created.
func (w *Writer) SeenNodes() map[string]int64 { return w.nodeIDs }

// insertRelations buffers a commit's relationship rows.
func (w *Writer) insertRelations(ctx context.Context, id int64, rels []model.Relation) error {
	for _, r := range rels {
		from, err := w.nodeID(ctx, r.From)
		if err != nil {
			return err
		}
		to, err := w.nodeID(ctx, r.To)
		if err != nil {
			return err
		}
		w.relations = append(w.relations, from, r.Kind, to, id, !r.Removed, r.Confidence)
	}
	return nil
}

// nodeID returns the id of a code node, creating it.
func (w *Writer) nodeID(ctx context.Context, node string) (int64, error) {
	if id, ok := w.nodeIDs[node]; ok {
		return id, nil
	}
	if id, ok := w.knownNodes[node]; ok {
		return id, nil
	}
	if id, ok := w.olderNodes[node]; ok {
		w.nodeIDs[node] = id
		return id, nil
	}
	var id int64
	err := w.stmts["node"].QueryRowContext(ctx, node).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("code node %s: %w", node, err)
	}
	w.nodeIDs[node] = id
	return id, nil
}

// commitRelations loads what a stored commit did to relationships, in
// (from, kind, to) order.
func (s *Store) commitRelations(ctx context.Context, id int64) ([]model.Relation, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT f.node, r.kind, t.node, r.added, r.confidence FROM code_relations r
		JOIN code_nodes f ON f.id = r.from_id JOIN code_nodes t ON t.id = r.to_id
		WHERE r.commit_id = ? ORDER BY f.node, r.kind, t.node`, id)
	if err != nil {
		return nil, fmt.Errorf("relations of commit %d: %w", id, err)
	}
	defer rows.Close()
	var out []model.Relation
	for rows.Next() {
		var r model.Relation
		var added bool
		if err := rows.Scan(&r.From, &r.Kind, &r.To, &added, &r.Confidence); err != nil {
			return nil, err
		}
		r.Removed = !added
		out = append(out, r)
	}
	return out, rows.Err()
}

// RelationsFrom returns the relationships that node has at the newest
// indexed version, of the given kinds (none: all), ordered by kind and
// target.
func (s *Store) RelationsFrom(ctx context.Context, node string, kinds ...string) ([]model.Relation, error) {
	return s.currentRelations(ctx, `SELECT ?1, r.kind, t.node, r.added, r.confidence FROM code_relations r
		JOIN code_nodes t ON t.id = r.to_id
		WHERE r.from_id = (SELECT id FROM code_nodes WHERE node = ?1) AND r.`+notRewritten+`
		ORDER BY r.kind, r.to_id, r.commit_id`, node, kinds)
}

// RelationsTo returns the relationships to node at the newest indexed
// version, of the given kinds (none: all), ordered by kind and source.
func (s *Store) RelationsTo(ctx context.Context, node string, kinds ...string) ([]model.Relation, error) {
	return s.currentRelations(ctx, `SELECT f.node, r.kind, ?1, r.added, r.confidence FROM code_relations r
		JOIN code_nodes f ON f.id = r.from_id
		WHERE r.to_id = (SELECT id FROM code_nodes WHERE node = ?1) AND r.`+notRewritten+`
		ORDER BY r.kind, r.from_id, r.commit_id`, node, kinds)
}

// currentRelations runs a query of relationship rows ordered by their
// (from, kind, to) and then by commit, and keeps each relationship's
// latest row where it adds the relationship.
func (s *Store) currentRelations(ctx context.Context, query, node string, kinds []string) ([]model.Relation, error) {
	rows, err := s.DB.QueryContext(ctx, query, node)
	if err != nil {
		return nil, fmt.Errorf("relations of %s: %w", node, err)
	}
	defer rows.Close()
	var out []model.Relation
	var last model.Relation
	var lastAdded, have bool
	flush := func() {
		if have && lastAdded && (len(kinds) == 0 || slices.Contains(kinds, last.Kind)) {
			out = append(out, last)
		}
	}
	for rows.Next() {
		var r model.Relation
		var added bool
		if err := rows.Scan(&r.From, &r.Kind, &r.To, &added, &r.Confidence); err != nil {
			return nil, err
		}
		if have && (r.From != last.From || r.Kind != last.Kind || r.To != last.To) {
			flush()
		}
		last, lastAdded, have = r, added, true
	}
	flush()
	slices.SortStableFunc(out, func(a, b model.Relation) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
	})
	return out, rows.Err()
}

// RelationCounts counts the relationships of each kind at the newest
// indexed version.
func (s *Store) RelationCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT kind, COUNT(*) FROM (
		SELECT kind, added, MAX(commit_id) FROM code_relations WHERE `+notRewritten+`
		GROUP BY from_id, kind, to_id) WHERE added = 1 GROUP BY kind`)
	if err != nil {
		return nil, fmt.Errorf("count relations: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var kind string
		var n int
		if err := rows.Scan(&kind, &n); err != nil {
			return nil, err
		}
		out[kind] = n
	}
	return out, rows.Err()
}

// LiveEntity is an entity whose latest change on a live commit does not
// delete it, with that change's signature.
type LiveEntity struct {
	Key, Path, Qualified, Name, Kind, Language, Signature string
}

// liveEntities selects the live entities among those a condition on e
// picks, with their latest signature.
const liveEntities = `SELECT e.key, e.path, e.qualified, e.name, e.kind, e.language, c.signature, c.action
	FROM entities e JOIN entity_changes c ON c.entity_id = e.id
	WHERE %s AND c.commit_id = (SELECT MAX(x.commit_id) FROM entity_changes x
		WHERE x.entity_id = e.id AND x.` + notRewritten + `)`

// LiveEntitiesNamed returns the live entities with a name.
func (s *Store) LiveEntitiesNamed(ctx context.Context, name string) ([]LiveEntity, error) {
	return s.liveEntities(ctx, fmt.Sprintf(liveEntities, "e.name = ?"), name)
}

// LiveEntitiesOf returns the live entities of a language and kind.
func (s *Store) LiveEntitiesOf(ctx context.Context, lang, kind string) ([]LiveEntity, error) {
	return s.liveEntities(ctx, fmt.Sprintf(liveEntities, "e.language = ? AND e.kind = ?"), lang, kind)
}

// LiveEntity returns the live entity with a key; ok is false when there
// is none.
func (s *Store) LiveEntity(ctx context.Context, key string) (LiveEntity, bool, error) {
	es, err := s.liveEntities(ctx, fmt.Sprintf(liveEntities, "e.key = ?"), key)
	if err != nil || len(es) == 0 {
		return LiveEntity{}, false, err
	}
	return es[0], true, nil
}

func (s *Store) liveEntities(ctx context.Context, query string, args ...any) ([]LiveEntity, error) {
	rows, err := s.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("live entities: %w", err)
	}
	defer rows.Close()
	var out []LiveEntity
	for rows.Next() {
		var e LiveEntity
		var action string
		if err := rows.Scan(&e.Key, &e.Path, &e.Qualified, &e.Name, &e.Kind, &e.Language, &e.Signature, &action); err != nil {
			return nil, err
		}
		if action != model.EntityDeleted {
			out = append(out, e)
		}
	}
	return out, rows.Err()
}

// KnownPaths returns every path a change has named, live or not: one
// read of the path index.
func (s *Store) KnownPaths(ctx context.Context) ([]string, error) {
	return Strings(ctx, s.DB, `SELECT DISTINCT path FROM file_changes`)
}

// PathLive reports whether a path exists at the newest indexed version:
// its latest change on a live commit neither deletes it nor is followed
// by a rename away from it.
func (s *Store) PathLive(ctx context.Context, path string) (bool, error) {
	var status string
	var last, gone int64
	err := s.DB.QueryRowContext(ctx, `SELECT
		COALESCE((SELECT status FROM file_changes WHERE path = ?1 AND `+notRewritten+` ORDER BY commit_id DESC LIMIT 1), ''),
		COALESCE((SELECT MAX(commit_id) FROM file_changes WHERE path = ?1 AND `+notRewritten+`), 0),
		COALESCE((SELECT MAX(commit_id) FROM file_changes WHERE old_path = ?1 AND old_path != '' AND status = 'renamed'
			AND `+notRewritten+`), 0)`, path).Scan(&status, &last, &gone)
	if err != nil {
		return false, fmt.Errorf("path %s: %w", path, err)
	}
	return status != "" && status != string(model.Deleted) && gone < last, nil
}

// CurrentRelations returns every relationship at the newest indexed
// version, REQUIRES rows included, ordered by source, kind and target.
func (s *Store) CurrentRelations(ctx context.Context) ([]model.Relation, error) {
	var out []model.Relation
	err := EachRow(ctx, s.DB, `SELECT f.node, r.kind, t.node, r.confidence FROM (
			SELECT from_id, kind, to_id, added, confidence, MAX(commit_id) FROM code_relations WHERE `+notRewritten+`
			GROUP BY from_id, kind, to_id) r
		JOIN code_nodes f ON f.id = r.from_id JOIN code_nodes t ON t.id = r.to_id
		WHERE r.added = 1 ORDER BY f.node, r.kind, t.node`, nil, func(rows *sql.Rows) error {
		var r model.Relation
		err := rows.Scan(&r.From, &r.Kind, &r.To, &r.Confidence)
		out = append(out, r)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("current relations: %w", err)
	}
	return out, nil
}

// LiveEntitiesIn returns the live entities of a file.
func (s *Store) LiveEntitiesIn(ctx context.Context, path string) ([]LiveEntity, error) {
	return s.liveEntities(ctx, fmt.Sprintf(liveEntities, "e.path = ?"), path)
}

// AddRelations records relationship changes at a stored commit after its
// own (those of a whole sync, found at its end), replacing any row of the
// same relationship, and marks the commit for the graph to replay.
func (s *Store) AddRelations(ctx context.Context, hash string, rels []model.Relation) error {
	if len(rels) == 0 {
		return nil
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		var id int64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM commits WHERE hash = ?`, hash).Scan(&id); err != nil {
			return fmt.Errorf("commit %s: %w", hash, err)
		}
		node := func(n string) (int64, error) {
			var nid int64
			err := tx.QueryRowContext(ctx, `INSERT INTO code_nodes(node) VALUES (?)
				ON CONFLICT(node) DO UPDATE SET node = excluded.node RETURNING id`, n).Scan(&nid)
			return nid, err
		}
		for _, r := range rels {
			from, err := node(r.From)
			if err != nil {
				return err
			}
			to, err := node(r.To)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO code_relations VALUES (?, ?, ?, ?, ?, ?)`,
				from, r.Kind, to, id, !r.Removed, r.Confidence); err != nil {
				return fmt.Errorf("relation at %s: %w", hash, err)
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE commits SET graphed = 0 WHERE id = ?`, id)
		return err
	})
}

// SinceRelate returns the paths that the live commits stored after the
// last relationships pass (relations_state.last_commit, set at the end of
// a sync) made live, and whether one of those commits is a merge. A sync
// killed before its end leaves them to the next, which stores none of
// them again.
func (s *Store) SinceRelate(ctx context.Context) (paths []string, merged bool, err error) {
	const since = `(SELECT last_commit FROM relations_state)`
	err = s.DB.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM commit_parents p JOIN commits c ON c.id = p.commit_id
		WHERE p.commit_id > `+since+` AND p.idx = 1 AND c.rewritten = 0)`).Scan(&merged)
	if err != nil || !merged {
		return nil, merged, err
	}
	paths, err = Strings(ctx, s.DB, `SELECT DISTINCT path FROM file_changes WHERE commit_id > `+since+`
		AND status != ? AND `+notRewritten+` ORDER BY path`, string(model.Deleted))
	return paths, merged, err
}
