package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

// maxListedRepos bounds the names an error lists, so that a home with
// hundreds of repositories does not flood the model's context.
const maxListedRepos = 20

// repository returns the repository a call is about: the name given, or
// the only registered one. A name is never resolved as a path, so a
// client can reach nothing outside the registry; the service checks that
// the name is registered and suggests the closest one if not.
func (s *server) repository(ctx context.Context, arg string) (string, error) {
	if arg != "" {
		if err := memory.ValidName(arg); err != nil {
			return "", s.notAName(ctx, arg)
		}
		return arg, nil
	}
	names, err := s.names(ctx)
	if err != nil {
		return "", err
	}
	switch len(names) {
	case 0:
		return "", fmt.Errorf("%w: no repository is registered yet: register one with `gitmemory add PATH`", api.ErrBadRequest)
	case 1:
		return names[0], nil
	}
	return "", fmt.Errorf("%w: %d repositories are registered; name one in the repository argument: %s",
		api.ErrBadRequest, len(names), listNames(names))
}

// notAName explains a repository argument that cannot be a name (a path,
// most likely), with the names that would do.
func (s *server) notAName(ctx context.Context, arg string) error {
	err := fmt.Errorf("%w: repository %q is not a registered repository's name: give a name, not a path",
		api.ErrBadRequest, clip(arg, 80))
	if names, lerr := s.names(ctx); lerr == nil && len(names) > 0 {
		err = fmt.Errorf("%w (registered: %s)", err, listNames(names))
	}
	return err
}

func (s *server) names(ctx context.Context) ([]string, error) {
	rs, err := s.svc.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list repositories: %w", err)
	}
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name
	}
	return names, nil
}

func listNames(names []string) string {
	if len(names) <= maxListedRepos {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListedRepos], ", "), len(names)-maxListedRepos)
}

// callerError reports whether an error is the caller's to fix (a bad
// argument, an unknown name, a budget too small), as opposed to the
// server's. Both reach the client as tool errors; only the server's are
// logged as errors.
func callerError(err error) bool {
	for _, target := range []error{api.ErrBadRequest, memory.ErrUnknownRepo, memory.ErrUnknownEntity,
		memory.ErrBadName, retrieve.ErrBudgetTooSmall, retrieve.ErrBadLookup, retrieve.ErrRootPath,
		retrieve.ErrEmptyLookup, retrieve.ErrEmptyQuery, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
