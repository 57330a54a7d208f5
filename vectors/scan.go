package vectors

import (
	"cmp"
	"container/heap"
	"slices"
	"strings"
)

// scanDoc is a document as the query scan reads it. The vector is the
// slice chromem-go holds too, so keeping it here costs a pointer.
type scanDoc struct {
	id   string
	meta map[string]string
	vec  []float32
}

// The scan replaces chromem-go's QueryEmbedding, which on every query
// walks the document map, sends each document through a channel and takes
// a lock per match before the first dot product: at 80k documents that was
// most of a query. Here the top n are kept in a heap, exactly, with ties
// broken by ID, so no widening is needed.
//
// Dotting every row then made a query memory-bound (190 MB read at 124k
// documents), so most queries go by the columns (colscan.go): they score
// every document approximately from an int8 copy, reading only the query's
// nonzero dimensions, and compute the exact dot product of the few that
// the approximation's bound cannot rule out; the answer is unchanged. The
// row scan, an exact dot product per document that passes the filters,
// answers the rest: a commit filter, whose handful of documents the
// prefilter finds without the columns, and vectors the bound does not
// cover.

// addScan records a document for the scan; the caller holds mu.
func (m *memIndex) addScan(id string, meta map[string]string, vec []float32) {
	i := m.addRow(id, meta, vec)
	if m.colsOn {
		m.cols.put(i, meta, vec)
	}
}

// addRow records a document's row, not its columns, and returns its
// position.
func (m *memIndex) addRow(id string, meta map[string]string, vec []float32) int {
	if i, ok := m.pos[id]; ok {
		m.docs[i] = scanDoc{id, meta, vec}
		return i
	}
	m.pos[id] = len(m.docs)
	m.docs = append(m.docs, scanDoc{id, meta, vec})
	return len(m.docs) - 1
}

// dropScan forgets a document, moving the last one into its place.
func (m *memIndex) dropScan(id string) {
	i, ok := m.pos[id]
	if !ok {
		return
	}
	last := len(m.docs) - 1
	if i != last {
		m.docs[i] = m.docs[last]
		m.pos[m.docs[i].id] = i
	}
	if m.colsOn {
		m.cols.move(i)
	}
	m.docs[last] = scanDoc{}
	m.docs = m.docs[:last]
	delete(m.pos, id)
}

// scanQuery is a query's arguments, as the scans pass them on.
type scanQuery struct {
	vec   []float32
	n     int
	where map[string]string
	f     *Filter
	p     prefilter
}

// scan returns the n documents most similar to vec (normalised) that
// match where and f's time bounds, best first, ties by ID.
func (m *memIndex) scan(vec []float32, n int, where map[string]string, f Filter) []Hit {
	if n <= 0 {
		return []Hit{}
	}
	sq := &scanQuery{vec, n, where, &f, newPrefilter(where, &f)}
	if sq.p.commit == 0 && m.colsOn {
		if hits, ok := m.colScan(sq); ok {
			return hits
		}
	}
	return m.rowScan(sq)
}

// rowScan is scan by the rows: one exact dot product per document that
// passes the prefilter.
func (m *memIndex) rowScan(sq *scanQuery) []Hit {
	h := make(hitHeap, 0, min(sq.n, len(m.docs))+1)
	for i := range m.docs {
		if !m.colsOn || sq.p.pass(&m.cols.keys[i]) {
			m.consider(&h, i, sq)
		}
	}
	out := []Hit(h)
	sortHits(out)
	return out
}

// consider adds document i to h, which keeps the best n, if it matches
// the filters and beats h's worst; it reports whether h changed.
func (m *memIndex) consider(h *hitHeap, i int, sq *scanQuery) bool {
	d := &m.docs[i]
	if !matches(d.meta, sq.where) {
		return false
	}
	s := dot(sq.vec, d.vec)
	if len(*h) == sq.n && !better(s, d.id, (*h)[0].Score, (*h)[0].ID) {
		return false
	}
	hit := hitOf(d.id, s, d.meta)
	if !sq.f.keep(&hit) {
		return false
	}
	if len(*h) == sq.n {
		(*h)[0] = hit
		heap.Fix(h, 0)
	} else {
		heap.Push(h, hit)
	}
	return true
}

// sortHits orders hits best first, ties by ID.
func sortHits(hs []Hit) {
	slices.SortFunc(hs, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

func matches(meta, where map[string]string) bool {
	for k, v := range where {
		if got, ok := meta[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// better orders hits: higher score first, then lower ID.
func better(s float32, id string, than float32, thanID string) bool {
	return s > than || s == than && id < thanID
}

// dot is the cosine similarity of normalised vectors. Four independent
// sums let the CPU overlap the multiplications: about 3× faster than one
// running sum (chromem-go's), and different from it only in the last bits.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for len(a) >= 8 && len(b) >= 8 { // reslicing lets the compiler drop bounds checks
		s0 += a[0]*b[0] + a[4]*b[4]
		s1 += a[1]*b[1] + a[5]*b[5]
		s2 += a[2]*b[2] + a[6]*b[6]
		s3 += a[3]*b[3] + a[7]*b[7]
		a, b = a[8:], b[8:]
	}
	for i := range a {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// hitHeap keeps the worst kept hit on top.
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j].Score, h[j].ID, h[i].Score, h[i].ID) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
