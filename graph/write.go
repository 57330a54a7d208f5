package graph

import (
	"context"
	"fmt"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/quad"
)

// Write applies nodes and edges idempotently: writing the same batch twice
// stores one copy. A node's Type and each given property replace the
// stored ones (properties not given are kept); an edge whose confidence
// changed replaces the old one. Within a batch the last occurrence of a
// node ID or an edge (From, Type, To) wins. The quads it replaces are
// removed in one Cayley transaction and the new ones added in a second
// (applyReplacing); a write cut short in between is made whole by writing
// it again.
func (g *Graph) Write(ctx context.Context, nodes []Node, edges []Edge) error {
	return g.Replace(ctx, nodes, edges, nil)
}

// Replace is RemoveEdges of remove followed by Write of nodes and edges,
// in Write's two transactions: the removals join the quads Write replaces.
// An edge must not be both removed and written. A sync that changes code
// relationships removes some in every write; on their own they cost a
// third Cayley transaction per write, and a second read of the stored
// edges of each node that both loses and gains relationships.
func (g *Graph) Replace(ctx context.Context, nodes []Node, edges, remove []Edge) error {
	qs, err := g.store()
	if err != nil {
		return err
	}
	if err := validate(nodes, edges); err != nil {
		return err
	}
	tx := cgraph.NewTransactionN(2*(len(nodes)+len(edges)) + len(remove))
	if err := planNodes(ctx, qs, tx, nodes); err != nil {
		return err
	}
	st, err := newStoredSet(ctx, qs, edges, remove)
	if err != nil {
		return err
	}
	if err := planRemovals(ctx, qs, tx, remove, st); err != nil {
		return err
	}
	if err := planEdges(ctx, qs, tx, edges, st); err != nil {
		return err
	}
	return applyReplacing(qs, tx, "write")
}

// applyReplacing applies a transaction's removals, then its additions, as
// two transactions. Cayley's kv stores net each value's reference count
// over a transaction and give an added quad only the values whose count
// rises (graphlog.SplitDeltas, then applyAddDeltas): in a write that
// removed more quads naming a value than it added, the added ones were
// stored without it. Relabelling edges from 0.8 to 1 beside a new 0.8 edge
// stored that edge with no label, which no later write or removal
// matched; so git/git's graph depended on how commits were grouped into
// writes (202 of 588,046 quads differed between the sync and a replay).
func applyReplacing(qs cgraph.QuadStore, tx *cgraph.Transaction, op string) error {
	var add, remove []cgraph.Delta
	for _, d := range tx.Deltas {
		if d.Action == cgraph.Delete {
			remove = append(remove, d)
		} else {
			add = append(add, d)
		}
	}
	if err := apply(qs, &cgraph.Transaction{Deltas: remove}, op); err != nil {
		return err
	}
	return apply(qs, &cgraph.Transaction{Deltas: add}, op)
}

func validate(nodes []Node, edges []Edge) error {
	for _, n := range nodes {
		if n.ID == "" || n.Type == "" {
			return fmt.Errorf("node %q of type %q: %w", n.ID, n.Type, ErrInvalid)
		}
	}
	for _, e := range edges {
		if e.From == "" || e.To == "" || e.Type == "" || isReserved(e.Type) {
			return fmt.Errorf("edge %s -%s-> %s: %w", e.From, e.Type, e.To, ErrInvalid)
		}
		if !validConfidence(e.Confidence) {
			return fmt.Errorf("edge %s -%s-> %s: confidence %v: %w", e.From, e.Type, e.To, e.Confidence, ErrInvalid)
		}
	}
	return nil
}

func apply(qs cgraph.QuadStore, tx *cgraph.Transaction, op string) error {
	if len(tx.Deltas) == 0 {
		return nil
	}
	err := qs.ApplyDeltas(tx.Deltas, cgraph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true})
	if err != nil {
		return fmt.Errorf("graph %s: %w", op, err)
	}
	return nil
}

// planNodes adds the quads of each node and removes the stored values of the
// predicates it sets.
func planNodes(ctx context.Context, qs cgraph.QuadStore, tx *cgraph.Transaction, nodes []Node) error {
	merged := make(map[string]Node, len(nodes))
	var order []string
	for _, n := range nodes {
		m, ok := merged[n.ID]
		if !ok {
			order = append(order, n.ID)
			m = Node{ID: n.ID, Props: map[string]string{}}
		}
		m.Type = n.Type
		for k, v := range n.Props {
			m.Props[k] = v
		}
		merged[n.ID] = m
	}
	for _, id := range order {
		n := merged[id]
		want := map[quad.Value]quad.Value{predType: quad.String(n.Type)}
		for k, v := range n.Props {
			want[quad.IRI(propPrefix+k)] = quad.String(v)
		}
		have, err := nodeQuads(ctx, qs, quad.IRI(id))
		if err != nil {
			return err
		}
		for p, v := range want {
			q := quad.Quad{Subject: quad.IRI(id), Predicate: p, Object: v}
			if old := have[p]; len(old) == 1 && old[0] == v {
				continue
			}
			for _, o := range have[p] {
				tx.RemoveQuad(quad.Quad{Subject: q.Subject, Predicate: p, Object: o})
			}
			tx.AddQuad(q)
		}
	}
	return nil
}

