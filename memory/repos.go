package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// Repository is a registered repository and its sync configuration.
type Repository struct {
	Name          string             `json:"name"`
	Path          string             `json:"path"`
	RemoteURL     string             `json:"remote_url,omitempty"`
	DefaultBranch string             `json:"default_branch"`
	BranchMode    indexer.BranchMode `json:"branch_mode"`
	Branches      []string           `json:"branches,omitempty"`
	KeepDays      int                `json:"keep_days,omitempty"`
	KeepCommits   int                `json:"keep_commits,omitempty"`
	// Graph is the knowledge graph's address: "" for the embedded bolt
	// store in the data directory, or a postgres:// DSN.
	Graph        string    `json:"graph,omitempty"`
	Bare         bool      `json:"bare"`
	Shallow      bool      `json:"shallow"`
	CreatedAt    time.Time `json:"created_at"`
	LastSyncedAt time.Time `json:"last_synced_at,omitzero"`
	// Languages are the head's files by language (seed 003), most first;
	// filled by List and Status only, since they read every file change.
	Languages []retrieve.LanguageCount `json:"languages,omitempty"`
}

// Policy is the part of a repository's configuration a user sets: which
// branches to track and what to retain. Nil fields leave a setting as is.
type Policy struct {
	Mode        *indexer.BranchMode
	Branches    []string
	KeepDays    *int
	KeepCommits *int
	Graph       *string
}

// AddOptions configure Add.
type AddOptions struct {
	Name   string
	Policy Policy
}

