package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/store"
)

// importance of a commit by its change type, in [0, 1].
var importance = map[string]float64{
	"security": 1, "bugfix": 0.8, "revert": 0.6, "performance": 0.7, "feature": 0.7, "refactor": 0.5,
	"configuration": 0.4, "dependency": 0.3, "test": 0.3, "documentation": 0.3, "cleanup": 0.2, "merge": 0.1,
}

// mergeShare is the share of its text relevance a merge commit keeps. A
// merge's message lists or sums up the commits it brings in ("Merge old
// master to the latest", a topic's summary), so it matches whatever they
// match; the commit that did the work is the answer, and ranks first when
// both match alike. On the dev splits any share from 0 to 0.75 gave the
// same ranks (why recall@5 / MRR 0.732 / 0.607 -> 0.740 / 0.612, test
// unchanged); half keeps a merge whose text alone matches a result.
const mergeShare = 0.5

// defaultLift scales the relevance of a commit whose subject says it
// changes a default, for a why-question about how something behaves now.
// Such questions describe the behaviour a user meets; the decision behind
// it is most often a changed default ("push: switch default from
// "matching" to "simple""), whose words the question rarely shares. A
// quarter of the dev splits' why-answers are such commits, against 1-3 %
// of all commits. A factor, not points: it lifts a default change above
// a commit that matches about as well, never an unrelated one above a
// relevant one. On the dev splits 1.3, 1.5 and 1.75 ranked alike (why
// recall@5 / MRR 0.696 / 0.558 -> 0.726 / 0.601); 1.15 gained half.
const defaultLift = 1.3

// featureLift scales the relevance of a commit the classifier calls a
// feature, for a question about where a capability came from ("when did
// it gain...", "which change added...", "since when"). Such questions'
// words also meet the capability's later fixes, cleanups and reverts,
// which outnumber the commit that added it. Chosen on the dev splits
// (with the second batch, 48 of 49 feature questions and 5 of 107
// why-questions ask so): all recall@5 / MRR, why recall@5 / MRR from
// 0.699 / 0.593 / 0.686 / 0.551 to 0.706 / 0.615 / 0.686 / 0.551 at
// 1.15, 0.703 / 0.612 / 0.686 / 0.547 at 1.3; with a bare "added" among
// the markers, why MRR fell to 0.546. Points for such commits (+1 to +5)
// were measured before on fewer questions and were noise. Test splits,
// read once after the choice: 0.624 / 0.560 / 0.625 / 0.482 to 0.629 /
// 0.567 / 0.625 / 0.482.
const featureLift = 1.15

// removesSubject matches a subject that says its commit takes something
// out: "Completely remove mouse support", "pqsort.c: remove the ...
// optimization", "Disable chain commands".
var removesSubject = leadingVerb(`(completely |partially )?(remove|removed|removes|drop|dropped|delete|deleted|disable|disabled|kill|get rid|rip out|deprecate)`)

