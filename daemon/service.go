package daemon

import (
	"context"
	"os"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
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

func (s *service) Remove(ctx context.Context, repo string) error {
	if err := s.CheckRepo(ctx, repo); err != nil {
		return err
	}
	s.d.stopSync(repo)
	err := s.Local.Remove(ctx, repo)
	if err != nil {
		s.d.resume(repo)
		return err
	}
	s.d.forget(repo)
	return nil
}

// cached answers a request from the cache of recent answers.
func cached[Req, Res any](s *service, kind, repo string, req Req, fn func() (Res, error)) (Res, error) {
	key, ok := answerKey(kind, repo, s.d.generation(repo), req)
	if !ok {
		return fn()
	}
	v, err := s.d.answers.get(key, func() (any, error) { return fn() })
	if err != nil {
		var zero Res
		return zero, err
	}
	return v.(Res), nil
}

// Query runs at most searchSlots searches at once: a search is CPU bound,
// and a hundred at once on two cores only make every one of them slow.
func (s *service) Query(ctx context.Context, q api.QueryRequest) (*api.QueryResult, error) {
	return cached(s, "query", q.Repo, q, func() (*api.QueryResult, error) {
		s.d.searchSlots <- struct{}{}
		defer func() { <-s.d.searchSlots }()
		return s.Local.Query(context.WithoutCancel(ctx), q)
	})
}

func (s *service) History(ctx context.Context, q api.HistoryRequest) ([]retrieve.Change, error) {
	return cached(s, "history", q.Repo, q, func() ([]retrieve.Change, error) { return s.Local.History(context.WithoutCancel(ctx), q) })
}

func (s *service) Recent(ctx context.Context, q api.RecentRequest) ([]retrieve.Change, error) {
	return cached(s, "recent", q.Repo, q, func() ([]retrieve.Change, error) { return s.Local.Recent(context.WithoutCancel(ctx), q) })
}

func (s *service) Lookup(ctx context.Context, q api.LookupRequest) (*retrieve.LookupResult, error) {
	return cached(s, "lookup", q.Repo, q, func() (*retrieve.LookupResult, error) { return s.Local.Lookup(context.WithoutCancel(ctx), q) })
}

func (s *service) Entity(ctx context.Context, q api.EntityRequest) (*memory.EntityReport, error) {
	return cached(s, "entity", q.Repo, q, func() (*memory.EntityReport, error) { return s.Local.Entity(context.WithoutCancel(ctx), q) })
}

func sortRepoHealth(hs []api.RepoHealth) {
	slices.SortFunc(hs, func(a, b api.RepoHealth) int { return strings.Compare(a.Name, b.Name) })
}
