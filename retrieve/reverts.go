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

// revertMarkers are the words of a question about a change that was
// undone ("why was it backed out?").
var revertMarkers = []string{"revert", "backed out", "back out", "backs out", "rolled back", "roll back", "rollback",
	"undone", "undid", "undo", "vanished again", "went away again", "taken out again", "pulled out again",
	"removed again", "dropped again", "briefly", "short-lived", "short lived", "then returned", "reinstated",
	"put back", "brought back", "came back", "откат", "откатил", "вернули обратно", "ненадолго"}

// revertLift scales the relevance of a revert, and of the change it
// undid, for a question about an undone change. The question describes
// the change ("negative indices briefly got special handling, taken out
// again a month later"), so the change matches it and the revert, whose
// message quotes the change's subject, about as well as other commits of
// that topic; both are the answer. Chosen on the dev splits, with the
// markers from "taken out again" on and the way back to the undone
// change: from 0.693 / 0.582 / 0.673 / 0.527 (all recall@5 / MRR, why
// recall@5 / MRR) to 0.694 / 0.582 / 0.677 / 0.527 at 1 (the markers and
// the way back alone), 0.696 / 0.589 / 0.681 / 0.541 at 1.3, 0.699 /
// 0.593 / 0.686 / 0.551 at 1.5, 0.703 / 0.601 / 0.696 / 0.568 at 2. Kept
// at 1.5, as the year lift is: the higher factor gains a question or two
// by letting a revert with two thirds of the best match tie with it.
// Test splits, read once after the choice: 0.627 / 0.554 / 0.620 / 0.468
// to 0.624 / 0.560 / 0.625 / 0.482.
const revertLift = 1.5

// reverts answers a question about an undone change. Its words describe
// the change, so they match the commit that made it; the answer is the
// commit that reverted it, whose message seldom says more than
// `Revert "<subject>"` and "This reverts commit <sha>". The best matches
// are followed to their reverts, which inherit their relevance; a revert
// among them is followed back to the change it undid, which inherits
// the revert's relevance, lifted as the revert is (see rank).
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
		more, err := s.withSubject(ctx, `Revert "`+src.subject+`"`, 0)
		if err != nil {
			return fmt.Errorf("reverts: %w", err)
		}
		for _, h := range append(hashes, more...) {
			c := cs.get(h)
			c.removal = max(c.removal, removalShare*rel)
			c.why = append(c.why, "reverted "+src.hash[:7])
		}
		undone, ok := undoneSubject(src.subject)
		if !ok {
			continue
		}
		orig, err := s.withSubject(ctx, undone, src.id)
		if err != nil {
			return fmt.Errorf("reverts: %w", err)
		}
		for _, h := range orig {
			c := cs.get(h)
			c.removal = max(c.removal, revertLift*rel)
			c.why = append(c.why, "undone by "+src.hash[:7])
		}
	}
	return s.details(ctx, cs)
}

// withSubject returns at most ten commits whose subject is subject, made
// before the commit with id before (any, when before is 0). The keyword
// index's subject column finds them as a phrase and the equality keeps
// the exact ones: commits has no index on subject, and a scan of git/git's
// 82k subjects took 13 ms a lookup against 2 ms through the index, with
// the same commits for 126 revert subjects and the subjects they quote.
func (s *Searcher) withSubject(ctx context.Context, subject string, before int64) ([]string, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	return store.Strings(ctx, s.st.DB, `SELECT c.hash FROM search s JOIN commits c ON c.id = s.rowid
		WHERE search MATCH ? AND c.subject = ? AND c.id < ? LIMIT 10`, "subject : "+ftsPhrase(subject), subject, before)
}

// undoneSubject is the subject of the change a revert undid, as git
// revert writes it (`Revert "<subject>"`), also with the pull request
// number a forge's squash merge appends (`Revert "<subject>" (#123)`).
func undoneSubject(subject string) (string, bool) {
	rest, ok := strings.CutPrefix(subject, `Revert "`)
	if !ok {
		return "", false
	}
	if i := strings.LastIndex(rest, `" (#`); i >= 0 && strings.HasSuffix(rest, ")") {
		if num := rest[i+4 : len(rest)-1]; num != "" && strings.Trim(num, "0123456789") == "" {
			rest = rest[:i+1]
		}
	}
	undone, ok := strings.CutSuffix(rest, `"`)
	if !ok || undone == "" {
		return "", false
	}
	return undone, true
}
