package retrieve

// The Context Pack (seed 003, "Stage 5: Build"): what a query's ranked
// commits say, assembled from the store and fitted to a token budget.
//
// # Sections and their order
//
// The pack's JSON fields are seed 003's ContextPack, plus warnings and
// clarify. Sections are filled in seed 003's priority order until the
// budget is spent: the summary (required, at most ~200 tokens), key items
// (required, at most 5), the timeline, design notes, code context,
// important diffs, and related tests. An item that does not fit is left
// out and the next is tried, so a smaller item of a later section may
// still use what is left; a diff that does not fit whole is tried again
// cut to half and a quarter of its lines, and a key item without its
// evidence, then without that of the key items before it. Provenance
// lists the commits, files and authors of the items that made it in, and
// is counted with them.
//
// # Counting
//
// Tokens are counted with the cl100k_base BPE tokenizer (tokens.go) on the
// exact text the pack is rendered to in PackOptions.Format: the Markdown of
// RenderMarkdown (the default) or the JSON of RenderJSON. Metadata's
// token_count is that text's count, the count included, and it is never
// more than the budget. Render a pack in the format it was built for: the
// JSON of a pack fitted as Markdown is longer than its budget.
//
// # What is left out
//
// Rewritten commits (force-pushed or reset away) are left out unless
// PackOptions.IncludeRewritten is set, and then labelled. Results whose
// commit is not in the store are skipped. Both, and items the budget left
// out, are reported in warnings.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gitmemory/gitmemory/store"
)

