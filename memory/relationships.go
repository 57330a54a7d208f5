package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/model"
)

// Relationship is seed 003's Relationship: an edge of the knowledge graph
// at one entity.
type Relationship struct {
	Type       string  `json:"type"` // MODIFIES, INTRODUCES, VERIFIED_BY, CO_EVOLVES_WITH, …
	From       string  `json:"from"` // "commit:<hash>", "entity:<key>", "file:<path>"
	To         string  `json:"to"`
	Confidence float64 `json:"confidence"`
	Basis      string  `json:"basis,omitempty"`
}

// RelationshipTypes are the types Relationships answers.
var RelationshipTypes = []string{"INTRODUCES", "MODIFIES", "VERIFIED_BY", "CO_EVOLVES_WITH",
	model.Calls, model.Imports, model.Implements, model.Extends}

// Relationships lists the edges at the entity a name means (seed 003's
// entities.relationships): the commits that introduced and modified it,
// its tests, what changes with it and its code relationships at the
// newest version (its calls and callers, the imports of its file or Go
// package, the types it extends or implements and those that extend or
// implement it), of the types asked for (all when none).
func (h *Home) Relationships(ctx context.Context, repo, name string, types []string, opts EntityOptions) ([]Relationship, error) {
	if err := CheckRelationshipTypes(types); err != nil {
		return nil, err
	}
	r, err := h.Entity(ctx, repo, name, opts)
	if err != nil {
		return nil, err
	}
	want := func(t string) bool { return len(types) == 0 || slices.Contains(types, t) }
	node := "entity:" + r.Entity.Key
	out := []Relationship{}
	for _, ev := range r.History {
		t := map[string]string{"introduces": "INTRODUCES", "modifies": "MODIFIES"}[ev.Action]
		if t != "" && want(t) {
			out = append(out, Relationship{Type: t, From: "commit:" + ev.Commit, To: "entity:" + ev.Entity, Confidence: 1})
		}
	}
	if want("VERIFIED_BY") {
		for _, x := range r.Tests {
			out = append(out, Relationship{Type: "VERIFIED_BY", From: node, To: x.ID, Confidence: x.Confidence, Basis: x.Basis})
		}
	}
	if want("CO_EVOLVES_WITH") {
		for _, x := range r.CoEvolving {
			out = append(out, Relationship{Type: "CO_EVOLVES_WITH", From: node, To: x.ID, Confidence: x.Confidence,
				Basis: fmt.Sprintf("%d shared commits", x.Shared)})
		}
	}
	if r.Code != nil {
		out = append(out, codeRelationships(node, r.Code, want)...)
	}
	return out, nil
}

// codeRelationships are an entity's code relationships as edges.
func codeRelationships(node string, c *CodeRelations, want func(string) bool) []Relationship {
	var out []Relationship
	add := func(kind, from, to string, conf float64) {
		if want(kind) {
			out = append(out, Relationship{Type: kind, From: from, To: to, Confidence: conf})
		}
	}
	for _, x := range c.Callees {
		add(model.Calls, node, x.ID, x.Confidence)
	}
	for _, x := range c.Callers {
		add(model.Calls, x.ID, node, x.Confidence)
	}
	for _, x := range c.Importers {
		add(model.Imports, x.ID, c.Imported, x.Confidence)
	}
	for _, x := range c.Bases {
		add(x.Basis, node, x.ID, x.Confidence)
	}
	for _, x := range c.Derived {
		add(x.Basis, x.ID, node, x.Confidence)
	}
	return out
}

// CheckRelationshipTypes rejects a type Relationships does not answer.
func CheckRelationshipTypes(types []string) error {
	for _, t := range types {
		if !slices.Contains(RelationshipTypes, t) {
			return fmt.Errorf("relationship type %q: want %s", t, strings.Join(RelationshipTypes, ", "))
		}
	}
	return nil
}
