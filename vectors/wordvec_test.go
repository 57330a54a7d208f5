package vectors

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
)

// table writes a GMWVEC1 table of the given words and vectors.
func table(t *testing.T, words []string, counts []uint32, rows [][]float32) []byte {
	t.Helper()
	var raw bytes.Buffer
	raw.WriteString("GMWVEC1\n")
	binary.Write(&raw, binary.LittleEndian, uint32(len(words)))
	binary.Write(&raw, binary.LittleEndian, uint32(len(rows[0])))
	for i, w := range words {
		raw.WriteByte(byte(len(w)))
		raw.WriteString(w)
		binary.Write(&raw, binary.LittleEndian, counts[i])
	}
	var scales []float32
	for _, r := range rows {
		m := float32(0)
		for _, x := range r {
			m = max(m, float32(math.Abs(float64(x))))
		}
		for _, x := range r {
			raw.WriteByte(byte(int8(math.Round(float64(x / m * 127)))))
		}
		scales = append(scales, m/127)
	}
	binary.Write(&raw, binary.LittleEndian, scales)
	return raw.Bytes()
}

func TestParseWordVectors(t *testing.T) {
	words := []string{"the", "crash", "panic", "docs"}
	counts := []uint32{1000000, 50, 40, 30}
	rows := [][]float32{{0.1, 0.1, 0.1}, {1, 0.2, 0}, {0.9, 0.3, 0.1}, {0, 0.1, 1}}
	wv, err := parseWordVectors(table(t, words, counts, rows))
	if err != nil {
		t.Fatal(err)
	}
	if wv.dims != 3 || len(wv.index) != 4 || len(wv.id) != 8 {
		t.Fatalf("parsed %d dims, %d words, id %q", wv.dims, len(wv.index), wv.id)
	}
	sent := func(s string) []float32 {
		v := make([]float32, 3)
		if !wv.sentence(s, v) {
			t.Fatalf("%q: no known word", s)
		}
		return v
	}
	cos := func(a, b []float32) float64 {
		return float64(dot(a, b)) / math.Sqrt(float64(dot(a, a))*float64(dot(b, b)))
	}
	// CamelCase splits as the table was built; unknown words and the
	// frequent "the" count for (next to) nothing.
	if c := cos(sent("the Crash"), sent("panicked? PANIC")); c < 0.9 {
		t.Errorf("crash ~ panic: cosine %.3f", c)
	}
	if c := cos(sent("onCrash handler"), sent("the docs")); c > 0.5 {
		t.Errorf("crash ~ docs: cosine %.3f", c)
	}
	if wv.sentence("zebra giraffe", make([]float32, 3)) {
		t.Error("unknown words found")
	}

	good := table(t, words, counts, rows)
	for name, data := range map[string][]byte{
		"magic only":         []byte("GMWVEC1\n"),
		"truncated in words": good[:20],
		"truncated in rows":  good[:len(good)-20],
		"trailing bytes":     append(slices.Clone(good), 0),
		"empty":              table(t, []string{"x"}, []uint32{1}, [][]float32{{1}})[:0],
		"wrong magic":        append([]byte("GMWVEC2\n"), good[8:]...),
		"gzipped":            gzipped(good),
		"no dimensions":      append(slices.Clone(good[:12]), 0, 0, 0, 0),
	} {
		if _, err := parseWordVectors(data); !errors.Is(err, errWordvec) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func gzipped(b []byte) []byte {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b)
	zw.Close()
	return gz.Bytes()
}

// The shipped table must bridge what a user says and what a commit says
// where no word is shared, which the hashed features alone cannot.
func TestLocalBridgesParaphrase(t *testing.T) {
	e := NewLocal(0)
	if e.sem == nil {
		t.Fatalf("no word-vector table: %v", e.err)
	}
	hashOnly := hashLocal(DefaultLocalDims)
	ctx := context.Background()
	for _, tc := range []struct{ question, answer, unrelated string }{
		{"uses less RAM now", "reduce memory footprint", "add a colour option"},
		{"it got much quicker", "improve performance of unique", "document the exit status"},
		{"pretty printed with indentation", "json spaces", "remove the legacy exporter"},
		{"the process hangs forever", "add a timeout to the request", "update the changelog"},
	} {
		for name, emb := range map[string]Embedder{"local": e, "hashed features alone": hashOnly} {
			v, err := emb.Embed(ctx, []string{tc.question, tc.answer, tc.unrelated})
			if err != nil {
				t.Fatal(err)
			}
			near, far := float64(dot(v[0], v[1])), float64(dot(v[0], v[2]))
			if name == "local" && near <= far+0.05 {
				t.Errorf("%q: answer %.3f, unrelated %.3f", tc.question, near, far)
			}
			if name != "local" && near > far+0.05 {
				t.Logf("%q: the hashed features alone relate it too (%.3f against %.3f)", tc.question, near, far)
			}
		}
	}
}
