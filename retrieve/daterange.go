package retrieve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/store"
)

// DateRange is seed 003's QueryOptions.date_range: results must have
// been committed within it. A zero From or To leaves that side open; To
// is inclusive.
type DateRange struct {
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
}

// ErrBadDateRange: a date range that cannot be read or is reversed.
var ErrBadDateRange = errors.New("bad date range")

// ParseDate reads a date as YYYY-MM-DD (midnight UTC) or RFC 3339.
func ParseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %q is not a date: want YYYY-MM-DD or RFC 3339 (2024-05-01T12:00:00Z)", ErrBadDateRange, s)
	}
	return t, nil
}

// ParseDateRange reads FROM..TO, either side optional ("2024-01-01..",
// "..2024-06-30"). A date-only TO includes that whole day.
func ParseDateRange(s string) (DateRange, error) {
	from, to, ok := strings.Cut(s, "..")
	if !ok || strings.TrimSpace(from)+strings.TrimSpace(to) == "" {
		return DateRange{}, fmt.Errorf("%w: %q: want FROM..TO, either side optional, e.g. 2024-01-01..2024-06-30", ErrBadDateRange, s)
	}
	var r DateRange
	var err error
	if strings.TrimSpace(from) != "" {
		if r.From, err = ParseDate(from); err != nil {
			return r, err
		}
	}
	if strings.TrimSpace(to) != "" {
		if r.To, err = ParseDate(to); err != nil {
			return r, err
		}
		if _, err := time.Parse(time.DateOnly, strings.TrimSpace(to)); err == nil {
			r.To = r.To.Add(24*time.Hour - time.Second)
		}
	}
	return r, r.Check()
}

// Check rejects a reversed range.
func (r DateRange) Check() error {
	if !r.From.IsZero() && !r.To.IsZero() && r.To.Before(r.From) {
		return fmt.Errorf("%w: it ends (%s) before it starts (%s)", ErrBadDateRange, r.To.Format(time.RFC3339), r.From.Format(time.RFC3339))
	}
	return nil
}

// Filter keeps the answer's items committed within the range, and says
// so when none is.
func (r DateRange) Filter(ctx context.Context, db store.Querier, a *Answer) error {
	kept := a.Items[:0]
	for _, it := range a.Items {
		var when int64
		if err := db.QueryRowContext(ctx, `SELECT committer_time FROM commits WHERE hash = ?`, it.Commit).Scan(&when); err != nil {
			return fmt.Errorf("date of %s: %w", it.Commit, err)
		}
		t := time.Unix(when, 0)
		if (r.From.IsZero() || !t.Before(r.From)) && (r.To.IsZero() || !t.After(r.To)) {
			kept = append(kept, it)
		}
	}
	if len(a.Items) > 0 && len(kept) == 0 {
		a.NoMatch = true
		a.Warnings = append(a.Warnings, "no matching commits in the date range")
	}
	a.Items = kept
	return nil
}
