package retrieve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agnivade/levenshtein"
	"golang.org/x/sync/errgroup"

	"github.com/gitmemory/gitmemory/extract"
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
// within priorSpan. Seed 001's points are at a thirtieth, so that a direct
// match (+5 → 0.15) lifts a commit without burying a better text match;
// larger scales lost on every dev split.
func DefaultWeights() Weights {
	return Weights{Relevance: 0.8, Recency: 0.05, Importance: 0.05, Relationship: 0.15, Author: 0.05, Bonus: 0.03, Vector: 0.3}
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
	bm25Rank   int     // 1-based rank in the BM25 list, 0 when absent
	vecRank    int     // 1-based rank in the vector list, 0 when absent
	relation   float64 // 1 direct to a named entity or file, 0.5 two hops away
	direct     bool    // a sha, issue, path or entity of the question names it
	why        []string
	time       int64
	class      string
	notes      int
	security   bool
	author     string
	insertions int
	deletions  int
	rewritten  bool
	subject    string
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

	g, gctx := errgroup.WithContext(ctx)
	g.Go(stage("direct matches", func() error { return s.direct(gctx, raw, rf, cands, a) }))
	if mode == ModeHybrid || mode == ModeKeyword {
		g.Go(stage("keyword search", func() error { return s.keyword(gctx, terms, rf, cands) }))
	}
	if mode == ModeHybrid || mode == ModeVector {
		g.Go(stage("vector search", func() error { return s.vector(gctx, raw, cands, a) }))
	}
	if mode == ModeBasic {
		g.Go(stage("basic search", func() error { return s.basic(gctx, terms, cands) }))
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
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

// keyword adds the BM25 hits of the terms and the question's identifiers.
func (s *Searcher) keyword(ctx context.Context, terms []string, rf refs, cs *candSet) error {
	hits, err := Keyword(ctx, s.st, KeywordQuery{Terms: append(slices.Clone(terms), rf.idents...), Limit: perKeyword,
		IncludeRewritten: s.opts.IncludeRewritten, Cache: s.opts.Terms})
	if err != nil {
		return err
	}
	cs.with(func() {
		for i, h := range hits {
			c := cs.get(h.Commit)
			c.bm25 = max(c.bm25, h.Score)
			if c.bm25Rank == 0 {
				c.bm25Rank = i + 1
			}
			c.why = append(c.why, "keyword")
		}
	})
	return nil
}

// vector adds the nearest commits and design notes.
func (s *Searcher) vector(ctx context.Context, q string, cs *candSet, a *Answer) error {
	hits, err := s.vec.Query(ctx, q, perVector, vectors.Filter{IncludeRewritten: s.opts.IncludeRewritten})
	if err != nil {
		cs.with(func() { a.Warnings = append(a.Warnings, "vector search failed: "+err.Error()) })
		return nil
	}
	best := 0.0
	for _, h := range hits {
		best = max(best, float64(h.Score))
	}
	cs.with(func() {
		for i, h := range hits {
			if best <= 0 || h.Score < minCosine {
				continue
			}
			c := cs.get(h.Commit)
			c.vec = max(c.vec, float64(h.Score)/best)
			if c.vecRank == 0 {
				c.vecRank = i + 1
			}
			if h.Note >= 0 {
				c.why = append(c.why, "design note")
			} else {
				c.why = append(c.why, "vector")
			}
		}
	})
	return nil
}

// basic is the mode without indexes: the terms' overlap with subjects.
func (s *Searcher) basic(ctx context.Context, terms []string, cs *candSet) error {
	if len(terms) == 0 {
		return nil
	}
	var conds []string
	var args []any
	for _, t := range terms {
		conds = append(conds, "(CASE WHEN subject LIKE ? THEN 1 ELSE 0 END)")
		args = append(args, "%"+t+"%")
	}
	score := strings.Join(conds, " + ")
	args = append(args, s.opts.IncludeRewritten, perSource)
	rows, err := s.st.DB.QueryContext(ctx, `SELECT hash, `+score+` AS n FROM commits
		WHERE n > 0 AND (? OR rewritten = 0) ORDER BY n DESC, committer_time DESC LIMIT ?`, args...)
	if err != nil {
		return fmt.Errorf("basic search: %w", err)
	}
	defer rows.Close()
	var hits []KeywordHit
	for rows.Next() {
		var h KeywordHit
		if err := rows.Scan(&h.Commit, &h.BM25); err != nil {
			return err
		}
		hits = append(hits, h)
	}
	cs.with(func() {
		for _, h := range hits {
			c := cs.get(h.Commit)
			c.bm25 = h.BM25 / float64(len(terms))
			c.why = append(c.why, "words")
		}
	})
	return rows.Err()
}

// direct adds what the question names: commits by sha, commits that fix or
// reference its issues, and commits that changed its files and entities
// (and, two hops away, what changes with them).
func (s *Searcher) direct(ctx context.Context, raw string, rf refs, cs *candSet, a *Answer) error {
	add := func(hash, why string, rel float64, direct bool) {
		c := cs.get(hash)
		c.relation = max(c.relation, rel)
		c.direct = c.direct || direct
		c.why = append(c.why, why)
	}
	for _, sha := range rf.shas {
		hashes, err := store.Strings(ctx, s.st.DB, `SELECT hash FROM commits WHERE hash >= ? AND hash < ? LIMIT 2`, sha, sha+"g")
		if err != nil {
			return err
		}
		cs.with(func() {
			for _, h := range hashes {
				add(h, "sha "+sha, 1, true)
			}
		})
	}
	for _, r := range extract.ParseIssueRefs(raw) {
		hashes, err := store.Strings(ctx, s.st.DB, `SELECT c.hash FROM issue_refs i JOIN commits c ON c.id = i.commit_id
			WHERE i.key = ? ORDER BY c.committer_time DESC LIMIT ?`, r.Key, perSource)
		if err != nil {
			return err
		}
		cs.with(func() {
			for _, h := range hashes {
				add(h, "issue "+r.Key, 1, true)
			}
		})
	}
	files, err := s.resolvePaths(ctx, rf.paths)
	if err != nil {
		return err
	}
	ents, strength, misses, err := s.resolveEntities(ctx, rf.idents)
	if err != nil {
		return err
	}
	named, err := s.resolveNames(ctx, rf.names)
	if err != nil {
		return err
	}
	for _, e := range named {
		if _, dup := strength[e]; !dup {
			ents = append(ents, e)
			strength[e] = 1
		}
	}
	cs.with(func() {
		a.Files, a.Entities = files, ents
		for _, m := range misses {
			a.Warnings = append(a.Warnings, m)
		}
	})
	for _, f := range files {
		rel, err := s.related(ctx, "file:"+f)
		if err != nil {
			return err
		}
		cs.with(func() {
			for h, r := range rel {
				add(h, "path "+f, r, r == 1)
			}
		})
	}
	for _, e := range ents {
		rel, err := s.related(ctx, "entity:"+e)
		if err != nil {
			return err
		}
		// A name the question spells exactly is as good as a path; a
		// fuzzy match (ValidArgsFunction for validArgsFunc) relates by its
		// score and earns no direct-match bonus.
		st := strength[e]
		cs.with(func() {
			for h, r := range rel {
				add(h, "entity "+e[strings.IndexByte(e, '#')+1:], r*st, r == 1 && st == 1)
			}
		})
	}
	return nil
}

// related expands a file or entity node to commits: those that changed it
// (relationship 1) and, two hops away, those that changed what co-evolves
// with it or what it replaced (0.5). It walks the graph when one is open,
// else SQLite's mirror of the same relations.
func (s *Searcher) related(ctx context.Context, node string) (map[string]float64, error) {
	out := map[string]float64{}
	if s.g != nil {
		hits, err := s.g.Neighbors(ctx, node, []string{"INTRODUCES", "MODIFIES", "DELETES", "REPLACED_BY", "CO_EVOLVES_WITH"}, graph.MaxDepth)
		if err == nil {
			for _, h := range hits {
				if hash, ok := strings.CutPrefix(h.Node, "commit:"); ok {
					rel := 1.0
					if h.Depth > 1 {
						rel = 0.5
					}
					out[hash] = max(out[hash], rel)
				}
			}
			return out, nil
		}
	}
	near := []string{node}
	partners, err := store.Strings(ctx, s.st.DB, `SELECT CASE WHEN a = ?1 THEN b ELSE a END FROM couplings WHERE a = ?1 OR b = ?1
		ORDER BY confidence DESC LIMIT 10`, node)
	if err != nil {
		return nil, err
	}
	for i, n := range append(near, partners...) {
		var hashes []string
		var err error
		if p, ok := strings.CutPrefix(n, "file:"); ok {
			hashes, err = store.Strings(ctx, s.st.DB, `SELECT c.hash FROM file_changes f JOIN commits c ON c.id = f.commit_id
				WHERE (f.path = ? OR (f.old_path = ? AND f.old_path != '')) AND c.is_merge = 0 ORDER BY c.committer_time DESC LIMIT ?`, p, p, perSource)
		} else {
			hashes, err = store.Strings(ctx, s.st.DB, `SELECT c.hash FROM entity_changes x JOIN entities e ON e.id = x.entity_id
				JOIN commits c ON c.id = x.commit_id WHERE e.key = ? ORDER BY c.committer_time DESC LIMIT ?`,
				strings.TrimPrefix(n, "entity:"), perSource)
		}
		if err != nil {
			return nil, err
		}
		rel := 1.0
		if i > 0 {
			rel = 0.5
		}
		for _, h := range hashes {
			out[h] = max(out[h], rel)
		}
	}
	return out, nil
}

// resolvePaths matches the question's paths to indexed ones: exactly, or
// by file name when it is unique enough (at most three paths share it).
func (s *Searcher) resolvePaths(ctx context.Context, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		p = strings.Trim(p, "/.")
		found, err := store.Strings(ctx, s.st.DB, `SELECT DISTINCT path FROM file_changes WHERE path = ?1 OR path LIKE '%/' || ?1
			ESCAPE '\' LIMIT 4`, strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(p))
		if err != nil {
			return nil, err
		}
		if len(found) <= 3 {
			out = append(out, found...)
		}
	}
	return out, nil
}

// resolveEntities matches the question's identifiers to entities by seed
// 002's score: FuzzyWeight × name similarity + the rest × shared name
// parts, accepted from FuzzyThreshold. Every entity with the best name is
// taken (a method of several types). strength is 1 for an exact match
// (the name, or a dotted suffix of the qualified name, ignoring case), else
// the score. A miss yields a warning naming the closest entity and its
// score.
func (s *Searcher) resolveEntities(ctx context.Context, idents []string) (out []string, strength map[string]float64, misses []string, err error) {
	strength = map[string]float64{}
	for _, id := range idents {
		name := id
		if i := strings.LastIndexAny(name, ".:"); i >= 0 {
			name = name[i+1:]
		}
		if len(name) < 2 {
			continue
		}
		rows, err := s.st.DB.QueryContext(ctx, `SELECT key, name, qualified FROM entities
			WHERE name LIKE ? ESCAPE '\' LIMIT 2000`, strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(name[:min(len(name), 3)])+"%")
		if err != nil {
			return nil, nil, nil, err
		}
		type scored struct {
			key, name string
			score     float64
			exact     bool
		}
		var all []scored
		for rows.Next() {
			var k, n, q string
			if err := rows.Scan(&k, &n, &q); err != nil {
				rows.Close()
				return nil, nil, nil, err
			}
			target := n
			if name != id { // a qualified question: compare qualified names
				target = q
			}
			exact := strings.EqualFold(id, n) || strings.HasSuffix(strings.ToLower(q), "."+strings.ToLower(id)) ||
				strings.EqualFold(id, q)
			all = append(all, scored{k, n, s.matchScore(id, target), exact})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, nil, err
		}
		slices.SortFunc(all, func(a, b scored) int {
			return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.key, b.key))
		})
		// A name the history spells as written (a field, a flag, a type
		// no parser sees) is no misspelling: a similar entity may still be
		// what implements it (TraverseChildren, Traverse), or a stranger
		// (ValidArgsFunction, validArgsFunc), so it relates at half its
		// fuzzy strength.
		damp := 1.0
		if len(all) > 0 && !all[0].exact && s.inCorpus(ctx, name) {
			damp = 0.5
		}
		if len(all) == 0 || all[0].score < s.opts.FuzzyThreshold {
			if looksLikeCode(id) {
				closest := ""
				if len(all) > 0 {
					closest = fmt.Sprintf("; closest: %s (%.2f)", all[0].name, all[0].score)
				}
				misses = append(misses, fmt.Sprintf("no indexed function or type matches %q%s", id, closest))
			}
			continue
		}
		for _, e := range all {
			if e.score < all[0].score || len(out) >= 10 {
				break
			}
			out = append(out, e.key)
			strength[e.key] = e.score * damp
			if e.exact {
				strength[e.key] = 1
			}
		}
	}
	return out, strength, misses, nil
}

