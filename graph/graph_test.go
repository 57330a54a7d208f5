package graph

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/graph/graphtest"
)

func open(t testing.TB, addr string) *Graph {
	t.Helper()
	g, err := Open(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// forEachBackend runs f on an empty store of every available backend.
func forEachBackend(t *testing.T, f func(t *testing.T, g *Graph)) {
	for _, b := range graphtest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { f(t, open(t, b.Addr(t))) })
	}
}

const (
	c1, c2, c3  = "commit:c1", "commit:c2", "commit:c3"
	foo, bar    = "entity:a.go#Foo", "entity:a.go#Bar"
	fooV2, file = "entity:a.go#FooV2", "file:a.go"
	issue, repo = "issue:GH-1", "repo:demo"
	author      = "author:ann@example.com"
)

// history is a small indexed history: three commits, three entities of one
// file, an issue fixed by the last commit, a replacement and a co-evolution.
func history() ([]Node, []Edge) {
	nodes := []Node{
		{ID: repo, Type: "Repository"},
		{ID: c1, Type: "Commit", Props: map[string]string{"subject": "init", "date": "2024-01-01"}},
		{ID: c2, Type: "Commit", Props: map[string]string{"subject": "tune Foo"}},
		{ID: c3, Type: "Commit", Props: map[string]string{"subject": "replace Foo, fixes #1"}},
		{ID: foo, Type: "Function"}, {ID: bar, Type: "Function"}, {ID: fooV2, Type: "Function"},
		{ID: file, Type: "File", Props: map[string]string{"lang": "Go"}},
		{ID: issue, Type: "Issue"}, {ID: author, Type: "Author"},
	}
	edges := []Edge{
		{c1, "PARENT_OF", c2, 0}, {c2, "PARENT_OF", c3, 0},
		{c1, "INTRODUCES", foo, 1}, {c1, "INTRODUCES", bar, 1}, {c3, "INTRODUCES", fooV2, 1},
		{c2, "MODIFIES", foo, 1}, {c2, "MODIFIES", bar, 1},
		{c3, "FIXES", issue, 0.9}, {foo, "REPLACED_BY", fooV2, 1},
		{foo, "CO_EVOLVES_WITH", bar, 0.75},
		{repo, "CONTAINS", file, 1}, {file, "CONTAINS", foo, 1}, {file, "CONTAINS", bar, 1}, {file, "CONTAINS", fooV2, 1},
		{c1, "AUTHORED_BY", author, 1},
	}
	return nodes, edges
}

func write(t testing.TB, g *Graph, nodes []Node, edges []Edge) {
	t.Helper()
	if err := g.Write(context.Background(), nodes, edges); err != nil {
		t.Fatal(err)
	}
}

