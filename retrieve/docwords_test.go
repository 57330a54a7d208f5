package retrieve

import (
	"context"
	"slices"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// A question in a user's words meets the commit through the manual: the
// manual says what the user sees ("housekeeping") and names the setting
// the commit names (compact.auto).
func TestDocWordsBridgeAManual(t *testing.T) {
	g := gittest.New(t)
	g.Write("store/store.go", "package store\n\nfunc Open() {}\n")
	other := g.Commit("Fetch refs in the background while the repository loads")
	g.Write("store/compact.go", "package store\n\nfunc compact() {}\n")
	compact := g.Commit("Compact the store when compact.auto is set")
	g.Write("docs/manual.md", "# Manual\n\nHousekeeping: as the store grows, the compactor runs on its own "+
		"in the background, unless compact.auto is false.\n\nThe repository is loaded once per process and shared by every request.\n")
	g.Commit("Write the manual")
	s := newSearcher(t, g, true)
	ctx := context.Background()
	q := "why does housekeeping of the store happen in the background?"
	words, err := s.docWords(ctx, q, Normalize(q))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(words, "compact.auto") || slices.Contains(words, "housekeeping") || slices.Contains(words, "background") {
		t.Fatalf("documentation words %q: want the manual's compact.auto, none of the question's own", words)
	}
	a, err := s.Search(ctx, Request{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	why := map[string][]string{}
	for _, it := range a.Items {
		why[it.Commit] = it.Why
	}
	if !slices.Contains(why[compact], "documentation words") {
		t.Errorf("the compaction commit %s: found by %q, want the documentation words among them (items %+v)", compact, why[compact], a.Items)
	}
	if slices.Contains(why[other], "documentation words") {
		t.Errorf("the background fetch %s was found by the manual's words too: %q", other, why[other])
	}
	// Keyword mode uses them as well; vector mode, which has no words, does not.
	a, err = s.Search(ctx, Request{Query: q, Mode: ModeVector})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range a.Items {
		if slices.Contains(it.Why, "documentation words") {
			t.Errorf("vector mode used the documentation words for %s", it.Commit)
		}
	}
}

func TestDocWordsWithoutDocs(t *testing.T) {
	g, _ := searchRepo(t)
	s := newSearcher(t, g, false)
	words, err := s.docWords(context.Background(), "why do uploads retry?", []string{"uploads", "retry"})
	if err != nil || len(words) != 0 {
		t.Errorf("a repository whose documentation has no paragraph of prose: words %q, err %v", words, err)
	}
}