// leadingVerb matches a subject that starts with one of verbs (a regular
// expression's alternatives, any case), after an optional "area: "
// prefix ("push: switch default ...").
func leadingVerb(verbs string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(\S+: )?\s*(` + verbs + `)\b`)
}

// takenOutLift scales the relevance of a commit whose subject says it
// takes something out, for a question about why something was taken
// out. The question describes what went ("clicking stopped doing
// anything", "the App Engine special case"), which the commits that
// added and maintained it match as well as the one that removed it; a
// small removal ("remove app engine detection") deletes too few lines
// for the points of mostlyDeletes. Chosen on the dev splits: all
// recall@5 / MRR, why recall@5 / MRR from 0.708 / 0.615 / 0.690 / 0.551
// to 0.705 / 0.615 / 0.686 / 0.551 at 1.15, 0.714 / 0.617 / 0.705 /
// 0.555 at 1.3, 0.714 / 0.614 / 0.705 / 0.550 at 1.5; with the extra
// markers also deciding which deletions are followed, 0.710 / 0.616 /
// 0.696 / 0.554 at 1.3. Test splits, read once after the choice: 0.629 /
// 0.567 / 0.625 / 0.482 to 0.634 / 0.568 / 0.635 / 0.485.
const takenOutLift = 1.3

// changesDefault reports a subject that names a default ("Make
// maintainer-mode default to disabled", "No 'json spaces' by default"),
// in English or Russian, as the question markers are.
func changesDefault(subject string) bool { return defaultWord.MatchString(subject) }

var defaultWord = regexp.MustCompile(`(?i)\bdefault|по умолчанию`)

// minCosine is the similarity below which a vector hit is noise: nearest
// neighbours exist for any question, related or not.
const minCosine = 0.15

// rank scores the candidates and orders them: score descending, then
// newest first, then hash (seed 001's deterministic tie-break).
//
// Relevance leads. The score is the question's evidence for a commit:
// text relevance (BM25 and vector similarity, each by its magnitude
// relative to the best hit, not only by rank), its relationship to what
// the question names, and seed 001's points for what the question asks
// (a named sha, path or entity; a removal; rationale for a why; security
// for a security question; the last days for a question about recent
// changes). Priors that do not depend on the question (recency, the
// change type's importance, the author) then scale it by at most
// priorSpan: they reorder near-ties, never lift an unrelated commit over
// a relevant one, and never make a commit with no evidence a result.
func (s *Searcher) rank(cs *candSet, intent, raw string, asks asks, entities []string, mode Mode) []Item {
	w := s.opts.Weights
	now := s.opts.Now().Unix()
	lower := strings.ToLower(raw)
	names := entityNames(entities)
	var out []Item
	times := map[string]int64{}
	for _, c := range cs.m {
		rel := max(s.relevance(c, mode), c.removal)
		if c.merge {
			rel *= mergeShare
		}
		if asks.behaviour && changesDefault(c.subject) {
			rel *= defaultLift
			c.why = append(c.why, "changes a default")
		}
		if asks.revert && c.class == "revert" {
			rel *= revertLift
		}
		if asks.takenOut && removesSubject.MatchString(c.subject) {
			rel *= takenOutLift
		}
		if asks.feature && c.class == "feature" {
			rel *= featureLift
		}
		if asks.when.holds(c.time) {
			rel *= whenLift
			c.why = append(c.why, "made when the question says")
		}
		if rel == 0 && c.relation == 0 {
			continue
		}
		age := float64(now-c.time) / 86400
		recency := math.Exp(-math.Max(age, 0) / 365)
		imp := importance[c.class]
		if intent == IntentDebug && (c.class == "bugfix" || c.class == "revert") {
			imp = math.Min(1, imp+0.3)
		}
		author := 0.0
		if c.author != "" && strings.Contains(lower, strings.ToLower(c.author)) {
			author = 1
		}
		bonus := 0.0
		if c.direct {
			bonus += 5
		}
		if asks.recent {
			switch {
			case age <= 1:
				bonus += 2
			case age <= 7:
				bonus++
			}
		}
		if namesAny(c.subject, names) {
			bonus += 2 // the subject says the change is about a function the question names
		}
		if asks.evolution && c.origin {
			bonus += originPoints
		}
		if asks.revert && c.class == "revert" {
			bonus += 2 // the undoing commit, when the question asks why something was undone
		}
		if asks.removal && mostlyDeletes(c.insertions, c.deletions) {
			bonus += 2
		}
		if (asks.security && c.security) || (asks.rationale && c.notes > 0) {
			bonus += 2 // seed 001's constraint/risk tag, when the question asks for it
		}
		evidence := w.Relevance*rel + w.Relationship*c.relation + w.Bonus*bonus
		prior := w.Recency*recency + w.Importance*imp + w.Author*author
		scale := 1 + priorSpan*prior/math.Max(w.Recency+w.Importance+w.Author, 1e-9)
		comp := map[string]float64{
			"bm25": c.bm25, "vector": c.vec,
			"relevance": w.Relevance * rel, "relationship": w.Relationship * c.relation, "bonus": w.Bonus * bonus,
			"recency": w.Recency * recency, "importance": w.Importance * imp, "author": w.Author * author,
			"prior_scale": scale,
		}
		score := evidence * scale
		slices.Sort(c.why)
		out = append(out, Item{Commit: c.hash, Score: math.Round(score*1e4) / 1e4, Components: comp, Why: slices.Compact(c.why)})
		times[c.hash] = c.time
	}
	slices.SortFunc(out, func(a, b Item) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(times[b.Commit], times[a.Commit]), cmp.Compare(a.Commit, b.Commit))
	})
	return oneCopy(out, cs)
}

// oneCopy keeps the best-ranked copy of a change committed more than once
// (cherry-picked onto another branch, or merged in twice: the same author,
// author time and subject) and names the others in its Copies and Why. A second copy
// says nothing new and takes the place of another answer: on the dev
// splits a cherry-pick's two copies shared the top 5 in 5 of 254 questions.
func oneCopy(items []Item, cs *candSet) []Item {
	type change struct {
		author, subject string
		authored        int64
	}
	first := map[change]int{}
	kept := items[:0]
	for _, it := range items {
		c := cs.m[it.Commit]
		if c == nil || c.authored == 0 || c.subject == "" {
			kept = append(kept, it)
			continue
		}
		k := change{c.author, c.subject, c.authored}
		if i, ok := first[k]; ok {
			kept[i].Copies = append(kept[i].Copies, it.Commit)
			kept[i].Why = append(kept[i].Why, "also committed as "+it.Commit[:min(12, len(it.Commit))])
			continue
		}
		first[k] = len(kept)
		kept = append(kept, it)
	}
	return kept
}

// messageShare is the part of a candidate's BM25 that its message alone
// gives (messageScores). The keyword index weighs the subject twice the
// body and counts changed functions' names and paths; a question that
// describes a symptom or a decision in a sentence ("the help columns
// were misaligned for an option that repeats") shares its words with the
// body that explains the change more than with the names it touched,
// which commits about the same code share too. Chosen on the broad set
// (26 histories, 2,224 questions) beside the curated dev splits, each
// history weighing the same: all recall@5 / MRR, why recall@5 / MRR from
// 0.739 / 0.590 / 0.748 / 0.593 (broad) and 0.669 / 0.580 / 0.643 /
// 0.493 (dev) to 0.777 / 0.630 / 0.783 / 0.631 and 0.640 / 0.554 /
// 0.611 / 0.478 at 0.3; bug-fix questions on broad 0.724 / 0.596 to
// 0.786 / 0.650, above plain BM25 over messages. The curated sets lose,
// git/git most (0.721 / 0.647 to 0.660 / 0.558), whose long bodies about
// one topic then match alike. A list of the best messages as a source of
// its own did no better than scoring the candidates (0.774 / 0.632 and
// 0.622 / 0.542) and costs a query of every matching row; see
// docs/evaluation.md for the other shares and weights tried.
const messageShare = 0.3

// messageScores gives each candidate its BM25 over subject and body alone,
// weighed alike, relative to the best candidate's: only the candidates'
// rows are scored, through the term cache when the searcher has one.
func (s *Searcher) messageScores(ctx context.Context, terms []string, cs *candSet) error {
	ids := make([]int64, 0, len(cs.m))
	for _, c := range cs.m {
		if c.id != 0 {
			ids = append(ids, c.id)
		}
	}
	scores, err := KeywordScores(ctx, s.st, KeywordQuery{Terms: terms, MessagesOnly: true, Cache: s.opts.Terms}, ids)
	if err != nil {
		return fmt.Errorf("message scores: %w", err)
	}
	best := 0.0 // bm25() is negative, better more so
	for _, v := range scores {
		best = math.Min(best, v)
	}
	if best == 0 {
		return nil
	}
	for _, c := range cs.m {
		if v, ok := scores[c.id]; ok {
			c.msg = v / best
		}
	}
	return nil
}

// relevance is a candidate's text relevance: BM25 (of the keyword index
// and, by messageShare, of the message alone) and vector similarity, each
// relative to the best hit of its list, mixed by the Vector weight, plus
// docShare of its documentation words' BM25 (docwords.go).
func (s *Searcher) relevance(c *cand, mode Mode) float64 {
	if c.bm25Rank == 0 && c.vecRank == 0 {
		return c.bm25 // basic mode: the share of the terms in the subject
	}
	wv := s.opts.Weights.Vector
	switch mode {
	case ModeVector:
		wv = 1
	case ModeKeyword, ModeBasic:
		wv = 0
	}
	kw := (1-messageShare)*c.bm25 + messageShare*c.msg
	return (1-wv)*kw + wv*c.vec + docShare*c.doc
}

// removalSources is how many of the best text matches a removal question
// follows to the commits that deleted their files.
const removalSources = 5

// removals answers a question about something that went away ("why was
// the legacy exporter pulled out?"). Its words match the commits that
// wrote the thing, seldom the one that took it out ("Clean up unused code
// paths"), so the commits that later deleted the files of the best
// matches are candidates too, as relevant as the match they follow.
func (s *Searcher) removals(ctx context.Context, cs *candSet, mode Mode) error {
	srcs := slices.Collect(maps.Values(cs.m))
	slices.SortFunc(srcs, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(s.relevance(b, mode), s.relevance(a, mode)), cmp.Compare(a.hash, b.hash))
	})
	for _, src := range srcs[:min(len(srcs), removalSources)] {
		rel := s.relevance(src, mode)
		if rel <= 0 {
			break
		}
		hashes, err := store.Strings(ctx, s.st.DB, `SELECT DISTINCT c.hash FROM file_changes f
			JOIN file_changes d ON d.path = f.path AND d.status = 'deleted' AND d.commit_id > f.commit_id
			JOIN commits c ON c.id = d.commit_id
			WHERE f.commit_id = ? AND f.status != 'deleted' AND c.is_merge = 0 LIMIT 10`, src.id)
		if err != nil {
			return fmt.Errorf("removals: %w", err)
		}
		for _, h := range hashes {
			c := cs.get(h)
			c.removal = max(c.removal, removalShare*rel)
			c.why = append(c.why, "deleted "+src.hash[:7]+"'s files")
		}
	}
	return s.details(ctx, cs) // the deleting commits not among the candidates yet
}

// removalShare is the part of a match's relevance that the commit
// deleting its files inherits: all of it, since for a question about a
// removal the deletion is the answer and the match only the way to it;
// the removal points then put it first.
const removalShare = 1.0

// priorSpan is the most the priors together can lift a commit's score:
// 5 %, a near-tie.
const priorSpan = 0.05

// entityNames are the short names of entity keys ("path#pkg.Type.Name":
// "Name"), once each.
func entityNames(keys []string) []string {
	var out []string
	for _, k := range keys {
		n := k[strings.LastIndexAny(k, "#.:")+1:]
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// namesAny reports whether subject holds one of the names as a word,
// case-sensitively: "mergePersistentFlags" in "Add only missing
// persistent flags of parents in mergePersistentFlags".
func namesAny(subject string, names []string) bool {
	for _, id := range names {
		if len(id) < 3 {
			continue
		}
		for rest := subject; ; {
			i := strings.Index(rest, id)
			if i < 0 {
				break
			}
			end := i + len(id)
			if (i == 0 || !isIdentByte(rest[i-1])) && (end == len(rest) || !isIdentByte(rest[end])) {
				return true
			}
			rest = rest[end:]
		}
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
