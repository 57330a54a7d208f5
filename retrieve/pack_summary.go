package retrieve

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// packSummary is the pack's extractive answer, as sentences, most
// important first, so that the fitter can drop from the end: the top
// result, the rationale of the best design note, the named entity's last
// change, the time span and authors, and the next results. No model writes
// it: every clause is copied from the store.
func packSummary(in PackInput, cs []*packCommit, a *Pack) []string {
	if len(cs) == 0 {
		return []string{fmt.Sprintf("No indexed commit matches %q.", in.Query)}
	}
	top := cs[0]
	out := []string{"Most relevant: " + packCommitClause(top) + "."}
	if n, ok := packRationale(a.DesignNotes, top); ok {
		out = append(out, fmt.Sprintf("Rationale (%s): %q.", noteSource(n.Source), strings.TrimRight(packClip(n.Note, 300), ".")))
	}
	m := newPackMatch(in)
	if len(a.CodeContext) > 0 && m.keys[a.CodeContext[0].Path+"#"+a.CodeContext[0].Entity] {
		c := a.CodeContext[0]
		out = append(out, fmt.Sprintf("%s (%s): %s.", c.Entity, c.Path, c.Explanation))
	}
	out = append(out, packSpanSentence(cs))
	if len(cs) > 1 {
		var also []string
		for _, c := range cs[1:min(len(cs), 3)] {
			also = append(also, packCommitClause(c))
		}
		out = append(out, "Also relevant: "+strings.Join(also, "; ")+".")
	}
	return out
}

// packRationale is the first design note that says more than the top result's
// summary, which the summary has already given.
func packRationale(notes []NoteItem, top *packCommit) (NoteItem, bool) {
	said := strings.ToLower(top.text())
	for _, n := range notes {
		if !strings.Contains(strings.ToLower(n.Note), said) {
			return n, true
		}
	}
	return NoteItem{}, false
}

// packCommitClause is "abc1234 (bugfix, 2024-03-01): its summary".
func packCommitClause(c *packCommit) string {
	tag := packDay(c.when)
	if c.class != "" {
		tag = c.class + ", " + tag
	}
	return fmt.Sprintf("%s (%s): %s", packShort(c.hash), tag, strings.TrimRight(packClip(c.text(), 160), "."))
}

// packSpanSentence says when the results were committed and by whom.
func packSpanSentence(cs []*packCommit) string {
	first, last := cs[0].when, cs[0].when
	count := map[string]int{}
	for _, c := range cs {
		first, last = packMinTime(first, c.when), packMaxTime(last, c.when)
		count[c.author]++
	}
	authors := make([]string, 0, len(count))
	for a := range count {
		authors = append(authors, a)
	}
	sort.Slice(authors, func(i, j int) bool {
		if count[authors[i]] != count[authors[j]] {
			return count[authors[i]] > count[authors[j]]
		}
		return authors[i] < authors[j]
	})
	by := authors[0]
	if len(authors) > 1 {
		by += fmt.Sprintf(" and %d others", len(authors)-1)
	}
	if len(cs) == 1 {
		return fmt.Sprintf("It was committed on %s by %s.", packDay(first), by)
	}
	if packDay(first) == packDay(last) {
		return fmt.Sprintf("The %d matching commits are from %s, by %s.", len(cs), packDay(first), by)
	}
	return fmt.Sprintf("The %d matching commits span %s to %s, by %s.", len(cs), packDay(first), packDay(last), by)
}

// clarifyIntents are the intents for which a question that names no file
// or function lacks critical information (seed 001).
var clarifyIntents = []string{"plan", "execute", "debug", "research"}

// packClarify is seed 001's clarify suggestion, adapted to a history
// question: critical information is missing when no commit matches, or
// when the question names no entity or file and its intent is plan,
// execute, debug or research. It is given only when the intent is not
// explain. The search's own suggestion, when it made one, wins. The
// suggestion says what to name, with examples from the results.
func packClarify(in PackInput, cs []*packCommit, a *Pack) string {
	if in.Clarify != "" {
		return in.Clarify
	}
	intent := strings.ToLower(strings.TrimSpace(in.Intent))
	if intent == "explain" {
		return ""
	}
	var missing string
	switch {
	case len(cs) == 0:
		missing = "no indexed commit matches the question"
	case len(in.Entities) == 0 && len(in.Files) == 0 && slices.Contains(clarifyIntents, intent):
		missing = "the question names no file or function"
	default:
		return ""
	}
	var ask string
	switch intent {
	case "debug":
		ask = "name the error message, the failing test or the function where it fails"
	case "plan", "execute":
		ask = "name the file or function you will change, or the issue it is for (#123)"
	default:
		ask = "name a file, a function, an error message or an issue (#123)"
	}
	s := "Critical information is missing: " + missing + ". To narrow it down, " + ask
	if ex := clarifyExamples(a); len(ex) > 0 {
		s += ", e.g. " + strings.Join(ex, " or ")
	}
	return s + "."
}

// clarifyExamples are up to two entities and a file from the results.
func clarifyExamples(a *Pack) []string {
	var out []string
	for _, c := range a.CodeContext[:min(len(a.CodeContext), 2)] {
		out = append(out, "`"+c.Entity+"`")
	}
	switch {
	case len(a.ImportantDiffs) > 0:
		out = append(out, "`"+a.ImportantDiffs[0].Path+"`")
	case len(a.CodeContext) > 0:
		out = append(out, "`"+a.CodeContext[0].Path+"`")
	}
	return out
}

// noteSource shortens a note's source when it is a commit hash.
func noteSource(s string) string {
	if packIsHash(s) {
		return packShort(s)
	}
	return s
}

// packIsHash reports whether s is a full commit hash (SHA-1 or SHA-256).
func packIsHash(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}
