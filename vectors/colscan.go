package vectors

import (
	"cmp"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"sync"
)

// The column scan. Dotting every float32 row made each query read the
// whole index (190 MB at 124k documents of 384 dimensions), though the
// local embedder's query vectors are mostly zeros. colStore keeps the
// vectors a second time, dimension-major and quantized to int8 with a
// scale per document, so that a query reads only the columns of its
// nonzero dimensions (a tenth of the int8 copy, for a typical question)
// to score every document approximately. Each approximation has a proven
// error bound, and the exact dot product of the float32 rows is computed
// only for the documents whose bound reaches the n-th best exact score,
// so the answer is the row scan's, bit for bit.
//
// The bound. A document v has scale s = fl(max|v|/127) and codes c_k
// (quantize), its residuals δ_k = v_k − s·c_k are at most h·s with
// h = 0.5 + 2⁻¹⁴ (the code is rounded from v_k/s within 0.5 + 2⁻¹⁷, and
// computed within 127·2⁻²²·⁴ of it in float32; zeros are exact). For a
// query q whose dimensions split into Z (|q_k| ≥ regularMin, scored)
// and T (smaller, not scored):
//
//	real dot       = s·Σ_Z q_k c_k + Σ_Z q_k δ_k + Σ_T q_k v_k
//	|Σ_Z q_k δ_k| ≤ h·s·‖q_Z‖₁
//	|Σ_T q_k v_k| ≤ ‖q_T‖₁·max|v| ≤ ‖q_T‖₁·127·s·(1+2u)
//
// Rounding, with u = 2⁻²⁴ and γ = d·u/(1−d·u) for d dimensions, in any
// summation order: dot's float32 result is within γ·‖q‖₁·127·s·(1+2u) of
// the real dot, and the approximation fl(fl(Σ_Z fl(q_k·c_k))·s) within
// (γ+u(1+γ))·127·s·‖q_Z‖₁ of s·Σ_Z q_k c_k. The fuzz term, (2d+4)·2u·127·
// s·‖q‖₁, is twice their sum; the spare half absorbs the float64 rounding
// of the bound itself and the underflows (at most d·2⁻¹⁴⁹ a sum, far
// smaller given the ranges below, which is why vectors outside them take
// the row scan). So every bound is s times a constant of the query.

const (
	qmax      = 127
	scanBlock = 2048 // documents per approximation pass: their sums stay in L1
	// Vectors whose largest |component| is outside [regularMin,
	// regularMax] or that hold NaN or infinities are not bounded: a
	// document of those makes every query take the row scan, and query
	// components below regularMin are bounded rather than scored.
	regularMin = 0x1p-30
	regularMax = 0x1p30
	noTime     = math.MinInt64 // docKey.sec when the time does not parse
)

// colStore is the quantized, dimension-major copy of memIndex.docs, in
// the same positions; the caller holds memIndex.mu.
type colStore struct {
	dims int
	// codes[k*stride+i]·scale[i] ≈ docs[i].vec[k]: one array, so that
	// storing a document writes dims bytes, not dims slices.
	codes  []int8
	stride int
	scale  []float32 // max_k |docs[i].vec[k]| / 127; NaN when not bounded
	keys   []docKey
	odd    int // NaN scales
	// maxScale is the largest scale ever stored (deletions leave it): the
	// largest bound is maxScale times the query's constant.
	maxScale float32
	buf      []int8 // one document's codes
}

// docKey holds a document's filter values, so that the scan rejects most
// documents without reading their metadata map: hashes of the where
// filter's values (0 when absent) and the time in seconds.
type docKey struct {
	kind, class, commit, rewritten uint32
	sec                            int64
}

var keySeed = maphash.MakeSeed()

func keyHash(m map[string]string, key string) uint32 {
	v, ok := m[key]
	if !ok {
		return 0
	}
	return uint32(maphash.String(keySeed, v)) | 1
}

func keyOf(meta map[string]string) docKey {
	k := docKey{
		kind: keyHash(meta, MetaKind), class: keyHash(meta, MetaClassification),
		commit: keyHash(meta, MetaCommit), rewritten: keyHash(meta, MetaRewritten), sec: noTime,
	}
	if sec, err := strconv.ParseInt(meta[MetaTime], 10, 64); err == nil {
		k.sec = sec
	}
	return k
}

