package vectors

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// refScan is the scan as it was before the columns: every document's
// metadata matched and its float32 row dotted with the query. The column
// scan must answer exactly as it does.
func refScan(m *memIndex, vec []float32, n int, where map[string]string, f Filter) []Hit {
	h := make(hitHeap, 0, n+1)
	for i := range m.docs {
		d := &m.docs[i]
		if !matches(d.meta, where) {
			continue
		}
		s := dot(vec, d.vec)
		if len(h) == n && !better(s, d.id, h[0].Score, h[0].ID) {
			continue
		}
		hit := hitOf(d.id, s, d.meta)
		if !f.keep(&hit) {
			continue
		}
		if len(h) == n {
			h[0] = hit
			heap.Fix(&h, 0)
		} else {
			heap.Push(&h, hit)
		}
	}
	out := []Hit(h)
	sortHits(out)
	return out
}

// sameHits compares hits field by field, scores by their bits.
func sameHits(a, b []Hit) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d hits, want %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if math.Float32bits(x.Score) != math.Float32bits(y.Score) {
			return fmt.Sprintf("hit %d: %s score %v, want %s %v", i, x.ID, x.Score, y.ID, y.Score)
		}
		x.Score, y.Score = 0, 0
		if fmt.Sprint(x) != fmt.Sprint(y) {
			return fmt.Sprintf("hit %d: %+v, want %+v", i, x, y)
		}
	}
	return ""
}

// scanFixture is a memIndex filled and thinned at random, with the
// vectors it holds, for queries to be drawn from.
type scanFixture struct {
	rng  *rand.Rand
	m    *memIndex
	vecs [][]float32
	next int
}

func newScanFixture(seed uint64) *scanFixture {
	return &scanFixture{rng: rand.New(rand.NewPCG(seed, 7)), m: newMemIndex(nil)}
}

var testClasses = []string{"bugfix", "feature", "refactor", "performance"}

// add stores a document of vector v, with random metadata.
func (s *scanFixture) add(v []float32) {
	r := s.rng
	s.next++
	c := sha(1 + r.IntN(s.next))
	kind, id := KindCommit, CommitID(c)
	if r.IntN(3) == 0 {
		kind, id = KindNote, NoteID(c, r.IntN(4))
	}
	meta := map[string]string{MetaKind: kind, MetaCommit: c, MetaClassification: testClasses[r.IntN(4)],
		MetaTime: strconv.Itoa(1_700_000_000 + r.IntN(1000)), MetaRewritten: strconv.FormatBool(r.IntN(8) == 0),
		MetaPaths: "a.go\nb.go"}
	switch r.IntN(40) {
	case 0:
		delete(meta, MetaKind)
	case 1:
		meta[MetaTime] = "soon"
	case 2:
		delete(meta, MetaRewritten)
	}
	s.m.addScan(id, meta, v)
	s.vecs = append(s.vecs, v)
}

// drop forgets a random document.
func (s *scanFixture) drop() {
	if len(s.m.docs) > 0 {
		s.m.dropScan(s.m.docs[s.rng.IntN(len(s.m.docs))].id)
	}
}

func gaussian(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	normalize(v)
	return v
}

// vector draws a document or query vector of one of several shapes.
func (s *scanFixture) vector(dims int, local *Local) []float32 {
	r := s.rng
	switch r.IntN(9) {
	case 0, 1, 2: // the local embedder's
		var b strings.Builder
		for range 2 + r.IntN(10) {
			b.WriteString(benchWords[r.IntN(len(benchWords))] + " ")
		}
		return local.vector(b.String())
	case 3: // dense
		return gaussian(r, dims)
	case 4: // small integers: many exact ties
		v := make([]float32, dims)
		for range 1 + r.IntN(6) {
			v[r.IntN(dims)] = float32(r.IntN(3))
		}
		v[r.IntN(dims)] = 1
		normalize(v)
		return v
	case 5: // a stored one again
		if len(s.vecs) > 0 {
			return s.vecs[r.IntN(len(s.vecs))]
		}
		return gaussian(r, dims)
	case 6: // not normalised, or with tiny components
		v := gaussian(r, dims)
		scale := []float32{3, 1e-3, 1}[r.IntN(3)]
		for i := range v {
			v[i] *= scale
			if r.IntN(10) == 0 {
				v[i] = float32(r.NormFloat64() * 1e-12)
			}
		}
		return v
	case 7: // a stored one moved by about a quantization step: near ties
		if len(s.vecs) == 0 {
			return gaussian(r, dims)
		}
		v := slices.Clone(s.vecs[r.IntN(len(s.vecs))])
		for i := range v {
			v[i] += float32(r.NormFloat64() * 0.003)
		}
		return v
	default: // sparse, with a few dimensions
		v := make([]float32, dims)
		for range 1 + r.IntN(5) {
			v[r.IntN(dims)] = float32(r.NormFloat64())
		}
		if normalize(v) != nil {
			v[0] = 1
		}
		return v
	}
}

