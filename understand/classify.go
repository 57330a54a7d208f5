package understand

import (
	"math"
	"slices"

	"github.com/gitmemory/gitmemory/model"
)

// Classification scoring
//
// Classify collects evidence as additive scores, one per change type, from
// independent sources. Every rule lives in a table (message evidence in
// classify_message.go, wording in classify_words.go, files in
// classify_files.go, the diff's shape in classify_diff.go); the weights
// read as "how sure would a reviewer be from this clue alone":
//
//	source                                          weight
//	git's Revert "..." subject                      4
//	"This reverts commit <sha>" in the body          3
//	merge subject ("Merge branch ...")               2.5, +1.5 for a real merge
//	merge parents, subject not merge-shaped          1   (the subject decides)
//	conventional prefix, [TAG], gitmoji              3   (chore 1, build 2, release 2.5)
//	conventional scope (deps 3.5, others)            1.5
//	wording of the subject                           table weight, ≤ 3 per type
//	wording of the body (trailers removed)           0.4 × the above, ≤ 1.2 per type
//	trailers (Fixes: <sha>, Reported-by:, Cc: stable) 1–2, ≤ 2.5
//	a CVE, GHSA or CWE identifier in the message     security 3
//	a bot author (dependabot, renovate)              2
//	version transition "from 1.2 to 1.3"             1.5 ("to v1.3": 1)
//	all files docs, or all tests                     5
//	all files manifests, or all configuration        2.5
//	  (tests only, when the message says cleanup: 1.5)
//	some files manifests or configuration            1 × their share
//	"no functional change", "NFC", "just a refactoring" refactor 2
//	only deletions                                   cleanup 1.5, refactor 0.5
//	only renames                                     refactor 2
//	≥ 5 files, each a tiny symmetrical change        cleanup 1.5, refactor 0.5
//	a new source file                                feature 1
//	≥ 100 added code lines, 4× the deleted ones       feature 0.5
//	hunks that change comments only                  documentation 2
//	hunks that change whitespace only                cleanup 2.5
//
// File and diff evidence is ignored for merge commits: their changes are
// conflict resolutions, not the change the merge brings in. For a revert
// or merge subject the subject's wording is ignored too: it quotes the
// reverted commit or names a branch. Wording ignores `code spans` and
// identifiers; the verbs of repair count little before a non-bug object
// ("fix typo"); merge wording counts only in merge commits, configuration
// wording half when no configuration or manifest file changed, and
// documentation and test wording half when source files changed.
//
// With S the sum of all scores, a type's confidence is score/(S+1): the 1
// is a prior for "none of these", so a lone weak clue yields a low
// confidence and agreeing clues approach 1. Confidences are rounded to
// 0.001. The primary label is the type with the highest confidence; equal
// confidences go to the type that comes first in clsOrder. Secondary labels are the other types with confidence ≥
// clsMinSecondary, at most clsMaxSecondary of them, most confident first.
//
// When nothing scores at all (an empty or terse message on ordinary source
// files whose diff has no telling shape), the primary is a guess at
// clsGuessConfidence: feature when the commit adds more lines than it
// deletes, since growing code is most often new work, else refactor, the
// type that claims nothing about behaviour.

// clsOrder is the fixed order of the change types; it breaks ties. The
// more specific the type, the earlier it comes.
var clsOrder = [...]model.ChangeType{
	model.Revert, model.Merge, model.Security, model.Bugfix, model.Performance,
	model.Dependency, model.Test, model.Documentation, model.Configuration,
	model.Cleanup, model.Refactor, model.Feature,
}

const (
	clsPrior           = 1.0      // the "none of these" mass in the confidence denominator
	clsWordCap         = 3.0      // the most one part of a message gives one type
	clsBodyWeight      = 0.4      // body wording counts this much of subject wording
	clsMinSecondary    = 0.1      // weakest secondary label reported
	clsMaxSecondary    = 4        // most secondary labels reported
	clsGuessConfidence = 0.1      // confidence of the no-evidence fallback
	clsHunkLineLimit   = 4000     // comment/whitespace analysis reads at most this many diff lines
	clsMaxMessage      = 32 << 10 // wording is read from the message's first 32 KiB
)

// clsScores holds one score per type, indexed like clsOrder.
type clsScores [len(clsOrder)]float64

func (s *clsScores) add(t model.ChangeType, w float64) {
	s[clsIndex(t)] += w
}

func clsIndex(t model.ChangeType) int {
	for i, o := range clsOrder {
		if o == t {
			return i
		}
	}
	panic("understand: unknown change type " + string(t))
}

// Classify returns c's primary change type and secondary ones, from its
// message, files and diff shape. It is deterministic and needs no network.
func Classify(c *model.Commit) model.Classification {
	var s clsScores
	if c != nil {
		kinds := make([]clsKind, len(c.Changes))
		for i, fc := range c.Changes {
			kinds[i] = clsKindOf(fc)
		}
		clsScoreMessage(c, kinds, &s)
		if !c.IsMerge {
			clsScoreFiles(kinds, s[clsIndex(model.Cleanup)] >= clsCleanupSaid, &s)
			clsScoreShape(c.Changes, kinds, &s)
			clsScoreHunks(c.Changes, &s)
		}
	}
	return clsResult(c, &s)
}

// clsResult turns scores into labels (see the package's scoring comment).
func clsResult(c *model.Commit, s *clsScores) model.Classification {
	total := 0.0
	for _, v := range s {
		total += v
	}
	if total <= 0 {
		return model.Classification{Primary: model.Label{Type: clsFallback(c), Confidence: clsGuessConfidence}}
	}
	labels := make([]model.Label, 0, len(clsOrder))
	for i, v := range s {
		if v > 0 {
			conf := math.Round(v/(total+clsPrior)*1000) / 1000
			labels = append(labels, model.Label{Type: clsOrder[i], Confidence: conf})
		}
	}
	// Stable sort over clsOrder's order: equal confidences keep that order.
	slices.SortStableFunc(labels, func(a, b model.Label) int {
		switch {
		case a.Confidence > b.Confidence:
			return -1
		case a.Confidence < b.Confidence:
			return 1
		}
		return 0
	})
	out := model.Classification{Primary: labels[0]}
	for _, l := range labels[1:] {
		if l.Confidence < clsMinSecondary || len(out.Secondary) == clsMaxSecondary {
			break
		}
		out.Secondary = append(out.Secondary, l)
	}
	return out
}

// clsFallback is the type chosen when there is no evidence at all.
func clsFallback(c *model.Commit) model.ChangeType {
	if c == nil {
		return model.Refactor
	}
	_, ins, del := c.Totals()
	if ins > del {
		return model.Feature
	}
	return model.Refactor
}
