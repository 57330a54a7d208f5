package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

// Direct is what gitmemory answers beyond questions: seed 004's health
// check of a repository's memory, and seed 003's direct access to commits
// and entities.
type Direct interface {
	RepoHealth(ctx context.Context, repo string) (*memory.HealthReport, error)
	Commit(ctx context.Context, repo, rev string) (*retrieve.CommitDetail, error)
	Log(ctx context.Context, q LogRequest) ([]retrieve.LogEntry, error)
	Entities(ctx context.Context, q EntitiesRequest) ([]retrieve.EntityHit, error)
	Relationships(ctx context.Context, q RelationshipsRequest) ([]memory.Relationship, error)
}

// RelationshipsRequest asks for the edges at an entity.
type RelationshipsRequest struct {
	Repo  string   `json:"repository"`
	Name  string   `json:"name"`            // as for Entity: a name, qualified name or key
	Types []string `json:"types,omitempty"` // memory.RelationshipTypes; all when empty
}

// LogRequest selects commits as git log does (retrieve.LogQuery).
type LogRequest struct {
	Repo   string    `json:"repository"`
	From   string    `json:"from,omitempty"`
	To     string    `json:"to,omitempty"`
	Since  time.Time `json:"since,omitzero"`
	Until  time.Time `json:"until,omitzero"`
	Author string    `json:"author,omitempty"`
	Limit  int       `json:"limit,omitempty"`
}

