package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/store"
)

// Seed 004 sorts memory into Hard Memory and Soft Notes, each with a
// confidence S1 (high) to S3 (low), and returns them in a fixed order
// under fixed caps. gitmemory's records are commits; docs/labels.md is the
// mapping, written out for users. In short:
//
//   - Hard: the commit states a reason (it has a design note: a sentence of
//     its message or an added comment that gives a rationale) and its
//     source still exists (it was not rewritten away, and not every file it
//     changed is gone from the head). Seed 004: "Only entries with both
//     Rule + Source can be classified as Hard". Everything else is Soft.
//   - S1: the question names the commit directly (its sha, an issue it
//     references, a file or function it changed), or the commit's indexed
//     text holds at least two thirds of the question's content words; and
//     it is not stale. S2: it holds at least a third of them, or is a
//     stale direct match. S3: the rest, such as a neighbour found by
//     meaning alone, with none of the question's words.
//
// A stale result (its lines mostly rewritten since) drops one level.

// Tiers.
const (
	TierHard = "hard"
	TierSoft = "soft"
)

// Confidence levels.
const (
	ConfS1 = "S1"
	ConfS2 = "S2"
	ConfS3 = "S3"
)

// Caps of seed 004's filtering rules.
const (
	MaxHard = 5 // "Query matches Hard Memory: prioritize Hard, max 5 entries"
	MaxSoft = 3 // "Query only matches Soft Notes: ... max 3 entries"
)

// Seed 004's guardrail replies, as the answer's warnings.
const (
	WarnLowConfidence = "Only low-confidence notes found. Proceed with caution."
	WarnTooBroad      = "Query too broad: many commits match equally; showing only S1 and S2 results. Add one of the suggested terms, a file, a function or an error message."
)

// GradeOptions tune Grade.
type GradeOptions struct {
	// Limit is the most results kept (seed 004's --max-results, default 5).
	Limit int
	// Soft keeps Soft S2/S3 results even when Hard ones exist (seed 004:
	// "only when explicitly requested or Hard is empty").
	Soft bool
	// SeedOrder applies seed 004's return order and caps. Without it the
	// results keep the search's order (less S3 ones of a too-broad query):
	// on the dev splits the seed's order lowers recall@5 from 0.679 to
	// 0.387 (docs/labels.md), since the commit that answers is often one
	// that states no reason.
	SeedOrder bool
}

// Grade labels each result of an answer Hard or Soft and S1 to S3 and
// keeps only S1 and S2 when the query is too broad. With opts.SeedOrder it
// also puts them in seed 004's priority order and applies its caps: Hard
// at most 5, Soft at most 3, Soft S2/S3 only when no Hard result is left
// (or opts.Soft). It adds the seed's reply "Only low-confidence notes
// found" when every result kept is Soft S3. (The 3–5 filter terms of a
// too-broad query are the search's suggestions.)
func Grade(ctx context.Context, db store.Querier, a *Answer, opts GradeOptions) error {
	if opts.Limit <= 0 {
		opts.Limit = 5
	}
	terms := Normalize(a.Query)
	for i := range a.Items {
		if err := gradeItem(ctx, db, &a.Items[i], terms); err != nil {
			return fmt.Errorf("grade %s: %w", a.Items[i].Commit, err)
		}
	}
	if opts.SeedOrder {
		a.Items = prioritize(a.Items, opts, a.Broad)
	} else {
		if a.Broad {
			a.Items = slices.DeleteFunc(a.Items, func(it Item) bool { return it.Confidence == ConfS3 })
		}
		a.Items = a.Items[:min(len(a.Items), opts.Limit)]
	}
	if len(a.Items) > 0 && !slices.ContainsFunc(a.Items, func(it Item) bool { return it.Tier == TierHard || it.Confidence != ConfS3 }) {
		a.Warnings = append(a.Warnings, WarnLowConfidence)
	}
	return nil
}