// filter draws query filters, some matching nothing.
func (s *scanFixture) filter() (Filter, map[string]string) {
	r := s.rng
	var f Filter
	if r.IntN(3) == 0 {
		f.Kind = []string{KindCommit, KindNote, "tag"}[r.IntN(3)]
	}
	if r.IntN(3) == 0 {
		f.Classification = testClasses[r.IntN(4)]
	}
	if r.IntN(8) == 0 {
		f.Commit = sha(1 + r.IntN(s.next+1))
	}
	if r.IntN(3) == 0 {
		f.Since = time.Unix(1_700_000_000+int64(r.IntN(1000)), int64(r.IntN(2))*5e8)
	}
	if r.IntN(3) == 0 {
		f.Until = time.Unix(1_700_000_000+int64(r.IntN(1000)), int64(r.IntN(2))*5e8)
	}
	f.IncludeRewritten = r.IntN(2) == 0
	where := f.where(true)
	if r.IntN(20) == 0 {
		if where == nil {
			where = map[string]string{}
		}
		where[MetaPaths] = "a.go\nb.go"
	}
	return f, where
}

// check runs queries against both scans; cols says whether the column
// scan must be the one answering those without a commit filter.
func (s *scanFixture) check(t *testing.T, dims int, queries int, cols bool) {
	t.Helper()
	local := hashLocal(dims)
	for q := range queries {
		v := s.vector(dims, local)
		f, where := s.filter()
		n := 1 + s.rng.IntN(len(s.m.docs)+3)
		if s.rng.IntN(4) > 0 {
			n = 1 + s.rng.IntN(12)
		}
		want := refScan(s.m, v, n, where, f)
		got := s.m.scan(v, n, where, f)
		if msg := sameHits(got, want); msg != "" {
			t.Fatalf("query %d (n %d, %+v, %d docs): %s", q, n, f, len(s.m.docs), msg)
		}
		if _, ok := s.m.colScan(newScanQuery(v, n, where, f)); ok != (cols && regular(v)) {
			t.Fatalf("query %d: column scan %v, want %v", q, ok, cols)
		}
	}
}

func newScanQuery(vec []float32, n int, where map[string]string, f Filter) *scanQuery {
	return &scanQuery{vec, n, where, &f, newPrefilter(where, &f)}
}

// regular says whether the bound covers query v: finite, and not zero or
// nearly.
func regular(v []float32) bool {
	var l1 float64
	for _, x := range v {
		l1 += math.Abs(float64(x))
	}
	return l1 >= regularMin && l1 <= regularMax
}

// withSeeds runs test with k seeds, or with the default when k < 0. Few
// seeds leave the sweep to find the answer through the bounds alone.
func withSeeds(t *testing.T, test func(t *testing.T)) {
	for _, k := range []int{-1, 1, 3} {
		t.Run(fmt.Sprint("seeds", k), func(t *testing.T) {
			if k >= 0 {
				old := seeds
				seeds = func(int) int { return k }
				defer func() { seeds = old }()
			}
			test(t)
		})
	}
}

func TestColScanEqualsRowScan(t *testing.T) { withSeeds(t, testColScanEqualsRowScan) }

