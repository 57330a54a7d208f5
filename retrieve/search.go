package retrieve

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/agnivade/levenshtein"
	"golang.org/x/sync/errgroup"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/vectors"
)

// Weights are the score's weights: seed 003's weighted sum (semantic
// relevance, recency, importance, relationship to the query's entities,
// author) and the scale of seed 001's additive bonuses.
type Weights struct {
	Relevance    float64 `toml:"relevance"`    // w1: BM25 and vector similarity
	Recency      float64 `toml:"recency"`      // w2
	Importance   float64 `toml:"importance"`   // w3
	Relationship float64 `toml:"relationship"` // w4
	Author       float64 `toml:"author"`       // w5
	// Bonus scales seed 001's additive points (+5 a direct match of a sha,
	// issue, path or entity; +2/+1 changed in the last day/week; +2 a
	// rationale or security note) into the weighted sum's range.
	Bonus float64 `toml:"bonus"`
	// Vector is the share of vector similarity in relevance in hybrid
	// mode; BM25 has the rest.
	Vector float64 `toml:"vector"`
}

// DefaultWeights start from seed 003's (w1..w5 = 0.4, 0.2, 0.2, 0.15,
// 0.05) and were chosen on the dev splits of the evaluation sets (eval/;
// internal/cmd/xeval): relevance carries the score, because recency,
// importance and author do not depend on the question; they only scale it
// within priorSpan. Seed 001's points are at a fiftieth, so that a direct
// match (+5 → 0.1) lifts a commit without burying a better text match.
// Vectors take 0.3 of the relevance and relationships weigh 0.1: among
// the grid of eval/grid (vector 0.2-0.5, points 0.02-0.05, relationship
// 0.1-0.15), the best on five sets' dev splits in five of the six ways of
// leaving one of jq, click, express, fzf, redis and git/git out, once each
// commit's vector carried its subject (0.2 and 0.03 and 0.15 before, when
// four sets chose them).
func DefaultWeights() Weights {
	return Weights{Relevance: 0.8, Recency: 0.05, Importance: 0.05, Relationship: 0.1, Author: 0.05, Bonus: 0.02, Vector: 0.3}
}

// SearchOptions configure a Searcher.
type SearchOptions struct {
	Weights Weights
	// Limit is the number of results (default 5, at most MaxResults).
	Limit int
	// FuzzyThreshold is seed 002's threshold for matching a name of the
	// question to an entity (default 0.4).
	FuzzyThreshold float64
	// FuzzyWeight is the fuzzy share of the match score; the keyword
	// (shared name parts) share is the rest (default 0.7).
	FuzzyWeight float64
	// StaleDays: a result older than this whose added lines have mostly
	// been rewritten since is labelled stale (default 90; see label).
	StaleDays        int
	IncludeRewritten bool
	// matchFrom says where FuzzyThreshold and FuzzyWeight came from.
	matchFrom string
	Now       func() time.Time
	// Terms, when set, keeps keyword terms' BM25 parts between questions
	// (see TermCache); a process that asks many questions of one
	// repository sets it.
	Terms *TermCache
}

// MaxResults caps a query's results: a query never dumps the store.
const MaxResults = 20

// Candidates per source. BM25 and vector lists are long so that a commit
// found by one is usually scored by the other too (a commit missing from a
// list scores 0 there); both are cheap at this size.
const (
	perSource  = 50
	perKeyword = 200
	perVector  = 300
)