// maxNamed is how many entities may share a plain name before it stops
// naming anything in particular ("Run", "New").
const maxNamed = 10

// resolveNames returns the entities whose name is exactly one of names
// (plain words a question may mean as names; see refs.names). No fuzzy
// matching: "Express" or "Node" in a question must not find a stranger.
func (s *Searcher) resolveNames(ctx context.Context, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		keys, err := store.Strings(ctx, s.st.DB, `SELECT key FROM entities WHERE name = ? ORDER BY key LIMIT ?`, n, maxNamed+1)
		if err != nil {
			return nil, err
		}
		if len(keys) <= maxNamed {
			out = append(out, keys...)
		}
	}
	return out, nil
}

// inCorpus reports whether the keyword index holds the word w as
// written. Fuzzy matching is for names the question misspells; a name the
// history itself uses is not one, whether or not it is an entity. An error
// reads as no: the fuzzy match then decides, as before.
func (s *Searcher) inCorpus(ctx context.Context, w string) bool {
	ids, err := store.Strings(ctx, s.st.DB, `SELECT rowid FROM search WHERE search MATCH ? LIMIT 1`, ftsPhrase(w))
	return err == nil && len(ids) > 0
}

// matchScore is seed 002's weighted sum of a fuzzy score (normalised
// Levenshtein similarity, case-insensitive) and a keyword score (the share
// of identifier parts in common).
func (s *Searcher) matchScore(q, name string) float64 {
	return MatchScore(q, name, s.opts.FuzzyWeight)
}

