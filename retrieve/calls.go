package retrieve

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// Graph expansion along CALLS, for an entity the question names: the
// commits that changed the functions it calls and the functions that call
// it, at the newest indexed version. A change in a callee or a caller is
// often what changed the named function's behaviour. They relate at
// callWeight, below the entity's own commits (1) and what co-evolves with
// it (0.5), so that they fill in where the text says little and never
// outrank the entity's own history.
const (
	callWeight     = 0.25
	callNeighbours = 8 // callers and callees followed, most certain first
	callCommits    = 3 // the newest commits of each
)

// followCalls adds the commits of the callers and callees of a named
// entity (matched with strength st) as candidates, those already related
// keeping their stronger relationship.
func (s *Searcher) followCalls(ctx context.Context, key string, st float64, cs *candSet) error {
	node := "entity:" + key
	out, err := s.st.RelationsFrom(ctx, node, model.Calls)
	if err != nil {
		return err
	}
	in, err := s.st.RelationsTo(ctx, node, model.Calls)
	if err != nil {
		return err
	}
	type near struct {
		key    string
		conf   float64
		caller bool // it calls the named entity; else the named entity calls it
	}
	var ns []near
	for _, r := range out {
		ns = append(ns, near{strings.TrimPrefix(r.To, "entity:"), r.Confidence, false})
	}
	for _, r := range in {
		ns = append(ns, near{strings.TrimPrefix(r.From, "entity:"), r.Confidence, true})
	}
	slices.SortFunc(ns, func(a, b near) int { return cmp.Or(cmp.Compare(b.conf, a.conf), strings.Compare(a.key, b.key)) })
	for _, n := range ns[:min(len(ns), callNeighbours)] {
		hashes, err := store.Strings(ctx, s.st.DB, `SELECT c.hash FROM entity_changes x JOIN entities e ON e.id = x.entity_id
			JOIN commits c ON c.id = x.commit_id WHERE e.key = ? ORDER BY c.committer_time DESC LIMIT ?`, n.key, callCommits)
		if err != nil {
			return err
		}
		why := "callee " + n.key[strings.IndexByte(n.key, '#')+1:]
		if n.caller {
			why = "caller " + n.key[strings.IndexByte(n.key, '#')+1:]
		}
		cs.with(func() {
			for _, h := range hashes {
				c := cs.get(h)
				c.relation = max(c.relation, callWeight*st)
				c.why = append(c.why, why)
			}
		})
	}
	return nil
}
