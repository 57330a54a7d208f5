package retrieve

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/store"
)

// zipfMessages returns n commit messages over a vocabulary whose word i
// appears in about 0.9/(1+i/2) of them, some words twice: a few words in
// most messages, as "file" and "git" are in git/git's, and many rare ones.
func zipfMessages(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	out := make([]string, n)
	for c := range out {
		var subject, body []string
		for i := range 40 {
			if rng.Float64() >= 0.9/(1+float64(i)/2) {
				continue
			}
			w := fmt.Sprintf("word%02d", i)
			if rng.IntN(3) == 0 {
				subject = append(subject, w)
			} else {
				body = append(body, w)
			}
			if rng.IntN(4) == 0 {
				body = append(body, w)
			}
		}
		out[c] = "Change " + strings.Join(subject, " ") + "\n\n" + strings.Join(body, " ")
	}
	return out
}

// allRanked is the keyword search without pruning: SQLite's bm25() over
// every row that matches, the live ones, best first.
func allRanked(t *testing.T, st *store.Store, terms []string, limit int) []KeywordHit {
	t.Helper()
	out, err := keywordRows(context.Background(), st.DB, `SELECT c.id, c.hash, `+bm25Expr()+` AS r
		FROM search JOIN commits c ON c.id = search.rowid WHERE search MATCH ? AND c.rewritten = 0
		ORDER BY r, c.id DESC LIMIT ?`, strings.Join(matchAlts(terms, true), " OR "), limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 0 {
		for i := range out {
			out[i].Score = max(out[i].BM25/out[0].BM25, 1e-6)
		}
	}
	return out
}

// leftOut returns how many rows that match terms the pruning never
// scores, as prunedTop decides for the k best.
func leftOut(t *testing.T, st *store.Store, terms []string, k int) int64 {
	t.Helper()
	ctx := context.Background()
	tx, err := st.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	alts := matchAlts(terms, true)
	bounds, err := phraseBounds(ctx, tx, alts)
	if err != nil || bounds == nil {
		t.Fatalf("bounds of %q: %v %v", terms, bounds, err)
	}
	first := rarest(bounds, int64(k))
	top, err := rankedRows(ctx, tx, strings.Join(alts, " OR "), joinAlts(bounds[:first]), k)
	if err != nil || len(top) < k {
		t.Fatalf("first pass of %q: %d rows, %v", terms, len(top), err)
	}
	scored := joinAlts(bounds[:max(first, essential(bounds, -top[k-1].BM25))])
	var all, kept int64
	tx.QueryRow(`SELECT count(*) FROM search WHERE search MATCH ?`, strings.Join(alts, " OR ")).Scan(&all)
	tx.QueryRow(`SELECT count(*) FROM search WHERE search MATCH ?`, scored).Scan(&kept)
	return all - kept
}

func TestPrunedKeywordRanksAsSQLite(t *testing.T) {
	old := pruneMinRows
	pruneMinRows = 0
	t.Cleanup(func() { pruneMinRows = old })
	g := gittest.FromMessages(t, zipfMessages(400, 3))
	st := indexRepo(t, g)
	// Some of the top rows rewritten: the live ones below them come up.
	if _, err := st.DB.Exec(`UPDATE commits SET rewritten = 1 WHERE id % 7 = 0`); err != nil {
		t.Fatal(err)
	}
	queries := [][]string{
		{"word00", "word01", "word30"},
		{"word00", "word02", "word03", "word25", "word33", "word39"},
		{"word01", "word02", "word04", "word05", "word06", "word07", "word20"},
		{"word00", "word01"},
		{"word35", "word36", "word37", "word38", "word39"},
		{"word00", "word10", "nothing_matches_this"},
	}
	pruned := 0
	for _, terms := range queries {
		for _, limit := range []int{3, 10, 40} {
			got, err := Keyword(context.Background(), st, KeywordQuery{Terms: terms, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			want := allRanked(t, st, terms, limit)
			if len(got) != len(want) {
				t.Fatalf("%q limit %d: %d hits, want %d", terms, limit, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%q limit %d: hit %d is %+v, want %+v", terms, limit, i, got[i], want[i])
				}
			}
			if limit == 3 && len(matchAlts(terms, true)) > 2 && leftOut(t, st, terms, 2*limit) > 0 {
				pruned++
			}
		}
	}
	if pruned < 3 {
		t.Errorf("pruning left rows out in %d questions, want at least 3: the test no longer exercises it", pruned)
	}
}

func TestEssential(t *testing.T) {
	bounds := []phraseBound{{max: 9}, {max: 5}, {max: 3}, {max: 1}}
	for _, c := range []struct {
		kth  float64
		want int
	}{
		{0.5, 4}, // no phrase is too weak alone
		{1.5, 3}, // the last one (1) cannot lift a row above 1.5
		{4, 3},   // 3 + 1 reaches 4: the third is still needed
		{4.5, 2},
		{9.5, 1},
		{18.5, 0}, // nothing reaches it
	} {
		if got := essential(bounds, c.kth); got != c.want {
			t.Errorf("essential at %v = %d, want %d", c.kth, got, c.want)
		}
	}
}