// nodeQuads returns the stored unlabelled quads of subject id, by predicate.
func nodeQuads(ctx context.Context, qs cgraph.QuadStore, id quad.Value) (map[quad.Value][]quad.Value, error) {
	qrs, err := scan(ctx, qs, quad.Subject, refOf(qs, id))
	if err != nil {
		return nil, err
	}
	n := newNamer(qs)
	var refs []cgraph.Ref
	for _, q := range qrs {
		if q.label == nil {
			refs = append(refs, q.pred, q.obj)
		}
	}
	if err := n.resolve(ctx, refs); err != nil {
		return nil, err
	}
	out := make(map[quad.Value][]quad.Value)
	for _, q := range qrs {
		if q.label == nil {
			out[n.names[q.pred]] = append(out[n.names[q.pred]], n.names[q.obj])
		}
	}
	return out, nil
}

type edgeKey struct{ from, typ, to string }

// storedSet holds what a write read of the store: the refs of its edges'
// values, and the stored edges of each source it looked at.
type storedSet struct {
	n      *namer
	refs   map[string]cgraph.Ref
	byFrom map[string]map[[2]cgraph.Ref][]quad.Value
}

// newStoredSet reads the refs of the edges' values.
func newStoredSet(ctx context.Context, qs cgraph.QuadStore, lists ...[]Edge) (*storedSet, error) {
	refs, err := refsOf(ctx, qs, lists...)
	if err != nil {
		return nil, err
	}
	return &storedSet{n: newNamer(qs), refs: refs, byFrom: map[string]map[[2]cgraph.Ref][]quad.Value{}}, nil
}

func (s *storedSet) ref(iri string) cgraph.Ref { return s.refs[iri] }

// edges returns the stored edges of from, read at first use.
func (s *storedSet) edges(ctx context.Context, qs cgraph.QuadStore, from string) (map[[2]cgraph.Ref][]quad.Value, error) {
	se, ok := s.byFrom[from]
	if !ok {
		var err error
		if se, err = storedEdges(ctx, qs, s.n, s.ref(from)); err != nil {
			return nil, err
		}
		s.byFrom[from] = se
	}
	return se, nil
}

// planEdges adds each edge, replacing a stored copy with another confidence.
// Stored edges are read once per distinct From and matched by ref.
func planEdges(ctx context.Context, qs cgraph.QuadStore, tx *cgraph.Transaction, edges []Edge, st *storedSet) error {
	conf := make(map[edgeKey]float64, len(edges))
	byFrom := make(map[string][]edgeKey)
	var froms []string
	for _, e := range edges {
		k := edgeKey{e.From, e.Type, e.To}
		if _, ok := conf[k]; !ok {
			if len(byFrom[e.From]) == 0 {
				froms = append(froms, e.From)
			}
			byFrom[e.From] = append(byFrom[e.From], k)
		}
		c := e.Confidence
		if c == 0 {
			c = 1
		}
		conf[k] = c
	}
	for _, from := range froms {
		stored, err := st.edges(ctx, qs, from)
		if err != nil {
			return err
		}
		for _, k := range byFrom[from] {
			label := formatConfidence(conf[k])
			q := quad.Quad{Subject: quad.IRI(k.from), Predicate: quad.IRI(k.typ), Object: quad.IRI(k.to), Label: label}
			var old []quad.Value
			if p, o := st.ref(k.typ), st.ref(k.to); p != nil && o != nil {
				old = stored[[2]cgraph.Ref{p, o}]
			}
			if len(old) == 1 && old[0] == label {
				continue
			}
			for _, l := range old {
				tx.RemoveQuad(quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object, Label: l})
			}
			tx.AddQuad(q)
		}
	}
	return nil
}

// planRemovals removes each edge whatever its stored confidence; edges
// that are not stored are ignored.
func planRemovals(ctx context.Context, qs cgraph.QuadStore, tx *cgraph.Transaction, edges []Edge, st *storedSet) error {
	for _, e := range edges {
		from, p, o := st.ref(e.From), st.ref(e.Type), st.ref(e.To)
		if from == nil || p == nil || o == nil {
			continue
		}
		se, err := st.edges(ctx, qs, e.From)
		if err != nil {
			return err
		}
		for _, l := range se[[2]cgraph.Ref{p, o}] {
			tx.RemoveQuad(quad.Quad{Subject: quad.IRI(e.From), Predicate: quad.IRI(e.Type), Object: quad.IRI(e.To), Label: l})
		}
	}
	return nil
}

