package indexer

// relEdge is one of a source node's current relationships.
type relEdge struct {
	relKey
	conf float64
}

// relSet is a source node's current relationships (relater.out). Most
// sources have a few: a slice holds them in well under half of a map's
// bytes (a small map is a group of eight slots and its header), and the
// relater keeps them for the whole sync, which the collector scans again
// and again near the sync's memory limit. Lookups are linear; the
// longest sets (a function calling a hundred others) are looked up once
// per change of that function.
type relSet []relEdge

// get returns the confidence of a relationship, if the set has it.
func (s relSet) get(k relKey) (float64, bool) {
	for _, e := range s {
		if e.relKey == k {
			return e.conf, true
		}
	}
	return 0, false
}

// hasTo reports whether the set has a relationship to a node, of any kind.
func (s relSet) hasTo(to string) bool {
	for _, e := range s {
		if e.to == to {
			return true
		}
	}
	return false
}

// put sets a relationship's confidence, adding it if needed.
func (s relSet) put(k relKey, conf float64) relSet {
	for i := range s {
		if s[i].relKey == k {
			s[i].conf = conf
			return s
		}
	}
	return append(s, relEdge{k, conf})
}

// del removes a relationship. The result is never nil for a set that was
// not: an emptied source stays known (relater.edges reads it no more).
func (s relSet) del(k relKey) relSet {
	for i := range s {
		if s[i].relKey == k {
			copy(s[i:], s[i+1:])
			s[len(s)-1] = relEdge{}
			return s[:len(s)-1]
		}
	}
	return s
}