func neighbors(t testing.TB, g *Graph, id string, types []string, depth int) []Hit {
	t.Helper()
	hits, err := g.Neighbors(context.Background(), id, types, depth)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func edges(t testing.TB, g *Graph, id string, dir Direction, types ...string) []Edge {
	t.Helper()
	es, err := g.Edges(context.Background(), id, dir, types...)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func counts(t testing.TB, g *Graph) [2]int {
	t.Helper()
	n, e, err := g.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return [2]int{n, e}
}

func check(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func TestQueries(t *testing.T) {
	forEachBackend(t, func(t *testing.T, g *Graph) {
		writeHistory(t, g)
		ctx := context.Background()

		depth1 := []Hit{
			{c1, 1, Edge{c1, "INTRODUCES", foo, 1}},
			{c2, 1, Edge{c2, "MODIFIES", foo, 1}},
			{bar, 1, Edge{foo, "CO_EVOLVES_WITH", bar, 0.75}},
			{fooV2, 1, Edge{foo, "REPLACED_BY", fooV2, 1}},
			{file, 1, Edge{file, "CONTAINS", foo, 1}},
		}
		check(t, "depth 1", neighbors(t, g, foo, nil, 1), depth1)
		depth2 := append(depth1[:len(depth1):len(depth1)],
			Hit{author, 2, Edge{c1, "AUTHORED_BY", author, 1}},
			// c3 is reached from c2 (PARENT_OF) and from FooV2 (INTRODUCES): the smaller edge wins.
			Hit{c3, 2, Edge{c3, "INTRODUCES", fooV2, 1}},
			Hit{repo, 2, Edge{repo, "CONTAINS", file, 1}},
		)
		check(t, "depth 2", neighbors(t, g, foo, nil, 2), depth2)
		check(t, "typed depth 2", neighbors(t, g, foo, []string{"MODIFIES", "PARENT_OF"}, 2), []Hit{
			{c2, 1, Edge{c2, "MODIFIES", foo, 1}},
			{c1, 2, Edge{c1, "PARENT_OF", c2, 1}},
			{c3, 2, Edge{c2, "PARENT_OF", c3, 1}},
			{bar, 2, Edge{c2, "MODIFIES", bar, 1}},
		})
		check(t, "unknown type", neighbors(t, g, foo, []string{"CALLS"}, 2), []Hit(nil))
		check(t, "unknown node", neighbors(t, g, "commit:nope", nil, 2), []Hit(nil))
		for range 3 {
			check(t, "repeat depth 2", neighbors(t, g, foo, nil, 2), depth2)
		}

		check(t, "c2 out", edges(t, g, c2, Out), []Edge{
			{c2, "MODIFIES", bar, 1}, {c2, "MODIFIES", foo, 1}, {c2, "PARENT_OF", c3, 1},
		})
		check(t, "c2 in", edges(t, g, c2, In), []Edge{{c1, "PARENT_OF", c2, 1}})
		check(t, "foo co-evolves", edges(t, g, foo, Out, "CO_EVOLVES_WITH"), []Edge{{foo, "CO_EVOLVES_WITH", bar, 0.75}})
		check(t, "issue in", edges(t, g, issue, In, "FIXES", "REFERENCES"), []Edge{{c3, "FIXES", issue, 0.9}})

		n, ok, err := g.Node(ctx, c1)
		if err != nil || !ok {
			t.Fatalf("Node(%s) = %v, %v", c1, ok, err)
		}
		check(t, "node c1", n, Node{ID: c1, Type: "Commit", Props: map[string]string{"subject": "init", "date": "2024-01-01"}})
		if _, ok, _ := g.Node(ctx, "commit:nope"); ok {
			t.Error("unknown node found")
		}
		check(t, "counts", counts(t, g), [2]int{10, 15})

		if _, err := g.Neighbors(ctx, foo, nil, 3); !errors.Is(err, ErrDepth) {
			t.Errorf("depth 3: err = %v, want ErrDepth", err)
		}
		if err := g.Write(ctx, nil, []Edge{{foo, "X", bar, 1.5}}); !errors.Is(err, ErrInvalid) {
			t.Errorf("confidence 1.5: err = %v, want ErrInvalid", err)
		}
		if err := g.Write(ctx, nil, []Edge{{foo, "prop:x", bar, 1}}); !errors.Is(err, ErrInvalid) {
			t.Errorf("reserved type: err = %v, want ErrInvalid", err)
		}
	})
}

func TestIdempotentWrite(t *testing.T) {
	forEachBackend(t, func(t *testing.T, g *Graph) {
		nodes, es := history()
		write(t, g, nodes, es)
		before := counts(t, g)
		snap := snapshot(t, g)
		write(t, g, nodes, es)
		check(t, "counts after rewrite", counts(t, g), before)
		check(t, "answers after rewrite", snapshot(t, g), snap)

		write(t, g, []Node{{ID: c1, Type: "Commit", Props: map[string]string{"subject": "initial"}}},
			[]Edge{{foo, "CO_EVOLVES_WITH", bar, 0.5}})
		check(t, "counts after change", counts(t, g), before)
		check(t, "changed confidence", edges(t, g, foo, Out, "CO_EVOLVES_WITH"), []Edge{{foo, "CO_EVOLVES_WITH", bar, 0.5}})
		n, _, err := g.Node(context.Background(), c1)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "changed prop", n.Props, map[string]string{"subject": "initial", "date": "2024-01-01"})
	})
}

func TestHide(t *testing.T) {
	forEachBackend(t, func(t *testing.T, g *Graph) {
		writeHistory(t, g)
		ctx := context.Background()
		snap := snapshot(t, g)
		if err := g.Hide(ctx, []string{c2}); err != nil {
			t.Fatal(err)
		}
		check(t, "hidden: foo depth 1", neighbors(t, g, foo, nil, 1), []Hit{
			{c1, 1, Edge{c1, "INTRODUCES", foo, 1}},
			{bar, 1, Edge{foo, "CO_EVOLVES_WITH", bar, 0.75}},
			{fooV2, 1, Edge{foo, "REPLACED_BY", fooV2, 1}},
			{file, 1, Edge{file, "CONTAINS", foo, 1}},
		})
		check(t, "hidden: c1 out", edges(t, g, c1, Out, "PARENT_OF"), []Edge(nil))
		check(t, "hidden: c2 out", edges(t, g, c2, Out), []Edge(nil))
		check(t, "hidden: from c2", neighbors(t, g, c2, nil, 2), []Hit(nil))
		if _, ok, _ := g.Node(ctx, c2); ok {
			t.Error("hidden node found")
		}
		if err := g.Unhide(ctx, []string{c2}); err != nil {
			t.Fatal(err)
		}
		check(t, "unhidden", snapshot(t, g), snap)
	})
}

func TestDelete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, g *Graph) {
		writeHistory(t, g)
		ctx := context.Background()
		if err := g.Hide(ctx, []string{foo}); err != nil {
			t.Fatal(err)
		}
		if err := g.Delete(ctx, []string{foo, "commit:never-written"}); err != nil {
			t.Fatal(err)
		}
		// Foo had 5 edges: INTRODUCES, MODIFIES, REPLACED_BY, CO_EVOLVES_WITH, CONTAINS.
		check(t, "counts", counts(t, g), [2]int{9, 10})
		if _, ok, _ := g.Node(ctx, foo); ok {
			t.Error("deleted node found")
		}
		check(t, "c2 out", edges(t, g, c2, Out), []Edge{{c2, "MODIFIES", bar, 1}, {c2, "PARENT_OF", c3, 1}})
		check(t, "foo in", edges(t, g, foo, In), []Edge(nil))
		// Written again, the node comes back visible: its hidden mark went with it.
		writeHistory(t, g)
		check(t, "counts after rewrite", counts(t, g), [2]int{10, 15})
	})
}

