package retrieve

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/gitmemory/gitmemory/store"
)

// BM25 column weights of the keyword index: subject, body, summary (with
// the prose the commit added: documentation, changelog and comment lines),
// design notes, paths, entity names. A word in the subject or in a changed
// function's name says more about a commit than one in its body; the
// summary and design notes repeat the message, so they count little, or
// a sentence would count two and three times. Chosen on the evaluation
// sets' dev splits (docs/evaluation.md).
var columnWeights = [6]float64{4, 2, 0.5, 1, 0.5, 2}

// KeywordQuery is a BM25 search over the keyword index.
type KeywordQuery struct {
	// Terms are the query's words (normalised; see Normalize). Compound
	// identifiers also match by their parts.
	Terms []string
	Limit int
	// MessagesOnly searches subject and body alone, without identifier
	// parts: plain BM25 over commit messages, the evaluation's baseline.
	MessagesOnly bool
	// Whole matches each term as it is, without the parts of a compound
	// (a word lent by documentation: "git-p4.detectrenames" would bring
	// "4" and "p", found in thousands of commits).
	Whole            bool
	IncludeRewritten bool
	// Cache, when set, keeps each term's BM25 parts between queries.
	Cache *TermCache
}

// Keyword returns the commits that best match the terms by BM25, best first.
func Keyword(ctx context.Context, st *store.Store, q KeywordQuery) ([]KeywordHit, error) {
	alts := matchAlts(q.Terms, !q.MessagesOnly && !q.Whole)
	if len(alts) == 0 {
		return nil, nil
	}
	if q.Limit <= 0 {
		q.Limit = 50
	}
	var out []KeywordHit
	var err error
	if q.Cache != nil && !q.MessagesOnly {
		out, err = cachedKeyword(ctx, st, q.Cache, alts, q)
	} else {
		out, err = sqlKeyword(ctx, st, alts, q)
	}
	if err != nil {
		return nil, err
	}
	// bm25() is negative, better more so: scale by the best.
	if len(out) > 0 && out[0].BM25 < 0 {
		best := out[0].BM25
		for i := range out {
			out[i].Score = math.Max(out[i].BM25/best, 1e-6)
		}
	}
	return out, nil
}