// put stores the document at position i, a stored one or len(scale).
func (c *colStore) put(i int, meta map[string]string, vec []float32) {
	if len(c.scale) == 0 && c.dims != len(vec) {
		c.reset(len(vec))
	}
	s := quantize(vec, c.buf)
	if s != s {
		c.odd++
	} else {
		c.maxScale = max(c.maxScale, s)
	}
	if i == len(c.scale) {
		if i == c.stride {
			c.grow(i + i/4 + 256)
		}
		c.scale, c.keys = append(c.scale, 0), append(c.keys, docKey{})
	} else if c.scale[i] != c.scale[i] {
		c.odd--
	}
	for k, b := range c.buf {
		c.codes[k*c.stride+i] = b
	}
	c.scale[i], c.keys[i] = s, keyOf(meta)
}

// reset empties the store for vectors of dims dimensions.
func (c *colStore) reset(dims int) {
	*c = colStore{dims: dims, buf: make([]int8, dims)}
}

// grow makes room for stride documents.
func (c *colStore) grow(stride int) {
	codes := make([]int8, c.dims*stride)
	for k := range c.dims {
		copy(codes[k*stride:], c.codes[k*c.stride:k*c.stride+len(c.scale)])
	}
	c.codes, c.stride = codes, stride
}

// build stores docs, which follow the stored documents, on workers
// goroutines. It transposes tileRows documents at a time, so that a
// column is written a cache line at a time rather than a byte: storing
// 124k documents one by one took longer than loading them.
func (c *colStore) build(docs []scanDoc, workers int) {
	n := len(c.scale)
	if n > 0 || len(docs) == 0 {
		for i := n; i < len(docs); i++ {
			c.put(i, docs[i].meta, docs[i].vec)
		}
		return
	}
	c.reset(len(docs[0].vec))
	c.grow(len(docs) + len(docs)/16 + 256) // room for writes: growing copies every column
	c.scale, c.keys = make([]float32, len(docs)), make([]docKey, len(docs))
	per := (len(docs)/workers/tileRows + 1) * tileRows
	var wg sync.WaitGroup
	for lo := 0; lo < len(docs); lo += per {
		wg.Go(func() { c.buildRange(docs, lo, min(lo+per, len(docs))) })
	}
	wg.Wait()
	for _, s := range c.scale {
		if s != s {
			c.odd++
		} else {
			c.maxScale = max(c.maxScale, s)
		}
	}
}

const tileRows = 64 // a cache line of each column

func (c *colStore) buildRange(docs []scanDoc, lo, hi int) {
	tile := make([]int8, tileRows*c.dims)
	for t := lo; t < hi; t += tileRows {
		rows := min(tileRows, hi-t)
		for r := range rows {
			c.scale[t+r] = quantize(docs[t+r].vec, tile[r*c.dims:(r+1)*c.dims])
			c.keys[t+r] = keyOf(docs[t+r].meta)
		}
		for k := range c.dims {
			col := c.col(k, t, t+rows)
			for r := range col {
				col[r] = tile[r*c.dims+k]
			}
		}
	}
}

// col is dimension k's codes of documents lo to hi.
func (c *colStore) col(k, lo, hi int) []int8 { return c.codes[k*c.stride+lo : k*c.stride+hi] }

// move puts the last document in position i and drops the last one.
func (c *colStore) move(i int) {
	last := len(c.scale) - 1
	if c.scale[i] != c.scale[i] {
		c.odd--
	}
	for k := range c.dims {
		c.codes[k*c.stride+i] = c.codes[k*c.stride+last]
	}
	c.scale[i], c.keys[i] = c.scale[last], c.keys[last]
	c.scale, c.keys = c.scale[:last], c.keys[:last]
}

// quantize writes vec's codes to buf (of the store's dimensions) and
// returns its scale, NaN if vec cannot be bounded.
func quantize(vec []float32, buf []int8) float32 {
	clear(buf)
	top, ok := largest(vec)
	switch {
	case !ok || len(vec) != len(buf) || top > 0 && top < regularMin:
		return float32(math.NaN())
	case top == 0:
		return 0
	}
	inv := float32(qmax / float64(top))
	buf = buf[:len(vec)]
	for k, x := range vec {
		f := x * inv
		half := math.Float32frombits(math.Float32bits(f)&(1<<31) | 0x3f000000) // ±0.5
		buf[k] = int8(min(max(int32(f+half), -qmax), qmax))
	}
	return float32(float64(top) / qmax)
}

