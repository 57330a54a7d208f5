package graph

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// Reserved predicates and values; see the package comment.
const (
	predType   = quad.IRI("gm:type")
	predState  = quad.IRI("gm:state")
	valHidden  = quad.IRI("gm:hidden")
	propPrefix = "prop:"
)

// quadRef is one stored quad seen through its refs, without naming any value.
type quadRef struct {
	ref                   cgraph.Ref
	sub, pred, obj, label cgraph.Ref // label is nil when the quad has none
}

// store returns the open quad store or ErrClosed.
func (g *Graph) store() (cgraph.QuadStore, error) {
	if g.qs == nil {
		return nil, ErrClosed
	}
	return g.qs, nil
}

// refOf returns the ref of an IRI, or nil when the store has never seen it.
func refOf(qs cgraph.QuadStore, v quad.Value) cgraph.Ref {
	r := qs.ValueOf(v)
	if isNil(r) {
		return nil
	}
	return r
}

// isNil reports whether r stands for no value: kv stores return nil, the SQL
// store a zero hash.
func isNil(r cgraph.Ref) bool {
	if r == nil {
		return true
	}
	if v, ok := r.(interface{ Valid() bool }); ok {
		return !v.Valid()
	}
	return false
}

// scan returns every quad with ref v in direction dir: one index prefix scan.
func scan(ctx context.Context, qs cgraph.QuadStore, dir quad.Direction, v cgraph.Ref) ([]quadRef, error) {
	if v == nil {
		return nil, nil
	}
	it := qs.QuadIterator(dir, v)
	defer it.Close()
	var out []quadRef
	for it.Next(ctx) {
		r := it.Result()
		q := quadRef{
			ref:   r,
			sub:   qs.QuadDirection(r, quad.Subject),
			pred:  qs.QuadDirection(r, quad.Predicate),
			obj:   qs.QuadDirection(r, quad.Object),
			label: qs.QuadDirection(r, quad.Label),
		}
		if isNil(q.label) {
			q.label = nil
		}
		out = append(out, q)
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("scan quads: %w", err)
	}
	return out, ctx.Err()
}

// namer resolves refs to values, caching them for one operation.
type namer struct {
	qs    cgraph.QuadStore
	names map[cgraph.Ref]quad.Value
}

func newNamer(qs cgraph.QuadStore) *namer {
	return &namer{qs: qs, names: make(map[cgraph.Ref]quad.Value)}
}

// resolve names every ref not yet known, in one batch where the store can.
func (n *namer) resolve(ctx context.Context, refs []cgraph.Ref) error {
	var todo []cgraph.Ref
	seen := make(map[cgraph.Ref]bool)
	for _, r := range refs {
		if r == nil || seen[r] {
			continue
		}
		if _, ok := n.names[r]; !ok {
			todo = append(todo, r)
			seen[r] = true
		}
	}
	if len(todo) == 0 {
		return nil
	}
	vals, err := cgraph.ValuesOf(ctx, n.qs, todo)
	if err != nil {
		return fmt.Errorf("name values: %w", err)
	}
	for i, r := range todo {
		n.names[r] = vals[i]
	}
	return nil
}

// str returns the string form of a resolved ref ("" for nil).
func (n *namer) str(r cgraph.Ref) string {
	if r == nil {
		return ""
	}
	switch v := n.names[r].(type) {
	case quad.IRI:
		return string(v)
	case quad.String:
		return string(v)
	case nil:
		return ""
	default:
		return v.String()
	}
}

// formatConfidence is the label stored for a confidence.
func formatConfidence(c float64) quad.Value {
	return quad.String(strconv.FormatFloat(c, 'g', -1, 64))
}

func parseConfidence(s string) float64 {
	c, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return c
}

// isReserved reports whether an edge type would collide with node quads.
func isReserved(pred string) bool {
	return strings.HasPrefix(pred, "gm:") || strings.HasPrefix(pred, propPrefix)
}

func validConfidence(c float64) bool {
	return !math.IsNaN(c) && c >= 0 && c <= 1
}

// hiddenSet returns the refs of all hidden nodes: one object-index scan.
func hiddenSet(ctx context.Context, qs cgraph.QuadStore) (map[cgraph.Ref]bool, error) {
	qrs, err := scan(ctx, qs, quad.Object, refOf(qs, valHidden))
	if err != nil {
		return nil, err
	}
	pred := refOf(qs, predState)
	set := make(map[cgraph.Ref]bool, len(qrs))
	for _, q := range qrs {
		if q.pred == pred {
			set[q.sub] = true
		}
	}
	return set, nil
}
