package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/retrieve"
)

// history answers gitmemory_history.
func (s *server) history(ctx context.Context, in HistoryInput) (*answer[ChangesOutput], error) {
	budget, err := tokenBudget(in.TokenBudget)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Path) == "" {
		return nil, fmt.Errorf("%w: path is required: a repository-relative file or directory", api.ErrBadRequest)
	}
	if model.NormalizePath(in.Path) == "" && !strings.Contains(in.Path, "..") {
		// ("..", which also normalises to nothing, is the service's to
		// refuse as an escape.)
		return nil, fmt.Errorf("%w: path %q names the repository root: give a file or directory, "+
			"or use gitmemory_recent_changes for the whole repository", api.ErrBadRequest, in.Path)
	}
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	cs, limit, err := s.changes(ctx, repo, in.Path, in.Limit)
	if err != nil {
		return nil, err
	}
	title := fmt.Sprintf("%s: history of %s", repo, in.Path)
	empty := fmt.Sprintf("%s: no indexed commit changed %s\n", repo, in.Path)
	return fitChanges(budget, ChangesOutput{Repository: repo, Path: in.Path}, cs, limit, title, empty)
}

// changes is a path's history, up to limit commits (the service's
// maximum when unset: the budget, not a count, bounds the answer). It
// returns the limit used, so that the answer can say when it was reached.
func (s *server) changes(ctx context.Context, repo, path string, limit int) ([]retrieve.Change, int, error) {
	if limit < 0 || limit > api.MaxLimit {
		return nil, 0, fmt.Errorf("%w: limit %d: want 1 to %d", api.ErrBadRequest, limit, api.MaxLimit)
	}
	if limit == 0 {
		limit = api.MaxLimit
	}
	cs, err := s.svc.History(ctx, api.HistoryRequest{Repo: repo, Path: path, Limit: limit})
	return cs, limit, err
}

// recent answers gitmemory_recent_changes.
func (s *server) recent(ctx context.Context, in RecentInput) (*answer[ChangesOutput], error) {
	budget, err := tokenBudget(in.TokenBudget)
	if err != nil {
		return nil, err
	}
	days := in.Days
	if days == 0 {
		days = 7
	}
	if days < 0 || days > maxDays {
		return nil, fmt.Errorf("%w: days %d: want 1 to %d", api.ErrBadRequest, days, maxDays)
	}
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	cs, err := s.svc.Recent(ctx, api.RecentRequest{Repo: repo, Path: in.Path, Days: days, Limit: api.MaxLimit})
	if err != nil {
		return nil, err
	}
	where := ""
	if in.Path != "" {
		where = " under " + in.Path
	}
	title := fmt.Sprintf("%s: changes%s in the last %s", repo, where, plural(days, "day"))
	empty := fmt.Sprintf("%s: no indexed commit%s in the last %s\n", repo, where, plural(days, "day"))
	return fitChanges(budget, ChangesOutput{Repository: repo, Path: in.Path, Days: days}, cs, api.MaxLimit, title, empty)
}

// fitChanges renders a list of commits, newest first, as many as fit the
// budget.
func fitChanges(budget int, head ChangesOutput, cs []retrieve.Change, limit int, title, empty string) (*answer[ChangesOutput], error) {
	more := len(cs) >= limit
	return fitList(budget, len(cs), func(n int) *answer[ChangesOutput] {
		out := head
		out.Commits, out.Omitted, out.More = make([]Change, n), len(cs)-n, more
		var b strings.Builder
		if len(cs) == 0 {
			b.WriteString(empty)
		} else {
			fmt.Fprintf(&b, "%s: %s, newest first\n", title, plural(len(cs), "commit"))
		}
		for i, c := range cs[:n] {
			out.Commits[i] = changeOf(c)
			changeLine(&b, c)
		}
		leftOut(&b, len(cs)-n, "commit")
		if more {
			fmt.Fprintf(&b, "(the first %d only: older commits may exist)\n", limit)
		}
		return &answer[ChangesOutput]{text: b.String(), out: out}
	})
}
