package indexer

import "slices"

// sourceSet is the set of source nodes with a relationship to one target
// (relater.in). Most targets have a few sources: a slice holds them in
// about a third of a map's bytes, and the relater keeps one set per
// target for the whole sync, which the collector scans again and again
// near the sync's memory limit. A target that many call (git's die(),
// xmalloc()) gets a map once its slice would be long to search.
type sourceSet struct {
	few  []nodeCode
	many map[nodeCode]struct{}
}

// sourceSetMax is the most sources a sourceSet keeps in its slice.
const sourceSetMax = 16

func (s *sourceSet) add(src nodeCode) {
	switch {
	case s.many != nil:
		s.many[src] = struct{}{}
	case slices.Contains(s.few, src):
	case len(s.few) < sourceSetMax:
		s.few = append(s.few, src)
	default:
		s.many = make(map[nodeCode]struct{}, 2*sourceSetMax)
		for _, x := range s.few {
			s.many[x] = struct{}{}
		}
		s.many[src] = struct{}{}
		s.few = nil
	}
}

func (s *sourceSet) remove(src nodeCode) {
	if s.many != nil {
		delete(s.many, src)
		return
	}
	if i := slices.Index(s.few, src); i >= 0 {
		s.few = slices.Delete(s.few, i, i+1)
	}
}

func (s *sourceSet) len() int { return len(s.few) + len(s.many) }

// all returns the sources, in no particular order.
func (s *sourceSet) all() []nodeCode {
	if s == nil {
		return nil
	}
	if s.many == nil {
		return s.few
	}
	out := make([]nodeCode, 0, len(s.many))
	for x := range s.many {
		out = append(out, x)
	}
	return out
}
