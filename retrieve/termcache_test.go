package retrieve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/store"
)

// sameRanking fails unless cached and plain rank the same commits in the
// same order, allowing commits whose scores differ only by float rounding
// (the cache sums a term at a time) to swap.
func sameRanking(t *testing.T, what string, cached, plain []KeywordHit) {
	t.Helper()
	if len(cached) != len(plain) {
		t.Fatalf("%s: %d hits from the cache, %d from SQLite", what, len(cached), len(plain))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for i := range plain {
		c, p := cached[i], plain[i]
		if !near(c.BM25, p.BM25) || math.Abs(c.Score-p.Score) > 1e-9 {
			t.Fatalf("%s: hit %d scores %.12f from the cache, %.12f from SQLite", what, i, c.BM25, p.BM25)
		}
		if c.Commit != p.Commit && !near(c.BM25, plain[max(i-1, 0)].BM25) && !near(c.BM25, plain[min(i+1, len(plain)-1)].BM25) {
			t.Fatalf("%s: hit %d is %s from the cache, %s from SQLite", what, i, c.Commit, p.Commit)
		}
	}
}

func compareKeyword(t *testing.T, st *store.Store, cache *TermCache, terms []string, limit int, rewritten bool) {
	t.Helper()
	ctx := context.Background()
	q := KeywordQuery{Terms: terms, Limit: limit, IncludeRewritten: rewritten}
	plain, err := Keyword(ctx, st, q)
	if err != nil {
		t.Fatal(err)
	}
	q.Cache = cache
	cached, err := Keyword(ctx, st, q)
	if err != nil {
		t.Fatal(err)
	}
	sameRanking(t, fmt.Sprintf("%q limit %d", terms, limit), cached, plain)
}

func TestTermCacheRanksAsSQLite(t *testing.T) {
	g := gittest.Generate(t, 600, 7)
	st := indexRepo(t, g)
	cache := NewTermCache(0)
	queries := [][]string{
		{"retry", "loop", "deadlock"},
		{"cache", "eviction", "fixes"},
		{"parseConfigFile", "token"},
		{"speed", "index", "flush", "old", "code"},
		{"nothing_matches_this"},
		{"retry", "loop", "deadlock"}, // again: from the cache
	}
	for _, terms := range queries {
		for _, limit := range []int{5, 40, 1000} {
			compareKeyword(t, st, cache, terms, limit, false)
		}
	}
	if hits, computed := cache.Stats(); hits == 0 || computed == 0 {
		t.Errorf("cache stats: %d hits, %d computed; want both", hits, computed)
	}

	// Rewritten commits crowding the top: the live ones below still come,
	// as from SQLite.
	top, err := Keyword(context.Background(), st, KeywordQuery{Terms: []string{"retry"}, Limit: 30})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range top {
		if _, err := st.DB.Exec(`UPDATE commits SET rewritten = 1 WHERE id = ?`, h.ID); err != nil {
			t.Fatal(err)
		}
	}
	compareKeyword(t, st, cache, []string{"retry"}, 10, false)
	compareKeyword(t, st, cache, []string{"retry"}, 10, true)
}

// TestTermCacheFollowsTheIndex: after a sync adds commits, the kept parts
// (computed over fewer rows) are not used.
func TestTermCacheFollowsTheIndex(t *testing.T) {
	g, st := stepRepo(t, 20, "Tune the retry loop, step %d")
	cache := NewTermCache(0)
	compareKeyword(t, st, cache, []string{"retry", "loop"}, 5, false)
	g.Write("x.go", "package f\n")
	added := g.Commit("Rewrite the retry loop around a retry budget: retry retry")
	syncInto(t, g, st)
	before := cache.state
	compareKeyword(t, st, cache, []string{"retry", "loop"}, 5, false)
	hits, err := Keyword(context.Background(), st, KeywordQuery{Terms: []string{"retry", "loop"}, Limit: 5, Cache: cache})
	if err != nil || len(hits) == 0 || hits[0].Commit != added {
		t.Errorf("after the sync: %+v %v, want %s first", hits, err, added)
	}
	// The new commit extended the kept terms rather than emptying them.
	if cache.state.rows != before.rows+1 || len(cache.terms) != 2 || cache.terms["\"retry\""] == nil ||
		cache.terms["\"retry\""].Value.(*termRows).through != cache.state.last {
		t.Errorf("after an added commit: %d rows (was %d), terms %v", cache.state.rows, before.rows, cache.terms)
	}
	// A deleted row changes the counts otherwise: everything is read again.
	if _, err := st.DB.Exec(`DELETE FROM commits WHERE hash = ?`, added); err != nil {
		t.Fatal(err)
	}
	compareKeyword(t, st, cache, []string{"retry", "loop"}, 5, false)
	if cache.state.rows != before.rows {
		t.Errorf("after a deletion the cache describes %d rows, want %d", cache.state.rows, before.rows)
	}
}

func TestTermCacheBound(t *testing.T) {
	c := NewTermCache(10)
	s := &indexState{}
	c.state = s
	for i := range 5 {
		c.keep(&termRows{term: strings.Repeat("x", i+1), ids: make([]int64, 4), freq: make([]float64, 4)}, s)
	}
	if c.size > 10 || len(c.terms) != 2 || c.terms["xxxxx"] == nil || c.terms["x"] != nil {
		t.Errorf("size %d, %d terms: want the two most recent within 10 rows", c.size, len(c.terms))
	}
	c.keep(&termRows{term: "stale", ids: make([]int64, 1), freq: make([]float64, 1)}, &indexState{})
	if c.terms["stale"] != nil {
		t.Error("matches read from another state of the index were kept")
	}
}

func TestVarints(t *testing.T) {
	// cobra's keyword index: 1,106 rows, then the tokens of six columns.
	rows, tokens, err := decodeTotals([]byte{0x88, 0x52, 0xC2, 0x59, 0x81, 0xA6, 0x37, 0xC3, 0x5B, 0xA1, 0x35, 0xB8, 0x1D, 0x84, 0xCD, 0x44})
	if err != nil || rows != 1106 || tokens != 8537+21303+8667+4277+7197+75460 {
		t.Errorf("decodeTotals = %d rows, %d tokens, %v", rows, tokens, err)
	}
	if _, _, err := decodeTotals([]byte{0x88}); err == nil {
		t.Error("a truncated record decoded")
	}
	nine := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	if v, n := getVarint(nine); n != 9 || v != 1<<64-255 {
		t.Errorf("nine-byte varint = %x, %d", v, n)
	}
}

// TestTermCacheConcurrent: questions from many goroutines while commits
// are indexed; run with -race.
func TestTermCacheConcurrent(t *testing.T) {
	g, st := stepRepo(t, 30, "Tune the retry loop and the cache, step %d")
	cache := NewTermCache(0)
	ctx := context.Background()
	done := make(chan error)
	for w := range 4 {
		go func() {
			var err error
			for i := 0; i < 30 && err == nil; i++ {
				terms := [][]string{{"retry"}, {"cache", "loop"}, {"step", "tune", "retry"}}[(w+i)%3]
				_, err = Keyword(ctx, st, KeywordQuery{Terms: terms, Limit: 5, Cache: cache})
			}
			done <- err
		}()
	}
	for i := range 3 {
		g.Write(fmt.Sprintf("g%d.go", i), "package f\n")
		g.Commit(fmt.Sprintf("Retry the cache loop again %d", i))
		syncInto(t, g, st)
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	compareKeyword(t, st, cache, []string{"retry", "cache", "loop"}, 10, false)
}

// stepRepo indexes n commits, each adding a file, with subject (a format
// of the step number).
func stepRepo(t *testing.T, n int, subject string) (*gittest.Repo, *store.Store) {
	g := gittest.New(t)
	for i := range n {
		g.Write(fmt.Sprintf("f%d.go", i), "package f\n")
		g.Commit(fmt.Sprintf(subject, i))
	}
	return g, indexRepo(t, g)
}

// TestKeywordScoresAreTheSearchScores: the BM25 of chosen rows, from
// SQLite and from the term cache, is what the search gives them, over
// every column or the messages alone, and a row that matches none of the
// terms gets none.
func TestKeywordScoresAreTheSearchScores(t *testing.T) {
	g := gittest.Generate(t, 600, 7)
	st := indexRepo(t, g)
	ctx := context.Background()
	cache := NewTermCache(0)
	for _, tc := range []struct {
		terms    []string
		messages bool
	}{
		{[]string{"retry", "loop", "deadlock"}, false}, {[]string{"parseConfigFile", "token"}, false},
		{[]string{"speed", "index", "flush", "old", "code"}, false},
		{[]string{"retry", "loop", "deadlock"}, true}, {[]string{"speed", "index", "flush", "old", "code"}, true},
	} {
		terms := tc.terms
		hits, err := Keyword(ctx, st, KeywordQuery{Terms: terms, Limit: 1000, MessagesOnly: tc.messages})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) < 20 {
			t.Fatalf("%q: %d hits, too few to test with", terms, len(hits))
		}
		want := map[int64]float64{}
		matched := map[int64]bool{}
		var ids []int64
		for i, h := range hits {
			matched[h.ID] = true
			if i%3 == 0 {
				ids, want[h.ID] = append(ids, h.ID), h.BM25
			}
		}
		unmatched := int64(1) // a commit (ids run from 1) the terms do not match
		for matched[unmatched] {
			unmatched++
		}
		ids = append(ids, unmatched)
		for _, c := range []*TermCache{nil, cache, cache} { // the cache twice: cold, then kept
			got, err := KeywordScores(ctx, st, KeywordQuery{Terms: terms, Cache: c, MessagesOnly: tc.messages}, ids)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("%q (cache %v, messages %v): %d rows scored, want %d", terms, c != nil, tc.messages, len(got), len(want))
			}
			for id, w := range want {
				if math.Abs(got[id]-w) > 1e-9*math.Abs(w) {
					t.Errorf("%q (cache %v, messages %v): row %d scores %.12f, the search %.12f", terms, c != nil, tc.messages, id, got[id], w)
				}
			}
			if _, ok := got[unmatched]; ok {
				t.Errorf("%q: row %d matches none of the terms and got a score", terms, unmatched)
			}
		}
	}
}

