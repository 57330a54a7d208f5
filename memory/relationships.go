package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
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
var RelationshipTypes = []string{"INTRODUCES", "MODIFIES", "VERIFIED_BY", "CO_EVOLVES_WITH"}

// Relationships lists the edges at the entity a name means (seed 003's
// entities.relationships): the commits that introduced and modified it,
// its tests and what changes with it, of the types asked for (all when
// none).
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
	return out, nil
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