// EntitiesRequest searches entities by name and type.
type EntitiesRequest struct {
	Repo   string `json:"repository"`
	Search string `json:"search,omitempty"`
	Type   string `json:"type,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// RepoHealth runs seed 004's startup check of a repository in this
// process.
func (l *Local) RepoHealth(ctx context.Context, repo string) (*memory.HealthReport, error) {
	if err := l.CheckRepo(ctx, repo); err != nil {
		return nil, err
	}
	opts, err := retrieve.LoadSearchConfig(l.configPath())
	if err != nil {
		return nil, err
	}
	return l.Home.Health(ctx, repo, opts.StaleDays)
}

// RepoHealth asks the daemon for a repository's health check.
func (c *Client) RepoHealth(ctx context.Context, repo string) (*memory.HealthReport, error) {
	var r memory.HealthReport
	return &r, c.do(ctx, http.MethodGet, "/v1/repositories/"+url.PathEscape(repo)+"/health", nil, &r)
}

// Commit returns a commit by revision in this process.
func (l *Local) Commit(ctx context.Context, repo, rev string) (*retrieve.CommitDetail, error) {
	if err := l.CheckRepo(ctx, repo); err != nil {
		return nil, err
	}
	if len(rev) > MaxPathBytes || !utf8.ValidString(rev) {
		return nil, fmt.Errorf("%w: a revision of at most %d bytes of UTF-8", ErrBadRequest, MaxPathBytes)
	}
	c, err := l.Home.Commit(ctx, repo, rev)
	return c, badRev(err)
}

// Log lists commits in this process.
func (l *Local) Log(ctx context.Context, q LogRequest) ([]retrieve.LogEntry, error) {
	if err := l.CheckRepo(ctx, q.Repo); err != nil {
		return nil, err
	}
	if err := checkLimit(q.Limit); err != nil {
		return nil, err
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Until.Before(q.Since) {
		return nil, fmt.Errorf("%w: until (%s) is before since (%s)", ErrBadRequest, q.Until.Format(time.RFC3339), q.Since.Format(time.RFC3339))
	}
	if q.From != "" && q.To == "" {
		return nil, fmt.Errorf("%w: a range needs its end (to) as well as its start (from)", ErrBadRequest)
	}
	out, err := l.Home.Log(ctx, q.Repo, retrieve.LogQuery{From: q.From, To: q.To, Since: q.Since, Until: q.Until, Author: q.Author, Limit: q.Limit})
	return out, badRev(err)
}

// Entities searches entities in this process.
func (l *Local) Entities(ctx context.Context, q EntitiesRequest) ([]retrieve.EntityHit, error) {
	if err := l.CheckRepo(ctx, q.Repo); err != nil {
		return nil, err
	}
	if err := checkLimit(q.Limit); err != nil {
		return nil, err
	}
	if len(q.Search) > MaxPathBytes || !utf8.ValidString(q.Search) {
		return nil, fmt.Errorf("%w: search must be UTF-8 of at most %d bytes", ErrBadRequest, MaxPathBytes)
	}
	return l.Home.SearchEntities(ctx, q.Repo, q.Search, q.Type, q.Limit)
}

// Relationships lists the edges at an entity in this process.
func (l *Local) Relationships(ctx context.Context, q RelationshipsRequest) ([]memory.Relationship, error) {
	if err := l.CheckRepo(ctx, q.Repo); err != nil {
		return nil, err
	}
	if q.Name == "" || len(q.Name) > MaxPathBytes || !utf8.ValidString(q.Name) {
		return nil, fmt.Errorf("%w: an entity name of 1 to %d bytes of UTF-8 is required", ErrBadRequest, MaxPathBytes)
	}
	for i, t := range q.Types {
		q.Types[i] = strings.ToUpper(strings.TrimSpace(t))
	}
	if err := memory.CheckRelationshipTypes(q.Types); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	opts, err := retrieve.LoadSearchConfig(l.configPath())
	if err != nil {
		return nil, err
	}
	return l.Home.Relationships(ctx, q.Repo, q.Name, q.Types, memory.EntityOptions{Limit: MaxLimit, Match: opts.Match()})
}

// Relationships asks the daemon for the edges at an entity.
func (c *Client) Relationships(ctx context.Context, q RelationshipsRequest) ([]memory.Relationship, error) {
	v := url.Values{}
	if len(q.Types) > 0 {
		v.Set("type", strings.Join(q.Types, ","))
	}
	var out []memory.Relationship
	p := "/v1/repositories/" + url.PathEscape(q.Repo) + "/entities/" + url.PathEscape(q.Name) + "/relationships?" + v.Encode()
	return out, c.do(ctx, http.MethodGet, p, nil, &out)
}

// badRev makes an unknown revision a bad request (400): the caller named it.
func badRev(err error) error {
	if errors.Is(err, retrieve.ErrUnknownRev) {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return err
}

// Commit asks the daemon for a commit.
func (c *Client) Commit(ctx context.Context, repo, rev string) (*retrieve.CommitDetail, error) {
	var d retrieve.CommitDetail
	return &d, c.do(ctx, http.MethodGet, "/v1/repositories/"+url.PathEscape(repo)+"/commits/"+url.PathEscape(rev), nil, &d)
}

// Log asks the daemon for a log.
func (c *Client) Log(ctx context.Context, q LogRequest) ([]retrieve.LogEntry, error) {
	v := url.Values{}
	for k, x := range map[string]string{"from": q.From, "to": q.To, "author": q.Author} {
		if x != "" {
			v.Set(k, x)
		}
	}
	for k, t := range map[string]time.Time{"since": q.Since, "until": q.Until} {
		if !t.IsZero() {
			v.Set(k, t.Format(time.RFC3339))
		}
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var out []retrieve.LogEntry
	return out, c.do(ctx, http.MethodGet, "/v1/repositories/"+url.PathEscape(q.Repo)+"/commits?"+v.Encode(), nil, &out)
}

// Entities asks the daemon to search entities.
func (c *Client) Entities(ctx context.Context, q EntitiesRequest) ([]retrieve.EntityHit, error) {
	v := url.Values{"search": {q.Search}, "type": {q.Type}}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var out []retrieve.EntityHit
	return out, c.do(ctx, http.MethodGet, "/v1/repositories/"+url.PathEscape(q.Repo)+"/entities?"+v.Encode(), nil, &out)
}

// directRoutes are the handlers of Direct on the daemon's HTTP API.
func (s *server) directRoutes(mux *http.ServeMux) {
	mux.Handle("GET /v1/repositories/{name}/health", s.guard(noBody, func(w http.ResponseWriter, r *http.Request) error {
		res, err := s.svc.RepoHealth(r.Context(), r.PathValue("name"))
		return reply(w, res, err)
	}))
	mux.Handle("GET /v1/repositories/{name}/commits/{rev}", s.guard(noBody, func(w http.ResponseWriter, r *http.Request) error {
		res, err := s.svc.Commit(r.Context(), r.PathValue("name"), r.PathValue("rev"))
		return reply(w, res, err)
	}))
	mux.Handle("GET /v1/repositories/{name}/commits", s.guard(noBody, func(w http.ResponseWriter, r *http.Request) error {
		q, err := logRequest(r)
		if err != nil {
			return err
		}
		res, err := s.svc.Log(r.Context(), q)
		return reply(w, res, err)
	}))
	mux.Handle("GET /v1/repositories/{name}/entities/{entity}/relationships", s.guard(noBody, func(w http.ResponseWriter, r *http.Request) error {
		q := RelationshipsRequest{Repo: r.PathValue("name"), Name: r.PathValue("entity")}
		if t := r.URL.Query().Get("type"); t != "" {
			q.Types = strings.Split(t, ",")
		}
		res, err := s.svc.Relationships(r.Context(), q)
		return reply(w, res, err)
	}))
	mux.Handle("GET /v1/repositories/{name}/entities", s.guard(noBody, func(w http.ResponseWriter, r *http.Request) error {
		v := r.URL.Query()
		limit, err := queryInt(v, "limit")
		if err != nil {
			return err
		}
		res, err := s.svc.Entities(r.Context(), EntitiesRequest{Repo: r.PathValue("name"), Search: v.Get("search"), Type: v.Get("type"), Limit: limit})
		return reply(w, res, err)
	}))
}

// logRequest reads a log's query parameters.
func logRequest(r *http.Request) (LogRequest, error) {
	v := r.URL.Query()
	q := LogRequest{Repo: r.PathValue("name"), From: v.Get("from"), To: v.Get("to"), Author: v.Get("author")}
	var err error
	if q.Limit, err = queryInt(v, "limit"); err != nil {
		return q, err
	}
	for k, t := range map[string]*time.Time{"since": &q.Since, "until": &q.Until} {
		if x := v.Get(k); x != "" {
			if *t, err = retrieve.ParseDate(x); err != nil {
				return q, fmt.Errorf("%w: %s: %v", ErrBadRequest, k, err)
			}
		}
	}
	return q, nil
}

// queryInt reads an optional whole-number query parameter.
func queryInt(v url.Values, key string) (int, error) {
	x := v.Get(key)
	if x == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(x)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%q: want a whole number", ErrBadRequest, key, x)
	}
	return n, nil
}