// details loads what scoring needs of each candidate not loaded yet, and
// drops rewritten ones unless asked for (and hashes the store lacks).
func (s *Searcher) details(ctx context.Context, cs *candSet) error {
	var hashes []any
	for h, c := range cs.m {
		if c.id == 0 { // not loaded yet (commit ids start at 1)
			hashes = append(hashes, h)
		}
	}
	if len(hashes) == 0 {
		return nil
	}
	q := `SELECT id, hash, committer_time, classification, labels, author_name, insertions, deletions, rewritten, subject,
		(SELECT COUNT(*) FROM design_notes n WHERE n.commit_id = commits.id)
		FROM commits WHERE hash IN (` + store.Marks(len(hashes)) + `)`
	rows, err := s.st.DB.QueryContext(ctx, q, hashes...)
	if err != nil {
		return fmt.Errorf("candidates: %w", err)
	}
	defer rows.Close()
	found := map[string]bool{}
	for rows.Next() {
		var hash, labels string
		var c cand
		if err := rows.Scan(&c.id, &hash, &c.time, &c.class, &labels, &c.author, &c.insertions, &c.deletions,
			&c.rewritten, &c.subject, &c.notes); err != nil {
			return err
		}
		found[hash] = true
		x := cs.m[hash]
		x.id, x.time, x.class, x.author, x.insertions, x.deletions, x.rewritten, x.notes, x.subject =
			c.id, c.time, c.class, c.author, c.insertions, c.deletions, c.rewritten, c.notes, c.subject
		x.security = strings.Contains(labels, `"security"`)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, h := range hashes {
		if c := cs.m[h.(string)]; !found[c.hash] || (c.rewritten && !s.opts.IncludeRewritten) {
			delete(cs.m, c.hash)
		}
	}
	return nil
}

// importance of a commit by its change type, in [0, 1].
var importance = map[string]float64{
	"security": 1, "bugfix": 0.8, "revert": 0.6, "performance": 0.7, "feature": 0.7, "refactor": 0.5,
	"configuration": 0.4, "dependency": 0.3, "test": 0.3, "documentation": 0.3, "cleanup": 0.2, "merge": 0.1,
}

// minCosine is the similarity below which a vector hit is noise: nearest
// neighbours exist for any question, related or not.
const minCosine = 0.15

// rank scores the candidates and orders them: score descending, then
// newest first, then hash (seed 001's deterministic tie-break).
//
// Relevance leads. The score is the question's evidence for a commit:
// text relevance (BM25 and vector similarity, each by its magnitude
// relative to the best hit, not only by rank), its relationship to what
// the question names, and seed 001's points for what the question asks
// (a named sha, path or entity; a removal; rationale for a why; security
// for a security question; the last days for a question about recent
// changes). Priors that do not depend on the question (recency, the
// change type's importance, the author) then scale it by at most
// priorSpan: they reorder near-ties, never lift an unrelated commit over
// a relevant one, and never make a commit with no evidence a result.
func (s *Searcher) rank(cs *candSet, intent, raw string, asks asks, entities []string, mode Mode) []Item {
	w := s.opts.Weights
	now := s.opts.Now().Unix()
	lower := strings.ToLower(raw)
	names := entityNames(entities)
	var out []Item
	times := map[string]int64{}
	for _, c := range cs.m {
		rel := max(s.relevance(c, mode), c.removal)
		if rel == 0 && c.relation == 0 {
			continue
		}
		age := float64(now-c.time) / 86400
		recency := math.Exp(-math.Max(age, 0) / 365)
		imp := importance[c.class]
		if intent == IntentDebug && (c.class == "bugfix" || c.class == "revert") {
			imp = math.Min(1, imp+0.3)
		}
		author := 0.0
		if c.author != "" && strings.Contains(lower, strings.ToLower(c.author)) {
			author = 1
		}
		bonus := 0.0
		if c.direct {
			bonus += 5
		}
		if asks.recent {
			switch {
			case age <= 1:
				bonus += 2
			case age <= 7:
				bonus++
			}
		}
		if namesAny(c.subject, names) {
			bonus += 2 // the subject says the change is about a function the question names
		}
		if asks.evolution && c.origin {
			bonus += originPoints
		}
		if asks.revert && c.class == "revert" {
			bonus += 2 // the undoing commit, when the question asks why something was undone
		}
		if asks.removal && mostlyDeletes(c.insertions, c.deletions) {
			bonus += 2
		}
		if (asks.security && c.security) || (asks.rationale && c.notes > 0) {
			bonus += 2 // seed 001's constraint/risk tag, when the question asks for it
		}
		evidence := w.Relevance*rel + w.Relationship*c.relation + w.Bonus*bonus
		prior := w.Recency*recency + w.Importance*imp + w.Author*author
		scale := 1 + priorSpan*prior/math.Max(w.Recency+w.Importance+w.Author, 1e-9)
		comp := map[string]float64{
			"bm25": c.bm25, "vector": c.vec,
			"relevance": w.Relevance * rel, "relationship": w.Relationship * c.relation, "bonus": w.Bonus * bonus,
			"recency": w.Recency * recency, "importance": w.Importance * imp, "author": w.Author * author,
			"prior_scale": scale,
		}
		score := evidence * scale
		slices.Sort(c.why)
		out = append(out, Item{Commit: c.hash, Score: math.Round(score*1e4) / 1e4, Components: comp, Why: slices.Compact(c.why)})
		times[c.hash] = c.time
	}
	slices.SortFunc(out, func(a, b Item) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(times[b.Commit], times[a.Commit]), cmp.Compare(a.Commit, b.Commit))
	})
	return out
}