// repoRoot returns the absolute path of the repository containing p.
func repoRoot(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	r, err := extract.Open(abs, extract.Options{CacheBytes: 1 << 20})
	if err != nil {
		return "", err
	}
	defer r.Close()
	return r.Root(), nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// defaultName derives a name from the repository's directory.
func defaultName(root string) string {
	base := strings.TrimSuffix(filepath.Base(root), ".git")
	name := strings.Trim(unsafeChars.ReplaceAllString(base, "-"), "-.")
	if name == "" {
		return "repo"
	}
	return name
}

// Add registers the repository containing path. An empty repository can be
// added; it is indexed once it has commits.
func (h *Home) Add(ctx context.Context, path string, opts AddOptions) (*Repository, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	r, err := extract.Open(abs, extract.Options{CacheBytes: 1 << 20})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	root := r.Root()
	name := opts.Name
	if name == "" {
		name = defaultName(root)
	}
	if err := ValidName(name); err != nil {
		return nil, err
	}
	existing, err := h.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range existing {
		if e.Path == root {
			return nil, fmt.Errorf("%s is %w as %q", root, ErrExists, e.Name)
		}
		if e.Name == name {
			return nil, fmt.Errorf("name %q is %w for %s: register this one under another name with 'gitmemory add %s --name NAME'", name, ErrExists, e.Path, root)
		}
	}
	branch, err := r.DefaultBranch()
	if err != nil && !errors.Is(err, extract.ErrEmpty) {
		return nil, err
	}
	repo := &Repository{Name: name, Path: root, RemoteURL: r.RemoteURL(), DefaultBranch: branch,
		BranchMode: indexer.DefaultBranch, Bare: r.IsBare(), Shallow: r.IsShallow(), CreatedAt: time.Now().UTC().Truncate(time.Second)}
	applyPolicy(repo, opts.Policy)
	if err := validatePolicy(repo); err != nil {
		return nil, err
	}
	dir := h.DataDir(name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	err = h.withStore(ctx, name, func(st *store.Store) error { return saveRepository(ctx, st.DB, repo, true) })
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return repo, nil
}

func applyPolicy(r *Repository, p Policy) {
	if p.Mode != nil {
		r.BranchMode = *p.Mode
		r.Branches = nil
	}
	if len(p.Branches) > 0 {
		r.BranchMode, r.Branches = indexer.ListedBranch, p.Branches
	}
	if p.KeepDays != nil {
		r.KeepDays = *p.KeepDays
	}
	if p.KeepCommits != nil {
		r.KeepCommits = *p.KeepCommits
	}
	if p.Graph != nil {
		r.Graph = *p.Graph
		if dsn, err := graph.RepositoryDSN(r.Graph, r.Name); r.Graph != "" && err == nil {
			r.Graph = dsn // a schema of its own: the database may be shared
		}
	}
}

func validatePolicy(r *Repository) error {
	if r.KeepDays < 0 || r.KeepCommits < 0 {
		return fmt.Errorf("retention must be zero (keep all) or positive")
	}
	if r.Graph != "" && !strings.HasPrefix(r.Graph, "postgres://") && !strings.HasPrefix(r.Graph, "postgresql://") {
		return fmt.Errorf("graph %q: want a postgres:// DSN, or empty for the embedded store", r.Graph)
	}
	for _, b := range r.Branches {
		if b == "" || strings.ContainsAny(b, " \t\n,") {
			return fmt.Errorf("invalid branch name %q", b)
		}
	}
	return nil
}

// withStore takes the writer lock of a repository's data directory and
// opens its store for fn.
func (h *Home) withStore(ctx context.Context, name string, fn func(*store.Store) error) error {
	if hd := h.holding(name); hd != nil {
		hd.syncMu.Lock()
		defer hd.syncMu.Unlock()
		return fn(hd.st)
	}
	dir := h.DataDir(name)
	lock, err := store.AcquireLock(dir)
	if err != nil {
		return err
	}
	defer lock.Release()
	st, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	return errors.Join(fn(st), st.Close())
}

func saveRepository(ctx context.Context, db *sql.DB, r *Repository, insert bool) error {
	q := `UPDATE repository SET name=?1, path=?2, remote_url=?3, default_branch=?4, branch_mode=?5, branches=?6,
		keep_days=?7, keep_commits=?8, bare=?9, shallow=?10, graph=?12 WHERE id = 1`
	if insert {
		q = `INSERT INTO repository(id, name, path, remote_url, default_branch, branch_mode, branches, keep_days,
			keep_commits, bare, shallow, created_at, graph) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)`
	}
	_, err := db.ExecContext(ctx, q, r.Name, r.Path, r.RemoteURL, r.DefaultBranch, string(r.BranchMode),
		strings.Join(r.Branches, ","), r.KeepDays, r.KeepCommits, r.Bare, r.Shallow, r.CreatedAt.Unix(), r.Graph)
	if err != nil {
		return fmt.Errorf("save repository %s: %w", r.Name, err)
	}
	return nil
}

func loadRepository(ctx context.Context, db *sql.DB) (*Repository, error) {
	var r Repository
	var mode, branches string
	var created, synced int64
	err := db.QueryRowContext(ctx, `SELECT name, path, remote_url, default_branch, branch_mode, branches, keep_days,
		keep_commits, bare, shallow, created_at, last_synced_at, graph FROM repository WHERE id = 1`).Scan(&r.Name, &r.Path,
		&r.RemoteURL, &r.DefaultBranch, &mode, &branches, &r.KeepDays, &r.KeepCommits, &r.Bare, &r.Shallow, &created, &synced,
		&r.Graph)
	if err != nil {
		return nil, fmt.Errorf("load repository: %w", err)
	}
	r.BranchMode = indexer.BranchMode(mode)
	if branches != "" {
		r.Branches = strings.Split(branches, ",")
	}
	r.CreatedAt = time.Unix(created, 0).UTC()
	if synced > 0 {
		r.LastSyncedAt = time.Unix(synced, 0).UTC()
	}
	return &r, nil
}

// List returns every registered repository, by name. It reads without the
// writer lock (WAL readers never block on a writer).
func (h *Home) List(ctx context.Context) ([]Repository, error) {
	names, err := h.names()
	if err != nil {
		return nil, err
	}
	var out []Repository
	var broken error
	for _, n := range names {
		r, err := h.Get(ctx, n)
		if err != nil {
			// One damaged store must not hide the others: list them and
			// say which could not be read.
			broken = errors.Join(broken, fmt.Errorf("repository %s: %w", n, err))
			continue
		}
		if r.Languages, err = h.languages(ctx, n); err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	return out, broken
}

// languages counts a repository's files at the head by language.
func (h *Home) languages(ctx context.Context, name string) ([]retrieve.LanguageCount, error) {
	var out []retrieve.LanguageCount
	err := h.read(ctx, name, func(st *store.Store) (err error) {
		out, err = retrieve.Languages(ctx, st.DB)
		return err
	})
	return out, err
}

// Get loads one repository's registration.
func (h *Home) Get(ctx context.Context, name string) (*Repository, error) {
	var r *Repository
	err := h.read(ctx, name, func(st *store.Store) error {
		var err error
		r, err = loadRepository(ctx, st.DB)
		return err
	})
	return r, err
}

// ReadStore runs fn on a repository's metadata store, opened for reading
// (or the one this process holds).
func (h *Home) ReadStore(ctx context.Context, name string, fn func(*store.Store) error) error {
	return h.read(ctx, name, fn)
}

// read opens a repository's store for reading, without the writer lock.
func (h *Home) read(ctx context.Context, name string, fn func(*store.Store) error) error {
	if err := ValidName(name); err != nil {
		return err
	}
	if hd := h.holding(name); hd != nil {
		return fn(hd.st)
	}
	if err := h.registered(name); err != nil {
		return err
	}
	if err := checkStoreFile(h.DataDir(name)); err != nil {
		return err
	}
	st, err := store.Open(ctx, h.DataDir(name))
	if err != nil {
		return err
	}
	return errors.Join(fn(st), st.Close())
}

// sqliteMagic opens every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// checkStoreFile refuses a metadata file that is not a SQLite database (a
// truncated or overwritten one) before it is opened: opening would run
// the migrations and silently replace it with an empty store, though the
// command only reads.
func checkStoreFile(dir string) error {
	path := filepath.Join(dir, store.DBFile)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	if n, _ := io.ReadFull(f, head); n < len(head) || string(head) != sqliteMagic {
		return fmt.Errorf("%s is not a gitmemory store (truncated or overwritten: %d bytes read): remove the repository and sync it again", path, n)
	}
	return nil
}

// registered reports, from the file system alone, whether name has a
// store; opening one that does not exist would create it.
func (h *Home) registered(name string) error {
	if _, err := os.Stat(filepath.Join(h.DataDir(name), store.DBFile)); err != nil {
		names, _ := h.names()
		return unknown(name, names)
	}
	return nil
}

// Remove deletes a repository's registration and every byte of its data.
func (h *Home) Remove(ctx context.Context, name string) error {
	// Registered is enough: a store too damaged to open must still be
	// removable.
	if err := ValidName(name); err != nil {
		return err
	}
	if err := h.registered(name); err != nil {
		return err
	}
	h.holdMu.Lock()
	defer h.holdMu.Unlock()
	if err := h.releaseLocked(name); err != nil {
		return err
	}
	dir := h.DataDir(name)
	lock, err := store.AcquireLock(dir)
	if err != nil {
		return err
	}
	// Remove while holding the lock, so no writer starts in between.
	err = os.RemoveAll(dir)
	return errors.Join(err, lock.Release())
}
