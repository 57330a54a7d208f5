package retrieve

import (
	"context"
	"slices"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// TestFollowCalls: a question that names a function also finds the
// commits that changed the functions it calls and that call it, related
// below its own, with the call in the reasons.
func TestFollowCalls(t *testing.T) {
	g := gittest.New(t)
	g.Write("upload/encode.go", "package upload\n\nfunc encode(b []byte) []byte {\n\treturn b\n}\n")
	g.Write("upload/client.go", "package upload\n\nfunc sendChunk(b []byte) error {\n\t_ = encode(b)\n\treturn nil\n}\n")
	g.Write("cli/main.go", "package cli\n\nfunc other() {}\n")
	add := g.Commit("Add the upload client")
	g.Write("upload/encode.go", "package upload\n\nfunc encode(b []byte) []byte {\n\treturn zstd(b)\n}\n\nfunc zstd(b []byte) []byte { return b }\n")
	zstd := g.Commit("Compress what goes over the wire")
	g.Write("cli/main.go", "package cli\n\nfunc other() { _ = 1 }\n")
	g.Commit("Touch the command line")
	s := newSearcher(t, g, false)
	a, err := s.Search(context.Background(), Request{Query: "how did sendChunk change"})
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, it := range a.Items {
		rank[it.Commit] = i + 1
		if it.Commit == zstd && !slices.Contains(it.Why, "callee upload.encode") {
			t.Errorf("the callee's commit says %q", it.Why)
		}
	}
	if rank[add] != 1 || rank[zstd] == 0 {
		t.Errorf("ranks %v, want the entity's own commit first and its callee's commit found", rank)
	}
}
