package retrieve

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// originPoints are the points of an entity's origin in an answer to how
// the entity evolved: the story starts where it was written.
const originPoints = 2

// maxMoves bounds the walk back through an entity's moves and renames.
const maxMoves = 20

// origins marks, for each entity the question names, the commit that
// first wrote it: the walk follows the entity back through the moves and
// renames that replaced it (a function moved from helpers.py to
// termui.py began in helpers.py) to its first introduction.
func (s *Searcher) origins(ctx context.Context, cs *candSet, entities []string) error {
	for _, key := range entities {
		hash, err := s.origin(ctx, key)
		if err != nil {
			return err
		}
		if hash == "" {
			continue
		}
		c := cs.get(hash)
		c.origin = true
		c.relation = max(c.relation, 1)
		c.why = append(c.why, "origin of "+key)
	}
	return nil
}

// origin returns the hash of the commit that first introduced the entity
// key or what it replaced, or "" when the store does not know it.
func (s *Searcher) origin(ctx context.Context, key string) (string, error) {
	var id int64
	err := s.st.DB.QueryRowContext(ctx, `SELECT id FROM entities WHERE key = ?`, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("origin of %s: %w", key, err)
	}
	seen := map[int64]bool{}
	for range maxMoves {
		seen[id] = true
		var prev int64
		err := s.st.DB.QueryRowContext(ctx, `SELECT x.replaces FROM entity_changes x JOIN commits c ON c.id = x.commit_id
			WHERE x.entity_id = ? AND x.action = 'introduces' ORDER BY c.committer_time, c.id LIMIT 1`, id).Scan(&prev)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return "", fmt.Errorf("origin of %s: %w", key, err)
		}
		if prev == 0 || seen[prev] {
			break
		}
		id = prev
	}
	var hash string
	err = s.st.DB.QueryRowContext(ctx, `SELECT c.hash FROM entity_changes x JOIN commits c ON c.id = x.commit_id
		WHERE x.entity_id = ? AND x.action = 'introduces' ORDER BY c.committer_time, c.id LIMIT 1`, id).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("origin of %s: %w", key, err)
	}
	return hash, nil
}
