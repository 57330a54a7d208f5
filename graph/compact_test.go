package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	boltdb "github.com/boltdb/bolt"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
)

// TestCompactIfGrown: a graph written in random key order is compacted to
// a smaller file that holds the very same quads and takes further writes;
// an ungrown graph and a graph under the minimum are left alone.
func TestCompactIfGrown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := generate(1500)
	g := open(t, dir)
	load(t, g, s)
	before := allQuads(t, g)
	g.Close()
	if b, a, err := CompactIfGrown(dir); err != nil || b != 0 || a != 0 {
		t.Fatalf("under the minimum: compacted %d -> %d, %v", b, a, err)
	}

	defer func(m int64) { compactMinBytes = m }(compactMinBytes)
	compactMinBytes = 0
	// A copy a killed compaction left behind is no obstacle.
	if err := os.WriteFile(filepath.Join(dir, compactTmp), []byte("torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, a, err := CompactIfGrown(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a <= 0 || a*3 > b*2 {
		t.Errorf("compacted %d bytes to %d, want at most two thirds", b, a)
	}
	if fill := leafFill(t, dir); fill < 0.9 {
		t.Errorf("compacted leaf pages %.0f%% full, want at least 90%%", 100*fill)
	}
	if _, err := os.Stat(filepath.Join(dir, compactTmp)); !os.IsNotExist(err) {
		t.Errorf("temporary copy left: %v", err)
	}
	if b, a, err := CompactIfGrown(dir); err != nil || b != 0 || a != 0 {
		t.Errorf("not grown since: compacted %d -> %d, %v", b, a, err)
	}
	g = open(t, dir)
	if got := allQuads(t, g); !slices.Equal(got, before) {
		t.Fatalf("compacted graph holds %d quads, want the %d it held", len(got), len(before))
	}
	if err := g.Write(ctx, []Node{{ID: "file:new.go", Type: "File"}}, []Edge{{"repo:bench", "CONTAINS", "file:new.go", 1}}); err != nil {
		t.Fatalf("write after compaction: %v", err)
	}
}

