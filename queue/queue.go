// Package queue is gitmemory's persisted processing queue and per-branch
// sync state (seed 003, "Processing Queue" and "Sync Strategy"). Both live
// in the repository's metadata database, so enqueuing, completing a batch
// and advancing the sync state commit atomically with the data they track.
package queue

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Status values of a queue item.
const (
	Pending = "pending" // waiting to be processed
	Failed  = "failed"  // failed, retried after next_attempt_at
	Dead    = "dead"    // failed MaxAttempts times; retried only on request (RetryAll)
)

// Item is one queued commit.
type Item struct {
	Hash       string
	Branch     string
	Priority   int
	Attempts   int
	LastError  string
	EnqueuedAt time.Time
}

// Counts is the number of queue items in each status.
type Counts struct {
	Pending int `json:"pending"`
	Failed  int `json:"failed"`
	Dead    int `json:"dead"`
}

// Queue is the processing queue of one repository's database.
type Queue struct {
	db *sql.DB
	// Now and Jitter are replaceable for tests.
	Now    func() time.Time
	Jitter func(time.Duration) time.Duration
	// MaxAttempts is how many failures make an item dead.
	MaxAttempts int
}

// New returns the queue stored in db (migrated by package store).
func New(db *sql.DB) *Queue {
	return &Queue{db: db, Now: time.Now, MaxAttempts: 5,
		Jitter: func(d time.Duration) time.Duration { return d/2 + rand.N(d/2+1) }}
}

// Execer runs statements; *sql.DB and *sql.Tx satisfy it.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Enqueue adds commits in the given order (oldest first) with a priority;
// higher priorities are dequeued first, equal ones in enqueue order. A
// commit already queued keeps its place, attempts and error.
func (q *Queue) Enqueue(ctx context.Context, ex Execer, hashes []string, branch string, priority int) error {
	var seq int64
	if err := ex.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM queue`).Scan(&seq); err != nil {
		return fmt.Errorf("enqueue: %w", err)
	}
	now := q.Now().Unix()
	for _, h := range hashes {
		seq++
		_, err := ex.ExecContext(ctx, `INSERT OR IGNORE INTO queue(commit_hash, branch, priority, seq, enqueued_at)
			VALUES (?, ?, ?, ?, ?)`, h, branch, priority, seq, now)
		if err != nil {
			return fmt.Errorf("enqueue %s: %w", h, err)
		}
	}
	return nil
}

// Dequeue returns up to n items ready for processing: pending ones, and
// failed ones whose backoff has passed. Items stay in the queue until
// Complete removes them in the transaction that stores their result, so a
// crash between the two only means the item is processed again.
func (q *Queue) Dequeue(ctx context.Context, n int) ([]Item, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT commit_hash, branch, priority, attempts, last_error, enqueued_at
		FROM queue WHERE status = ? OR (status = ? AND next_attempt_at <= ?)
		ORDER BY priority DESC, seq LIMIT ?`, Pending, Failed, q.Now().Unix(), n)
	if err != nil {
		return nil, fmt.Errorf("dequeue: %w", err)
	}
	defer rows.Close()
	var items []Item
	for rows.Next() {
		var it Item
		var at int64
		if err := rows.Scan(&it.Hash, &it.Branch, &it.Priority, &it.Attempts, &it.LastError, &at); err != nil {
			return nil, fmt.Errorf("dequeue: %w", err)
		}
		it.EnqueuedAt = time.Unix(at, 0)
		items = append(items, it)
	}
	return items, rows.Err()
}

// Complete removes a processed item; call it in the transaction that
// stores the item's result.
func (q *Queue) Complete(ctx context.Context, ex Execer, hash string) error {
	if _, err := ex.ExecContext(ctx, `DELETE FROM queue WHERE commit_hash = ?`, hash); err != nil {
		return fmt.Errorf("complete %s: %w", hash, err)
	}
	return nil
}

// Fail records a failed attempt: the item is retried after an exponential
// backoff with jitter, or becomes dead after MaxAttempts.
func (q *Queue) Fail(ctx context.Context, hash string, cause error) error {
	var attempts int
	if err := q.db.QueryRowContext(ctx, `SELECT attempts FROM queue WHERE commit_hash = ?`, hash).Scan(&attempts); err != nil {
		return fmt.Errorf("fail %s: %w", hash, err)
	}
	attempts++
	status, next := Failed, q.Now().Add(q.Backoff(attempts)).Unix()
	if attempts >= q.MaxAttempts {
		status, next = Dead, 0
	}
	msg := cause.Error()
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	_, err := q.db.ExecContext(ctx, `UPDATE queue SET status = ?, attempts = ?, last_error = ?, next_attempt_at = ?
		WHERE commit_hash = ?`, status, attempts, strings.ToValidUTF8(msg, "?"), next, hash)
	if err != nil {
		return fmt.Errorf("fail %s: %w", hash, err)
	}
	return nil
}

// Backoff is the wait before retry number attempts: 30 s doubling up to
// an hour, with jitter so that many failures do not retry in lockstep.
func (q *Queue) Backoff(attempts int) time.Duration {
	d := 30 * time.Second << min(max(attempts-1, 0), 7)
	return q.Jitter(min(d, time.Hour))
}

// Retry makes an item ready now, keeping its attempt count.
func (q *Queue) Retry(ctx context.Context, hash string) error {
	res, err := q.db.ExecContext(ctx, `UPDATE queue SET status = ?, next_attempt_at = 0 WHERE commit_hash = ?`, Pending, hash)
	if err != nil {
		return fmt.Errorf("retry %s: %w", hash, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("retry %s: not queued", hash)
	}
	return nil
}

// RetryAll makes every failed and dead item ready now.
func (q *Queue) RetryAll(ctx context.Context) (int, error) {
	res, err := q.db.ExecContext(ctx, `UPDATE queue SET status = ?, next_attempt_at = 0 WHERE status != ?`, Pending, Pending)
	if err != nil {
		return 0, fmt.Errorf("retry all: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// Counts reports how many items are in each status.
func (q *Queue) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	rows, err := q.db.QueryContext(ctx, `SELECT status, COUNT(*) FROM queue GROUP BY status`)
	if err != nil {
		return c, fmt.Errorf("queue counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return c, err
		}
		switch s {
		case Pending:
			c.Pending = n
		case Failed:
			c.Failed = n
		case Dead:
			c.Dead = n
		}
	}
	return c, rows.Err()
}

// Errors lists the failed and dead items with their last error, in queue
// order, at most n.
func (q *Queue) Errors(ctx context.Context, n int) ([]Item, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT commit_hash, branch, priority, attempts, last_error, enqueued_at
		FROM queue WHERE status != ? ORDER BY seq LIMIT ?`, Pending, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var items []Item
	for rows.Next() {
		var it Item
		var at int64
		if err := rows.Scan(&it.Hash, &it.Branch, &it.Priority, &it.Attempts, &it.LastError, &at); err != nil {
			return nil, err
		}
		it.EnqueuedAt = time.Unix(at, 0)
		items = append(items, it)
	}
	return items, rows.Err()
}
