package daemon

import (
	"context"
	"encoding/json"
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

// cached answers a request from the cache of recent answers. fn runs
// detached from the request (see answers.get).
func cached[Req, Res any](ctx context.Context, s *service, kind, repo string, req Req, fn func(context.Context) (Res, error)) (Res, error) {
	key, ok := answerKey(kind, repo, s.d.generation(repo), req)
	if !ok {
		return fn(ctx)
	}
	v, err := s.d.answers.get(ctx, key, func(ctx context.Context) (any, error) { return fn(ctx) }, encodedSize)
	if err != nil {
		var zero Res
		return zero, err
	}
	return v.(Res), nil
}

// encodedSize is what an answer costs to keep: its JSON's length, which
// tracks the strings it holds (most of its memory).
func encodedSize(v any) int64 {
	b, err := json.Marshal(v)
	if err != nil {
		return 1 << 30 // never kept
	}
	return int64(len(b))
}

// Query runs at most searchSlots searches at once: a search is CPU bound,
// and a hundred at once on two cores only make every one of them slow.
// Waiting for a slot ends with the computation's context.
func (s *service) Query(ctx context.Context, q api.QueryRequest) (*api.QueryResult, error) {
	return cached(ctx, s, "query", q.Repo, q, func(ctx context.Context) (*api.QueryResult, error) {
		select {
		case s.d.searchSlots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-s.d.searchSlots }()
		return s.Local.Query(ctx, q)
	})
}

func (s *service) History(ctx context.Context, q api.HistoryRequest) ([]retrieve.Change, error) {
	return cached(ctx, s, "history", q.Repo, q, func(ctx context.Context) ([]retrieve.Change, error) { return s.Local.History(ctx, q) })
}

func (s *service) Recent(ctx context.Context, q api.RecentRequest) ([]retrieve.Change, error) {
	return cached(ctx, s, "recent", q.Repo, q, func(ctx context.Context) ([]retrieve.Change, error) { return s.Local.Recent(ctx, q) })
}

func (s *service) Lookup(ctx context.Context, q api.LookupRequest) (*retrieve.LookupResult, error) {
	return cached(ctx, s, "lookup", q.Repo, q, func(ctx context.Context) (*retrieve.LookupResult, error) { return s.Local.Lookup(ctx, q) })
}

func (s *service) Entity(ctx context.Context, q api.EntityRequest) (*memory.EntityReport, error) {
	return cached(ctx, s, "entity", q.Repo, q, func(ctx context.Context) (*memory.EntityReport, error) { return s.Local.Entity(ctx, q) })
}

func sortRepoHealth(hs []api.RepoHealth) {
	slices.SortFunc(hs, func(a, b api.RepoHealth) int { return strings.Compare(a.Name, b.Name) })
}