func TestRemoveEdges(t *testing.T) {
	forEachBackend(t, func(t *testing.T, g *Graph) {
		writeHistory(t, g)
		ctx := context.Background()
		err := g.RemoveEdges(ctx, []Edge{{foo, "CO_EVOLVES_WITH", bar, 0}, {foo, "CO_EVOLVES_WITH", "entity:none", 0},
			{"commit:none", "PARENT_OF", c1, 0}})
		if err != nil {
			t.Fatal(err)
		}
		check(t, "counts", counts(t, g), [2]int{10, 14})
		check(t, "foo co-evolution", edges(t, g, foo, Out, "CO_EVOLVES_WITH"), []Edge(nil))
		check(t, "bar in", edges(t, g, bar, In, "CO_EVOLVES_WITH"), []Edge(nil))
		writeHistory(t, g)
		check(t, "counts after rewrite", counts(t, g), [2]int{10, 15})
	})
}

// snapshot renders every query answer over the history graph as text.
func snapshot(t testing.TB, g *Graph) string {
	t.Helper()
	var b strings.Builder
	nodes, _ := history()
	for _, n := range nodes {
		got, ok, err := g.Node(context.Background(), n.ID)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "node %s %v %+v\n", n.ID, ok, got)
		for _, dir := range []Direction{Out, In} {
			fmt.Fprintf(&b, "edges %s %d %+v\n", n.ID, dir, edges(t, g, n.ID, dir))
		}
		for d := 1; d <= MaxDepth; d++ {
			fmt.Fprintf(&b, "neighbors %s %d %+v\n", n.ID, d, neighbors(t, g, n.ID, nil, d))
			fmt.Fprintf(&b, "typed %s %d %+v\n", n.ID, d, neighbors(t, g, n.ID, []string{"PARENT_OF", "CONTAINS"}, d))
		}
	}
	fmt.Fprintf(&b, "counts %v\n", counts(t, g))
	return b.String()
}

func TestBackendsAgree(t *testing.T) {
	bs := graphtest.Backends(t)
	if len(bs) < 2 {
		t.Skip("GITMEMORY_TEST_PG is not set: nothing to compare bolt with")
	}
	nodes, es := history()
	var snaps []string
	for i, b := range bs {
		g := open(t, b.Addr(t))
		// Write in a different order on each backend: answers must not depend on it.
		r := rand.New(rand.NewSource(int64(i)))
		r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
		r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		write(t, g, nodes[:4], es[:7])
		write(t, g, nodes[4:], es[7:])
		if err := g.Hide(context.Background(), []string{c3}); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, snapshot(t, g))
	}
	if snaps[0] != snaps[1] {
		t.Errorf("bolt and postgres disagree:\nbolt:\n%s\npostgres:\n%s", snaps[0], snaps[1])
	}
}

func TestReopenBolt(t *testing.T) {
	dir := t.TempDir()
	g, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	writeHistory(t, g)
	snap := snapshot(t, g)

	// A second opener of the same directory fails with ErrLocked when its
	// deadline passes instead of waiting for bolt's lock forever.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if g2, err := Open(ctx, dir); !errors.Is(err, ErrLocked) {
		if err == nil {
			g2.Close()
		}
		t.Fatalf("second Open: err = %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("second Open took %v", d)
	}

	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close: err = %v, want ErrClosed", err)
	}
	if _, err := g.Edges(context.Background(), foo, Out); !errors.Is(err, ErrClosed) {
		t.Errorf("Edges after Close: err = %v, want ErrClosed", err)
	}
	g = open(t, dir)
	check(t, "after reopen", snapshot(t, g), snap)
}

func writeHistory(t testing.TB, g *Graph) {
	t.Helper()
	nodes, es := history()
	write(t, g, nodes, es)
}
