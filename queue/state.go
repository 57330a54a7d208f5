package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// BranchState is the sync state of one tracked branch: the head that was
// fully processed last.
type BranchState struct {
	Branch    string    `json:"branch"`
	LastHead  string    `json:"last_head"`
	UpdatedAt time.Time `json:"updated_at"`
}

// State returns a branch's sync state; LastHead is empty for a branch that
// was never synced.
func State(ctx context.Context, ex Execer, branch string) (BranchState, error) {
	st := BranchState{Branch: branch}
	var at int64
	err := ex.QueryRowContext(ctx, `SELECT last_head, updated_at FROM sync_state WHERE branch = ?`, branch).Scan(&st.LastHead, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("sync state of %s: %w", branch, err)
	}
	st.UpdatedAt = time.Unix(at, 0)
	return st, nil
}

// SetState records head as the branch's last fully processed head.
func SetState(ctx context.Context, ex Execer, branch, head string, now time.Time) error {
	_, err := ex.ExecContext(ctx, `INSERT INTO sync_state(branch, last_head, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(branch) DO UPDATE SET last_head = excluded.last_head, updated_at = excluded.updated_at`,
		branch, head, now.Unix())
	if err != nil {
		return fmt.Errorf("set sync state of %s: %w", branch, err)
	}
	return nil
}

// DeleteState forgets a branch that is no longer tracked or no longer exists.
func DeleteState(ctx context.Context, ex Execer, branch string) error {
	_, err := ex.ExecContext(ctx, `DELETE FROM sync_state WHERE branch = ?`, branch)
	return err
}

// States lists every branch's sync state, by branch name.
func States(ctx context.Context, db *sql.DB) ([]BranchState, error) {
	rows, err := db.QueryContext(ctx, `SELECT branch, last_head, updated_at FROM sync_state ORDER BY branch`)
	if err != nil {
		return nil, fmt.Errorf("sync states: %w", err)
	}
	defer rows.Close()
	var out []BranchState
	for rows.Next() {
		var st BranchState
		var at int64
		if err := rows.Scan(&st.Branch, &st.LastHead, &at); err != nil {
			return nil, err
		}
		st.UpdatedAt = time.Unix(at, 0)
		out = append(out, st)
	}
	return out, rows.Err()
}
