package indexer

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/model"
)

// The graph mirrors the code relationships as SQLite records them: each
// commit's additions are edges written, its removals edges removed, in
// commit order, so that replaying the commits from SQLite leaves the same
// edges. REQUIRES rows are bookkeeping for Go's IMPLEMENTS, not edges.

// codeEdge is the last change to a code relationship's edge in a write.
type codeEdge struct {
	conf    float64
	removed bool
}

// addCode takes a commit's relationship changes, later ones replacing
// earlier ones of the same edge.
func (w *derivedWrite) addCode(rels []model.Relation) {
	for _, r := range rels {
		if r.Kind == model.Requires {
			continue
		}
		if w.code == nil {
			w.code = map[graph.Edge]codeEdge{}
		}
		w.code[graph.Edge{From: r.From, Type: r.Kind, To: r.To}] = codeEdge{r.Confidence, r.Removed}
	}
}

// codeEdges returns the code relationships' edges to write and to remove,
// in a stable order.
func (w *derivedWrite) codeEdges() (add, remove []graph.Edge) {
	for e, c := range w.code {
		if c.removed {
			remove = append(remove, e)
		} else {
			e.Confidence = c.conf
			add = append(add, e)
		}
	}
	order := func(a, b graph.Edge) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.Type, b.Type), strings.Compare(a.To, b.To))
	}
	slices.SortFunc(add, order)
	slices.SortFunc(remove, order)
	return add, remove
}
