package indexer

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/model"
)

// The relater keeps each node's current relationships for the whole sync.
// Their ends are numbered: a node id is stored once (nodeIDs, nodeIdx),
// and the sets of relationships and of sources hold codes, without a
// pointer among them. As strings, each relationship held a target's and
// a kind's string header and each source set its sources': live state
// that the collector scanned again and again, and that took from the room
// the sync's memory limit leaves for allocation.

// relKindCodes are the kinds numbered first, in this order.
var relKindCodes = []string{model.Calls, model.Imports, model.Implements, model.Extends, model.Requires}

// intern returns a node id's code, numbering the id at first sight (with
// a code that sweep freed, if there is one).
func (r *relater) intern(id string) nodeCode {
	if c, ok := r.nodeIdx[id]; ok {
		return c
	}
	if n := len(r.free); n > 0 {
		c := r.free[n-1]
		r.free = r.free[:n-1]
		r.nodeIdx[id], r.nodeIDs[c] = c, id
		return c
	}
	c := nodeCode(len(r.nodeIDs))
	r.nodeIdx[id] = c
	r.nodeIDs = append(r.nodeIDs, id)
	r.out = append(r.out, nil)
	r.in = append(r.in, sourceSet{})
	return c
}

// sweep frees the codes of the nodes the commit touched that are left
// with no relationship either way: most nodes of a long history are
// entities and files that are gone, and their ids would stay for the whole
// sync. A store with history keeps knowing a freed source's relationships
// are none through loaded. It runs once the commit's changes are taken
// (changed), which name nodes by code.
func (r *relater) sweep() {
	for rk := range r.before {
		r.freeNode(rk.from)
		r.freeNode(rk.to)
	}
}

func (r *relater) freeNode(c nodeCode) {
	if len(r.out[c]) > 0 || r.in[c].len() > 0 || r.nodeIDs[c] == "" {
		return
	}
	delete(r.nodeIdx, r.nodeIDs[c])
	r.nodeIDs[c], r.out[c], r.in[c] = "", nil, sourceSet{}
	r.free = append(r.free, c)
}

// kindOf returns a relationship kind's code.
func (r *relater) kindOf(kind string) kindCode {
	if i := slices.Index(r.kinds, kind); i >= 0 {
		return kindCode(i)
	}
	r.kinds = append(r.kinds, kind)
	return kindCode(len(r.kinds) - 1)
}

// edges returns a source node's current relationships, read from the
// store at first use.
func (r *relater) edges(from string) relSet {
	c, ok := r.nodeIdx[from]
	if ok && r.out[c] != nil || r.loaded[from] || r.fresh || r.err != nil {
		if !ok {
			return nil
		}
		return r.out[c]
	}
	r.loaded[from] = true
	rels, err := r.st.RelationsFrom(r.ctx, from)
	if err != nil {
		r.err = err
		return nil
	}
	if len(rels) == 0 {
		return nil
	}
	c = r.intern(from)
	m := make(relSet, 0, len(rels))
	for _, rel := range rels {
		to := r.intern(rel.To)
		m = m.put(edgeKey{to, r.kindOf(rel.Kind)}, rel.Confidence)
		r.link(c, to, true)
	}
	r.out[c] = m
	return m
}

// link notes (or forgets) that from has a relationship to to.
func (r *relater) link(from, to nodeCode, on bool) {
	srcs := &r.in[to]
	if on {
		srcs.add(from)
		return
	}
	srcs.remove(from)
	if srcs.len() == 0 {
		*srcs = sourceSet{}
	}
}

// touch records a relationship's state before the commit changes it.
func (r *relater) touch(from nodeCode, k edgeKey, m relSet) {
	rk := relCode{from, k}
	if _, ok := r.before[rk]; ok {
		return
	}
	c, had := m.get(k)
	r.before[rk] = before{had, c}
}

