package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/gitmemory/gitmemory/store"
)

// revertMarkers are the words of a question about a change that was
// undone ("why was it backed out?").
var revertMarkers = []string{"revert", "backed out", "back out", "backs out", "rolled back", "roll back", "rollback",
	"undone", "undid", "undo", "vanished again", "went away again", "откат", "откатил", "вернули обратно"}

// reverts answers a question about an undone change. Its words describe
// the change, so they match the commit that made it; the answer is the
// commit that reverted it, whose message seldom says more than
// `Revert "<subject>"` and "This reverts commit <sha>". The best matches
// are followed to their reverts, which inherit their relevance.
func (s *Searcher) reverts(ctx context.Context, cs *candSet, mode Mode) error {
	srcs := slices.Collect(maps.Values(cs.m))
	slices.SortFunc(srcs, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(s.relevance(b, mode), s.relevance(a, mode)), cmp.Compare(a.hash, b.hash))
	})
	for _, src := range srcs[:min(len(srcs), removalSources)] {
		rel := s.relevance(src, mode)
		if rel <= 0 {
			break
		}
		hashes, err := store.Strings(ctx, s.st.DB, `SELECT c.hash FROM search s JOIN commits c ON c.id = s.rowid
			WHERE search MATCH ? AND c.id != ? LIMIT 10`, "body : "+ftsPhrase(src.hash), src.id)
		if err != nil {
			return fmt.Errorf("reverts: %w", err)
		}
		more, err := store.Strings(ctx, s.st.DB, `SELECT hash FROM commits WHERE subject = ? LIMIT 10`,
			`Revert "`+src.subject+`"`)
		if err != nil {
			return fmt.Errorf("reverts: %w", err)
		}
		for _, h := range append(hashes, more...) {
			c := cs.get(h)
			c.removal = max(c.removal, removalShare*rel)
			c.why = append(c.why, "reverted "+src.hash[:7])
		}
	}
	return s.details(ctx, cs)
}
