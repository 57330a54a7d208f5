package memory

import (
	"context"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/retrieve"
)

// TestSharedVectorsReloadAfterSync: with ShareVectors, questions reuse one
// loaded vector index, and a sync that changes the log on disk makes the
// next question load the new one.
func TestSharedVectorsReloadAfterSync(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.go", "package a\n\nfunc A() {}\n")
	g.Commit("feat: add the alpha helper")
	ctx := context.Background()
	h, err := OpenHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Add(ctx, g.Dir, AddOptions{Name: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Sync(ctx, "r", SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	h.ShareVectors()
	ask := func(q string) (*retrieve.Answer, any) {
		t.Helper()
		s, err := h.OpenSearcher(ctx, "r", retrieve.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ans, err := s.Search(ctx, retrieve.Request{Query: q, Mode: retrieve.ModeVector})
		if err != nil {
			t.Fatal(err)
		}
		vec, release, err := h.questionVectors("r")
		if err != nil {
			t.Fatal(err)
		}
		release()
		return ans, vec
	}
	_, first := ask("alpha helper")
	_, second := ask("alpha helper")
	if first != second {
		t.Error("two questions loaded the vector index twice")
	}
	g.Write("b.go", "package a\n\nfunc Zebra() {}\n")
	head := g.Commit("feat: zebra striping for the table view")
	if _, err := h.Sync(ctx, "r", SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	ans, third := ask("zebra striping table view")
	if third == second {
		t.Error("the index was not reloaded after the sync changed its log")
	}
	if len(ans.Items) == 0 || ans.Items[0].Commit != head {
		t.Errorf("after the sync the vectors do not find the new commit: %+v", ans.Items)
	}
}
