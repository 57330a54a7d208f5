package vectors

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	chromem "github.com/philippgille/chromem-go"
)

// chromemSearch is what Query did before the scan: chromem-go's own
// QueryEmbedding, widened until the top n after the time filter were
// certain. The scan must answer exactly the same.
func chromemSearch(ctx context.Context, col *chromem.Collection, vec []float32, n int, where map[string]string, f Filter) ([]Hit, error) {
	k := n + 8
	if f.timed() {
		k = 4*n + 8
	}
	for {
		total := col.Count()
		if total == 0 {
			return nil, nil
		}
		k = min(k, total)
		res, err := col.QueryEmbedding(ctx, vec, k, where, nil)
		if err != nil {
			return nil, fmt.Errorf("query vectors: %w", err)
		}
		hits := make([]Hit, 0, len(res))
		lowest := float32(2)
		for _, r := range res {
			lowest = min(lowest, r.Similarity)
			h := hitOf(r.ID, r.Similarity, r.Metadata)
			if f.keep(&h) {
				hits = append(hits, h)
			}
		}
		sortHits(hits)
		all := len(res) < k || k == total
		if all || len(hits) >= n && hits[n-1].Score > lowest {
			return hits[:min(n, len(hits))], nil
		}
		k *= 4
	}
}

func TestScanEqualsChromem(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	db := chromem.NewDB()
	col, err := db.CreateCollection("t", nil, func(context.Context, string) ([]float32, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	m := newMemIndex(col)
	vec := func() []float32 {
		v := make([]float32, 16)
		for i := range v {
			v[i] = float32(rng.IntN(5)) // small integers: many exact ties
		}
		v[rng.IntN(16)] += 1
		normalize(v)
		return v
	}
	classes := []string{"bugfix", "feature", "refactor"}
	for c := range 300 {
		commit := fmt.Sprintf("%040d", c)
		var docs []chromem.Document
		for k := range 1 + rng.IntN(3) {
			kind, id := KindCommit, CommitID(commit)
			if k > 0 {
				kind, id = KindNote, NoteID(commit, k)
			}
			meta := map[string]string{MetaKind: kind, MetaCommit: commit, MetaClassification: classes[rng.IntN(3)],
				MetaTime: strconv.Itoa(1_700_000_000 + rng.IntN(1_000_000)), MetaRewritten: strconv.FormatBool(rng.IntN(10) == 0)}
			docs = append(docs, chromem.Document{ID: id, Metadata: meta, Embedding: vec()})
		}
		if err := m.add(ctx, commit, docs); err != nil {
			t.Fatal(err)
		}
	}
	for c := 0; c < 300; c += 7 { // replaced and dropped documents leave the scan too
		if err := m.drop(ctx, fmt.Sprintf("%040d", c)); err != nil {
			t.Fatal(err)
		}
	}
	if len(m.docs) != col.Count() {
		t.Fatalf("scan holds %d documents, the collection %d", len(m.docs), col.Count())
	}
	for q := range 200 {
		f := Filter{}
		switch q % 4 {
		case 1:
			f.Kind = KindCommit
		case 2:
			f.Classification = classes[q%3]
			f.Since = time.Unix(1_700_300_000, 0)
		case 3:
			f.IncludeRewritten = true
			f.Until = time.Unix(1_700_600_000, 0)
		}
		n := 1 + q%12
		v := vec()
		where := f.where(true)
		want, err := chromemSearch(ctx, col, v, n, where, f)
		if err != nil {
			t.Fatal(err)
		}
		got := m.scan(v, n, where, f)
		// The scan's sum runs in another order than chromem-go's, so
		// scores may differ in the last bits (see dot) and near ties swap:
		// the order must be that of a brute force with the same sum, and
		// the scores chromem-go's to 1e-5, rank by rank.
		ids := func(hs []Hit) string {
			var b strings.Builder
			for _, h := range hs {
				fmt.Fprintf(&b, "%s ", h.ID[len(h.ID)-6:])
			}
			return b.String()
		}
		if ref := bruteForce(m, v, n, where, f); ids(got) != ids(ref) {
			t.Fatalf("query %d (n %d, %+v):\nscan        %s\nbrute force %s", q, n, f, ids(got), ids(ref))
		}
		if len(got) != len(want) {
			t.Fatalf("query %d: scan %d hits, chromem-go %d", q, len(got), len(want))
		}
		for i := range got {
			if d := got[i].Score - want[i].Score; d > 1e-5 || d < -1e-5 {
				t.Fatalf("query %d: %s scores %v, chromem-go %v", q, got[i].ID, got[i].Score, want[i].Score)
			}
		}
	}
}

// bruteForce scores every document, filters, sorts and cuts: the scan's
// specification.
func bruteForce(m *memIndex, v []float32, n int, where map[string]string, f Filter) []Hit {
	var all []Hit
	for _, d := range m.docs {
		if !matches(d.meta, where) {
			continue
		}
		h := hitOf(d.id, dot(v, d.vec), d.meta)
		if f.keep(&h) {
			all = append(all, h)
		}
	}
	sortHits(all)
	return all[:min(n, len(all))]
}

func BenchmarkDot384(b *testing.B) {
	x, y := make([]float32, 384), make([]float32, 384)
	for i := range x {
		x[i], y[i] = float32(i%7)/7, float32(i%5)/5
	}
	var s float32
	for b.Loop() {
		s += dot(x, y)
	}
	_ = s
}