// Context Pack formats.
const (
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// DefaultPackTokens is the token budget when PackOptions.Tokens is 0 (seed
// 003's QueryOptions.token_budget default).
const DefaultPackTokens = 4000

// Caps on a pack's sections, whatever the budget. Key items follow seed
// 003's allocation (max 5). Where one of seed 001's size caps maps to a
// section its default is used: max_kg 30 bounds the results read, max_rg
// 10 the design notes (rationale records), max_deltas 20 the timeline
// entries and max_tasks 15 the related tests. Code context and diffs have
// no counterpart there; their caps are what seed 003's per-item allocation
// (~200 and ~300 tokens) leaves room for in the default 4000 tokens.
const (
	packMaxResults    = 30 // results considered (seed 001 max_kg)
	packMaxKeyItems   = 5  // seed 003: key items, max 5
	packMaxTimeline   = 20 // seed 001 max_deltas
	packMaxNotes      = 10 // seed 001 max_rg
	packMaxCode       = 8
	packMaxDiffs      = 6
	packMaxTests      = 15 // seed 001 max_tasks
	packMaxDiffLines  = 40 // lines of one diff, hunk headers included
	packMinDiffLines  = 8  // a diff cut shorter than this says too little
	packMaxLineRunes  = 200
	packMaxTextRunes  = 300 // a key item's or timeline commit's text
	packSummaryTokens = 200 // seed 003: summary ~200 tokens

	packMaxProvCommits = 30
	packMaxProvFiles   = 30
	packMaxProvAuthors = 10
)

// ErrBudgetTooSmall: the token budget cannot hold even the pack's metadata,
// warnings and the start of its summary.
var ErrBudgetTooSmall = errors.New("token budget too small for a context pack")

// PackOptions tune BuildPack.
type PackOptions struct {
	// Tokens is the budget (DefaultPackTokens when 0).
	Tokens int
	// Format is what the budget is counted on: FormatMarkdown (when "")
	// or FormatJSON.
	Format string
	// IncludeRewritten keeps results whose commits were rewritten.
	IncludeRewritten bool
	// Full adds each key item's whole message, a diff snippet and the
	// command that verifies it (seed 004's --full).
	Full bool
	// NoDiffs and NoTests leave out the important diffs and related tests
	// (seed 003's include_diffs and include_tests set to false).
	NoDiffs, NoTests bool
	// Now stamps generated_at (time.Now when nil).
	Now func() time.Time
}

// Pack is a Context Pack. Its JSON is seed 003's ContextPack plus warnings
// and clarify.
type Pack struct {
	Metadata       PackMetadata    `json:"metadata"`
	Summary        string          `json:"summary"`
	Timeline       []TimelineEntry `json:"timeline"`
	KeyItems       []KeyItem       `json:"key_items"`
	CodeContext    []CodeItem      `json:"code_context"`
	ImportantDiffs []DiffItem      `json:"important_diffs"`
	DesignNotes    []NoteItem      `json:"design_notes"`
	RelatedTests   []TestItem      `json:"related_tests"`
	Provenance     Provenance      `json:"provenance"`
	Warnings       []string        `json:"warnings,omitempty"`
	// Clarify is seed 001's clarify suggestion: what to name so that the
	// question can be answered, when critical information is missing.
	Clarify string `json:"clarify,omitempty"`
}

// PackMetadata describes a pack.
type PackMetadata struct {
	Query       string    `json:"query"`
	Repository  string    `json:"repository"`
	GeneratedAt time.Time `json:"generated_at"`
	// TokenCount is the pack's size in cl100k_base tokens, rendered in the
	// format it was built for.
	TokenCount int    `json:"token_count"`
	Mode       Mode   `json:"mode"`
	Degraded   bool   `json:"degraded"`
	Intent     string `json:"intent"`
}

// TimelineEntry is the results of one day, or of one month when the
// results span a long time. Date is "2006-01-02" or "2006-01"; Commits are
// full hashes, oldest first.
type TimelineEntry struct {
	Date    string   `json:"date"`
	Summary string   `json:"summary"`
	Commits []string `json:"commits"`
}

// KeyItem is one of the most relevant commits.
type KeyItem struct {
	Hash           string  `json:"hash"`
	Summary        string  `json:"summary"`
	Classification string  `json:"classification"`
	RelevanceScore float64 `json:"relevance_score"`
	// Tier and Confidence are seed 004's labels (Grade): "hard" or
	// "soft", and S1 to S3.
	Tier       string `json:"tier,omitempty"`
	Confidence string `json:"confidence,omitempty"`
	// Message, Diff and Verify are filled under PackOptions.Full (seed
	// 004's --full): the whole commit message, a diff snippet, and the
	// command that shows the change in the repository.
	Message string `json:"message,omitempty"`
	Diff    string `json:"diff,omitempty"`
	Verify  string `json:"verify,omitempty"`
	// Evidence is why the commit was chosen: the sentence of it that best
	// matches the query (pack_evidence.go); nil when none does, or when the
	// budget had no room for it.
	Evidence *Evidence `json:"evidence,omitempty"`
	// cands are the sentences Evidence is chosen from; not in the JSON,
	// and nil once chosen.
	cands []evidenceCand
}

// Evidence is a sentence of a key commit's message, design notes or added
// comments, on one line and at most packMaxTextRunes runes. Source is
// "message", "design note" (a sentence of the message that states a
// rationale), or "comment in PATH:LINE".
type Evidence struct {
	Text   string `json:"text"`
	Source string `json:"source"`
}

// CodeItem is an entity the query named or the top commits changed: its
// signature as the snippet, and the commits that changed it.
type CodeItem struct {
	Path        string `json:"path"`
	Entity      string `json:"entity"`
	Snippet     string `json:"snippet"`
	Explanation string `json:"explanation"`
	// language is the entity's, for the Markdown fence; not in the JSON.
	language string
}

// DiffItem is a file's change in a top commit, cut to a few lines.
type DiffItem struct {
	Commit      string `json:"commit"`
	Path        string `json:"path"`
	Diff        string `json:"diff"`
	Explanation string `json:"explanation"`
}

// NoteItem is a design note: Source is the commit hash for a sentence of
// a message, "path:line" for a comment.
type NoteItem struct {
	Source    string `json:"source"`
	Note      string `json:"note"`
	Relevance string `json:"relevance"`
}

// TestItem is a test of a named or changed entity or file. Name is the
// test function's qualified name, empty for a whole test file.
type TestItem struct {
	Path        string `json:"path"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Provenance lists what the pack's items come from: full commit hashes in
// rank order, paths and author names sorted.
type Provenance struct {
	Commits []string `json:"commits"`
	Files   []string `json:"files"`
	Authors []string `json:"authors"`
}

// BuildPack assembles the Context Pack of a search's results from the
// store, fitted to the token budget.
func BuildPack(ctx context.Context, st *store.Store, in PackInput, opts PackOptions) (*Pack, error) {
	if opts.Tokens <= 0 {
		opts.Tokens = DefaultPackTokens
	}
	switch opts.Format {
	case "":
		opts.Format = FormatMarkdown
	case FormatMarkdown, FormatJSON:
	default:
		return nil, fmt.Errorf("context pack format %q: want %s or %s", opts.Format, FormatMarkdown, FormatJSON)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	count, err := tokenCounter()
	if err != nil {
		return nil, err
	}
	pc, err := gatherPack(ctx, st, in, opts)
	if err != nil {
		return nil, err
	}
	warning, err := packEvidence(ctx, in.Query, pc.all.KeyItems)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		pc.frame.Warnings = append(pc.frame.Warnings, warning)
	}
	return newPackFitter(pc, opts, count).fit()
}

// round3 keeps three decimals of a score (the rest is noise that costs
// tokens); NaN and infinities, which JSON cannot carry, become 0.
func round3(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1000) / 1000
}
