package retrieve

import (
	"fmt"
	"strings"
)

// The types that flow between the hybrid search (search.go), the keyword
// index (keyword.go) and the Context Pack builder (pack.go).

// Mode is how a query was answered (seed 004): the best mode the stores
// allow, degraded automatically when a store is missing.
type Mode string

// Search modes, best first.
const (
	ModeHybrid  Mode = "hybrid"  // BM25 + vectors + graph expansion
	ModeVector  Mode = "vector"  // vectors only
	ModeKeyword Mode = "keyword" // BM25 only
	ModeBasic   Mode = "basic"   // token overlap on subjects, no index
)

// KeywordHit is a commit found by the keyword index.
type KeywordHit struct {
	ID     int64   // commits.id
	Commit string  // full hash
	BM25   float64 // SQLite's bm25(): lower (more negative) is better
	// Score is the hit's relevance normalised to (0, 1] within its result
	// list: the best hit has 1.
	Score float64
}

// Item is one ranked commit of a query, with the evidence for it. (The
// lookup fast path has its own Result type.)
type Item struct {
	Commit string  `json:"commit"`
	Score  float64 `json:"score"`
	// Components are the parts of the score (bm25, vector, recency,
	// importance, relationship, author, and seed 001's additive bonuses),
	// shown by --debug.
	Components map[string]float64 `json:"components,omitempty"`
	// Why says what matched: "keyword", "vector", "entity Foo", "path a/b",
	// "issue #12", "sha".
	Why []string `json:"why,omitempty"`
	// Copies are the other commits of the same change (a cherry-pick,
	// a commit merged in twice: the same author, author time and
	// subject), shown once as this item.
	Copies []string `json:"copies,omitempty"`
	// Stale marks a result older than the stale threshold whose added
	// lines have mostly been rewritten since; Gone lists its
	// files that no longer exist at the head, and Moved, of those, the
	// ones that renames took elsewhere, with the path they have now.
	Stale bool              `json:"stale,omitempty"`
	Gone  []string          `json:"gone,omitempty"`
	Moved map[string]string `json:"moved,omitempty"`
	// Tier is seed 004's Hard Memory or Soft Notes ("hard", "soft") and
	// Confidence its S1 (high) to S3 (low); set by Grade (grade.go).
	Tier       string `json:"tier,omitempty"`
	Confidence string `json:"confidence,omitempty"`
}

// PackInput is what the search hands the Context Pack builder.
type PackInput struct {
	Query      string
	Repository string
	Intent     string
	Mode       Mode
	Degraded   bool // the mode is below hybrid because a store is missing
	Warnings   []string
	Items      []Item // ranked, best first
	// Entities and Files are the entity keys ("path#qualified") and paths
	// the query named, resolved against the store.
	Entities []string
	Files    []string
	// Clarify is seed 001's clarify suggestion, when critical information
	// is missing.
	Clarify string
}

// GoneText says where the item's gone files went: "a.c → src/a.c" for
// a file a rename moved, "a.c gone" for one deleted since; the first
// goneShown of them, then how many more (a mass rename moves dozens).
func (it Item) GoneText() string {
	var parts []string
	for _, p := range it.Gone[:min(len(it.Gone), goneShown)] {
		if to, ok := it.Moved[p]; ok {
			parts = append(parts, p+" → "+to)
		} else {
			parts = append(parts, p+" gone")
		}
	}
	if more := len(it.Gone) - goneShown; more > 0 {
		parts = append(parts, fmt.Sprintf("%d more", more))
	}
	return strings.Join(parts, ", ")
}

// goneShown is how many gone files GoneText names.
const goneShown = 3