func testColScanEqualsRowScan(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			dims := []int{384, 16, 7}[seed%3]
			s := newScanFixture(seed)
			local := hashLocal(dims)
			s.check(t, dims, 5, false) // empty: nothing to scan by columns
			for round := range 8 {
				for range 50 + s.rng.IntN(300) {
					s.add(s.vector(dims, local))
				}
				for range s.rng.IntN(100) {
					s.drop()
				}
				if round == 3 {
					s.add(make([]float32, dims)) // a zero vector
				}
				sameStore(t, s.m)
				s.check(t, dims, 60, true)
			}
		})
	}
}

// sameStore checks that m's columns, kept document by document, are those
// that build makes of its documents at once.
func sameStore(t *testing.T, m *memIndex) {
	t.Helper()
	fresh := newMemIndex(nil)
	for _, d := range m.docs {
		fresh.addRow(d.id, d.meta, d.vec)
	}
	fresh.cols.build(fresh.docs, 3)
	a, b := &m.cols, &fresh.cols
	if len(a.scale) != len(m.docs) || len(b.scale) != len(m.docs) || a.odd != b.odd || b.maxScale > a.maxScale {
		t.Fatalf("%d docs: kept %d, %d odd, built %d, %d odd", len(m.docs), len(a.scale), a.odd, len(b.scale), b.odd)
	}
	for i := range m.docs {
		if math.Float32bits(a.scale[i]) != math.Float32bits(b.scale[i]) || a.keys[i] != b.keys[i] {
			t.Fatalf("document %d: scale %v, built %v", i, a.scale[i], b.scale[i])
		}
		for k := range a.dims {
			if a.col(k, i, i+1)[0] != b.col(k, i, i+1)[0] {
				t.Fatalf("document %d, dimension %d: code %d, built %d", i, k, a.col(k, i, i+1)[0], b.col(k, i, i+1)[0])
			}
		}
	}
}

// Vectors the bound does not cover send queries to the row scan, until
// they are gone.
func TestColScanOddVectors(t *testing.T) {
	const dims = 16
	s := newScanFixture(9)
	local := hashLocal(dims)
	for range 300 {
		s.add(s.vector(dims, local))
	}
	tiny := gaussian(s.rng, dims)
	for i := range tiny {
		tiny[i] *= 1e-20
	}
	nan := gaussian(s.rng, dims)
	nan[3] = float32(math.NaN())
	for _, odd := range [][]float32{tiny, nan, make([]float32, dims+1)} {
		s.m.addScan("odd", map[string]string{MetaKind: KindCommit}, odd)
		sameStore(t, s.m)
		s.check(t, dims, 40, false)
		s.m.dropScan("odd")
		s.check(t, dims, 40, true)
	}
	inf := make([]float32, dims)
	inf[0] = float32(math.Inf(1))
	for _, q := range [][]float32{make([]float32, dims), inf, nan, tiny} {
		if _, ok := s.m.colScan(newScanQuery(q, 5, nil, Filter{})); ok {
			t.Fatalf("query %v: column scan", q)
		}
		if msg := sameHits(s.m.scan(q, 5, nil, Filter{}), refScan(s.m, q, 5, nil, Filter{})); msg != "" {
			t.Fatalf("query %v: %s", q, msg)
		}
	}
}

// Documents whose residuals all lean the same way on the query's
// dimensions, by nearly half a step: their approximations are as far off
// as the bound allows. Each pair's first document leans a little less
// than its second, so that with few seeds the first sets the worst hit
// and only a bound of its full width lets the second in.
func TestColScanWorstResiduals(t *testing.T) { withSeeds(t, testColScanWorstResiduals) }

func testColScanWorstResiduals(t *testing.T) {
	const dims = 16
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 20 {
		q := make([]float32, dims)
		for k := 1; k <= 1+round%6; k++ {
			q[k] = float32(r.NormFloat64())
		}
		m := newMemIndex(nil)
		for i := range 200 {
			codes := make([]float32, dims)
			for k := range codes {
				codes[k] = float32(r.IntN(5) + 40)
			}
			less := float32(0.4999 - 0.001*r.Float64())
			for j, lean := range []float32{less, 0.4999, -0.4999} {
				v := make([]float32, dims)
				v[0] = 127 // the scale: one step is 1
				for k := 1; k < dims; k++ {
					v[k] = codes[k] + lean
					if q[k] < 0 {
						v[k] = -v[k]
					}
				}
				m.addScan(fmt.Sprintf("commit:%05d", 3*i+j), map[string]string{}, v)
			}
		}
		for n := 1; n < 100; n += 1 + n/3 {
			if msg := sameHits(m.scan(q, n, nil, Filter{}), refScan(m, q, n, nil, Filter{})); msg != "" {
				t.Fatalf("round %d, n %d: %s", round, n, msg)
			}
		}
	}
}

