package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

// HealthInput names the repository to check.
type HealthInput struct {
	Repository string `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
}

var healthTool = toolDef{
	name:  "gitmemory_health",
	title: "Health of a repository's memory",
	description: `The startup health check: how many commits are indexed and how many state a reason (Hard entries), ` +
		`commits queued or failed in indexing, stale entries (Hard entries older than 90 days whose lines are mostly ` +
		`rewritten since) and source warnings (Hard entries whose files are gone). Run it at the start of a session ` +
		`to know how far the memory can be trusted.`,
}

// health answers gitmemory_health.
func (s *server) health(ctx context.Context, in HealthInput) (*answer[memory.HealthReport], error) {
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	r, err := s.svc.RepoHealth(ctx, repo)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("%s: %d entries (%d Hard), %d queued, %d failed, %d stale (of %d checked, older than %d days), %d source warnings\n",
		repo, r.Entries, r.HardEntries, r.Queued, r.Failed, r.Stale, r.StaleChecked, r.StaleDays, r.SourceWarnings)
	return &answer[memory.HealthReport]{text: text, out: *r}, nil
}

// CommitInput names a commit.
type CommitInput struct {
	Rev        string `json:"rev" jsonschema:"a commit hash (4 hex digits at least), branch or tag"`
	Repository string `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
}

var commitTool = toolDef{
	name:  "gitmemory_commit",
	title: "One commit",
	description: `One indexed commit by hash, branch or tag: author, date, the whole message, change type, files ` +
		`changed, issues referenced, design notes and the functions and types it changed.`,
}

func (s *server) commit(ctx context.Context, in CommitInput) (*answer[retrieve.CommitDetail], error) {
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	d, err := s.svc.Commit(ctx, repo, in.Rev)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "commit %s (%s) by %s, %s\n\n%s\n\n", d.Hash, d.Classification, d.Author.Name, d.Author.When.Format("2006-01-02"), d.Message)
	for _, f := range d.Files {
		fmt.Fprintf(&b, "%s %s (+%d -%d)\n", f.Status, f.Path, f.Insertions, f.Deletions)
	}
	return &answer[retrieve.CommitDetail]{text: b.String(), out: *d}, nil
}

// LogInput selects commits.
type LogInput struct {
	Range      string `json:"range,omitempty" jsonschema:"FROM..TO (reachable from TO, not from FROM) or one revision (its ancestors)"`
	Since      string `json:"since,omitempty" jsonschema:"only commits on or after this date, YYYY-MM-DD or RFC 3339"`
	Until      string `json:"until,omitempty" jsonschema:"only commits on or before this date (a date includes its whole day)"`
	Author     string `json:"author,omitempty" jsonschema:"only commits whose author name or email contains this"`
	Limit      int    `json:"limit,omitempty" jsonschema:"at most this many commits; default 50"`
	Repository string `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
}

// LogOutput is a log.
type LogOutput struct {
	Repository string              `json:"repository"`
	Commits    []retrieve.LogEntry `json:"commits"`
}

var logTool = toolDef{
	name:        "gitmemory_log",
	title:       "Commits by range, date or author",
	description: `The indexed commits, newest first, as git log lists them: a range FROM..TO, dates and an author.`,
}

func (s *server) commitLog(ctx context.Context, in LogInput) (*answer[LogOutput], error) {
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	q := api.LogRequest{Repo: repo, Author: in.Author, Limit: in.Limit}
	if in.Range != "" {
		if q.From, q.To, err = retrieve.ParseRange(in.Range); err != nil {
			return nil, fmt.Errorf("%w: range: %v", api.ErrBadRequest, err)
		}
	}
	if in.Since+in.Until != "" {
		r, err := retrieve.ParseDateRange(in.Since + ".." + in.Until)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", api.ErrBadRequest, err)
		}
		q.Since, q.Until = r.From, r.To
	}
	es, err := s.svc.Log(ctx, q)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%s %s %s: %s (%s)\n", e.Commit[:12], e.When.Format("2006-01-02"), e.Classification, e.Subject, e.Author)
	}
	if len(es) == 0 {
		b.WriteString("no indexed commit matches\n")
	}
	return &answer[LogOutput]{text: b.String(), out: LogOutput{Repository: repo, Commits: es}}, nil
}

// EntitySearchInput searches entities.
type EntitySearchInput struct {
	Search     string `json:"search,omitempty" jsonschema:"text the entity's name or qualified name contains (any case)"`
	Type       string `json:"type,omitempty" jsonschema:"only entities of this kind: function, method, class, interface, struct, enum, module"`
	Limit      int    `json:"limit,omitempty" jsonschema:"at most this many; default 50"`
	Repository string `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
}

// EntitySearchOutput lists entities.
type EntitySearchOutput struct {
	Repository string               `json:"repository"`
	Entities   []retrieve.EntityHit `json:"entities"`
}

var entitySearchTool = toolDef{
	name:        "gitmemory_entity_search",
	title:       "Find functions, classes and types",
	description: `Lists the functions, methods, classes and types whose name contains a text, of a kind when given, exact names first.`,
}

func (s *server) entitySearch(ctx context.Context, in EntitySearchInput) (*answer[EntitySearchOutput], error) {
	if in.Search == "" && in.Type == "" {
		return nil, fmt.Errorf("%w: give search, type or both", api.ErrBadRequest)
	}
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	hits, err := s.svc.Entities(ctx, api.EntitiesRequest{Repo: repo, Search: in.Search, Type: in.Type, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s %s (%s; %d changes)\n", h.Kind, h.Key, h.Language, h.Changes)
	}
	if len(hits) == 0 {
		b.WriteString("no entity matches\n")
	}
	return &answer[EntitySearchOutput]{text: b.String(), out: EntitySearchOutput{Repository: repo, Entities: hits}}, nil
}

// RelationshipsInput names an entity and the edge types wanted.
type RelationshipsInput struct {
	EntityName string   `json:"entity_name" jsonschema:"a function, method or type name, qualified name or path#qualified key"`
	Types      []string `json:"types,omitempty" jsonschema:"INTRODUCES, MODIFIES, VERIFIED_BY, CO_EVOLVES_WITH; default all"`
	Repository string   `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
}

// RelationshipsOutput lists an entity's edges.
type RelationshipsOutput struct {
	Repository    string                `json:"repository"`
	Relationships []memory.Relationship `json:"relationships"`
}

var relationshipsTool = toolDef{
	name:  "gitmemory_relationships",
	title: "Relationships of a function, class or type",
	description: `The knowledge graph's edges at one entity: the commits that introduced and modified it, the tests ` +
		`that verify it and the entities that change with it, each with its confidence.`,
}

func (s *server) relationships(ctx context.Context, in RelationshipsInput) (*answer[RelationshipsOutput], error) {
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	rs, err := s.svc.Relationships(ctx, api.RelationshipsRequest{Repo: repo, Name: in.EntityName, Types: in.Types})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s %s -> %s (%.2f)\n", r.Type, r.From, r.To, r.Confidence)
	}
	if len(rs) == 0 {
		b.WriteString("no relationships\n")
	}
	return &answer[RelationshipsOutput]{text: b.String(), out: RelationshipsOutput{Repository: repo, Relationships: rs}}, nil
}
