package memory

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// CodeRelations are an entity's code relationships at the newest indexed
// version: who calls it and whom it calls, the files that import its file
// (its package, in Go), what it extends or implements and what extends or
// implements it. Each lists at most the limit asked for, most certain
// first; Counts has the full numbers.
type CodeRelations struct {
	Callers   []Related `json:"callers,omitempty"`
	Callees   []Related `json:"callees,omitempty"`
	Importers []Related `json:"importers,omitempty"`
	// Bases are what it extends or implements, Derived what extends or
	// implements it; Basis says which ("EXTENDS", "IMPLEMENTS").
	Bases   []Related      `json:"bases,omitempty"`
	Derived []Related      `json:"derived,omitempty"`
	Counts  map[string]int `json:"counts,omitempty"`
}

// codeRelations reads an entity's code relationships.
func codeRelations(ctx context.Context, st *store.Store, e store.Entity, limit int) (*CodeRelations, error) {
	node := "entity:" + e.Key
	out, err := st.RelationsFrom(ctx, node, model.Calls, model.Extends, model.Implements)
	if err != nil {
		return nil, err
	}
	in, err := st.RelationsTo(ctx, node, model.Calls, model.Extends, model.Implements)
	if err != nil {
		return nil, err
	}
	target := "file:" + e.Path
	if e.Language == "Go" {
		if target = "module:./" + path.Dir(e.Path); path.Dir(e.Path) == "." {
			target = "module:."
		}
	}
	imp, err := st.RelationsTo(ctx, target, model.Imports)
	if err != nil {
		return nil, err
	}
	live := func(id string) bool {
		key, ok := strings.CutPrefix(id, "entity:")
		if !ok {
			return true
		}
		_, ok, err2 := st.LiveEntity(ctx, key)
		if err2 != nil {
			err = err2
		}
		return ok
	}
	c := &CodeRelations{Counts: map[string]int{}}
	for _, r := range out {
		if !live(r.To) {
			continue
		}
		if r.Kind == model.Calls {
			c.Callees = append(c.Callees, Related{ID: r.To, Confidence: r.Confidence})
		} else {
			c.Bases = append(c.Bases, Related{ID: r.To, Confidence: r.Confidence, Basis: r.Kind})
		}
	}
	for _, r := range in {
		if !live(r.From) {
			continue
		}
		if r.Kind == model.Calls {
			c.Callers = append(c.Callers, Related{ID: r.From, Confidence: r.Confidence})
		} else {
			c.Derived = append(c.Derived, Related{ID: r.From, Confidence: r.Confidence, Basis: r.Kind})
		}
	}
	for _, r := range imp {
		c.Importers = append(c.Importers, Related{ID: r.From, Confidence: r.Confidence})
	}
	if err != nil {
		return nil, err
	}
	for name, list := range map[string]*[]Related{"callers": &c.Callers, "callees": &c.Callees, "importers": &c.Importers,
		"bases": &c.Bases, "derived": &c.Derived} {
		if n := len(*list); n > 0 {
			c.Counts[name] = n
		}
		slices.SortStableFunc(*list, func(a, b Related) int {
			return cmp.Or(cmp.Compare(b.Confidence, a.Confidence), strings.Compare(a.ID, b.ID))
		})
		*list = (*list)[:min(len(*list), limit)]
	}
	return c, nil
}

// RelationCounts counts the code relationships of each kind at the newest
// indexed version.
type RelationCounts struct {
	Calls      int `json:"calls"`
	Imports    int `json:"imports"`
	Implements int `json:"implements"`
	Extends    int `json:"extends"`
}

func relationCounts(ctx context.Context, st *store.Store) (RelationCounts, error) {
	m, err := st.RelationCounts(ctx)
	return RelationCounts{Calls: m[model.Calls], Imports: m[model.Imports], Implements: m[model.Implements],
		Extends: m[model.Extends]}, err
}