// largest is max|v_k|, and whether it is at most regularMax (not NaN):
// compared as integers, the bits of |v_k| order as the values do.
func largest(vec []float32) (float32, bool) {
	var top uint32
	for _, x := range vec {
		top = max(top, math.Float32bits(x)&^(1<<31))
	}
	return math.Float32frombits(top), top <= math.Float32bits(regularMax)
}

// down32 is x rounded down to a float32.
func down32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

// prefilter rejects, from docKey alone, documents that where or the time
// bounds surely reject. It may keep some that they reject (a hash
// collision, a time that does not parse): consider checks those exactly.
type prefilter struct {
	kind, class, commit, rewritten uint32 // 0: any
	since, until                   int64
}

func newPrefilter(where map[string]string, f *Filter) prefilter {
	h := func(key string) uint32 {
		if _, ok := where[key]; !ok {
			return 0
		}
		return keyHash(where, key)
	}
	p := prefilter{kind: h(MetaKind), class: h(MetaClassification), commit: h(MetaCommit),
		rewritten: h(MetaRewritten), since: math.MinInt64, until: math.MaxInt64}
	// A time of fewer seconds than Since.Unix() is before Since; one of
	// more than Until.Unix() is not before Until.
	if !f.Since.IsZero() {
		p.since = f.Since.Unix()
	}
	if !f.Until.IsZero() {
		p.until = f.Until.Unix()
	}
	return p
}

func (p *prefilter) pass(k *docKey) bool {
	if p.kind != 0 && k.kind != p.kind || p.class != 0 && k.class != p.class ||
		p.commit != 0 && k.commit != p.commit || p.rewritten != 0 && k.rewritten != p.rewritten {
		return false
	}
	return k.sec == noTime || p.since <= k.sec && k.sec <= p.until
}

// colQuery is a query as the column scan reads it, and its work space.
type colQuery struct {
	nz     []int          // scored dimensions, ascending
	tables [][256]float32 // tables[j][uint8(c)] = fl(q[nz[j]]·c)
	unit   float64        // the bound of a document of scale 1
	emax   float64        // unit·the largest scale: every document's bound or more
	acc    []float32      // per document: the sum, then the approximate score
	seeds  []seed
}

type seed struct {
	a float32 // approximate score
	i int32
}

var colQueries = sync.Pool{New: func() any { return new(colQuery) }}

// prepare reads vec; false means that the bound does not cover it.
func (q *colQuery) prepare(vec []float32, c *colStore) bool {
	q.nz = q.nz[:0]
	var l1, small float64
	for k, x := range vec {
		a := math.Abs(float64(x))
		switch {
		case !(a <= regularMax):
			return false
		case a >= regularMin:
			q.nz = append(q.nz, k)
			l1 += a
		default:
			small += a
		}
	}
	all := l1 + small
	if !(all >= regularMin && all <= regularMax) {
		return false
	}
	const h, slack = 0.5 + 0x1p-14, 1 + 0x1p-40 // slack: the float64 sums' rounding
	fuzz := float64(2*len(vec)+4) * 0x1p-23
	q.unit = (h*l1 + qmax*(all*fuzz+small*(1+fuzz))) * slack
	q.emax = q.unit * float64(c.maxScale)
	q.makeTables(vec)
	return true
}

func (q *colQuery) makeTables(vec []float32) {
	if cap(q.tables) < len(q.nz) {
		q.tables = make([][256]float32, len(q.nz))
	}
	q.tables = q.tables[:len(q.nz)]
	for j, k := range q.nz {
		t := &q.tables[j]
		for c := -qmax; c <= qmax; c++ {
			t[uint8(int8(c))] = vec[k] * float32(c)
		}
	}
}

// approximate sets q.acc[i] to document i's approximate score, and
// q.seeds to the (at most) k documents passing p with the best ones.
func (q *colQuery) approximate(c *colStore, p *prefilter, k int) {
	n := len(c.scale)
	if cap(q.acc) < n {
		q.acc = make([]float32, n)
	}
	q.acc, q.seeds = q.acc[:n], q.seeds[:0]
	for lo := 0; lo < n; lo += scanBlock {
		hi := min(lo+scanBlock, n)
		acc := q.acc[lo:hi]
		clear(acc)
		q.sum(acc, c, lo, hi)
		q.scale(acc, c, lo, p, k)
	}
}

