package retrieve

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/vectors"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Why did the Parser crash, on UTF-8 input?!": "parser crash utf 8 input",
		"  почему   упал  парсер? ":                  "упал парсер",
		"fix: os.Args": "fix os args",
		"the a of":     "",
	} {
		if got := strings.Join(Normalize(in), " "); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClassifyIntent(t *testing.T) {
	for q, want := range map[string]string{
		"why is prefix matching off by default":  IntentExplain,
		"почему отключён prefix matching":        IntentExplain,
		"the parser crashes on empty input":      IntentDebug,
		"парсер падает на пустом вводе":          IntentDebug,
		"when was context support introduced":    IntentResearch,
		"когда добавили поддержку context":       IntentResearch,
		"how should we design the plugin loader": IntentPlan,
		"implement retries in the upload client": IntentExecute,
		"flags":                                  IntentResearch,
	} {
		if got := ClassifyIntent(q); got != want {
			t.Errorf("ClassifyIntent(%q) = %s, want %s", q, got, want)
		}
	}
}

func TestExtractRefs(t *testing.T) {
	r := extractRefs("why did stripFlags in command.go and os.Args change in 3f60599, e.g. for args?")
	if !slices.Equal(r.idents, []string{"stripFlags", "os.Args"}) || !slices.Equal(r.paths, []string{"command.go"}) ||
		!slices.Equal(r.shas, []string{"3f60599"}) {
		t.Errorf("refs = %+v", r)
	}
}

// searchRepo is a small history with a function renamed, a bug fixed with
// its rationale, and unrelated noise.
func searchRepo(t *testing.T) (*gittest.Repo, map[string]string) {
	g := gittest.New(t)
	c := map[string]string{}
	g.Write("upload/client.go", "package upload\n\nfunc sendChunk(b []byte) error {\n\treturn nil\n}\n")
	c["add"] = g.Commit("Add the upload client")
	g.Write("upload/client.go", "package upload\n\nfunc sendChunk(b []byte) error {\n\tretryBudget := 3\n\t_ = retryBudget\n\treturn nil\n}\n")
	c["retry"] = g.Commit("Retry chunk uploads because flaky proxies drop connections (fixes #41)")
	g.Write("docs/readme.md", "# docs\n")
	c["docs"] = g.Commit("Document the command line")
	g.Write("cli/flags.go", "package cli\n\nfunc parseFlags() {}\n")
	c["flags"] = g.Commit("Parse flags before running commands")
	return g, c
}

func newSearcher(t *testing.T, g *gittest.Repo, vec bool) *Searcher {
	st := openStore(t, "")
	opts := indexer.Options{}
	var ix *vectors.Index
	if vec {
		var err error
		if ix, err = vectors.Open(t.TempDir(), vectors.NewLocal(0), nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		opts.Vectors = ix
	}
	s, err := indexer.New(g.Dir, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return NewSearcher(st, ix, nil, SearchOptions{Now: func() time.Time { return gittest.Epoch.AddDate(0, 0, 1) }})
}

func TestSearch(t *testing.T) {
	g, c := searchRepo(t)
	s := newSearcher(t, g, true)
	ctx := context.Background()
	ask := func(q string, mode Mode) *Answer {
		t.Helper()
		a, err := s.Search(ctx, Request{Query: q, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := ask("why do uploads retry?", "")
	if a.Mode != ModeHybrid || a.Degraded || len(a.Items) == 0 || a.Items[0].Commit != c["retry"] || a.Intent != IntentExplain {
		t.Fatalf("answer %+v, want hybrid with %s first", a, c["retry"])
	}
	// A function named in the question: the entity is resolved fuzzily
	// (a typo) and the commits that changed it come first.
	a = ask("how did sendChnk evolve", "")
	if !slices.Contains(a.Entities, "upload/client.go#upload.sendChunk") || a.Items[0].Commit != c["retry"] && a.Items[0].Commit != c["add"] {
		t.Errorf("entity question: entities %v, items %+v", a.Entities, a.Items)
	}
	// A name that matches nothing says so, with the closest.
	a = ask("why does zzTopHandler panic", "")
	if !slices.ContainsFunc(a.Warnings, func(w string) bool { return strings.Contains(w, `"zzTopHandler"`) }) {
		t.Errorf("warnings %q lack the unmatched name", a.Warnings)
	}
	// An issue reference is a direct match.
	a = ask("what fixed #41", "")
	if len(a.Items) == 0 || a.Items[0].Commit != c["retry"] || !slices.Contains(a.Items[0].Why, "issue #41") {
		t.Errorf("issue question: %+v", a.Items)
	}
	// No match is said plainly.
	a = ask("kubernetes helm charts", "")
	if !a.NoMatch || len(a.Items) != 0 || !slices.Contains(a.Warnings, "no matching commits found") {
		t.Errorf("no-match answer: %+v", a)
	}
	// Every mode answers, and says which it is.
	for _, m := range []Mode{ModeHybrid, ModeVector, ModeKeyword, ModeBasic} {
		if a := ask("retry uploads", m); a.Mode != m || len(a.Items) == 0 || a.Items[0].Commit != c["retry"] {
			t.Errorf("mode %s: %+v", m, a)
		}
	}
	if _, err := s.Search(ctx, Request{Query: "  "}); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("empty query: %v", err)
	}
	if _, err := s.Search(ctx, Request{Query: "x", Mode: "fast"}); err == nil {
		t.Error("unknown mode accepted")
	}
	// Deterministic: the same question twice gives the same answer.
	a1, a2 := ask("parse flags commands", ""), ask("parse flags commands", "")
	if len(a1.Items) != len(a2.Items) || a1.Items[0].Commit != a2.Items[0].Commit {
		t.Errorf("two runs differ: %v / %v", a1.Items, a2.Items)
	}
}

func TestSearchDegradesWithoutVectors(t *testing.T) {
	g, c := searchRepo(t)
	s := newSearcher(t, g, false)
	a, err := s.Search(context.Background(), Request{Query: "retry uploads"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Mode != ModeKeyword || !a.Degraded || len(a.Warnings) == 0 || a.Items[0].Commit != c["retry"] {
		t.Errorf("answer %+v: want a degraded keyword answer with a warning", a)
	}
	a, err = s.Search(context.Background(), Request{Query: "retry uploads", Mode: ModeVector})
	if err != nil || a.Mode != ModeKeyword || !a.Degraded {
		t.Errorf("vector mode without vectors: %+v %v", a, err)
	}
	if _, err := s.st.DB.Exec(`UPDATE commits SET rewritten = 1 WHERE hash = ?`, c["retry"]); err != nil {
		t.Fatal(err)
	}
	a, err = s.Search(context.Background(), Request{Query: "retry uploads"})
	if err != nil || slices.ContainsFunc(a.Items, func(it Item) bool { return it.Commit == c["retry"] }) {
		t.Errorf("rewritten commit answered: %+v %v", a, err)
	}
}

func TestExtractRefsPlainNames(t *testing.T) {
	r := extractRefs("Why was Retry changed when Express calls `backoff` or jitter() on Node? Parse it")
	if !slices.Equal(r.names, []string{"Retry", "Express", "backoff", "jitter", "Node"}) || len(r.idents) != 0 {
		t.Errorf("refs = %+v: want the capitalised, quoted and called words as names, not the sentence's first words", r)
	}
}

// A plain function name in a question finds the function only when an
// entity has exactly that name: "Retry" does, "Express" (a product, not
// an entity here) does not.
func TestSearchPlainFunctionName(t *testing.T) {
	g := gittest.New(t)
	g.Write("net/client.go", "package net\n\nfunc Retry(n int) error {\n\treturn nil\n}\n")
	add := g.Commit("Add the network client")
	g.Write("net/client.go", "package net\n\nfunc Retry(n int) error {\n\tif n > 5 {\n\t\tn = 5\n\t}\n\treturn nil\n}\n")
	cap := g.Commit("Cap attempts at five so a dead server is given up on")
	g.Write("docs/notes.md", "retry notes\n")
	g.Commit("Write down why Express users retry requests")
	s := newSearcher(t, g, true)
	a, err := s.Search(context.Background(), Request{Query: "why was Retry changed?"})
	if err != nil {
		t.Fatal(err)
	}
	// Both commits that wrote Retry are found through the entity, with its
	// points and relationship; the one whose message merely says "retry"
	// has neither. Which of them ranks first is the weights' trade-off
	// between a named entity and a message that matches every word,
	// measured on the evaluation sets' entity questions, not here.
	if !slices.Contains(a.Entities, "net/client.go#net.Retry") || len(a.Items) != 3 {
		t.Fatalf("entities %v, items %+v: want net.Retry resolved and three results", a.Entities, a.Items)
	}
	for _, it := range a.Items {
		viaEntity := slices.Contains(it.Why, "entity net.Retry")
		scored := it.Components["bonus"] > 0 && it.Components["relationship"] > 0
		if want := it.Commit == add || it.Commit == cap; viaEntity != want || scored != want {
			t.Errorf("%s: why %v, components %v: want the entity's points only on %s and %s", it.Commit[:7], it.Why, it.Components, add[:7], cap[:7])
		}
	}
	a, err = s.Search(context.Background(), Request{Query: "how do Express users retry"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Entities) != 0 || len(a.Warnings) != 0 {
		t.Errorf("a product name resolved as an entity: entities %v, warnings %q", a.Entities, a.Warnings)
	}
}

// A panic in one of a question's concurrent searches is the question's
// error, not the end of the process.
func TestSearchStagePanicIsAnError(t *testing.T) {
	s := NewSearcher(&store.Store{}, nil, nil, SearchOptions{}) // no database: every stage panics on it
	_, err := s.Search(context.Background(), Request{Query: "why does upload retry", Mode: ModeKeyword})
	if err == nil || !strings.Contains(err.Error(), "failed") {
		t.Fatalf("err = %v, want the panicking stage named", err)
	}
	if !strings.Contains(err.Error(), "search failed") && !strings.Contains(err.Error(), "matches failed") {
		t.Fatalf("err = %v: not the stage's panic", err)
	}
}

// The vector search loads its hits' details while the keyword search
// runs: a rewritten commit it finds is still left out, and the others
// keep what scoring reads of them (the recency of their date).
func TestSearchVectorHitsDetails(t *testing.T) {
	g, c := searchRepo(t)
	s := newSearcher(t, g, true)
	if _, err := s.st.DB.Exec(`UPDATE commits SET rewritten = 1 WHERE hash = ?`, c["retry"]); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{ModeVector, ModeHybrid} {
		a, err := s.Search(context.Background(), Request{Query: "retry chunk uploads through flaky proxies", Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Items) == 0 || slices.ContainsFunc(a.Items, func(it Item) bool { return it.Commit == c["retry"] }) {
			t.Fatalf("%s: items %+v: want answers without the rewritten commit", mode, a.Items)
		}
		for _, it := range a.Items {
			if it.Components["recency"] <= 0 {
				t.Errorf("%s: %s scored without its date: %v", mode, it.Commit, it.Components)
			}
		}
	}
}

// TestKeywordScoresLeaveOutNoCandidate: the vector hits the keyword list
// left out get their BM25 relative to the list's best; a hit the list
// ranked keeps its own, and a commit no source found stays out.
func TestKeywordScoresLeaveOutNoCandidate(t *testing.T) {
	cs := &candSet{m: map[string]*cand{
		"vec":  {id: 1, hash: "vec", vecRank: 2, vec: 0.9},
		"both": {id: 2, hash: "both", bm25Rank: 7, bm25: 0.8, vecRank: 1, vec: 1},
	}}
	cs.keywordBest = -10
	cs.vecBM25 = map[int64]float64{1: -4, 2: -3, 3: -3.5}
	cs.withKeywordScores()
	if got := cs.m["vec"].bm25; math.Abs(got-0.4) > 1e-12 || !slices.Contains(cs.m["vec"].why, "keyword") {
		t.Errorf("the vector hit's BM25 = %v (why %v), want 4/10 and a keyword match", got, cs.m["vec"].why)
	}
	if got := cs.m["both"].bm25; got != 0.8 {
		t.Errorf("a ranked keyword hit's BM25 = %v, want its own 0.8", got)
	}
	if len(cs.m) != 2 {
		t.Errorf("candidates %v: a commit no source found joined", cs.m)
	}
}

// TestSearchShowsACherryPickOnce: a change committed twice (picked onto
// the main branch, then its branch merged too) is one answer, which names
// its other copy.
func TestSearchShowsACherryPickOnce(t *testing.T) {
	g := gittest.New(t)
	g.Write("main.go", "package main\n")
	g.Commit("Start")
	main := g.Git("branch", "--show-current")
	g.Git("checkout", "-q", "-b", "side")
	g.Write("pool/pool.go", "package pool\n\nfunc Drain() {}\n")
	picked := g.Commit("Drain the zebra pool before shutdown so that queued jobs finish")
	g.Git("checkout", "-q", main)
	g.Tick()
	g.Git("cherry-pick", picked)
	copied := g.Head()
	g.Tick()
	g.Git("merge", "-q", "--no-ff", "-m", "Merge the side branch", "side")
	if picked == copied {
		t.Fatal("the cherry-pick made no new commit")
	}
	s := newSearcher(t, g, true)
	a, err := s.Search(context.Background(), Request{Query: "why drain the zebra pool before shutdown?", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var shown []Item
	for _, it := range a.Items {
		if it.Commit == picked || it.Commit == copied {
			shown = append(shown, it)
		}
	}
	if len(shown) != 1 {
		t.Fatalf("the change is shown %d times, want once: %+v", len(shown), a.Items)
	}
	other := picked
	if shown[0].Commit == picked {
		other = copied
	}
	if !slices.Contains(shown[0].Why, "also committed as "+other[:12]) || !slices.Equal(shown[0].Copies, []string{other}) {
		t.Errorf("why %q, copies %q: the other copy %s is not named", shown[0].Why, shown[0].Copies, other)
	}
}
