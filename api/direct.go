package api

import (
	"context"
	"net/http"
	"net/url"

	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

// Direct is what gitmemory answers beyond questions: seed 004's health
// check of a repository's memory.
type Direct interface {
	RepoHealth(ctx context.Context, repo string) (*memory.HealthReport, error)
}

// RepoHealth runs seed 004's startup check of a repository in this
// process.
func (l *Local) RepoHealth(ctx context.Context, repo string) (*memory.HealthReport, error) {
	if err := l.CheckRepo(ctx, repo); err != nil {
		return nil, err
	}
	opts, err := retrieve.LoadSearchConfig(l.configPath())
	if err != nil {
		return nil, err
	}
	return l.Home.Health(ctx, repo, opts.StaleDays)
}

// RepoHealth asks the daemon for a repository's health check.
func (c *Client) RepoHealth(ctx context.Context, repo string) (*memory.HealthReport, error) {
	var r memory.HealthReport
	return &r, c.do(ctx, http.MethodGet, "/v1/repositories/"+url.PathEscape(repo)+"/health", nil, &r)
}

// directRoutes are the handlers of Direct on the daemon's HTTP API.
func (s *server) directRoutes(mux *http.ServeMux) {
	mux.Handle("GET /v1/repositories/{name}/health", s.guard(noBody, func(w http.ResponseWriter, r *http.Request) error {
		res, err := s.svc.RepoHealth(r.Context(), r.PathValue("name"))
		return reply(w, res, err)
	}))
}
