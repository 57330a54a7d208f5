package memory

import (
	"context"
	"time"

	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// HealthReport is seed 004's startup health check of one repository:
// its totals, the jobs queued and failed, the stale entries and the
// source warnings.
type HealthReport struct {
	Repository string `json:"repository"`
	retrieve.MemoryHealth
	Queued       int       `json:"queued"`
	Failed       int       `json:"failed"`
	GraphPending int       `json:"graph_pending"`
	LastSynced   time.Time `json:"last_synced_at,omitzero"`
	Errors       []string  `json:"errors,omitempty"`
}

// Health runs the startup check of a repository; staleDays is the
// [search] stale_days threshold.
func (h *Home) Health(ctx context.Context, name string, staleDays int) (*HealthReport, error) {
	s, err := h.Status(ctx, name, false)
	if err != nil {
		return nil, err
	}
	r := &HealthReport{Repository: name, Queued: s.Queued, Failed: s.Failed, GraphPending: s.GraphPending,
		LastSynced: s.LastSyncedAt, Errors: s.Errors}
	err = h.read(ctx, name, func(st *store.Store) error {
		m, err := retrieve.CheckMemory(ctx, st.DB, time.Now(), staleDays)
		if m != nil {
			r.MemoryHealth = *m
		}
		return err
	})
	return r, err
}