// relevance is a candidate's text relevance in [0, 1]: BM25 and vector
// similarity, each relative to the best hit of its list, mixed by the
// Vector weight.
func (s *Searcher) relevance(c *cand, mode Mode) float64 {
	if c.bm25Rank == 0 && c.vecRank == 0 {
		return c.bm25 // basic mode: the share of the terms in the subject
	}
	wv := s.opts.Weights.Vector
	switch mode {
	case ModeVector:
		wv = 1
	case ModeKeyword, ModeBasic:
		wv = 0
	}
	return (1-wv)*c.bm25 + wv*c.vec
}

// removalSources is how many of the best text matches a removal question
// follows to the commits that deleted their files.
const removalSources = 5

// removals answers a question about something that went away ("why was
// the legacy exporter pulled out?"). Its words match the commits that
// wrote the thing, seldom the one that took it out ("Clean up unused code
// paths"), so the commits that later deleted the files of the best
// matches are candidates too, as relevant as the match they follow.
func (s *Searcher) removals(ctx context.Context, cs *candSet, mode Mode) error {
	srcs := slices.Collect(maps.Values(cs.m))
	slices.SortFunc(srcs, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(s.relevance(b, mode), s.relevance(a, mode)), cmp.Compare(a.hash, b.hash))
	})
	for _, src := range srcs[:min(len(srcs), removalSources)] {
		rel := s.relevance(src, mode)
		if rel <= 0 {
			break
		}
		hashes, err := store.Strings(ctx, s.st.DB, `SELECT DISTINCT c.hash FROM file_changes f
			JOIN file_changes d ON d.path = f.path AND d.status = 'deleted' AND d.commit_id > f.commit_id
			JOIN commits c ON c.id = d.commit_id
			WHERE f.commit_id = ? AND f.status != 'deleted' AND c.is_merge = 0 LIMIT 10`, src.id)
		if err != nil {
			return fmt.Errorf("removals: %w", err)
		}
		for _, h := range hashes {
			c := cs.get(h)
			c.removal = max(c.removal, removalShare*rel)
			c.why = append(c.why, "deleted "+src.hash[:7]+"'s files")
		}
	}
	return s.details(ctx, cs) // the deleting commits not among the candidates yet
}

// removalShare is the part of a match's relevance that the commit
// deleting its files inherits: all of it, since for a question about a
// removal the deletion is the answer and the match only the way to it;
// the removal points then put it first.
const removalShare = 1.0

// priorSpan is the most the priors together can lift a commit's score:
// 5 %, a near-tie.
const priorSpan = 0.05

// entityNames are the short names of entity keys ("path#pkg.Type.Name":
// "Name"), once each.
func entityNames(keys []string) []string {
	var out []string
	for _, k := range keys {
		n := k[strings.LastIndexAny(k, "#.:")+1:]
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// namesAny reports whether subject holds one of the names as a word,
// case-sensitively: "mergePersistentFlags" in "Add only missing
// persistent flags of parents in mergePersistentFlags".
func namesAny(subject string, names []string) bool {
	for _, id := range names {
		if len(id) < 3 {
			continue
		}
		for rest := subject; ; {
			i := strings.Index(rest, id)
			if i < 0 {
				break
			}
			end := i + len(id)
			if (i == 0 || !isIdentByte(rest[i-1])) && (end == len(rest) || !isIdentByte(rest[end])) {
				return true
			}
			rest = rest[end:]
		}
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
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