// Identical vectors under many IDs: the ID decides, at every n.
func TestColScanTies(t *testing.T) { withSeeds(t, testColScanTies) }

func testColScanTies(t *testing.T) {
	m := newMemIndex(nil)
	local := NewLocal(0)
	v := local.vector("retry http requests after a timeout")
	w := local.vector("retry http requests")
	zero := make([]float32, len(v)) // scores exactly 0 with a bound of 0
	// IDs fall, so that late documents win ties.
	for i := range 1500 {
		m.addScan(fmt.Sprintf("commit:%05d", 2000-i), map[string]string{}, [][]float32{v, w, zero}[i%3])
	}
	for n := 1; n < 1600; n += 1 + n/2 {
		for _, q := range [][]float32{v, w} {
			if msg := sameHits(m.scan(q, n, nil, Filter{}), refScan(m, q, n, nil, Filter{})); msg != "" {
				t.Fatalf("n %d: %s", n, msg)
			}
		}
	}
}

// The documents of the scan benchmarks: 124k commits embedded by the
// local embedder, as git/git's history would be.
var (
	scanBenchOnce sync.Once
	scanBenchMem  *memIndex
)

const scanBenchN = 124_000

func scanBenchIndex() *memIndex {
	scanBenchOnce.Do(func() {
		docs := benchDocs(scanBenchN)
		l := NewLocal(0)
		scanBenchMem = newMemIndex(nil)
		for i := range docs {
			scanBenchMem.addRow(docs[i].ID(), docs[i].metadata(), l.vector(docs[i].Text))
		}
		scanBenchMem.cols.build(scanBenchMem.docs, 2)
	})
	return scanBenchMem
}

// scanBenchQueries are benchQueries embedded locally (sparse) or mixed
// with as much Gaussian noise (dense, as a neural model's would be).
func scanBenchQueries(dense bool) [][]float32 {
	l := NewLocal(0)
	r := rand.New(rand.NewPCG(3, 4))
	var qs [][]float32
	for _, text := range benchQueries {
		v := l.vector(text)
		if dense {
			noise := gaussian(r, len(v))
			for i := range v {
				v[i] += noise[i]
			}
			normalize(v)
		}
		qs = append(qs, v)
	}
	return qs
}

func benchmarkScan(b *testing.B, dense bool, f Filter, scan func(m *memIndex, v []float32, n int, where map[string]string, f Filter) []Hit) {
	m := scanBenchIndex()
	qs := scanBenchQueries(dense)
	where := f.where(false) // no document is rewritten
	for i, q := range qs {
		// Both scans answer alike.
		if msg := sameHits(m.scan(q, 10, where, f), refScan(m, q, 10, where, f)); msg != "" {
			b.Fatalf("query %d: %s", i, msg)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if hits := scan(m, qs[i%len(qs)], 10, where, f); len(hits) != 10 {
			b.Fatalf("%d hits", len(hits))
		}
	}
}

// The sparse queries on both cores at once, as a daemon's concurrent
// questions run: the row scan shares the memory bus too.
func BenchmarkScan124kParallel(b *testing.B) {
	for name, scan := range map[string]func(m *memIndex, v []float32, n int, where map[string]string, f Filter) []Hit{
		"rows": refScan, "cols": colScanOf,
	} {
		b.Run(name, func(b *testing.B) {
			m, qs := scanBenchIndex(), scanBenchQueries(false)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for i := 0; pb.Next(); i++ {
					if hits := scan(m, qs[i%len(qs)], 10, nil, Filter{}); len(hits) != 10 {
						b.Errorf("%d hits", len(hits))
						return
					}
				}
			})
		})
	}
}

func colScanOf(m *memIndex, v []float32, n int, where map[string]string, f Filter) []Hit {
	return m.scan(v, n, where, f)
}

