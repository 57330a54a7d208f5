package api

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// ConfigFile is the configuration file's name in the gitmemory home.
const ConfigFile = "config.toml"

// Local answers from the stores of a home, in this process.
type Local struct {
	Home *memory.Home
}

// NewLocal returns the Service of a home opened in this process.
func NewLocal(h *memory.Home) *Local { return &Local{Home: h} }

func (l *Local) configPath() string { return filepath.Join(l.Home.Dir, ConfigFile) }

// Health reports this process.
func (l *Local) Health(ctx context.Context) (*Health, error) {
	return &Health{Status: "ok", PID: os.Getpid(), Home: l.Home.Dir}, nil
}

// List returns the registered repositories.
func (l *Local) List(ctx context.Context) ([]memory.Repository, error) {
	rs, err := l.Home.List(ctx)
	if rs == nil && err == nil {
		rs = []memory.Repository{}
	}
	return rs, err
}

// Status reports one repository's index.
func (l *Local) Status(ctx context.Context, repo string, verify bool) (*memory.Status, error) {
	if err := l.CheckRepo(ctx, repo); err != nil {
		return nil, err
	}
	return l.Home.Status(ctx, repo, verify)
}

// Sync brings a repository up to date in this process.
func (l *Local) Sync(ctx context.Context, repo string) (*indexer.Result, error) {
	if err := l.CheckRepo(ctx, repo); err != nil {
		return nil, err
	}
	return l.Home.Sync(ctx, repo, memory.SyncOptions{})
}

// Remove deletes a repository's registration and data.
func (l *Local) Remove(ctx context.Context, repo string) error {
	if err := l.CheckRepo(ctx, repo); err != nil {
		return err
	}
	return l.Home.Remove(ctx, repo)
}