// TestKeywordScoresErrorsAndSyntax: a cancelled query is an error of
// KeywordScores, through SQLite and the cache, and of the lookup of a
// subject the reverts follow; words that are FTS5 syntax are searched as
// words, not read as a query.
func TestKeywordScoresErrorsAndSyntax(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.go", "package a\n")
	g.Commit(`Quote "NEAR(x y)" and a* in the parser`)
	st := indexRepo(t, g)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []*TermCache{nil, NewTermCache(0)} {
		if _, err := KeywordScores(ctx, st, KeywordQuery{Terms: []string{"parser"}, Cache: c}, []int64{1}); !errors.Is(err, context.Canceled) {
			t.Errorf("KeywordScores (cache %v) on a cancelled query: %v, want context.Canceled", c != nil, err)
		}
	}
	s := NewSearcher(st, nil, nil, SearchOptions{})
	if _, err := s.withSubject(ctx, "Quote", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("withSubject on a cancelled query: %v, want context.Canceled", err)
	}
	for _, c := range []*TermCache{nil, NewTermCache(0)} {
		got, err := KeywordScores(context.Background(), st, KeywordQuery{Terms: []string{`"near(x`, "a*", `y)"`}, Cache: c}, []int64{1})
		if err != nil || len(got) != 1 || got[1] >= 0 {
			t.Errorf("KeywordScores of FTS5 syntax (cache %v) = %v, %v; want row 1 scored", c != nil, got, err)
		}
	}
}
