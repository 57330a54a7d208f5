package llm

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Cache keeps the summaries a model wrote, by commit hash and model name.
type Cache interface {
	// Get returns the summary of hash by model; ok is false when there is none.
	Get(ctx context.Context, hash, model string) (summary string, ok bool, err error)
	// Put stores a summary, replacing any earlier one.
	Put(ctx context.Context, hash, model, summary string) error
}

// SQLCache is a Cache over the metadata store's llm_summaries table
// (store migration 4).
type SQLCache struct {
	db *sql.DB
}

// NewSQLCache returns a cache over db, a metadata store's database
// (store.Store.DB).
func NewSQLCache(db *sql.DB) *SQLCache { return &SQLCache{db: db} }

// Get implements Cache.
func (c *SQLCache) Get(ctx context.Context, hash, model string) (string, bool, error) {
	var s string
	err := c.db.QueryRowContext(ctx,
		`SELECT summary FROM llm_summaries WHERE hash = ? AND model = ?`, hash, model).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read llm summary %s: %w", hash, err)
	}
	return s, true, nil
}

// Put implements Cache.
func (c *SQLCache) Put(ctx context.Context, hash, model, summary string) error {
	_, err := c.db.ExecContext(ctx, `INSERT INTO llm_summaries (hash, model, summary) VALUES (?, ?, ?)
		ON CONFLICT (hash, model) DO UPDATE SET summary = excluded.summary`, hash, model, summary)
	if err != nil {
		return fmt.Errorf("write llm summary %s: %w", hash, err)
	}
	return nil
}
