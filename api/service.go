// Package api is gitmemory's service boundary: the operations the CLI, the
// daemon's HTTP API and the MCP server share (Service), answered either in
// this process from the stores (Local) or by a running daemon (Client).
// Every request names a registered repository by name: paths are resolved
// by the caller, so nothing outside the registered repositories can be
// reached through it.
package api

import (
	"context"
	"errors"
	"time"

	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

// Service is what gitmemory answers.
type Service interface {
	Health(ctx context.Context) (*Health, error)
	List(ctx context.Context) ([]memory.Repository, error)
	Status(ctx context.Context, repo string, verify bool) (*memory.Status, error)
	// Sync brings a repository up to date; through the daemon it runs on
	// the daemon's stores and waits for the result.
	Sync(ctx context.Context, repo string) (*indexer.Result, error)
	Remove(ctx context.Context, repo string) error
	Query(ctx context.Context, q QueryRequest) (*QueryResult, error)
	History(ctx context.Context, q HistoryRequest) ([]retrieve.Change, error)
	Recent(ctx context.Context, q RecentRequest) ([]retrieve.Change, error)
	Lookup(ctx context.Context, q LookupRequest) (*retrieve.LookupResult, error)
	Entity(ctx context.Context, q EntityRequest) (*memory.EntityReport, error)
	Direct // direct.go
}

// Health is a liveness answer: who answers, since when, holding what.
type Health struct {
	Status  string    `json:"status"` // "ok"
	Daemon  bool      `json:"daemon"` // a daemon answers (not this process)
	PID     int       `json:"pid"`
	Started time.Time `json:"started,omitzero"`
	Home    string    `json:"home"`
	// Repositories are those the daemon keeps current, by name.
	Repositories []RepoHealth `json:"repositories,omitempty"`
}

// RepoHealth is one repository's state in the daemon's sync loop.
type RepoHealth struct {
	Name       string    `json:"name"`
	LastSync   time.Time `json:"last_sync,omitzero"`
	LastError  string    `json:"last_error,omitempty"`
	Failures   int       `json:"failures,omitempty"`
	NextSync   time.Time `json:"next_sync,omitzero"`
	Syncing    bool      `json:"syncing,omitempty"`
	Indexed    int       `json:"indexed_last_sync,omitempty"`
	HeadCommit string    `json:"head,omitempty"`
}

// Limits on requests, so an oversized argument is an error, not a load.
const (
	MaxQueryBytes = 4 << 10
	MaxPaths      = 256
	MaxPathBytes  = 4 << 10
	MaxTokens     = 64_000
	MaxLimit      = 500
)

// ErrBadRequest wraps every invalid-argument error (HTTP 400).
var ErrBadRequest = errors.New("bad request")

// QueryRequest is a question about one repository.
type QueryRequest struct {
	Repo   string `json:"repository"`
	Query  string `json:"query"`
	Intent string `json:"intent,omitempty"` // auto (default), plan, execute, explain, debug, research
	Mode   string `json:"mode,omitempty"`   // "" for the best available
	Limit  int    `json:"limit,omitempty"`  // ranked results (default 5)
	// Tokens is the Context Pack's budget (retrieve.DefaultPackTokens).
	Tokens int `json:"token_budget,omitempty"`
	// Format is the rendering of Text: markdown (default) or json.
	Format string `json:"format,omitempty"`
	// AnswerOnly skips the pack: the ranked commits only.
	AnswerOnly       bool `json:"answer_only,omitempty"`
	IncludeRewritten bool `json:"include_rewritten,omitempty"`
	// Debug keeps each result's score components.
	Debug bool `json:"debug,omitempty"`
	// Full adds each key item's whole message, a diff snippet and the
	// command that verifies it (seed 004's --full).
	Full bool `json:"full,omitempty"`
	// SeedOrder returns the results in seed 004's order under its caps
	// (Hard first; docs/labels.md); Soft then keeps Soft S2/S3 results
	// even when Hard ones exist.
	SeedOrder bool `json:"seed_order,omitempty"`
	Soft      bool `json:"soft,omitempty"`
	// Seed 003's QueryOptions: diffs and tests in the pack (default
	// true), the recency weight (0 to 1; default [search] recency) and a
	// date range the results must fall in.
	IncludeDiffs  *bool               `json:"include_diffs,omitempty"`
	IncludeTests  *bool               `json:"include_tests,omitempty"`
	RecencyWeight *float64            `json:"recency_weight,omitempty"`
	DateRange     *retrieve.DateRange `json:"date_range,omitempty"`
}

// QueryResult is the ranked answer and its Context Pack.
type QueryResult struct {
	Repository string           `json:"repository"`
	Answer     *retrieve.Answer `json:"answer"`
	Pack       *retrieve.Pack   `json:"pack,omitempty"`
	// Text is the pack rendered in the requested format, within budget.
	Text string `json:"text,omitempty"`
	// Match is seed 002's name matching in force, under Debug.
	Match *retrieve.MatchSettings `json:"match,omitempty"`
}

// HistoryRequest asks for the commits that changed a path.
type HistoryRequest struct {
	Repo   string    `json:"repository"`
	Path   string    `json:"path"` // repository-relative; "" is the whole repository
	Since  time.Time `json:"since,omitzero"`
	Limit  int       `json:"limit,omitempty"`
	Merges bool      `json:"merges,omitempty"`
	// Key orders the most important commits first instead of newest first.
	Key bool `json:"key,omitempty"`
}

// RecentRequest asks for the commits of the last days.
type RecentRequest struct {
	Repo  string `json:"repository"`
	Path  string `json:"path,omitempty"`
	Days  int    `json:"days,omitempty"` // default 7
	Limit int    `json:"limit,omitempty"`
}

// LookupRequest is a candidate change to find related records for.
type LookupRequest struct {
	Repo         string   `json:"repository"`
	Paths        []string `json:"paths,omitempty"` // repository-relative
	Fingerprints []string `json:"fingerprints,omitempty"`
	Head         string   `json:"head,omitempty"`
	Days         int      `json:"days,omitempty"`  // default: [lookup] window_days
	Limit        int      `json:"limit,omitempty"` // default: [lookup] max_matches
}

// EntityRequest asks for an entity's history.
type EntityRequest struct {
	Repo  string `json:"repository"`
	Name  string `json:"name"`
	Kind  string `json:"kind,omitempty"`
	Limit int    `json:"limit,omitempty"`
}
