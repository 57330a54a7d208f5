package vectors

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

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
	if err != nil || mem == nil || mem.count() == 0 {
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
	mem.queried()
	mem.mu.RLock()
	defer mem.mu.RUnlock()
	where := f.where(len(mem.rewritten) > 0)
	return mem.scan(vecs[0], n, where, f), nil
}