// go test ./vectors/ -run '^$' -bench 'Scan' -count 5
//
// rows is the scan before the columns (refScan), cols the scan.
func BenchmarkScan124k(b *testing.B) {
	filtered := Filter{Kind: KindCommit, Classification: "bugfix", Since: t0.AddDate(0, 0, 1000)}
	for _, c := range []struct {
		name  string
		dense bool
		f     Filter
	}{{"sparse", false, Filter{}}, {"dense", true, Filter{}}, {"sparse-filtered", false, filtered}} {
		b.Run(c.name+"/rows", func(b *testing.B) { benchmarkScan(b, c.dense, c.f, refScan) })
		b.Run(c.name+"/cols", func(b *testing.B) { benchmarkScan(b, c.dense, c.f, colScanOf) })
	}
}

// TestColumnsBuiltAtSecondQuery: a loaded index answers its first query by
// the rows and builds the columns at the second, with the same answers,
// and a write after that keeps them.
func TestColumnsBuiltAtSecondQuery(t *testing.T) {
	ctx := context.Background()
	ix := reopened(t, t.TempDir(), benchDocs(500))
	first := mustQuery(t, ix, benchQueries[0], 10, Filter{})
	if ix.mem.colsOn || len(ix.mem.cols.scale) != 0 {
		t.Fatal("the first query of a loaded index built the columns")
	}
	second := mustQuery(t, ix, benchQueries[0], 10, Filter{})
	if !ix.mem.colsOn || len(ix.mem.cols.scale) != len(ix.mem.docs) {
		t.Fatal("the second query did not build the columns")
	}
	if !slices.Equal(ids(first), ids(second)) || first[0].Score != second[0].Score {
		t.Errorf("rows answered %v, columns %v", ids(first), ids(second))
	}
	if err := ix.Upsert(ctx, []Doc{commitDoc(9999, benchQueries[1], "bugfix", 1)}); err != nil {
		t.Fatal(err)
	}
	if hits := mustQuery(t, ix, benchQueries[1], 1, Filter{}); len(hits) != 1 || hits[0].Commit != sha(9999) ||
		len(ix.mem.cols.scale) != len(ix.mem.docs) {
		t.Errorf("after a write: %v, %d columns for %d documents", ids(hits), len(ix.mem.cols.scale), len(ix.mem.docs))
	}
}

// TestCollectionFilledByFirstWrite: a loaded index answers without filling
// the chromem-go collection; the first write fills it with every document,
// and compaction after that keeps every document.
func TestCollectionFilledByFirstWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := reopened(t, dir, benchDocs(300))
	before := mustQuery(t, ix, benchQueries[2], 5, Filter{})
	if n, _ := ix.Len(ctx); ix.mem.colFull || ix.mem.col.Count() != 0 || n != 300 {
		t.Fatalf("after a query: collection full %v with %d documents, Len %d", ix.mem.colFull, ix.mem.col.Count(), n)
	}
	if err := ix.Upsert(ctx, []Doc{commitDoc(5000, "a new commit about the cache", "feature", 1)}); err != nil {
		t.Fatal(err)
	}
	if !ix.mem.colFull || ix.mem.col.Count() != 301 {
		t.Fatalf("after a write: collection full %v with %d documents, want 301", ix.mem.colFull, ix.mem.col.Count())
	}
	if err := ix.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	re := openTest(t, dir, NewLocal(0))
	if n, _ := re.Len(ctx); n != 301 {
		t.Errorf("after compaction and a reload: %d documents, want 301", n)
	}
	if after := mustQuery(t, re, benchQueries[2], 5, Filter{}); !slices.Equal(ids(after), ids(before)) && after[0].Commit != sha(5000) {
		t.Errorf("answers changed: %v, before %v", ids(after), ids(before))
	}
}

// reopened returns an index loaded from dir, where another one stored
// docs.
func reopened(t *testing.T, dir string, docs []Doc) *Index {
	t.Helper()
	if err := openTest(t, dir, NewLocal(0)).Upsert(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	return openTest(t, dir, NewLocal(0))
}

// hashLocal is the local embedder without its word vectors: vectors of
// exactly dims dimensions, for the scan tests, which test the scans and
// need vectors of every size.
func hashLocal(dims int) *Local { return &Local{dims: dims} }
