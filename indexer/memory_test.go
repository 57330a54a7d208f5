package indexer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/vectors"
)

// TestMemoryBoundsChangeNothing: what bounds a sync's memory (the budget of
// file contents between extraction and the entity stage, the object
// caches) changes how long it holds things, never what it stores. A sync
// that lets one batch's sources through at a time, with object caches of
// 64 KiB that evict on almost every read, stores exactly what one with the
// defaults stores.
func TestMemoryBoundsChangeNothing(t *testing.T) {
	g := gittest.GenerateWith(t, 200, 11, gittest.GenerateOptions{DirMoves: true, RealCode: true})
	want := syncInto(t, g.Dir, t.TempDir(), 16)

	defer func(b int64) { sourceBudget = b }(sourceBudget)
	sourceBudget = 1
	dir := t.TempDir()
	st := openStoreIn(t, dir)
	gr, err := graph.Open(context.Background(), filepath.Join(dir, "graph"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := vectors.Open(filepath.Join(dir, "vectors"), vectors.NewLocal(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Graph: gr, Vectors: v, BatchSize: 16}
	opts.Extract.CacheBytes = 64 << 10
	res := sync(t, g.Dir, st, opts)
	gr.Close()
	v.Close()
	if res.Indexed == 0 || res.Failed != 0 {
		t.Fatalf("bounded sync indexed %d, failed %d", res.Indexed, res.Failed)
	}
	if got := dumpDir(t, dir); got != want {
		t.Errorf("a sync with tight memory bounds stored something else:\n%s", diffLines(want, got))
	}
}