// Query answers a question with ranked commits and a Context Pack.
func (l *Local) Query(ctx context.Context, q QueryRequest) (*QueryResult, error) {
	if err := l.checkQuery(ctx, &q); err != nil {
		return nil, err
	}
	opts, err := retrieve.LoadSearchConfig(l.configPath())
	if err != nil {
		return nil, err
	}
	opts.IncludeRewritten = q.IncludeRewritten
	s, err := l.Home.OpenSearcher(ctx, q.Repo, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ans, err := s.Search(ctx, retrieve.Request{Query: q.Query, Intent: q.Intent, Mode: retrieve.Mode(q.Mode), Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	if !q.Debug {
		for i := range ans.Items {
			ans.Items[i].Components = nil
		}
	}
	res := &QueryResult{Repository: q.Repo, Answer: ans}
	if q.AnswerOnly {
		return res, nil
	}
	res.Pack, err = retrieve.BuildPack(ctx, s.Store, PackInput(q.Repo, ans), retrieve.PackOptions{
		Tokens: q.Tokens, Format: q.Format, IncludeRewritten: q.IncludeRewritten})
	if err != nil {
		return nil, err
	}
	text, err := retrieve.Render(res.Pack, q.Format)
	if err != nil {
		return nil, err
	}
	res.Text = string(text)
	return res, nil
}

// PackInput hands a search's answer to the pack builder.
func PackInput(repo string, a *retrieve.Answer) retrieve.PackInput {
	warnings := slices.Clone(a.Warnings)
	if len(a.Suggestions) > 0 {
		warnings = append(warnings, "try: "+strings.Join(a.Suggestions, ", "))
	}
	return retrieve.PackInput{Query: a.Query, Repository: repo, Intent: a.Intent, Mode: a.Mode, Degraded: a.Degraded,
		Warnings: warnings, Items: a.Items, Entities: a.Entities, Files: a.Files, Clarify: a.Clarify}
}

// History returns the commits that changed a path, newest (or, with Key,
// most important) first.
func (l *Local) History(ctx context.Context, q HistoryRequest) ([]retrieve.Change, error) {
	if err := l.checkPathQuery(ctx, q.Repo, q.Path, q.Limit); err != nil {
		return nil, err
	}
	hq := retrieve.HistoryQuery{Path: q.Path, Since: q.Since, Limit: q.Limit, Merges: q.Merges}
	history := l.Home.History
	if q.Key {
		history = l.Home.KeyHistory
	}
	return nonNil(history(ctx, q.Repo, hq))
}

// Recent returns the commits of the last days, under a path if given.
func (l *Local) Recent(ctx context.Context, q RecentRequest) ([]retrieve.Change, error) {
	if err := l.checkPathQuery(ctx, q.Repo, q.Path, q.Limit); err != nil {
		return nil, err
	}
	if q.Days < 0 || q.Days > maxDays {
		return nil, fmt.Errorf("%w: days %d: want a positive number of days, at most %d", ErrBadRequest, q.Days, maxDays)
	}
	if q.Days == 0 {
		q.Days = 7
	}
	return nonNil(l.Home.Recent(ctx, q.Repo, retrieve.RecentQuery{Path: q.Path, Days: q.Days, Limit: q.Limit}))
}

// Lookup finds the recent records related to a candidate change.
func (l *Local) Lookup(ctx context.Context, q LookupRequest) (*retrieve.LookupResult, error) {
	if err := l.CheckRepo(ctx, q.Repo); err != nil {
		return nil, err
	}
	if len(q.Paths) == 0 && len(q.Fingerprints) == 0 {
		return nil, fmt.Errorf("%w: nothing to look up: give paths or fingerprints", ErrBadRequest)
	}
	if len(q.Paths)+len(q.Fingerprints) > MaxPaths {
		return nil, fmt.Errorf("%w: %d paths and fingerprints: at most %d", ErrBadRequest, len(q.Paths)+len(q.Fingerprints), MaxPaths)
	}
	for _, p := range append(slices.Clone(q.Paths), q.Fingerprints...) {
		if err := checkPath(p); err != nil {
			return nil, err
		}
	}
	if err := checkLimit(q.Limit); err != nil {
		return nil, err
	}
	cfg, err := retrieve.LoadLookupConfig(l.configPath())
	if err != nil {
		return nil, err
	}
	var res *retrieve.LookupResult
	err = l.Home.ReadStore(ctx, q.Repo, func(st *store.Store) error {
		lk := retrieve.NewLookup(st, cfg, nil)
		defer lk.Close()
		res, err = lk.Run(ctx, retrieve.LookupQuery{Paths: q.Paths, Fingerprints: q.Fingerprints, Head: q.Head,
			Days: q.Days, Limit: q.Limit})
		return err
	})
	return res, err
}

// Entity reports an entity's history and relations.
func (l *Local) Entity(ctx context.Context, q EntityRequest) (*memory.EntityReport, error) {
	if err := l.CheckRepo(ctx, q.Repo); err != nil {
		return nil, err
	}
	if q.Name == "" || len(q.Name) > MaxPathBytes || !utf8.ValidString(q.Name) {
		return nil, fmt.Errorf("%w: an entity name of 1 to %d bytes of UTF-8 is required", ErrBadRequest, MaxPathBytes)
	}
	if err := checkLimit(q.Limit); err != nil {
		return nil, err
	}
	return l.Home.Entity(ctx, q.Repo, q.Name, memory.EntityOptions{Kind: q.Kind, Limit: q.Limit})
}

// CheckRepo admits only the name of a registered repository: never a
// path, so a request cannot open anything outside the registry.
func (l *Local) CheckRepo(ctx context.Context, repo string) error {
	if repo == "" {
		return fmt.Errorf("%w: a repository name is required", ErrBadRequest)
	}
	if err := memory.ValidName(repo); err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	_, err := l.Home.Get(ctx, repo)
	return err
}

// checkPathQuery validates what history and recent share.
func (l *Local) checkPathQuery(ctx context.Context, repo, path string, limit int) error {
	if err := l.CheckRepo(ctx, repo); err != nil {
		return err
	}
	if err := checkPath(path); err != nil {
		return err
	}
	return checkLimit(limit)
}

func (l *Local) checkQuery(ctx context.Context, q *QueryRequest) error {
	if err := l.CheckRepo(ctx, q.Repo); err != nil {
		return err
	}
	if strings.TrimSpace(q.Query) == "" {
		return fmt.Errorf("%w: the query is empty", ErrBadRequest)
	}
	if len(q.Query) > MaxQueryBytes || !utf8.ValidString(q.Query) {
		return fmt.Errorf("%w: the query must be UTF-8 of at most %d bytes", ErrBadRequest, MaxQueryBytes)
	}
	if q.Tokens < 0 || q.Tokens > MaxTokens {
		return fmt.Errorf("%w: token_budget %d: want 1 to %d", ErrBadRequest, q.Tokens, MaxTokens)
	}
	if q.Format == "" {
		q.Format = retrieve.FormatMarkdown
	}
	if q.Format != retrieve.FormatMarkdown && q.Format != retrieve.FormatJSON {
		return fmt.Errorf("%w: format %q: want markdown or json", ErrBadRequest, q.Format)
	}
	return checkLimit(q.Limit)
}

// checkPath rejects what cannot be a repository-relative path: too long,
// not UTF-8, NUL bytes, or an escape upwards. Paths are only ever matched
// against indexed ones, never opened, so this is about clear errors.
func checkPath(p string) error {
	if len(p) > MaxPathBytes || !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%w: path must be UTF-8 of at most %d bytes", ErrBadRequest, MaxPathBytes)
	}
	clean := filepath.ToSlash(filepath.Clean("/" + p))
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "../") || p == ".." || strings.Contains(p, "/../") ||
		strings.HasSuffix(p, "/..") || clean == "/.." {
		return fmt.Errorf("%w: path %q is outside the repository: give a repository-relative path", ErrBadRequest, p)
	}
	return nil
}

// maxDays bounds a look back (about 2,700 years: anything is "all").
const maxDays = 1_000_000

func checkLimit(n int) error {
	if n < 0 || n > MaxLimit {
		return fmt.Errorf("%w: limit %d: want a positive number, at most %d", ErrBadRequest, n, MaxLimit)
	}
	return nil
}

func nonNil(cs []retrieve.Change, err error) ([]retrieve.Change, error) {
	if cs == nil && err == nil {
		cs = []retrieve.Change{}
	}
	return cs, err
}
