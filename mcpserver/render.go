package mcpserver

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/retrieve"
)

// The text content is compact lines, one per commit, for a model to read:
// short hash, date, change type, summary, and the rename if any.

// summaryRunes bounds a summary on a line of text; the structured output
// has the whole of it.
const summaryRunes = 160

// short is the abbreviated hash the text shows (as git log --oneline).
func short(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}

func day(t time.Time) string { return t.Format("2006-01-02") }

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// oneLine folds white space, newlines included, to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to n runes on one line.
func clip(s string, n int) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func plural(n int, noun string) string { return fmt.Sprintf("%d %s", n, nouns(n, noun)) }

func nouns(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// what is a commit's one-line description: its summary, else its subject.
func what(summary, subject string) string {
	return cmp.Or(oneLine(summary), oneLine(subject))
}

// changeOf is a commit of a list as structured output.
func changeOf(c retrieve.Change) Change {
	return Change{Commit: c.Commit, Date: stamp(c.When), Author: c.Author, Classification: c.Classification,
		Summary: what(c.Summary, c.Subject), Path: c.Path, Status: c.Status, OldPath: c.OldPath}
}

// changeLine is a commit of a list as a line of text.
func changeLine(b *strings.Builder, c retrieve.Change) {
	fmt.Fprintf(b, "%s %s %s %s", short(c.Commit), day(c.When), cmp.Or(c.Classification, "-"),
		clip(what(c.Summary, c.Subject), summaryRunes))
	if c.OldPath != "" && c.OldPath != c.Path {
		fmt.Fprintf(b, " (%s → %s)", c.OldPath, c.Path)
	}
	b.WriteByte('\n')
}

// leftOut is the line that says how many items the budget left out.
func leftOut(b *strings.Builder, n int, noun string) {
	if n > 0 {
		fmt.Fprintf(b, "… %d more %s; raise token_budget to see them\n", n, nouns(n, noun))
	}
}