// gradeItem sets an item's tier and confidence.
func gradeItem(ctx context.Context, db store.Querier, it *Item, terms []string) error {
	var id, files int64
	var rewritten bool
	var notes int
	err := db.QueryRowContext(ctx, `SELECT id, rewritten,
		(SELECT COUNT(*) FROM design_notes n WHERE n.commit_id = commits.id),
		(SELECT COUNT(DISTINCT path) FROM file_changes f WHERE f.commit_id = commits.id)
		FROM commits WHERE hash = ?`, it.Commit).Scan(&id, &rewritten, &notes, &files)
	if err != nil {
		return err
	}
	it.Tier = TierSoft
	if notes > 0 && !rewritten && (files == 0 || files > int64(len(it.Gone))) {
		it.Tier = TierHard
	}
	covered := 0
	for _, t := range terms {
		var n int
		err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM search WHERE rowid = ? AND search MATCH ?`, id, ftsPhrase(t)).Scan(&n)
		if err != nil {
			return err
		}
		if n > 0 {
			covered++
		}
	}
	it.Confidence = confidence(directMatch(it.Why), covered, len(terms), it.Stale)
	return nil
}

// confidence is S1..S3 from how directly and how fully a commit matches.
func confidence(direct bool, covered, terms int, stale bool) string {
	level := 3
	switch {
	case direct || terms > 0 && 3*covered >= 2*terms:
		level = 1
	case terms > 0 && 3*covered >= terms:
		level = 2
	}
	if stale && level < 3 {
		level++
	}
	return fmt.Sprintf("S%d", level)
}

// directMatch reports whether the question named the commit: its sha, an
// issue it references, or a file or function it changed exactly.
func directMatch(why []string) bool {
	for _, w := range why {
		for _, p := range []string{"sha ", "issue ", "path ", "entity "} {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
	}
	return false
}

// priority is seed 004's return order: Hard S1, S2, S3, then Soft S1,
// then Soft S2 and S3 (S2 first).
func priority(it Item) int {
	p := int(it.Confidence[len(it.Confidence)-1] - '0')
	if it.Tier == TierSoft {
		p += 3
	}
	return p
}

// prioritize orders and caps graded items; within a level the search's
// rank order stands.
func prioritize(items []Item, opts GradeOptions, broad bool) []Item {
	out := slices.Clone(items)
	slices.SortStableFunc(out, func(a, b Item) int { return cmp.Compare(priority(a), priority(b)) })
	hasHard := slices.ContainsFunc(out, func(it Item) bool { return it.Tier == TierHard && (!broad || it.Confidence != ConfS3) })
	kept := out[:0]
	hard, soft := 0, 0
	for _, it := range out {
		switch {
		case broad && it.Confidence == ConfS3:
		case it.Tier == TierHard && hard < MaxHard:
			hard++
			kept = append(kept, it)
		case it.Tier == TierSoft && soft < MaxSoft && (it.Confidence == ConfS1 || !hasHard || opts.Soft):
			soft++
			kept = append(kept, it)
		}
		if len(kept) == opts.Limit {
			break
		}
	}
	return kept
}

// filterTerms are seed 004's suggestions for a query too broad: 3 to 5
// words of the index that split its candidates, the words most frequent in
// the subjects of the best of them that the query lacks, then, if fewer
// than 3, the names of the files they changed most.
func (s *Searcher) filterTerms(ctx context.Context, items []Item, terms []string) []string {
	count := map[string]int{}
	files := map[string]int{}
	for _, it := range items[:min(len(items), 50)] {
		var subject string
		var merge bool
		err := s.st.DB.QueryRowContext(ctx, `SELECT subject, is_merge FROM commits WHERE hash = ?`, it.Commit).Scan(&subject, &merge)
		if err != nil || merge { // "Merge pull request #1 from user/branch" names no topic
			continue
		}
		for _, w := range Normalize(subject) {
			if len([]rune(w)) > 3 && !slices.Contains(terms, w) {
				count[w]++
			}
		}
		paths, _ := store.Strings(ctx, s.st.DB, `SELECT f.path FROM file_changes f JOIN commits c ON c.id = f.commit_id WHERE c.hash = ?`, it.Commit)
		for _, p := range paths {
			base := p[strings.LastIndexByte(p, '/')+1:]
			if base != "" && !slices.Contains(terms, strings.ToLower(base)) {
				files[base]++
			}
		}
	}
	out := topWords(count, 5, 2)
	if len(out) < 3 {
		out = append(out, topWords(files, 3-len(out), 1)...)
	}
	return out
}

// topWords are the n most counted words counted at least least times,
// most first, ties in alphabetical order.
func topWords(count map[string]int, n, least int) []string {
	var words []string
	for w, c := range count {
		if c >= least {
			words = append(words, w)
		}
	}
	slices.SortFunc(words, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	return words[:min(len(words), n)]
}
