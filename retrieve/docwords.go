package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/store"
)

// Expansion from the repository's own documentation. A question in a
// user's words ("why does the automatic housekeeping run behind my
// back?") often shares more with the manual or the release notes than
// with the commit, which names the mechanism (gc --auto, a config key).
// The question's best paragraphs of the documentation at the branch's
// head (store/docs.go) give their most distinctive words, and those words
// search the commits as a second keyword query. Chosen on the evaluation
// sets' dev splits (docs/evaluation.md): the two best paragraphs, their
// five best words, at docShare of relevance.
const (
	docParagraphs = 2
	docWordsKept  = 5
	docShare      = 0.2
	// docCommonShare: a word in more than this share of the paragraphs
	// is the project's everyday vocabulary, not a paragraph's topic.
	docCommonShare = 0.05
)

// docStop are words a paragraph uses about anything; with stopWords they
// never expand a question.
var docStop = setOf(`use used uses using gets makes new default defaults option options set sets see like way one
two able also etc e.g i.e via per already always never without within instead rather however therefore
example examples following note notes`)

// docWords returns the distinctive words of the question's best
// documentation paragraphs, best first, none of them the question's own.
func (s *Searcher) docWords(ctx context.Context, raw string, terms []string) ([]string, error) {
	alts := matchAlts(terms, false)
	if len(alts) == 0 {
		return nil, nil
	}
	var total int
	if err := s.st.DB.QueryRowContext(ctx, `SELECT paragraphs FROM docs_state`).Scan(&total); err != nil || total == 0 {
		return nil, err
	}
	ids, err := store.Ints(ctx, s.st.DB, `SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?`,
		strings.Join(alts, " OR "), docParagraphs)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	paras, err := s.st.DocParagraphs(ctx, ids)
	if err != nil {
		return nil, err
	}
	asked := map[string]bool{}
	for _, w := range store.DocTokens(raw) {
		asked[w] = true
	}
	tf := map[string][]int{} // each candidate word's count in each paragraph
	for i, p := range paras {
		for _, w := range store.DocTokens(p.Text) {
			if asked[w] || stopWords[w] || docStop[w] || isNumber(w) || isHash(w) {
				continue
			}
			if tf[w] == nil {
				tf[w] = make([]int, len(paras))
			}
			tf[w][i]++
		}
	}
	df, err := s.st.DocFrequencies(ctx, slices.Collect(maps.Keys(tf)))
	if err != nil {
		return nil, fmt.Errorf("documentation words: %w", err)
	}
	type scored struct {
		w string
		s float64
	}
	var ws []scored
	for w, counts := range tf {
		n := df[w]
		if n == 0 || float64(n) > max(docCommonShare*float64(total), 1) {
			continue
		}
		idf := math.Log(1 + (float64(total)-float64(n)+0.5)/(float64(n)+0.5))
		sc := 0.0
		for _, c := range counts {
			sc += idf * float64(min(c, 3))
		}
		ws = append(ws, scored{w, sc})
	}
	slices.SortFunc(ws, func(a, b scored) int { return cmp.Or(cmp.Compare(b.s, a.s), strings.Compare(a.w, b.w)) })
	var out []string
	for _, x := range ws[:min(len(ws), docWordsKept)] {
		out = append(out, x.w)
	}
	return out, nil
}

func isNumber(w string) bool {
	return strings.Trim(w, "0123456789.-") == ""
}

// isHash reports whether w looks like an abbreviated object name (release
// notes cite the merges that brought a change: "merge 702110aac6").
func isHash(w string) bool {
	return len(w) >= 7 && strings.Trim(w, "0123456789abcdef") == "" && strings.ContainsAny(w, "0123456789")
}

// docSearch scores the candidates by the question's documentation words.
// It only re-weighs commits the question's own words or its vector found:
// a paragraph's words alone drift to whatever else the paragraph is about.
func (s *Searcher) docSearch(ctx context.Context, raw string, terms []string, cs *candSet) error {
	words, err := s.docWords(ctx, raw, terms)
	if err != nil || len(words) == 0 {
		return err
	}
	hits, err := Keyword(ctx, s.st, KeywordQuery{Terms: words, Limit: perKeyword, Whole: true,
		IncludeRewritten: s.opts.IncludeRewritten, Cache: s.opts.Terms})
	if err != nil {
		return err
	}
	cs.with(func() {
		cs.docs = hits
	})
	return nil
}

// withDocs gives the candidates found otherwise their documentation
// words' score.
func (cs *candSet) withDocs() {
	for _, h := range cs.docs {
		if c := cs.m[h.Commit]; c != nil && h.Score > c.doc {
			c.doc = h.Score
			c.why = append(c.why, "documentation words")
		}
	}
}
