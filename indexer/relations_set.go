package indexer

// nodeCode is the relater's number for a node id (relater.nodes): the
// relationships it keeps for the whole sync name their ends by number, so
// that they hold no pointer for the collector to follow and a few bytes
// where a string header took sixteen.
type nodeCode int32

// kindCode is the relater's number for a relationship kind (relater.kinds).
type kindCode uint8

// edgeKey is a relationship from a known source: its kind and target.
type edgeKey struct {
	to   nodeCode
	kind kindCode
}

// relEdge is one of a source node's current relationships.
type relEdge struct {
	edgeKey
	conf float64
}

// relSet is a source node's current relationships (relater.out). Most
// sources have a few: a slice holds them in well under half of a map's
// bytes (a small map is a group of eight slots and its header), and the
// relater keeps them for the whole sync, which the collector meets again
// and again near the sync's memory limit. An edge is 16 bytes without a
// pointer, so the collector does not scan the sets at all. Lookups are
// linear; the longest sets (a function calling a hundred others) are
// looked up once per change of that function.
type relSet []relEdge

// get returns the confidence of a relationship, if the set has it.
func (s relSet) get(k edgeKey) (float64, bool) {
	for _, e := range s {
		if e.edgeKey == k {
			return e.conf, true
		}
	}
	return 0, false
}

// hasTo reports whether the set has a relationship to a node, of any kind.
func (s relSet) hasTo(to nodeCode) bool {
	for _, e := range s {
		if e.to == to {
			return true
		}
	}
	return false
}

// put sets a relationship's confidence, adding it if needed.
func (s relSet) put(k edgeKey, conf float64) relSet {
	for i := range s {
		if s[i].edgeKey == k {
			s[i].conf = conf
			return s
		}
	}
	return append(s, relEdge{k, conf})
}

// del removes a relationship. The result is never nil for a set that was
// not: an emptied source stays known (relater.edges reads it no more).
func (s relSet) del(k edgeKey) relSet {
	for i := range s {
		if s[i].edgeKey == k {
			copy(s[i:], s[i+1:])
			s[len(s)-1] = relEdge{}
			return s[:len(s)-1]
		}
	}
	return s
}