func (o SearchOptions) withDefaults() SearchOptions {
	if o.Weights == (Weights{}) {
		o.Weights = DefaultWeights()
	}
	if o.Limit <= 0 {
		o.Limit = 5
	}
	o.Limit = min(o.Limit, MaxResults)
	if o.FuzzyThreshold <= 0 {
		o.FuzzyThreshold = 0.4
	}
	if o.FuzzyWeight <= 0 || o.FuzzyWeight > 1 {
		o.FuzzyWeight = 0.7
	}
	if o.StaleDays <= 0 {
		o.StaleDays = 90
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Searcher answers questions over one repository's stores. Vectors and
// graph are optional: without vectors the search degrades to keyword mode,
// without the graph the relations are read from SQLite's mirror of them.
type Searcher struct {
	st   *store.Store
	vec  *vectors.Index
	g    *graph.Graph
	opts SearchOptions
}

// NewSearcher returns a Searcher; vec and g may be nil.
func NewSearcher(st *store.Store, vec *vectors.Index, g *graph.Graph, opts SearchOptions) *Searcher {
	return &Searcher{st: st, vec: vec, g: g, opts: opts.withDefaults()}
}

// Request is one question.
type Request struct {
	Query  string
	Intent string // "" or "auto" classifies
	Mode   Mode   // "" picks the best available
	Limit  int    // overrides the Searcher's
}

// Answer is a question's ranked commits with how they were found.
type Answer struct {
	Query    string `json:"query"`
	Intent   string `json:"intent"`
	Mode     Mode   `json:"mode"`
	Degraded bool   `json:"degraded"`
	Items    []Item `json:"items"`
	// Entities and Files are what the question named, resolved.
	Entities []string `json:"entities,omitempty"`
	Files    []string `json:"files,omitempty"`
	NoMatch  bool     `json:"no_match,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Suggestions are terms to narrow a broad query or to retry a miss.
	Suggestions []string `json:"suggestions,omitempty"`
	Clarify     string   `json:"clarify,omitempty"`
	// Broad: more than 10 candidates score alike (seed 004's "too broad").
	Broad bool `json:"broad,omitempty"`
}

// ErrEmptyQuery: the question has no words.
var ErrEmptyQuery = errors.New("query required")

// cand is a candidate commit being scored.
type cand struct {
	id         int64
	hash       string
	bm25, vec  float64 // normalised to [0, 1] within their lists
	doc        float64 // BM25 of the question's documentation words (docwords.go), as bm25
	msg        float64 // BM25 over the message alone, relative to the best candidate's (messageScores)
	bm25Rank   int     // 1-based rank in the BM25 list, 0 when absent
	vecRank    int     // 1-based rank in the vector list, 0 when absent
	relation   float64 // 1 direct to a named entity or file, 0.5 two hops away
	direct     bool    // a sha, issue, path or entity of the question names it
	why        []string
	time       int64 // committer time
	authored   int64 // author time
	class      string
	notes      int
	security   bool
	author     string
	insertions int
	deletions  int
	rewritten  bool
	subject    string
	merge      bool
	// removal is the relevance of a commit that deleted what the
	// question's best matches had written, for a question about
	// something that went away (see removals).
	removal float64
	// origin: the commit that first wrote an entity the question names,
	// before any move or rename (see origins).
	origin bool
}

// Search answers a question.
func (s *Searcher) Search(ctx context.Context, req Request) (*Answer, error) {
	raw := strings.TrimSpace(req.Query)
	if raw == "" {
		return nil, ErrEmptyQuery
	}
	a := &Answer{Query: raw, Intent: req.Intent}
	if a.Intent == "" || a.Intent == IntentAuto {
		a.Intent = ClassifyIntent(raw)
	}
	if !ValidIntent(a.Intent) {
		return nil, fmt.Errorf("unknown intent %q: want one of %s", a.Intent, strings.Join(Intents, ", "))
	}
	limit := s.opts.Limit
	if req.Limit > 0 {
		limit = min(req.Limit, MaxResults)
	}
	mode, err := s.mode(req.Mode, a)
	if err != nil {
		return nil, err
	}
	a.Mode = mode
	terms := Normalize(raw)
	rf := extractRefs(raw)
	cands := &candSet{m: map[string]*cand{}}

	kwTerms := append(searchTerms(raw, terms), rf.idents...)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(stage("direct matches", func() error { return s.direct(gctx, raw, rf, cands, a) }))
	if mode == ModeHybrid || mode == ModeKeyword {
		g.Go(stage("keyword search", func() error { return s.keyword(gctx, kwTerms, cands) }))
		g.Go(stage("documentation search", func() error { return s.docSearch(gctx, raw, terms, cands) }))
	}
	if mode == ModeHybrid || mode == ModeVector {
		var also []string // the vector hits' BM25 too, in hybrid search
		if mode == ModeHybrid {
			also = kwTerms
		}
		g.Go(stage("vector search", func() error { return s.vector(gctx, raw, also, cands, a) }))
	}
	if mode == ModeBasic {
		g.Go(stage("basic search", func() error { return s.basic(gctx, terms, cands) }))
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	cands.withDocs()
	cands.withKeywordScores()
	if len(terms) == 0 && len(rf.shas)+len(rf.paths)+len(rf.idents) == 0 {
		a.NoMatch = true
		a.Warnings = append(a.Warnings, "the question has no content words: say what to look for (a file, a function, an error, a feature)")
		return a, nil
	}
	asks := askedFor(raw, a.Intent)
	if asks.evolution {
		if err := s.origins(ctx, cands, a.Entities); err != nil {
			return nil, err
		}
	}
	if err := s.details(ctx, cands); err != nil {
		return nil, err
	}
	// How a function evolved starts where it was written, which its
	// message seldom names: the code's words are the evidence there, and
	// the keyword index's BM25 stands alone.
	if (mode == ModeHybrid || mode == ModeKeyword) && !asks.evolution {
		if err := s.messageScores(ctx, terms, cands); err != nil {
			return nil, err
		}
	} else {
		for _, c := range cands.m {
			c.msg = c.bm25
		}
	}
	if asks.removal {
		if err := s.removals(ctx, cands, mode); err != nil {
			return nil, err
		}
	}
	if asks.revert {
		if err := s.reverts(ctx, cands, mode); err != nil {
			return nil, err
		}
	}
	ranked := s.rank(cands, a.Intent, raw, asks, a.Entities, mode)
	if len(ranked) == 0 {
		a.NoMatch = true
		a.Warnings = append(a.Warnings, "no matching commits found")
		a.Suggestions = s.suggest(ctx, terms)
		a.Clarify = clarify(a)
		return a, nil
	}
	if broad(terms, rf, ranked) {
		a.Broad = true
		a.Warnings = append(a.Warnings, WarnTooBroad)
		a.Suggestions = s.filterTerms(ctx, ranked, terms)
	}
	if len(ranked) > limit {
		ranked = ranked[:limit]
	}
	a.Items = ranked
	if err := s.label(ctx, a); err != nil {
		return nil, err
	}
	a.Clarify = clarify(a)
	return a, nil
}

// stage runs one of a question's concurrent searches, turning a panic
// into the question's error: a goroutine's panic would end the whole
// process, the daemon and every other question with it.
func stage(name string, f func() error) func() error {
	return func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%s failed: %v\n%s", name, r, debug.Stack())
			}
		}()
		return f()
	}
}

// mode picks the best mode the stores allow, or checks the one asked for.
func (s *Searcher) mode(want Mode, a *Answer) (Mode, error) {
	vecOK, why := s.vectorsUsable()
	switch want {
	case "", "auto":
		if vecOK {
			return ModeHybrid, nil
		}
		a.Degraded = true
		a.Warnings = append(a.Warnings, "vectors unavailable ("+why+"): keyword search only")
		return ModeKeyword, nil
	case ModeHybrid, ModeVector:
		if !vecOK {
			a.Degraded = true
			a.Warnings = append(a.Warnings, fmt.Sprintf("%s mode needs vectors (%s): keyword search instead", want, why))
			return ModeKeyword, nil
		}
		return want, nil
	case ModeKeyword, ModeBasic:
		return want, nil
	}
	return "", fmt.Errorf("unknown mode %q: want hybrid, vector, keyword or basic", want)
}

func (s *Searcher) vectorsUsable() (bool, string) {
	if s.vec == nil {
		return false, "no vector index"
	}
	st, err := s.vec.Status()
	switch {
	case err != nil:
		return false, err.Error()
	case st.NeedsRebuild:
		return false, "the index needs a rebuild: run gitmemory sync"
	case st.Empty:
		return false, "the index is empty: run gitmemory sync"
	}
	return true, ""
}

// candSet collects candidates from the parallel sources.
type candSet struct {
	mu sync.Mutex
	m  map[string]*cand
	// docs are the hits of the question's documentation words.
	docs []KeywordHit
	// keywordBest is the best keyword hit's bm25() (negative, better more
	// so), and vecBM25 the vector hits' bm25() by row id, for those the
	// keyword list left out (withKeywordScores).
	keywordBest float64
	vecBM25     map[int64]float64
}

func (cs *candSet) get(hash string) *cand {
	c, ok := cs.m[hash]
	if !ok {
		c = &cand{hash: hash}
		cs.m[hash] = c
	}
	return c
}

func (cs *candSet) with(f func()) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	f()
}

// broad reports a query too broad to answer well (seed 004: "too many
// matches (>10)"): at most two words, no names, and more than 10
// candidates scoring within 15% of the best.
func broad(terms []string, rf refs, items []Item) bool {
	if len(terms) > 2 || len(rf.shas)+len(rf.paths)+len(rf.idents) > 0 || len(items) <= 10 {
		return false
	}
	return items[10].Score >= 0.85*items[0].Score
}

// suggest proposes words for a query that matched nothing: the indexed
// entity names closest to its terms.
func (s *Searcher) suggest(ctx context.Context, terms []string) []string {
	var out []string
	for _, t := range terms {
		if len(t) < 3 {
			continue
		}
		names, err := store.Strings(ctx, s.st.DB, `SELECT DISTINCT name FROM entities WHERE name LIKE ? LIMIT 200`, t[:3]+"%")
		if err != nil {
			return out
		}
		best, bestD := "", 1<<30
		for _, n := range names {
			if d := levenshtein.ComputeDistance(t, strings.ToLower(n)); d < bestD {
				best, bestD = n, d
			}
		}
		if best != "" && bestD <= max(2, len(t)/3) {
			out = append(out, best)
		}
	}
	return out
}

// clarify is seed 001's clarify suggestion: when critical information is
// missing (the question named no file or function, or nothing matched)
// and the intent is not explain.
func clarify(a *Answer) string {
	if a.Intent == IntentExplain {
		return ""
	}
	missing := len(a.Entities)+len(a.Files) == 0 && a.Intent != IntentResearch
	if !a.NoMatch && !missing {
		return ""
	}
	return "name the file, function or error message this is about (e.g. \"why does parseConfig in config/load.go retry?\")"
}
