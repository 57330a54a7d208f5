package daemon

import (
	"context"
	"os"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/indexer"
)

// service is the daemon's api.Service: the stores it holds, answered in
// process, with syncs going through the loop so that they never run twice
// at once and a burst of requests is one run.
type service struct {
	*api.Local
	d *Daemon
}

func (s *service) Health(ctx context.Context) (*api.Health, error) {
	return &api.Health{Status: "ok", Daemon: true, PID: os.Getpid(), Started: s.d.started, Home: s.d.home.Dir,
		Repositories: s.d.status()}, nil
}

func (s *service) Sync(ctx context.Context, repo string) (*indexer.Result, error) {
	if err := s.CheckRepo(ctx, repo); err != nil {
		return nil, err // validates the name and says "did you mean"
	}
	return s.d.request(ctx, repo)
}

func sortRepoHealth(hs []api.RepoHealth) {
	slices.SortFunc(hs, func(a, b api.RepoHealth) int { return strings.Compare(a.Name, b.Name) })
}
