package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// Neighbors walks from id, hop by hop, along edges of the given types (nil:
// all) in both directions, up to depth (1..MaxDepth), skipping hidden nodes
// and the edges touching them. Each node reached is reported once, at its
// smallest depth, with the smallest edge (by Type, From, To) that reached it
// from the previous depth. Hits are sorted by (Depth, Node).
func (g *Graph) Neighbors(ctx context.Context, id string, types []string, depth int) ([]Hit, error) {
	if depth < 1 || depth > MaxDepth {
		return nil, fmt.Errorf("neighbors of %s at depth %d: %w", id, depth, ErrDepth)
	}
	r, err := g.reader(ctx, types)
	if err != nil {
		return nil, err
	}
	start := refOf(r.qs, quad.IRI(id))
	if start == nil || r.hidden[start] {
		return nil, nil
	}
	visited := map[cgraph.Ref]bool{start: true}
	frontier := []cgraph.Ref{start}
	var hits []Hit
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		level, next, err := r.hop(ctx, frontier, visited)
		if err != nil {
			return nil, fmt.Errorf("neighbors of %s: %w", id, err)
		}
		for i := range level {
			level[i].Depth = d
		}
		hits = append(hits, level...)
		frontier = next
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(a.Depth, b.Depth), strings.Compare(a.Node, b.Node))
	})
	return hits, nil
}

// hop expands every frontier node one edge in both directions and returns
// the newly reached nodes (marked visited) with the edge that reached each.
func (r *reader) hop(ctx context.Context, frontier []cgraph.Ref, visited map[cgraph.Ref]bool) ([]Hit, []cgraph.Ref, error) {
	var found []refEdge
	for _, ref := range frontier {
		for _, dir := range []Direction{Out, In} {
			es, err := r.edges(ctx, ref, dir)
			if err != nil {
				return nil, nil, err
			}
			for _, e := range es {
				if !visited[e.far] {
					found = append(found, e)
				}
			}
		}
	}
	edges, err := r.name(ctx, found)
	if err != nil {
		return nil, nil, err
	}
	best := make(map[cgraph.Ref]int) // far ref -> index in found
	var next []cgraph.Ref
	for i, e := range found {
		j, ok := best[e.far]
		if !ok {
			next = append(next, e.far)
			best[e.far] = i
		} else if compareEdges(edges[i], edges[j]) < 0 {
			best[e.far] = i
		}
	}
	hits := make([]Hit, 0, len(next))
	for _, far := range next {
		visited[far] = true
		hits = append(hits, Hit{Node: r.names.str(far), Via: edges[best[far]]})
	}
	return hits, next, nil
}
