package retrieve

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/vectors"
)

// keyword adds the BM25 hits of the terms (the question's words and
// identifiers).
func (s *Searcher) keyword(ctx context.Context, terms []string, cs *candSet) error {
	hits, err := Keyword(ctx, s.st, KeywordQuery{Terms: terms, Limit: perKeyword,
		IncludeRewritten: s.opts.IncludeRewritten, Cache: s.opts.Terms})
	if err != nil {
		return err
	}
	cs.with(func() {
		if len(hits) > 0 {
			cs.keywordBest = hits[0].BM25
		}
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

// vector adds the nearest commits and design notes, and with keyword
// terms, their BM25 for those terms (withKeywordScores).
func (s *Searcher) vector(ctx context.Context, q string, keyword []string, cs *candSet, a *Answer) error {
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
	if err := s.details(ctx, cs); err != nil || len(keyword) == 0 {
		return err
	}
	var ids []int64
	cs.with(func() {
		for _, c := range cs.m {
			if c.vecRank > 0 {
				ids = append(ids, c.id)
			}
		}
	})
	scores, err := KeywordScores(ctx, s.st, KeywordQuery{Terms: keyword, Cache: s.opts.Terms}, ids)
	cs.with(func() { cs.vecBM25 = scores })
	return err
}

// withKeywordScores gives the vector hits the keyword list left out their
// BM25, relative to the list's best as the list's own: in a history of
// 80,000 commits the 200 best BM25 hits are a quarter of a percent of it,
// and a commit the vector search ranks second, sharing three of the
// question's words, may still fall below them. Scored 0 there, it sank
// out of sight.
func (cs *candSet) withKeywordScores() {
	if cs.keywordBest >= 0 {
		return
	}
	for _, c := range cs.m {
		if raw, ok := cs.vecBM25[c.id]; ok && c.bm25Rank == 0 {
			c.bm25 = max(c.bm25, math.Max(raw/cs.keywordBest, 1e-6))
			c.why = append(c.why, "keyword") // it matches the question's words too
		}
	}
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

// details loads what scoring needs of each candidate not loaded yet, and
// drops rewritten ones unless asked for (and hashes the store lacks). The
// vector search calls it for its hits while the keyword search runs, so
// that only the keyword hits are left to load after both.
func (s *Searcher) details(ctx context.Context, cs *candSet) error {
	var hashes []any
	cs.with(func() {
		for h, c := range cs.m {
			if c.id == 0 { // not loaded yet (commit ids start at 1)
				hashes = append(hashes, h)
			}
		}
	})
	if len(hashes) == 0 {
		return nil
	}
	found, err := s.loadDetails(ctx, hashes)
	if err != nil {
		return err
	}
	cs.with(func() {
		for _, h := range hashes {
			c, x := cs.m[h.(string)], found[h.(string)]
			if x == nil || (x.rewritten && !s.opts.IncludeRewritten) {
				delete(cs.m, c.hash)
				continue
			}
			c.id, c.time, c.class, c.author, c.insertions, c.deletions, c.rewritten, c.notes, c.subject =
				x.id, x.time, x.class, x.author, x.insertions, x.deletions, x.rewritten, x.notes, x.subject
			c.security, c.merge, c.authored = x.security, x.merge, x.authored
		}
	})
	return nil
}

// loadDetails reads the commits of hashes, by hash.
func (s *Searcher) loadDetails(ctx context.Context, hashes []any) (map[string]*cand, error) {
	q := `SELECT id, hash, committer_time, author_time, classification, labels, author_name, insertions, deletions, rewritten, subject, is_merge,
		(SELECT COUNT(*) FROM design_notes n WHERE n.commit_id = commits.id)
		FROM commits WHERE hash IN (` + store.Marks(len(hashes)) + `)`
	rows, err := s.st.DB.QueryContext(ctx, q, hashes...)
	if err != nil {
		return nil, fmt.Errorf("candidates: %w", err)
	}
	defer rows.Close()
	found := make(map[string]*cand, len(hashes))
	for rows.Next() {
		var labels string
		c := &cand{}
		if err := rows.Scan(&c.id, &c.hash, &c.time, &c.authored, &c.class, &labels, &c.author, &c.insertions, &c.deletions,
			&c.rewritten, &c.subject, &c.merge, &c.notes); err != nil {
			return nil, err
		}
		c.security = strings.Contains(labels, `"security"`)
		found[c.hash] = c
	}
	return found, rows.Err()
}
