package vectors

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	chromem "github.com/philippgille/chromem-go"
)

// tieSlack is how many results beyond n are fetched first, so that ties
// at the n-th score are seen whole.
const tieSlack = 8

// Query embeds text and returns the n documents most similar to it that
// pass f, best first; equal scores are ordered by ID, so the answer is
// deterministic. The first query loads the index. A directory without an
// index answers nothing; an index built by another embedder answers
// ErrNeedsRebuild.
func (ix *Index) Query(ctx context.Context, text string, n int, f Filter) ([]Hit, error) {
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("query: %w", ErrEmptyText)
	}
	if n <= 0 {
		return nil, fmt.Errorf("query: n must be positive, got %d", n)
	}
	ix.mu.Lock()
	mem, err := ix.loadLocked(ctx)
	dims := 0
	if mem != nil {
		dims = ix.mark.Dims
	}
	ix.mu.Unlock()
	if err != nil || mem == nil || mem.col.Count() == 0 {
		return nil, err
	}
	vecs, err := ix.emb.Embed(ctx, []string{clip(text, MaxTextBytes)})
	if err == nil {
		err = checkVectors(vecs, 1, dims)
	}
	if errors.Is(err, ErrDimensions) {
		return nil, fmt.Errorf("query: %w (the index holds %d; reset and rebuild it)", err, dims)
	}
	if err != nil {
		return nil, fmt.Errorf("query: embed: %w", err)
	}
	mem.mu.RLock()
	defer mem.mu.RUnlock()
	where := f.where(len(mem.rewritten) > 0)
	return search(ctx, mem.col, vecs[0], n, where, f)
}

// search asks chromem-go for the nearest documents that match f's where
// filter, widening the request until the top n after the time filter are
// certain: every document it did not return scores below the n-th kept
// one, or it returned everything that matched.
func search(ctx context.Context, col *chromem.Collection, vec []float32, n int, where map[string]string, f Filter) ([]Hit, error) {
	k := n + tieSlack
	if f.timed() {
		k = 4*n + tieSlack
	}
	for {
		total := col.Count()
		if total == 0 {
			return nil, nil
		}
		k = min(k, total)
		res, err := col.QueryEmbedding(ctx, vec, k, where, nil)
		if err != nil {
			return nil, fmt.Errorf("query vectors: %w", err)
		}
		hits := make([]Hit, 0, len(res))
		lowest := float32(2)
		for _, r := range res {
			lowest = min(lowest, r.Similarity)
			h := hitOf(r.ID, r.Similarity, r.Metadata)
			if f.keep(&h) {
				hits = append(hits, h)
			}
		}
		slices.SortFunc(hits, func(a, b Hit) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		all := len(res) < k || k == total
		if all || len(hits) >= n && hits[n-1].Score > lowest {
			return hits[:min(n, len(hits))], nil
		}
		k *= 4
	}
}
