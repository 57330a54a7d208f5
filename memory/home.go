// Package memory is the facade that the CLI, the daemon and the MCP server
// share: it keeps the registry of repositories under a home directory (one
// data directory per repository, DESIGN.md decision 2) and opens, syncs,
// inspects and removes them.
package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"

	"github.com/gitmemory/gitmemory/store"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrUnknownRepo: no registered repository has that name or path.
	ErrUnknownRepo = errors.New("unknown repository")
	// ErrExists: the name or path is already registered.
	ErrExists = errors.New("already registered")
	// ErrBadName: a repository name must be a safe directory name.
	ErrBadName = errors.New("invalid repository name")
)

// Home is a gitmemory home directory holding repos/<name>/ data dirs.
type Home struct {
	Dir string

	// holdMu serialises Hold, Release and Remove; mu guards held.
	holdMu sync.Mutex
	mu     sync.Mutex
	held   map[string]*held // see Hold
	vecs   *sharedVectors   // see ShareVectors
}

// DefaultDir is $GITMEMORY_HOME, else $XDG_DATA_HOME/gitmemory, else
// ~/.local/share/gitmemory.
func DefaultDir() string {
	if d := os.Getenv("GITMEMORY_HOME"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "gitmemory")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "gitmemory")
	}
	return ".gitmemory"
}

// OpenHome opens (creating) a home directory.
func OpenHome(dir string) (*Home, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("home %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(abs, "repos"), 0o700); err != nil {
		return nil, fmt.Errorf("create home %s: %w", abs, err)
	}
	return &Home{Dir: abs}, nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// ValidName reports whether name can be a repository name: it becomes a
// directory name, so nothing that could escape the home is allowed.
func ValidName(name string) error {
	if !nameRE.MatchString(name) || strings.Contains(name, "..") {
		return fmt.Errorf("%w %q: use letters, digits, '.', '_' and '-' (at most 100), starting with a letter or digit", ErrBadName, name)
	}
	return nil
}

// DataDir is the data directory of a repository name.
func (h *Home) DataDir(name string) string { return filepath.Join(h.Dir, "repos", name) }

// Names lists the registered repositories' names, sorted, reading only
// the home's directory (List opens every store).
func (h *Home) Names() ([]string, error) { return h.names() }

// names lists registered repository names (directories holding a store).
func (h *Home) names() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(h.Dir, "repos"))
	if err != nil {
		return nil, fmt.Errorf("list repositories: %w", err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || ValidName(e.Name()) != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(h.DataDir(e.Name()), store.DBFile)); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Resolve turns a name or a path into a registered repository's name.
func (h *Home) Resolve(ctx context.Context, arg string) (string, error) {
	names, err := h.names()
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if n == arg {
			return n, nil
		}
	}
	if abs, err := repoRoot(arg); err == nil {
		repos, _ := h.List(ctx) // a damaged store cannot match by path; the others still can
		for _, r := range repos {
			if r.Path == abs {
				return r.Name, nil
			}
		}
	}
	return "", unknown(arg, names)
}

func unknown(arg string, names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("%w %q: nothing is registered yet (gitmemory add PATH)", ErrUnknownRepo, arg)
	}
	best, bestD := "", 1<<30
	for _, n := range names {
		if d := levenshtein.ComputeDistance(strings.ToLower(arg), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if bestD <= max(2, len(arg)/3) {
		return fmt.Errorf("%w %q: did you mean %q? (gitmemory list shows all)", ErrUnknownRepo, arg, best)
	}
	return fmt.Errorf("%w %q: registered are %s", ErrUnknownRepo, arg, strings.Join(names, ", "))
}
