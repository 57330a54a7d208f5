package retrieve

import (
	"context"
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
