package retrieve

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/store"
)

// Pruning the disjunction. FTS5 computes bm25() for every row that
// matches any phrase of a question, and a question's common words ("file",
// "use", "merge") each match a third or more of git/git: bm25() (a
// row-length lookup and a walk of the row's positions, 1.5 µs a row) was
// nearly all of a keyword search. Yet a phrase adds at most idf·(k1 + 1)
// to a row's score, whatever its frequency and the row's length. So once
// some rows' scores are known, the k-th best of them bounds the k-th best
// of all from below, and a row that matches only phrases whose bounds add
// up to less cannot be among the k best (MaxScore, Turtle and Flood 1995).
//
// First the rows matching the rarest phrases are scored, by the same
// bm25() over the whole disjunction (so their scores are exactly those of
// the whole query); their k-th best score decides which common phrases
// cannot lift a row into the k best alone; then the rows that match one of
// the other phrases are scored. The k best of the two lists are the k best
// of the whole query, with the same scores and the same ties.

// pruneMargin keeps the bound strict through float rounding: a row whose
// score could equal the k-th best is never left out, so ties break as
// they would.
const pruneMargin = 1e-9

// pruneMinRows: below this many rows in the index, or matches counted per
// phrase, scoring them all costs less than the counts and a second pass:
// on the evaluation sets of repositories of 1,000-12,000 commits pruning
// saved nothing (a variable for the tests).
var pruneMinRows int64 = 16000

// phraseBound is one phrase of the disjunction with its row count.
type phraseBound struct {
	alt  string
	hits int64
	max  float64 // idf·(k1 + 1): the most it adds to a row's score
}

// prunedTop returns the k best rows of the disjunction of alts in SQLite's
// order (bm25() ascending, then the newest row), scoring only the rows that
// can be among them; ok is false when pruning would not pay or cannot
// decide, and the caller ranks every row. q must read one snapshot (a
// read transaction), so that the counts are those bm25() uses.
func prunedTop(ctx context.Context, q store.Querier, alts []string, k int) (_ []KeywordHit, ok bool, err error) {
	if len(alts) < 2 {
		return nil, false, nil
	}
	bounds, err := phraseBounds(ctx, q, alts)
	if err != nil || bounds == nil {
		return nil, false, err
	}
	first := rarest(bounds, int64(k))
	all := strings.Join(alts, " OR ")
	top, err := rankedRows(ctx, q, all, joinAlts(bounds[:first]), k)
	if err != nil || len(top) < k {
		return nil, false, err
	}
	kth := -top[k-1].BM25
	need := essential(bounds, kth)
	if need <= first {
		return top, true, nil
	}
	// The rows of the other phrases needed that the first pass did not score.
	more, err := rankedRows(ctx, q, all, "("+joinAlts(bounds[first:need])+") NOT ("+joinAlts(bounds[:first])+")", k)
	if err != nil {
		return nil, false, err
	}
	top = append(top, more...)
	slices.SortFunc(top, keywordOrder)
	return top[:k], true, nil
}

// phraseBounds counts each phrase's rows, as bm25()'s IDF does, and
// orders the phrases by the most they add to a score, highest first. It
// returns nil when the phrases match too few rows to be worth pruning.
func phraseBounds(ctx context.Context, q store.Querier, alts []string) ([]phraseBound, error) {
	totals, err := indexTotals(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, _, err := decodeTotals(totals)
	if err != nil {
		return nil, err
	}
	if rows < pruneMinRows {
		return nil, nil
	}
	out := make([]phraseBound, len(alts))
	var sum int64
	for i, alt := range alts {
		var n int64
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM search WHERE search MATCH ?`, alt).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", alt, err)
		}
		out[i] = phraseBound{alt: alt, hits: n, max: termIDF(rows, int(n)) * (bm25K1 + 1)}
		sum += n
	}
	if sum < pruneMinRows {
		return nil, nil
	}
	slices.SortStableFunc(out, func(a, b phraseBound) int { return cmp.Compare(b.max, a.max) })
	return out, nil
}

// rarest returns how many of the rarest phrases the first pass scores:
// enough for k rows and a twentieth of all the matches, counted per
// phrase. Their k-th best score is then close to the whole query's. On
// git/git's questions, a first pass of k rows alone left a bound too low
// to leave out much and a second pass over most rows; a tenth of the
// matches scored rows the bound would have skipped (keyword CPU, bench
// questions, against every row scored: 0.56 with a twentieth, 0.61 with
// a tenth; the longer evaluation questions 0.73 with either).
func rarest(bounds []phraseBound, k int64) int {
	var sum, n int64
	for _, b := range bounds {
		sum += b.hits
	}
	for i, b := range bounds {
		if n += b.hits; n >= max(k, sum/firstShare) {
			return i + 1
		}
	}
	return len(bounds)
}

// firstShare: the first pass scores the rarest phrases' rows up to
// 1/firstShare of all the phrases' matches.
const firstShare = 20

// essential returns how many of the phrases, rarest first, a row must
// match one of to score above kth: the others' bounds add up to less.
func essential(bounds []phraseBound, kth float64) int {
	rest := 0.0
	for j := len(bounds) - 1; j >= 0; j-- {
		if rest += bounds[j].max; rest*(1+pruneMargin)+pruneMargin >= kth*(1-pruneMargin) {
			return j + 1
		}
	}
	return 0
}

func joinAlts(bs []phraseBound) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.alt
	}
	return strings.Join(parts, " OR ")
}

// rankedRows returns the k best rows by bm25() over all among those that
// match only. "+rowid": a rowid constraint FTS5 can use restarts the
// query, and bm25()'s counts with it, for each row.
func rankedRows(ctx context.Context, q store.Querier, all, only string, k int) ([]KeywordHit, error) {
	var out []KeywordHit
	err := store.EachRow(ctx, q, `SELECT rowid, `+bm25Expr()+` AS r FROM search
		WHERE search MATCH ?1 AND +rowid IN (SELECT rowid FROM search WHERE search MATCH ?2)
		ORDER BY r, rowid DESC LIMIT ?3`, []any{all, only, k}, func(r *sql.Rows) error {
		var h KeywordHit
		err := r.Scan(&h.ID, &h.BM25)
		out = append(out, h)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return out, nil
}
