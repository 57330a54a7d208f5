package vectors

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

// A vector that is mostly zeros is stored sparse and replays bit for bit,
// negative zero included; a dense one keeps the dense op.
func TestLogPutSparseRoundTrip(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, tc := range []struct {
		name   string
		vec    []float32
		sparse bool
	}{
		{"mostly zeros", []float32{0, 0, 0.5, 0, 0, 0, 0, 0, 0, 0, -0.25, 0, 0}, true},
		{"negative zero kept", []float32{negZero, 0, 0, 0, 0, 0, 0, 0, 0, 1}, true},
		{"all zeros", make([]float32, 384), true},
		{"dense", []float32{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}, false},
		{"one zero is already smaller sparse", []float32{0.1, 0.2, 0.3, 0.4, 0, 0.6, 0.7}, true},
		{"empty", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var enc encoder
			enc.put("doc", map[string]string{MetaCommit: "c"}, tc.vec)
			if op := enc.buf[0]; (op == opPutSparse) != tc.sparse {
				t.Fatalf("op %d, want sparse %v", op, tc.sparse)
			}
			var got []record
			err := decodePayload(enc.buf, func(r *record) error { got = append(got, *r); return nil })
			if err != nil || len(got) != 1 {
				t.Fatalf("decode: %v, %d records", err, len(got))
			}
			r := got[0]
			if r.op != opPut || r.id != "doc" || r.meta[MetaCommit] != "c" || len(r.vec) != len(tc.vec) {
				t.Fatalf("decoded %+v", r)
			}
			for i := range tc.vec {
				if math.Float32bits(r.vec[i]) != math.Float32bits(tc.vec[i]) {
					t.Fatalf("element %d: %v, want %v", i, r.vec[i], tc.vec[i])
				}
			}
		})
	}
}

func TestLogPutSparseSmaller(t *testing.T) {
	vec := make([]float32, 484)
	for i := 0; i < 40; i++ {
		vec[i*9] = float32(i + 1)
	}
	var enc encoder
	enc.put("d", nil, vec)
	if dense := 4 * len(vec); len(enc.buf) > dense/3 {
		t.Fatalf("sparse put of 40 of 484 elements takes %d bytes; dense floats alone are %d", len(enc.buf), dense)
	}
}

// A mask that marks elements past the vector's end is corruption, not a
// longer vector.
func TestLogPutSparseMaskPastEnd(t *testing.T) {
	var enc encoder
	enc.put("d", nil, []float32{0, 0, 0, 0, 0, 0, 0, 0, 0, 1}) // 10 dims: mask of 2 bytes, bit 9 set
	mask := len(enc.buf) - 4 - 2
	enc.buf[mask+1] |= 1 << 7 // element 15 of 10
	err := decodePayload(enc.buf, func(*record) error { return nil })
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v, want ErrCorrupt", err)
	}
}

// Decoding a frame of 512 sparse local-embedder documents, as a cold query
// does for every frame of the log.
func BenchmarkDecodeSparseFrame(b *testing.B) {
	var enc encoder
	e := NewLocal(0)
	for i := range 512 {
		text := devDocs[i%len(devDocs)] + fmt.Sprint(" change ", i)
		v, err := e.Embed(context.Background(), []string{text})
		if err != nil {
			b.Fatal(err)
		}
		enc.put(fmt.Sprint("doc", i), map[string]string{MetaCommit: sha(i), MetaKind: KindCommit}, v[0])
	}
	b.SetBytes(int64(len(enc.buf)))
	b.ReportAllocs()
	for b.Loop() {
		if err := decodePayload(enc.buf, func(*record) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// A reopened index holds what the log's puts, replacements and deletions
// leave, whatever their order: a commit's documents replaced, a commit
// deleted and written again, a rewritten mark set and then cleared.
func TestReplayedIndexMatchesTheWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := openTest(t, dir, NewLocal(0))
	write := func(docs ...Doc) {
		t.Helper()
		if err := ix.Upsert(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	write(commitDoc(1, "cache the parsed config", "performance", 1), noteDoc(1, 0, "parsing dominated startup"),
		commitDoc(2, "retry uploads on timeout", "bugfix", 2), commitDoc(3, "rename the flag", "refactor", 3))
	old := commitDoc(2, "retry uploads on timeout", "bugfix", 2)
	old.Rewritten = true
	write(old)                                                   // 2 marked rewritten
	write(commitDoc(2, "retry uploads on timeout", "bugfix", 2)) // and cleared again
	write(commitDoc(1, "cache the parsed configuration file", "performance", 1))
	if err := ix.DeleteCommits(ctx, sha(3)); err != nil {
		t.Fatal(err)
	}
	if err := ix.DeleteCommits(ctx, sha(1)); err != nil {
		t.Fatal(err)
	}
	write(commitDoc(1, "cache the parsed configuration file", "performance", 1))
	want := mustQuery(t, ix, "config cache", 10, Filter{})
	ix.Close()

	re := openTest(t, dir, NewLocal(0))
	got := mustQuery(t, re, "config cache", 10, Filter{})
	ids := func(hs []Hit) (out []string) {
		for _, h := range hs {
			out = append(out, h.ID)
		}
		return out
	}
	if !slices.Equal(ids(got), ids(want)) || len(got) != 2 {
		t.Fatalf("reopened %v, written %v: want commits 1 and 2, one document each", ids(got), ids(want))
	}
	for i := range got {
		if got[i].Score != want[i].Score {
			t.Errorf("%s: score %v reopened, %v written", got[i].ID, got[i].Score, want[i].Score)
		}
	}
	if n, err := re.Len(ctx); err != nil || n != 2 {
		t.Errorf("Len = %d, %v; want 2 (the note went with commit 1's deletion)", n, err)
	}
}