// KeywordScores returns bm25() of the rows ids (commit ids) for the
// disjunction of q's terms, as Keyword scores them, for those of the rows
// that match; q.Limit is ignored. A search scores the commits other
// sources found with it.
func KeywordScores(ctx context.Context, st *store.Store, q KeywordQuery, ids []int64) (map[int64]float64, error) {
	alts := matchAlts(q.Terms, !q.MessagesOnly && !q.Whole)
	if len(alts) == 0 || len(ids) == 0 {
		return nil, nil
	}
	if q.Cache != nil {
		if q.MessagesOnly {
			for i, a := range alts {
				alts[i] = inMessages(a)
			}
		}
		return cachedScores(ctx, st, q.Cache, alts, ids)
	}
	expr, rank := q.disjunction(alts)
	args := []any{expr}
	for _, id := range ids {
		args = append(args, id)
	}
	// "+rowid": a rowid constraint FTS5 can use restarts the query for
	// each row (165 ms for 300 rows of git/git); filtered after the match,
	// only these rows are scored (6 ms).
	out := map[int64]float64{}
	err := store.EachRow(ctx, st.DB, `SELECT rowid, `+rank+` FROM search WHERE search MATCH ?1 AND +rowid IN (`+
		store.Marks(len(ids))+`)`, args, func(r *sql.Rows) error {
		var id int64
		var v float64
		err := r.Scan(&id, &v)
		out[id] = v
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("keyword scores: %w", err)
	}
	return out, nil
}

// bm25Expr is SQLite's bm25() with the keyword index's column weights.
func bm25Expr() string { return bm25With(columnWeights) }

// messageWeights weigh subject and body alike, as plain BM25 over whole
// messages: the evaluation's baseline, which the tuned weights must not
// move.
var messageWeights = [6]float64{1, 1, 0, 0, 0, 0}

func bm25With(w [6]float64) string {
	return fmt.Sprintf("bm25(search, %g, %g, %g, %g, %g, %g)", w[0], w[1], w[2], w[3], w[4], w[5])
}

// disjunction is the FTS5 query matching any of alts, and the bm25()
// expression that ranks it: over subject and body alike for MessagesOnly,
// else over every column with the index's weights.
func (q KeywordQuery) disjunction(alts []string) (expr, rank string) {
	expr = strings.Join(alts, " OR ")
	if q.MessagesOnly {
		return inMessages(expr), bm25With(messageWeights)
	}
	return expr, bm25Expr()
}

// messageScope restricts an FTS5 expression to the subject and body.
const messageScope = "{subject body} : "

func inMessages(expr string) string { return messageScope + "(" + expr + ")" }

// rankOf is the bm25() expression that ranks an FTS5 expression as
// disjunction does: with messageWeights when it is scoped to messages.
func rankOf(expr string) string {
	if strings.HasPrefix(expr, messageScope) {
		return bm25With(messageWeights)
	}
	return bm25Expr()
}

// sqlKeyword ranks the disjunction of alts in SQLite.
func sqlKeyword(ctx context.Context, st *store.Store, alts []string, q KeywordQuery) ([]KeywordHit, error) {
	expr, rank := q.disjunction(alts)
	// One read transaction: the counts that decide the pruning and the
	// ranking read the same snapshot, whatever a sync commits meanwhile.
	tx, err := st.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer tx.Rollback()
	var out []KeywordHit
	pruned := false
	if !q.MessagesOnly {
		top, ok, err := prunedTop(ctx, tx, alts, 2*q.Limit)
		if err != nil {
			return nil, err
		}
		if pruned = ok; ok {
			if out, err = keepLive(ctx, tx, top, q); err != nil {
				return nil, err
			}
		}
	}
	// Rank inside the FTS table first and join only the best: joining
	// every match to commits (for the rewritten flag) cost as much as BM25
	// itself. Twice the limit leaves room for rewritten commits; when
	// fewer than the limit survive, the join over every match decides.
	if !pruned {
		out, err = keywordRows(ctx, tx, `SELECT c.id, c.hash, m.r FROM (SELECT rowid, `+rank+` AS r FROM search
			WHERE search MATCH ?1 ORDER BY r, rowid DESC LIMIT 2 * ?3) m JOIN commits c ON c.id = m.rowid
			WHERE ?2 OR c.rewritten = 0 ORDER BY m.r, c.id DESC LIMIT ?3`, expr, q.IncludeRewritten, q.Limit)
	}
	if err == nil && len(out) < q.Limit {
		out, err = keywordRows(ctx, tx, `SELECT c.id, c.hash, `+rank+` AS r FROM search JOIN commits c ON c.id = search.rowid
			WHERE search MATCH ?1 AND (?2 OR c.rewritten = 0) ORDER BY r, c.id DESC LIMIT ?3`, expr, q.IncludeRewritten, q.Limit)
	}
	return out, err
}

func keywordRows(ctx context.Context, q store.Querier, query string, args ...any) ([]KeywordHit, error) {
	var out []KeywordHit
	err := store.EachRow(ctx, q, query, args, func(r *sql.Rows) error {
		var h KeywordHit
		err := r.Scan(&h.ID, &h.Commit, &h.BM25)
		out = append(out, h)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return out, nil
}

// matchAlts returns the FTS5 alternatives of a query that matches any of
// the terms (and, with parts, any part of a compound identifier), each
// term quoted so that no query text is read as FTS syntax.
func matchAlts(terms []string, parts bool) []string {
	seen := map[string]bool{}
	var alts []string
	add := func(t string) {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" || seen[t] {
			return
		}
		seen[t] = true
		alts = append(alts, ftsPhrase(t))
	}
	for _, t := range terms {
		add(t)
		if parts {
			for _, p := range store.CompoundParts(t) {
				add(p)
			}
		}
	}
	return alts
}

// ftsPhrase quotes t as an FTS5 string, so that none of it is read as
// query syntax.
func ftsPhrase(t string) string { return `"` + strings.ReplaceAll(t, `"`, `""`) + `"` }
