package vectors

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

// A put stores each element in a byte: the decoded vector is within
// 1/127 of the largest element of the original, its zeros stay zeros,
// and it encodes to the very same bytes again, so that compacting a log
// changes nothing it holds.
func TestLogPutQuantRoundTrip(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, tc := range []struct {
		name string
		vec  []float32
	}{
		{"mostly zeros", []float32{0, 0, 0.5, 0, 0, 0, 0, 0, 0, 0, -0.25, 0, 0}},
		{"negative zero", []float32{negZero, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
		{"all zeros", make([]float32, 384)},
		{"dense", []float32{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}},
		{"a power of two largest", []float32{0.25, -0.125, 0.0001, 0.03}},
		{"tiny", []float32{1e-30, -3e-31, 0, 2e-32}},
		{"large", []float32{1e20, -5e19, 1}},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var enc encoder
			enc.put("doc", map[string]string{MetaCommit: "c"}, tc.vec)
			if op := enc.buf[0]; op != opPutQuant {
				t.Fatalf("op %d, want %d", op, opPutQuant)
			}
			r := decodeOne(t, enc.buf)
			if r.op != opPut || r.id != "doc" || r.meta[MetaCommit] != "c" || len(r.vec) != len(tc.vec) {
				t.Fatalf("decoded %+v", r)
			}
			var largest float64
			for _, x := range tc.vec {
				largest = max(largest, math.Abs(float64(x)))
			}
			for i, x := range tc.vec {
				if d := math.Abs(float64(r.vec[i] - x)); d > largest/127 || x == 0 && r.vec[i] != 0 {
					t.Fatalf("element %d: %v, want %v within %v", i, r.vec[i], x, largest/127)
				}
			}
			var again encoder
			again.put("doc", map[string]string{MetaCommit: "c"}, r.vec)
			if r2 := decodeOne(t, again.buf); !slices.Equal(r2.vec, r.vec) {
				t.Fatalf("decoded again %v, first %v", r2.vec, r.vec)
			}
		})
	}
}

func decodeOne(t *testing.T, payload []byte) record {
	t.Helper()
	var got []record
	err := decodePayload(payload, func(r *record) error { got = append(got, *r); return nil })
	if err != nil || len(got) != 1 {
		t.Fatalf("decode: %v, %d records", err, len(got))
	}
	return got[0]
}

// Logs written by older builds hold dense (op 1) and sparse (op 3) puts
// of float32s: they replay bit for bit, negative zero included.
func TestLogReadsOlderPuts(t *testing.T) {
	vec := []float32{float32(math.Copysign(0, -1)), 0, 0.5, 0, 0, 0, 0, 0, 0, -0.1}
	for _, op := range []byte{opPut, opPutSparse} {
		payload := legacyPut(op, "doc", vec)
		r := decodeOne(t, payload)
		if r.op != opPut || r.id != "doc" || len(r.vec) != len(vec) {
			t.Fatalf("op %d decoded %+v", op, r)
		}
		for i := range vec {
			if math.Float32bits(r.vec[i]) != math.Float32bits(vec[i]) {
				t.Fatalf("op %d element %d: %v, want %v", op, i, r.vec[i], vec[i])
			}
		}
	}
}

// legacyPut encodes a put as builds before the quantized op did: op 1
// with every float, op 3 with a mask of the non-zero bit patterns.
func legacyPut(op byte, id string, vec []float32) []byte {
	e := encoder{buf: []byte{op}}
	e.str(id)
	e.buf = binary.AppendUvarint(e.buf, 0)
	e.buf = binary.AppendUvarint(e.buf, uint64(len(vec)))
	if op == opPut {
		for _, x := range vec {
			e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(x))
		}
		return e.buf
	}
	mask := len(e.buf)
	e.buf = append(e.buf, make([]byte, maskBytes(len(vec)))...)
	for i, x := range vec {
		if b := math.Float32bits(x); b != 0 {
			e.buf[mask+i/8] |= 1 << (i % 8)
			e.buf = binary.LittleEndian.AppendUint32(e.buf, b)
		}
	}
	return e.buf
}

func TestLogPutSmaller(t *testing.T) {
	vec := make([]float32, 484)
	for i := 0; i < 40; i++ {
		vec[i*9] = float32(i + 1)
	}
	var enc encoder
	enc.put("d", nil, vec)
	if dense := 4 * len(vec); len(enc.buf) > dense/16 {
		t.Fatalf("a put of 40 of 484 elements takes %d bytes; dense floats alone are %d", len(enc.buf), dense)
	}
}

// A mask that marks elements past the vector's end is corruption, not a
// longer vector.
func TestLogPutMaskPastEnd(t *testing.T) {
	for _, op := range []byte{opPutSparse, opPutQuant} {
		vec := []float32{0, 0, 0, 0, 0, 0, 0, 0, 0, 1} // 10 dims: mask of 2 bytes, bit 9 set
		var buf []byte
		var mask int
		if op == opPutSparse {
			buf = legacyPut(op, "d", vec)
			mask = len(buf) - 4 - 2
		} else {
			var enc encoder
			enc.put("d", nil, vec)
			buf = enc.buf
			mask = len(buf) - 1 - 1 - 2 // one stored byte, a one-byte exponent
		}
		buf[mask+1] |= 1 << 7 // element 15 of 10
		err := decodePayload(buf, func(*record) error { return nil })
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("op %d: got %v, want ErrCorrupt", op, err)
		}
	}
}

// Decoding a frame of 512 local-embedder documents, as a cold query
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
