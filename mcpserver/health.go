package mcpserver

import (
	"context"
	"fmt"

	"github.com/gitmemory/gitmemory/memory"
)

// HealthInput names the repository to check.
type HealthInput struct {
	Repository string `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
}

var healthTool = toolDef{
	name:  "gitmemory_health",
	title: "Health of a repository's memory",
	description: `The startup health check: how many commits are indexed and how many state a reason (Hard entries), ` +
		`commits queued or failed in indexing, stale entries (Hard entries older than 90 days whose lines are mostly ` +
		`rewritten since) and source warnings (Hard entries whose files are gone). Run it at the start of a session ` +
		`to know how far the memory can be trusted.`,
}

// health answers gitmemory_health.
func (s *server) health(ctx context.Context, in HealthInput) (*answer[memory.HealthReport], error) {
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	r, err := s.svc.RepoHealth(ctx, repo)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("%s: %d entries (%d Hard), %d queued, %d failed, %d stale (of %d checked, older than %d days), %d source warnings\n",
		repo, r.Entries, r.HardEntries, r.Queued, r.Failed, r.Stale, r.StaleChecked, r.StaleDays, r.SourceWarnings)
	return &answer[memory.HealthReport]{text: text, out: *r}, nil
}
