package extract

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSignatureScores: the share of the larger file's bytes found in
// both, out of maxScore, with a CR before an LF not counted in text, and a
// destination's table, loaded after another's, holding its own counts
// only. The hasher and the table are reused as a sync reuses them.
func TestSignatureScores(t *testing.T) {
	var h sigHasher
	var tab sigTable
	// Ten lines of 12 bytes, the first shared.
	seven, three := sharedLines("aaa", 7), sharedLines("bbb", 3)
	crlf := strings.ReplaceAll(seven, "\n", "\r\n")
	half := sharedLines("ccc", 10)[:60] // five of the ten lines
	for _, tc := range []struct {
		name     string
		src, dst string
		want     int
	}{
		{"identical", seven, seven, maxScore},
		{"seven of ten lines", seven, sharedLines("zzz", 10), maxScore * 7 / 10},
		{"three of ten lines", three, seven, maxScore * 3 / 10},
		// The CRs are not hashed, but count in the size.
		{"CRLF hashed as LF", crlf, seven, maxScore * 120 / 130},
		{"half the size", half, sharedLines("ddd", 10), maxScore / 2},
		{"sizes too far apart", half[:36], sharedLines("ddd", 10), 0},
		{"empty destination", "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab.load(h.signature([]byte(tc.dst)))
			if got := tab.score(h.signature([]byte(tc.src))); got != tc.want {
				t.Errorf("score %d, want %d", got, tc.want)
			}
		})
	}
}

// TestSignatureReuse: a signature built after others, and a score against
// a table that held other destinations, are those of a fresh hasher and
// table, and agree with merging the two files' sorted spans.
func TestSignatureReuse(t *testing.T) {
	var texts [][]byte
	for i := range 6 {
		var b strings.Builder
		for j := range 40 + 13*i {
			fmt.Fprintf(&b, "line %d of a text, %d\n", (j*(i+1))%29, j%3)
		}
		texts = append(texts, []byte(b.String()))
	}
	var used sigHasher
	var tab sigTable
	partial := 0
	for _, dst := range texts {
		for _, src := range texts {
			var fresh sigHasher
			a, b := used.signature(src), fresh.signature(src)
			if a.size != b.size || !slices.Equal(a.spans, b.spans) {
				t.Fatalf("reused hasher: %v, fresh: %v", a, b)
			}
			d := used.signature(dst)
			tab.load(d)
			var clean sigTable
			clean.load(d)
			got, want := tab.score(a), clean.score(a)
			if got != want || got != mergeScore(a, d) {
				t.Errorf("score %d after other tables, %d fresh, %d merged", got, want, mergeScore(a, d))
			}
			partial += b2i(got > 0 && got < maxScore)
		}
	}
	if partial == 0 {
		t.Error("no two texts share only some lines: the test checks little")
	}
}

// mergeScore scores two signatures by merging their spans sorted by hash.
func mergeScore(src, dst *signature) int {
	big, small := max(src.size, dst.size), min(src.size, dst.size)
	if dst.size == 0 || big*(maxScore-minScore) < (big-small)*maxScore {
		return 0
	}
	byHash := func(a, b hashSpan) int { return int(a.hash) - int(b.hash) }
	s, d := slices.SortedFunc(slices.Values(src.spans), byHash), slices.SortedFunc(slices.Values(dst.spans), byHash)
	copied := 0
	for len(s) > 0 && len(d) > 0 {
		switch {
		case s[0].hash < d[0].hash:
			s = s[1:]
		case s[0].hash > d[0].hash:
			d = d[1:]
		default:
			copied += int(min(s[0].cnt, d[0].cnt))
			s, d = s[1:], d[1:]
		}
	}
	return copied * maxScore / big
}

// TestSignaturePieces: signatures equal git's hash_chars, written here
// byte by byte as git does, on texts with and without CRs (before an LF
// or alone), lines longer than a piece, a last line without a newline,
// and binary data, whose CRs are all hashed.
func TestSignaturePieces(t *testing.T) {
	long := strings.Repeat("0123456789", 20)
	inputs := map[string]string{
		"empty":           "",
		"lines":           "a\nbb\n\nccc\n",
		"no last newline": "a\nbb",
		"long lines":      long + "\nx\n" + long[:64] + "\n" + long[:63] + "\n" + long[:65],
		"CRLF":            "a\r\nbb\r\n" + long + "\r\n",
		"lone CR":         "a\rb\r\r\nc\r",
		"CR at 64":        long[:63] + "\r\n" + long[:64] + "\r\n",
		"binary":          "a\x00b\r\nc\r\n" + long,
	}
	var h sigHasher
	for name, in := range inputs {
		got := h.signature([]byte(in))
		want := gitHashChars([]byte(in))
		byHash := func(a, b hashSpan) int { return int(a.hash) - int(b.hash) }
		if got.size != len(in) || !slices.Equal(slices.SortedFunc(slices.Values(got.spans), byHash), want) {
			t.Errorf("%s: %v, want %v", name, got.spans, want)
		}
	}
}

// gitHashChars is diffcore-delta.c's hash_chars, with its counts summed by
// hash and sorted.
func gitHashChars(data []byte) []hashSpan {
	counts := map[uint32]uint32{}
	text := !isBinary(data)
	var accum1, accum2 uint32
	n := uint32(0)
	for i := 0; i < len(data); i++ {
		c := uint32(data[i])
		if text && c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		old1 := accum1
		accum1 = (accum1 << 7) ^ (accum2 >> 25)
		accum2 = (accum2 << 7) ^ (old1 >> 25)
		accum1 += c
		n++
		if n < 64 && c != '\n' {
			continue
		}
		counts[(accum1+accum2*0x61)%hashBase] += n
		n, accum1, accum2 = 0, 0, 0
	}
	if n > 0 {
		counts[(accum1+accum2*0x61)%hashBase] += n
	}
	var spans []hashSpan
	for k, c := range counts {
		spans = append(spans, hashSpan{k, c})
	}
	slices.SortFunc(spans, func(a, b hashSpan) int { return int(a.hash) - int(b.hash) })
	return spans
}
