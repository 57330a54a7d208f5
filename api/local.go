package api

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
	// The name only, not the store: a store too damaged to open must
	// still be removable.
	if repo == "" || memory.ValidName(repo) != nil {
		return l.CheckRepo(ctx, repo)
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
	if q.RecencyWeight != nil {
		opts.Weights.Recency = *q.RecencyWeight
	}
	s, err := l.Home.OpenSearcher(ctx, q.Repo, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ans, err := answer(ctx, s, q, opts.Limit)
	if err != nil {
		return nil, err
	}
	res := &QueryResult{Repository: q.Repo, Answer: ans}
	if q.Debug {
		m := opts.Match()
		res.Match = &m
	}
	if q.AnswerOnly {
		return res, nil
	}
	res.Pack, err = retrieve.BuildPack(ctx, s.Store, PackInput(q.Repo, ans), retrieve.PackOptions{
		Tokens: q.Tokens, Format: q.Format, IncludeRewritten: q.IncludeRewritten, Full: q.Full,
		NoDiffs: q.IncludeDiffs != nil && !*q.IncludeDiffs, NoTests: q.IncludeTests != nil && !*q.IncludeTests})
	if errors.Is(err, retrieve.ErrBudgetTooSmall) {
		return nil, badField("token_budget", "%v", err)
	}
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
	if err := checkDays(q.Days); err != nil {
		return nil, err
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
	if err := checkLookup(&q); err != nil {
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
	if err := checkEntity(q); err != nil {
		return nil, err
	}
	opts, err := retrieve.LoadSearchConfig(l.configPath())
	if err != nil {
		return nil, err
	}
	return l.Home.Entity(ctx, q.Repo, q.Name, memory.EntityOptions{Kind: q.Kind, Limit: q.Limit, Match: opts.Match()})
}

func nonNil(cs []retrieve.Change, err error) ([]retrieve.Change, error) {
	if cs == nil && err == nil {
		cs = []retrieve.Change{}
	}
	return cs, err
}
