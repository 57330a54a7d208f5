package api

import (
	"context"
	"fmt"

	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

// answer runs a question's search and seed 004's grading: the search
// ranks a pool twice the size asked for (all it may return, under a date
// range, which filters the pool), so that what the grading leaves out is
// replaced and, in the seed's order, Hard results ranked just below the
// cut can still come first.
func answer(ctx context.Context, s *memory.Searcher, q QueryRequest, limit int) (*retrieve.Answer, error) {
	if q.Limit > 0 {
		limit = q.Limit
	}
	limit = min(max(limit, 1), retrieve.MaxResults)
	pool := min(2*limit, retrieve.MaxResults)
	if q.DateRange != nil {
		pool = retrieve.MaxResults
	}
	ans, err := s.Search(ctx, retrieve.Request{Query: q.Query, Intent: q.Intent, Mode: retrieve.Mode(q.Mode), Limit: pool})
	if err != nil {
		return nil, err
	}
	if q.DateRange != nil {
		if err := q.DateRange.Filter(ctx, s.Store.DB, ans); err != nil {
			return nil, err
		}
	}
	if err := retrieve.Grade(ctx, s.Store.DB, ans, retrieve.GradeOptions{Limit: limit, Soft: q.Soft, SeedOrder: q.SeedOrder}); err != nil {
		return nil, err
	}
	if !q.Debug {
		for i := range ans.Items {
			ans.Items[i].Components = nil
		}
	}
	return ans, nil
}

// checkQueryOptions validates seed 003's query options.
func checkQueryOptions(q *QueryRequest) error {
	if w := q.RecencyWeight; w != nil && (*w < 0 || *w > 1 || *w != *w) {
		return fmt.Errorf("%w: recency_weight %g: want 0 to 1", ErrBadRequest, *w)
	}
	if q.DateRange != nil {
		if err := q.DateRange.Check(); err != nil {
			return fmt.Errorf("%w: date_range: %v", ErrBadRequest, err)
		}
	}
	return nil
}