// set makes a source's relationships of the given kinds those of want.
func (r *relater) set(from string, kinds []string, want map[relKey]float64) {
	m := r.edges(from)
	if _, ok := r.nodeIdx[from]; !ok && len(want) == 0 {
		return // no relationship, none wanted
	}
	c := r.intern(from)
	var mask uint64
	for _, k := range kinds {
		mask |= 1 << r.kindOf(k)
	}
	for i := 0; i < len(m); {
		k := m[i].edgeKey
		if _, keep := want[relKey{r.kinds[k.kind], r.nodeIDs[k.to]}]; keep || mask&(1<<k.kind) == 0 {
			i++
			continue
		}
		r.touch(c, k, m)
		m = m.del(k)
		if !m.hasTo(k.to) {
			r.link(c, k.to, false)
		}
	}
	for k, conf := range want {
		ek := edgeKey{r.intern(k.to), r.kindOf(k.kind)}
		if old, ok := m.get(ek); ok && old == conf {
			continue
		}
		r.touch(c, ek, m)
		m = m.put(ek, conf)
		r.link(c, ek.to, true)
	}
	if m != nil {
		r.out[c] = m
	}
}

// add adds (or, with remove, removes) one relationship.
func (r *relater) add(from string, k relKey, conf float64, remove bool) {
	m := r.edges(from)
	var old float64
	var has bool
	if to, ok := r.nodeIdx[k.to]; ok {
		old, has = m.get(edgeKey{to, r.kindOf(k.kind)})
	}
	if remove && !has || !remove && has && old == conf {
		return
	}
	c := r.intern(from)
	ek := edgeKey{r.intern(k.to), r.kindOf(k.kind)}
	r.touch(c, ek, m)
	if remove {
		m = m.del(ek)
		if !m.hasTo(ek.to) {
			r.link(c, ek.to, false)
		}
	} else {
		m = m.put(ek, conf)
		r.link(c, ek.to, true)
	}
	r.out[c] = m
}

// drop removes all of a source's relationships.
func (r *relater) drop(from string) {
	m := r.edges(from)
	if c, ok := r.nodeIdx[from]; ok {
		for _, e := range m {
			r.touch(c, e.edgeKey, m)
			r.link(c, e.to, false)
		}
		r.out[c] = nil
	}
	if !r.fresh {
		r.loaded[from] = true // nothing is read for a fresh store: a key per deleted node would stay for nothing
	}
}

// dropTo removes all relationships to a node.
func (r *relater) dropTo(to string) {
	for _, src := range r.incoming(to) {
		// incoming read src's relationships, which name to; add changes
		// the set.
		tc := r.nodeIdx[to]
		for _, e := range slices.Clone(r.edges(src)) {
			if e.to == tc {
				r.add(src, relKey{r.kinds[e.kind], to}, e.conf, true)
			}
		}
	}
}

// incoming returns the sources with a relationship to a node: those held
// here, and for a store with history those the store holds that are not.
func (r *relater) incoming(to string) []string {
	srcs := map[string]bool{}
	if c, ok := r.nodeIdx[to]; ok {
		for _, s := range r.in[c].all() {
			srcs[r.nodeIDs[s]] = true
		}
	}
	if !r.fresh {
		rels, err := r.st.RelationsTo(r.ctx, to)
		if err != nil {
			r.err = err
			return nil
		}
		for _, rel := range rels {
			if !r.loaded[rel.From] && !r.holds(rel.From) {
				srcs[rel.From] = true
			}
		}
	}
	var out []string
	for s := range srcs {
		m := r.edges(s)
		if c, ok := r.nodeIdx[to]; ok && m.hasTo(c) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// holds reports whether the relater knows a source's relationships.
func (r *relater) holds(from string) bool {
	c, ok := r.nodeIdx[from]
	return ok && r.out[c] != nil
}

// changed returns what the commit changed: each relationship it touched
// whose state differs from the one before it, in order.
func (r *relater) changed() []model.Relation {
	var out []model.Relation
	for rk, b := range r.before {
		c, has := r.out[rk.from].get(rk.edgeKey)
		from, kind, to := r.nodeIDs[rk.from], r.kinds[rk.kind], r.nodeIDs[rk.to]
		switch {
		case has && (!b.had || b.conf != c):
			out = append(out, model.Relation{Kind: kind, From: from, To: to, Confidence: c})
		case !has && b.had:
			out = append(out, model.Relation{Kind: kind, From: from, To: to, Confidence: b.conf, Removed: true})
		}
	}
	slices.SortFunc(out, func(a, b model.Relation) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.Kind, b.Kind), strings.Compare(a.To, b.To))
	})
	return out
}
