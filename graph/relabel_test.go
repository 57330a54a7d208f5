package graph

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// TestRelabelKeepsNewEdges: one Write that changes the confidence of
// edges away from a value and adds an edge with that value stores every
// edge whole. Cayley's kv stores net each value's reference count over a
// transaction (graphlog.SplitDeltas) and give an added quad only the
// values whose count rises: with more quads labelled 0.8 removed than
// added, the new 0.8 edge was stored without its label (its confidence
// lost, and no later write or removal matching it), which made git/git's
// graph depend on how commits were grouped into writes.
func TestRelabelKeepsNewEdges(t *testing.T) {
	forEachBackend(t, func(t *testing.T, g *Graph) {
		ctx := context.Background()
		a, b, c, d := "entity:a.c#a", "entity:b.c#b", "entity:c.c#c", "entity:d.c#d"
		if err := g.Write(ctx, nil, []Edge{{a, "CALLS", b, 0.8}, {a, "CALLS", c, 0.8}}); err != nil {
			t.Fatal(err)
		}
		if err := g.Write(ctx, nil, []Edge{{a, "CALLS", b, 1}, {a, "CALLS", c, 1}, {d, "CALLS", b, 0.8}}); err != nil {
			t.Fatal(err)
		}
		check(t, "d's calls", edges(t, g, d, Out, "CALLS"), []Edge{{d, "CALLS", b, 0.8}})
		check(t, "a's calls", edges(t, g, a, Out, "CALLS"), []Edge{{a, "CALLS", b, 1}, {a, "CALLS", c, 1}})
		if err := g.RemoveEdges(ctx, []Edge{{From: d, Type: "CALLS", To: b}}); err != nil {
			t.Fatal(err)
		}
		want := []string{`<entity:a.c#a> <CALLS> <entity:b.c#b> "1" .`, `<entity:a.c#a> <CALLS> <entity:c.c#c> "1" .`}
		check(t, "quads", quads(t, g), want)
	})
}

// TestBrokenEdgesRepaired: an edge quad stored without its label by a
// write before applyReplacing is replaced by the next write of the edge,
// and removed with it. Only the embedded (kv) store could break one.
func TestBrokenEdgesRepaired(t *testing.T) {
	forEachBackend(t, func(t *testing.T, g *Graph) {
		ctx := context.Background()
		a, b, c, d, e := "entity:a.c#a", "entity:b.c#b", "entity:c.c#c", "entity:d.c#d", "entity:e.c#e"
		if err := g.Write(ctx, nil, []Edge{{a, "CALLS", b, 0.8}, {a, "CALLS", c, 0.8}, {a, "CALLS", e, 0.8}}); err != nil {
			t.Fatal(err)
		}
		// The old single transaction: three quads labelled 0.8 removed, two added.
		tx := cgraph.NewTransaction()
		old := []Edge{{a, "CALLS", b, 1}, {a, "CALLS", c, 1}, {a, "CALLS", e, 1}, {d, "CALLS", b, 0.8}, {d, "CALLS", c, 0.8}}
		st, err := newStoredSet(ctx, g.qs, old)
		if err != nil {
			t.Fatal(err)
		}
		if err := planEdges(ctx, g.qs, tx, old, st); err != nil {
			t.Fatal(err)
		}
		if err := apply(g.qs, tx, "write"); err != nil {
			t.Fatal(err)
		}
		got := quads(t, g)
		if !strings.HasSuffix(t.Name(), "/bolt") {
			// Only the kv stores net reference counts over a transaction:
			// the SQL store keeps every label even in the old transaction.
			if !slices.Contains(got, `<entity:d.c#d> <CALLS> <entity:b.c#b> "0.8" .`) {
				t.Fatalf("the SQL store dropped a label: %q", got)
			}
			return
		}
		if !slices.Contains(got, `<entity:d.c#d> <CALLS> <entity:b.c#b> .`) {
			t.Fatalf("no broken quad to repair: %q", got)
		}
		if err := g.Write(ctx, nil, []Edge{{d, "CALLS", b, 0.8}}); err != nil {
			t.Fatal(err)
		}
		if err := g.RemoveEdges(ctx, []Edge{{From: d, Type: "CALLS", To: c}}); err != nil {
			t.Fatal(err)
		}
		want := []string{`<entity:a.c#a> <CALLS> <entity:b.c#b> "1" .`, `<entity:a.c#a> <CALLS> <entity:c.c#c> "1" .`,
			`<entity:a.c#a> <CALLS> <entity:e.c#e> "1" .`, `<entity:d.c#d> <CALLS> <entity:b.c#b> "0.8" .`}
		check(t, "quads", quads(t, g), want)
	})
}

func quads(t *testing.T, g *Graph) []string {
	t.Helper()
	var all []string
	if err := g.EachQuad(context.Background(), func(q quad.Quad) error { all = append(all, q.NQuad()); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(all)
	return all
}

// TestReplaceIsRemoveThenWrite: Replace leaves the graph RemoveEdges and
// then Write leave, for a source that loses one edge, keeps one relabelled
// and gains one in the same call, and for a removal of an edge never
// stored.
func TestReplaceIsRemoveThenWrite(t *testing.T) {
	a, b, c, d, e := "entity:a.c#a", "entity:b.c#b", "entity:c.c#c", "entity:d.c#d", "entity:e.c#e"
	start := []Edge{{a, "CALLS", b, 0.8}, {a, "CALLS", c, 0.8}, {d, "CALLS", b, 1}}
	write := []Edge{{a, "CALLS", c, 1}, {a, "CALLS", e, 0.8}, {d, "IMPORTS", e, 1}}
	remove := []Edge{{From: a, Type: "CALLS", To: b}, {From: d, Type: "CALLS", To: b}, {From: e, Type: "CALLS", To: a}}
	var results [][]string
	forEachBackend(t, func(t *testing.T, g *Graph) {
		ctx := context.Background()
		for _, joined := range []bool{false, true} {
			if err := g.RemoveEdges(ctx, append(append([]Edge(nil), start...), write...)); err != nil {
				t.Fatal(err)
			}
			if err := g.Write(ctx, nil, start); err != nil {
				t.Fatal(err)
			}
			var err error
			if joined {
				err = g.Replace(ctx, nil, write, remove)
			} else {
				err = errors.Join(g.RemoveEdges(ctx, remove), g.Write(ctx, nil, write))
			}
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, quads(t, g))
		}
		want := []string{`<entity:a.c#a> <CALLS> <entity:c.c#c> "1" .`, `<entity:a.c#a> <CALLS> <entity:e.c#e> "0.8" .`,
			`<entity:d.c#d> <IMPORTS> <entity:e.c#e> "1" .`}
		check(t, "separate", results[len(results)-2], want)
		check(t, "joined", results[len(results)-1], want)
	})
}
