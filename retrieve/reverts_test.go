package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// A question about an undone change finds the commit that undid it,
// though that commit's message only quotes the change's subject and sha.
func TestSearchRevertFollowsToTheRevert(t *testing.T) {
	g := gittest.New(t)
	g.Write("reduce.c", "int reduce(int acc) { return acc; }\n")
	g.Commit("Add reduce")
	g.Write("reduce.c", "int reduce(int acc) { if (!acc) return acc; return acc; }\n")
	change := g.Commit("Keep the accumulator when an update yields nothing")
	for i := range 3 {
		g.Write("notes.txt", strings.Repeat("accumulator update\n", i+1))
		g.Commit("Describe accumulator update semantics in the notes")
	}
	g.Write("reduce.c", "int reduce(int acc) { return acc; }\n")
	revert := g.Commit("Revert \"Keep the accumulator when an update yields nothing\"\n\nThis reverts commit " + change + ".\nIt made every reduction slower.")
	s := newSearcher(t, g, true)
	a, err := s.Search(context.Background(), Request{Query: "the accumulator was kept when an update yields nothing, then that was backed out: why?"})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(a.Items, func(it Item) bool { return it.Commit == revert })
	if i < 0 || i > 1 || !slices.Contains(a.Items[i].Why, "reverted "+change[:7]) {
		t.Fatalf("items %+v: want the revert %s in the top 2, followed from %s", a.Items, revert, change)
	}
}

// A question that describes a change which was soon undone, in words of
// the revert's reason and not of a revert ("briefly", "taken out again"),
// finds the revert and, through it, the change it undid, whose own
// message shares no word with the question: both are the answer.
func TestSearchRevertFollowsBackToTheUndoneChange(t *testing.T) {
	g := gittest.New(t)
	g.Write("path.c", "int path(int i) { return i; }\n")
	g.Commit("Add path expressions")
	g.Write("path.c", "int path(int i) { if (i < 0) return -i; return i; }\n")
	change := g.Commit("Special-case index -1 in paths")
	for i := range 4 {
		g.Write(fmt.Sprintf("doc%d.txt", i), "elements\n")
		g.Commit(fmt.Sprintf("Describe deleting elements (%d)", i))
	}
	g.Write("path.c", "int path(int i) { return i; }\n")
	revert := g.Commit("Revert \"Special-case index -1 in paths\"\n\nThis reverts commit " + change + ".\nDeleting elements by a negative position removed the wrong one.")
	s := newSearcher(t, g, true)
	q := "deleting elements by a negative position briefly removed the wrong one, and that was taken out again: why?"
	if !askedFor(q, IntentExplain).revert {
		t.Fatalf("askedFor(%q).revert = false", q)
	}
	a, err := s.Search(context.Background(), Request{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	top := map[string]Item{}
	for _, it := range a.Items[:min(2, len(a.Items))] {
		top[it.Commit] = it
	}
	if _, ok := top[revert]; !ok {
		t.Errorf("items %+v: want the revert %s in the top 2", a.Items, revert)
	}
	if it, ok := top[change]; !ok || !slices.Contains(it.Why, "undone by "+revert[:7]) {
		t.Errorf("items %+v: want the undone change %s in the top 2, found from its revert", a.Items, change)
	}
}

func TestUndoneSubject(t *testing.T) {
	for subject, want := range map[string]string{
		`Revert "Allow .[-1] in path expressions"`:         "Allow .[-1] in path expressions",
		`Revert "Add GET endpoints" (#2871)`:               "Add GET endpoints",
		`Revert "Revert "Use the new parser""`:             `Revert "Use the new parser"`,
		`Revert "quote the "editor" command (#12)" (#345)`: `quote the "editor" command (#12)`,
		`Revert "" (#1)`:             "",
		`Revert the new parser`:      "",
		`Revert "unterminated`:       "",
		`Revert "Keep (#x)" (#12a)`:  "",
		`Fix: revert "foo" handling`: "",
	} {
		got, ok := undoneSubject(subject)
		if got != want || ok != (want != "") {
			t.Errorf("undoneSubject(%q) = %q, %v; want %q", subject, got, ok, want)
		}
	}
}
