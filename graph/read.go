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

// reader holds what one read operation has learnt about the store.
type reader struct {
	qs     cgraph.QuadStore
	names  *namer
	hidden map[cgraph.Ref]bool
	types  map[cgraph.Ref]bool // nil: every edge type
}

func (g *Graph) reader(ctx context.Context, types []string) (*reader, error) {
	qs, err := g.store()
	if err != nil {
		return nil, err
	}
	hidden, err := hiddenSet(ctx, qs)
	if err != nil {
		return nil, err
	}
	r := &reader{qs: qs, names: newNamer(qs), hidden: hidden}
	if types != nil {
		r.types = make(map[cgraph.Ref]bool, len(types))
		for _, t := range types {
			if ref := refOf(qs, quad.IRI(t)); ref != nil {
				r.types[ref] = true
			}
		}
	}
	return r, nil
}

// refEdge is an edge found by a scan, still as refs, plus its far end.
type refEdge struct {
	q   quadRef
	far cgraph.Ref
}

// edges returns the visible edges of node ref in one direction.
func (r *reader) edges(ctx context.Context, ref cgraph.Ref, dir Direction) ([]refEdge, error) {
	if ref == nil || r.hidden[ref] {
		return nil, nil
	}
	qdir := quad.Subject
	if dir == In {
		qdir = quad.Object
	}
	qrs, err := scan(ctx, r.qs, qdir, ref)
	if err != nil {
		return nil, err
	}
	var out []refEdge
	for _, q := range qrs {
		if q.label == nil || (r.types != nil && !r.types[q.pred]) {
			continue
		}
		far := q.obj
		if dir == In {
			far = q.sub
		}
		if !r.hidden[far] {
			out = append(out, refEdge{q: q, far: far})
		}
	}
	return out, nil
}

// name resolves the refs of found edges to Edges.
func (r *reader) name(ctx context.Context, res []refEdge) ([]Edge, error) {
	refs := make([]cgraph.Ref, 0, 4*len(res))
	for _, e := range res {
		refs = append(refs, e.q.sub, e.q.pred, e.q.obj, e.q.label)
	}
	if err := r.names.resolve(ctx, refs); err != nil {
		return nil, err
	}
	out := make([]Edge, len(res))
	for i, e := range res {
		out[i] = Edge{
			From:       r.names.str(e.q.sub),
			Type:       r.names.str(e.q.pred),
			To:         r.names.str(e.q.obj),
			Confidence: parseConfidence(r.names.str(e.q.label)),
		}
	}
	return out, nil
}

func compareEdges(a, b Edge) int {
	return cmp.Or(strings.Compare(a.Type, b.Type), strings.Compare(a.From, b.From),
		strings.Compare(a.To, b.To), cmp.Compare(b.Confidence, a.Confidence))
}

// dedupe sorts edges and keeps one per (From, Type, To): the most confident,
// should two writers have stored the same edge with different labels.
func dedupe(es []Edge) []Edge {
	if len(es) == 0 {
		return nil
	}
	slices.SortFunc(es, compareEdges)
	return slices.CompactFunc(es, func(a, b Edge) bool {
		return a.From == b.From && a.Type == b.Type && a.To == b.To
	})
}

// Edges returns the edges leaving (Out) or entering (In) node id, of the
// given types (none: all), skipping hidden nodes, sorted by (Type, From, To).
func (g *Graph) Edges(ctx context.Context, id string, dir Direction, types ...string) ([]Edge, error) {
	var filter []string
	if len(types) > 0 {
		filter = types
	}
	r, err := g.reader(ctx, filter)
	if err != nil {
		return nil, err
	}
	res, err := r.edges(ctx, refOf(r.qs, quad.IRI(id)), dir)
	if err != nil {
		return nil, fmt.Errorf("edges of %s: %w", id, err)
	}
	es, err := r.name(ctx, res)
	if err != nil {
		return nil, err
	}
	return dedupe(es), nil
}

// Node returns a stored, visible node. A node that only appears as the end
// of an edge, or that is hidden, is not found.
func (g *Graph) Node(ctx context.Context, id string) (Node, bool, error) {
	r, err := g.reader(ctx, nil)
	if err != nil {
		return Node{}, false, err
	}
	ref := refOf(r.qs, quad.IRI(id))
	if ref == nil || r.hidden[ref] {
		return Node{}, false, nil
	}
	qrs, err := scan(ctx, r.qs, quad.Subject, ref)
	if err != nil {
		return Node{}, false, fmt.Errorf("node %s: %w", id, err)
	}
	var refs []cgraph.Ref
	for _, q := range qrs {
		if q.label == nil {
			refs = append(refs, q.pred, q.obj)
		}
	}
	if err := r.names.resolve(ctx, refs); err != nil {
		return Node{}, false, err
	}
	n := Node{ID: id, Props: map[string]string{}}
	for _, q := range qrs {
		if q.label != nil {
			continue
		}
		p := r.names.str(q.pred)
		switch {
		case p == string(predType):
			n.Type = r.names.str(q.obj)
		case strings.HasPrefix(p, propPrefix):
			n.Props[p[len(propPrefix):]] = r.names.str(q.obj)
		}
	}
	return n, n.Type != "", nil
}

// Counts returns the number of nodes and edges, hidden ones included. A
// node is anything an edge or a type names. It scans every quad: use it
// for statistics and tests, not on a hot path (Size is the fast estimate).
func (g *Graph) Counts(ctx context.Context) (nodes, edges int, err error) {
	qs, err := g.store()
	if err != nil {
		return 0, 0, err
	}
	typ := refOf(qs, predType)
	seen := map[any]bool{}
	it := qs.QuadsAllIterator()
	defer it.Close()
	for it.Next(ctx) {
		r := it.Result()
		sub := qs.QuadDirection(r, quad.Subject)
		switch {
		case !isNil(qs.QuadDirection(r, quad.Label)):
			edges++
			seen[cgraph.ToKey(sub)] = true
			seen[cgraph.ToKey(qs.QuadDirection(r, quad.Object))] = true
		case typ != nil && qs.QuadDirection(r, quad.Predicate) == typ:
			seen[cgraph.ToKey(sub)] = true
		}
	}
	if err := it.Err(); err != nil {
		return 0, 0, fmt.Errorf("count quads: %w", err)
	}
	return len(seen), edges, ctx.Err()
}

// Size is the store's own quick estimate of its quads and distinct values
// (node ids, edge types and confidences), without a scan.
func (g *Graph) Size(ctx context.Context) (quads, values int64, err error) {
	qs, err := g.store()
	if err != nil {
		return 0, 0, err
	}
	st, err := qs.Stats(ctx, false)
	if err != nil {
		return 0, 0, fmt.Errorf("graph size: %w", err)
	}
	return st.Quads.Size, st.Nodes.Size, nil
}

// EachQuad calls fn with every stored quad, hidden ones included, in the
// store's order: for exports and for comparing two graphs. It stops at
// fn's first error.
func (g *Graph) EachQuad(ctx context.Context, fn func(quad.Quad) error) error {
	qs, err := g.store()
	if err != nil {
		return err
	}
	it := qs.QuadsAllIterator()
	defer it.Close()
	for it.Next(ctx) {
		if err := fn(qs.Quad(it.Result())); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("read quads: %w", err)
	}
	return ctx.Err()
}