// leafFill is the share of the bytes of the graph's leaf pages in use,
// the top level's (which holds Cayley's many small value buckets inline)
// and every bucket's below it.
func leafFill(t *testing.T, dir string) float64 {
	t.Helper()
	db, err := boltdb.Open(filepath.Join(dir, boltFile), 0o600, &boltdb.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var st boltdb.BucketStats
	if err := db.View(func(tx *boltdb.Tx) error {
		st = tx.Cursor().Bucket().Stats()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return float64(st.LeafInuse) / float64(st.LeafAlloc)
}

func allQuads(t *testing.T, g *Graph) []string {
	t.Helper()
	var out []string
	err := g.EachQuad(context.Background(), func(q quad.Quad) error {
		out = append(out, q.NQuad())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestCompactIfGrownOlderLayout: a graph an older build compacted (its
// mark a size alone) is compacted once more however little it grew, then
// left alone.
func TestCompactIfGrownOlderLayout(t *testing.T) {
	defer func(m int64) { compactMinBytes = m }(compactMinBytes)
	compactMinBytes = 0
	dir := t.TempDir()
	g := open(t, dir)
	load(t, g, generate(300))
	g.Close()
	fi, err := os.Stat(filepath.Join(dir, boltFile))
	if err != nil {
		t.Fatal(err)
	}
	old := []byte(strconv.FormatInt(fi.Size(), 10) + "\n")
	if err := os.WriteFile(filepath.Join(dir, compactedFile), old, 0o600); err != nil {
		t.Fatal(err)
	}
	if b, a, err := CompactIfGrown(dir); err != nil || b != fi.Size() || a <= 0 {
		t.Fatalf("older layout: compacted %d -> %d, %v; want %d compacted", b, a, err, fi.Size())
	}
	if b, a, err := CompactIfGrown(dir); err != nil || b != 0 || a != 0 {
		t.Errorf("compacted by this layout: compacted %d -> %d, %v", b, a, err)
	}
}

func TestCompactIfGrownNoGraph(t *testing.T) {
	if b, a, err := CompactIfGrown(filepath.Join(t.TempDir(), "none")); err != nil || b != 0 || a != 0 {
		t.Fatalf("no graph: %d -> %d, %v", b, a, err)
	}
}

// TestCompactIfGrownRefuses: a graph another opener holds, or a file that
// is no bolt database, is an error, and the file stays as it was.
func TestCompactIfGrownRefuses(t *testing.T) {
	defer func(m int64) { compactMinBytes = m }(compactMinBytes)
	compactMinBytes = 0

	held := t.TempDir()
	g := open(t, held)
	nodes, es := history()
	write(t, g, nodes, es)
	if _, _, err := CompactIfGrown(held); !errors.Is(err, ErrLocked) {
		t.Errorf("compacting a graph held open: %v, want ErrLocked", err)
	}
	g.Close()

	bad := t.TempDir()
	junk := bytes.Repeat([]byte("not a bolt file "), 4096)
	path := filepath.Join(bad, boltFile)
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := CompactIfGrown(bad); err == nil {
		t.Error("compacting a file that is no bolt database: no error")
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, junk) {
		t.Errorf("the file changed: %d bytes, %v", len(b), err)
	}
}

// TestCompactDropsRemovedQuads: the quads a graph removed (an edge whose
// confidence changed, a hidden and unhidden node, a deleted node) leave
// the log and the indexes, the write times go, and every read answers as
// before; the graph takes further writes, removals and re-additions.
func TestCompactDropsRemovedQuads(t *testing.T) { compactDropsRemovedQuads(t) }

// TestCompactInSmallTransactions: a copy committed every few keys, the
// bucket it was writing looked up again in each new transaction, holds
// what a copy in larger transactions holds.
func TestCompactInSmallTransactions(t *testing.T) {
	defer func(n int) { compactTxBytes = n }(compactTxBytes)
	compactTxBytes = 64
	compactDropsRemovedQuads(t)
}

func compactDropsRemovedQuads(t *testing.T) {
	defer func(m int64) { compactMinBytes = m }(compactMinBytes)
	compactMinBytes = 0
	ctx := context.Background()
	dir := t.TempDir()
	g := open(t, dir)
	writeHistory(t, g)
	write(t, g, nil, []Edge{{foo, "CO_EVOLVES_WITH", bar, 0.5}})
	if err := g.Hide(ctx, []string{bar}); err != nil {
		t.Fatal(err)
	}
	if err := g.Unhide(ctx, []string{bar}); err != nil {
		t.Fatal(err)
	}
	if err := g.Delete(ctx, []string{issue}); err != nil {
		t.Fatal(err)
	}
	before, reads := allQuads(t, g), allEdges(t, g)
	g.Close()
	if dead, stamped := logEntries(t, dir); dead == 0 || stamped == 0 {
		t.Fatalf("before: %d removed quads and %d write times in the log, want some of each", dead, stamped)
	}

	if _, _, err := CompactIfGrown(dir); err != nil {
		t.Fatal(err)
	}
	if dead, stamped := logEntries(t, dir); dead != 0 || stamped != 0 {
		t.Errorf("after: %d removed quads and %d write times in the log, want none", dead, stamped)
	}
	g = open(t, dir)
	if got := allQuads(t, g); !slices.Equal(got, before) {
		t.Fatalf("compacted graph holds %v, want %v", got, before)
	}
	if got := allEdges(t, g); !slices.Equal(got, reads) {
		t.Fatalf("compacted graph reads %v, want %v", got, reads)
	}
	write(t, g, nil, []Edge{{c3, "FIXES", issue, 0.9}, {foo, "CO_EVOLVES_WITH", bar, 0.75}})
	if err := g.Delete(ctx, []string{fooV2}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{foo: 4, bar: 4, issue: 1, fooV2: 0}
	for id, n := range want {
		es, err := g.Edges(ctx, id, In)
		if err != nil {
			t.Fatal(err)
		}
		out, err := g.Edges(ctx, id, Out)
		if err != nil {
			t.Fatal(err)
		}
		if len(es)+len(out) != n {
			t.Errorf("%s after compaction and writes: edges %v in, %v out; want %d", id, es, out, n)
		}
	}
	// The edge whose removed quad the compaction dropped is back with
	// the confidence written last.
	if es, err := g.Edges(ctx, foo, Out, "CO_EVOLVES_WITH"); err != nil || len(es) != 1 || es[0].Confidence != 0.75 {
		t.Errorf("re-added edge: %v, %v", es, err)
	}
}

// allEdges reads every node's edges both ways through the indexes.
func allEdges(t *testing.T, g *Graph) []string {
	t.Helper()
	var out []string
	for _, id := range []string{repo, c1, c2, c3, foo, bar, fooV2, file, issue, author} {
		for _, d := range []Direction{Out, In} {
			es, err := g.Edges(context.Background(), id, d)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				out = append(out, fmt.Sprintf("%s %d %v", id, d, e))
			}
		}
	}
	slices.Sort(out)
	return out
}

// logEntries counts the removed quads and the entries with a write time
// in a closed graph's log.
func logEntries(t *testing.T, dir string) (dead, stamped int) {
	t.Helper()
	db, err := boltdb.Open(filepath.Join(dir, boltFile), 0o600, &boltdb.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *boltdb.Tx) error {
		return tx.Bucket(logBucket).ForEach(func(k, v []byte) error {
			var p proto.Primitive
			if err := p.Unmarshal(v); err != nil {
				return err
			}
			if p.Deleted {
				dead++
			}
			if p.Timestamp != 0 {
				stamped++
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return dead, stamped
}