// sum adds the scored dimensions' terms of documents lo to hi into acc,
// four columns a pass, so that acc is loaded and stored once per four.
// Looking the products up beats converting and multiplying.
func (q *colQuery) sum(acc []float32, c *colStore, lo, hi int) {
	j := 0
	for ; j+4 <= len(q.nz); j += 4 {
		nz := q.nz[j : j+4]
		add4(acc, c.col(nz[0], lo, hi), c.col(nz[1], lo, hi), c.col(nz[2], lo, hi), c.col(nz[3], lo, hi),
			&q.tables[j], &q.tables[j+1], &q.tables[j+2], &q.tables[j+3])
	}
	for ; j < len(q.nz); j++ {
		add1(acc, c.col(q.nz[j], lo, hi), &q.tables[j])
	}
}

func add4(acc []float32, c0, c1, c2, c3 []int8, t0, t1, t2, t3 *[256]float32) {
	c0, c1, c2, c3 = c0[:len(acc)], c1[:len(acc)], c2[:len(acc)], c3[:len(acc)]
	for i := range acc {
		acc[i] += (t0[uint8(c0[i])] + t1[uint8(c1[i])]) + (t2[uint8(c2[i])] + t3[uint8(c3[i])])
	}
}

func add1(acc []float32, c0 []int8, t0 *[256]float32) {
	c0 = c0[:len(acc)]
	for i := range acc {
		acc[i] += t0[uint8(c0[i])]
	}
}

// scale turns the sums of documents lo… into approximate scores,
// collecting seeds on the way.
func (q *colQuery) scale(acc []float32, c *colStore, lo int, p *prefilter, k int) {
	scale := c.scale[lo : lo+len(acc)]
	for j, sum := range acc {
		a := sum * scale[j]
		acc[j] = a
		if len(q.seeds) == k && a <= q.seeds[0].a || !p.pass(&c.keys[lo+j]) {
			continue
		}
		q.addSeed(seed{a, int32(lo + j)}, k)
	}
}

// addSeed keeps the k best seeds in a min-heap.
func (q *colQuery) addSeed(s seed, k int) {
	h := q.seeds
	if len(h) < k {
		h = append(h, s)
		for i := len(h) - 1; i > 0 && h[(i-1)/2].a > h[i].a; i = (i - 1) / 2 {
			h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
		}
		q.seeds = h
		return
	}
	h[0] = s
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].a < h[l].a {
			l = r
		}
		if h[i].a <= h[l].a {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// seeds is how many documents of the best approximate scores are scored
// exactly first: enough that the sweep after them finds the n-th best
// exact score high already, and so computes few others.
var seeds = func(n int) int { return 2*n + 16 }

// colScan is scan by the columns (see the top of this file); false means
// that the query or a document is outside the bound's ranges.
func (m *memIndex) colScan(sq *scanQuery) ([]Hit, bool) {
	if m.cols.odd > 0 || len(sq.vec) != m.cols.dims {
		return nil, false
	}
	q := colQueries.Get().(*colQuery)
	defer colQueries.Put(q)
	if !q.prepare(sq.vec, &m.cols) {
		return nil, false
	}
	q.approximate(&m.cols, &sq.p, max(1, seeds(sq.n)))
	h := make(hitHeap, 0, min(sq.n, len(m.docs))+1)
	// Best first, so that the rest seldom enter h (and allocate a Hit).
	slices.SortFunc(q.seeds, func(x, y seed) int { return cmp.Compare(y.a, x.a) })
	for _, s := range q.seeds {
		m.consider(&h, int(s.i), sq)
		q.acc[s.i] = float32(math.Inf(-1)) // done: below every cut
	}
	m.sweep(q, &h, sq)
	out := []Hit(h)
	sortHits(out)
	return out, true
}

// sweep considers every document whose bound reaches h's worst hit: a
// score equal to it may still win by its ID. The cut, lower by twice
// emax, spares the exact test of the bound to all but a few documents;
// its spare emax absorbs its own rounding.
func (m *memIndex) sweep(q *colQuery, h *hitHeap, sq *scanQuery) {
	worst, cut := float32(-math.MaxFloat32), float32(-math.MaxFloat32) // every document, while h has room
	if len(*h) == sq.n {
		worst = (*h)[0].Score
		cut = down32(float64(worst) - 2*q.emax)
	}
	c := &m.cols
	for i, a := range q.acc {
		if a < cut || float64(a)+q.unit*float64(c.scale[i]) < float64(worst) || !sq.p.pass(&c.keys[i]) {
			continue
		}
		if m.consider(h, i, sq) && len(*h) == sq.n {
			worst = (*h)[0].Score
			cut = down32(float64(worst) - 2*q.emax)
		}
	}
}