// refsOf returns the refs of the edges' ends and types, nil for values
// the store has never seen. A store that can batch reads them in one
// transaction: one read transaction per value was 40% of planEdges' time
// on bolt.
func refsOf(ctx context.Context, qs cgraph.QuadStore, lists ...[]Edge) (map[string]cgraph.Ref, error) {
	refs := make(map[string]cgraph.Ref)
	var vals []quad.Value
	for _, edges := range lists {
		for _, e := range edges {
			for _, iri := range [...]string{e.From, e.Type, e.To} {
				if _, ok := refs[iri]; !ok {
					refs[iri] = nil
					vals = append(vals, quad.IRI(iri))
				}
			}
		}
	}
	bq, ok := qs.(cgraph.BatchQuadStore)
	if !ok {
		for _, v := range vals {
			refs[string(v.(quad.IRI))] = refOf(qs, v)
		}
		return refs, nil
	}
	rs, err := bq.RefsOf(ctx, vals)
	if err != nil {
		return nil, fmt.Errorf("graph refs: %w", err)
	}
	for i, r := range rs {
		if !isNil(r) && r != cgraph.Ref(kv.Int64Value(0)) {
			refs[string(vals[i].(quad.IRI))] = r
		}
	}
	return refs, nil
}

// storedEdges maps (predicate, object) refs of from's stored edges to their labels.
func storedEdges(ctx context.Context, qs cgraph.QuadStore, n *namer, from cgraph.Ref) (map[[2]cgraph.Ref][]quad.Value, error) {
	qrs, err := scan(ctx, qs, quad.Subject, from)
	if err != nil {
		return nil, err
	}
	var labels []cgraph.Ref
	for _, q := range qrs {
		if q.label != nil {
			labels = append(labels, q.label)
		}
	}
	if err := n.resolve(ctx, labels); err != nil {
		return nil, err
	}
	// An edge type's quad without a label is one a write before
	// applyReplacing stored broken: listed (as nil), it is replaced or
	// removed with the edge. Node quads have no edge type, so no lookup
	// by an edge's type and target meets them.
	out := make(map[[2]cgraph.Ref][]quad.Value)
	for _, q := range qrs {
		k := [2]cgraph.Ref{q.pred, q.obj}
		if q.label != nil {
			out[k] = append(out[k], n.names[q.label])
		} else {
			out[k] = append(out[k], nil)
		}
	}
	return out, nil
}

// Hide marks nodes (rewritten commits) so that reads skip them and every
// edge touching them. Hiding twice is harmless.
func (g *Graph) Hide(ctx context.Context, ids []string) error {
	return g.mark(ctx, ids, true)
}

// Unhide reverses Hide.
func (g *Graph) Unhide(ctx context.Context, ids []string) error {
	return g.mark(ctx, ids, false)
}

func (g *Graph) mark(ctx context.Context, ids []string, hide bool) error {
	qs, err := g.store()
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	tx := cgraph.NewTransactionN(len(ids))
	for _, id := range ids {
		q := quad.Quad{Subject: quad.IRI(id), Predicate: predState, Object: valHidden}
		if hide {
			tx.AddQuad(q)
		} else {
			tx.RemoveQuad(q)
		}
	}
	return apply(qs, tx, "hide")
}

// Delete removes nodes for good, with every quad that names them as subject
// or object: their type, properties, hidden mark and edges in both directions.
func (g *Graph) Delete(ctx context.Context, ids []string) error {
	qs, err := g.store()
	if err != nil {
		return err
	}
	var all []quadRef
	for _, id := range ids {
		ref := refOf(qs, quad.IRI(id))
		for _, dir := range []quad.Direction{quad.Subject, quad.Object} {
			qrs, err := scan(ctx, qs, dir, ref)
			if err != nil {
				return err
			}
			all = append(all, qrs...)
		}
	}
	n := newNamer(qs)
	refs := make([]cgraph.Ref, 0, 4*len(all))
	for _, q := range all {
		refs = append(refs, q.sub, q.pred, q.obj, q.label)
	}
	if err := n.resolve(ctx, refs); err != nil {
		return err
	}
	tx := cgraph.NewTransactionN(len(all))
	for _, q := range all {
		tx.RemoveQuad(quad.Quad{Subject: n.names[q.sub], Predicate: n.names[q.pred], Object: n.names[q.obj], Label: labelValue(n, q.label)})
	}
	return apply(qs, tx, "delete")
}

func labelValue(n *namer, r cgraph.Ref) quad.Value {
	if r == nil {
		return nil
	}
	return n.names[r]
}

// RemoveEdges removes edges whatever their stored confidence; edges that
// are not stored are ignored.
func (g *Graph) RemoveEdges(ctx context.Context, edges []Edge) error {
	qs, err := g.store()
	if err != nil {
		return err
	}
	if len(edges) == 0 {
		return nil
	}
	// The ends' refs in one read transaction, as Write reads them (see
	// refsOf): a sync removes tens of thousands of code relationships.
	st, err := newStoredSet(ctx, qs, edges)
	if err != nil {
		return err
	}
	tx := cgraph.NewTransactionN(len(edges))
	if err := planRemovals(ctx, qs, tx, edges, st); err != nil {
		return err
	}
	return apply(qs, tx, "remove edges")
}
