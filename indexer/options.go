// Package indexer runs a repository's sync: it discovers the commits behind
// the tracked branches, queues them, extracts them in parallel, redacts
// secrets, writes them to the metadata store batch by batch, and only then
// advances each branch's sync state. Every write is idempotent and every
// batch is one transaction, so a sync killed at any instant and run again
// ends exactly where an uninterrupted one would (DESIGN.md decision 3).
package indexer

import (
	"context"
	"runtime"
	"time"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/understand"
	"github.com/gitmemory/gitmemory/understand/entity"
	"github.com/gitmemory/gitmemory/understand/llm"
	"github.com/gitmemory/gitmemory/vectors"
)

// BranchMode selects which branches a sync tracks.
type BranchMode string

// Branch strategies of seed 003's "Branch Handling".
const (
	DefaultBranch BranchMode = "default" // the branch HEAD names
	AllBranches   BranchMode = "all"     // every local branch
	ListedBranch  BranchMode = "list"    // the branches in Options.Branches
)

// Options configure a sync. The zero value syncs the default branch with
// the defaults below.
type Options struct {
	Mode     BranchMode
	Branches []string
	// KeepDays and KeepCommits are the retention policy; 0 keeps all.
	KeepDays    int
	KeepCommits int
	// BatchSize commits are written per transaction.
	BatchSize int
	// Workers compute line diffs and redact secrets in parallel, while one
	// goroutine reads objects from the repository.
	Workers int
	Extract extract.Options
	// Graph, if set, receives each commit's edges after its metadata is
	// committed (DESIGN.md decision 3). The caller opens and closes it.
	Graph *graph.Graph
	// Vectors, if set, receives each commit's documents (the commit and its
	// design notes) with its graph edges: commits.graphed covers both.
	Vectors *vectors.Index
	// Summarizer, if set, replaces the extractive summaries of each batch
	// with an LLM's, after redaction. Its failures never fail the sync:
	// commits it cannot summarise keep the extractive summary.
	Summarizer Summarizer
	// ExtractOnly skips everything after extraction and redaction (the
	// understand stage, entities, graph, vectors, relations): the baseline
	// that benchmarks compare the whole pipeline with.
	ExtractOnly bool
	// NoRelations skips the code relationships (reading the files' facts,
	// resolving them, reconciling at the end): the baseline that measures
	// what they cost. A store synced so lacks them for good.
	NoRelations bool
	// CheckEntities makes the entity parsers parse every file version they
	// derive incrementally whole too, and Result.EntityCheck count the
	// versions whose entities differ: for checking the incremental parse
	// on a real history, at the cost of a whole parse per changed file.
	CheckEntities bool
	// CoEvolution sets the thresholds of CO_EVOLVES_WITH; zero fields take
	// their defaults.
	CoEvolution understand.CoEvolutionOptions
	// RetryFailed makes every failed commit ready now, the dead ones too
	// (failed MaxAttempts times): after the cause is fixed, such as the
	// missing objects fetched.
	RetryFailed bool
	// Progress, if set, is called after each batch.
	Progress func(Progress)
	Now      func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Mode == "" {
		o.Mode = DefaultBranch
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 256
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Summarizer summarises commits with an LLM; see understand/llm.
type Summarizer interface {
	Apply(ctx context.Context, commits []*model.Understood) llm.Stats
}

// Progress reports how far the processing of the queue has got.
type Progress struct {
	Done, Total int
	Failed      int
	Elapsed     time.Duration
}

// Result summarises a sync.
type Result struct {
	Branches []BranchResult `json:"branches"`
	Indexed  int            `json:"indexed"`
	Failed   int            `json:"failed"`
	// Retried counts the failed commits RetryFailed made ready again.
	Retried    int `json:"retried,omitempty"`
	Rewritten  int `json:"rewritten"`
	Revived    int `json:"revived"`
	Pruned     int `json:"pruned"`
	Redactions int `json:"redactions"`
	// RedactedCommits counts commits in which a secret was redacted.
	RedactedCommits int `json:"redacted_commits"`
	// LLMSummaries and LLMFailed count the commits an LLM summarised (or
	// found in its cache) and those it could not, which keep the
	// extractive summary; LLMError is the first failure.
	LLMSummaries int    `json:"llm_summaries,omitempty"`
	LLMFailed    int    `json:"llm_failed,omitempty"`
	LLMError     string `json:"llm_error,omitempty"`
	// Shallow is set for a shallow clone; Missing lists the parents that
	// the clone cut off, so history before them is not indexed.
	Shallow  bool          `json:"shallow"`
	Missing  []string      `json:"missing,omitempty"`
	Empty    bool          `json:"empty"`
	Duration time.Duration `json:"duration_ns"`
	Errors   []string      `json:"errors,omitempty"`
	// EntityCheck is what Options.CheckEntities found.
	EntityCheck *entity.CheckCounts `json:"entity_check,omitempty"`
}

// BranchResult is one branch's part of a sync.
type BranchResult struct {
	Name      string `json:"name"`
	Head      string `json:"head"`
	Previous  string `json:"previous,omitempty"`
	New       int    `json:"new"`
	Rewritten bool   `json:"rewritten"` // the previous head is no longer an ancestor
}
