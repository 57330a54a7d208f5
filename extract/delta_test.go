package extract

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// Real deltas, made by go-git's delta encoder from edited texts, rebuild
// their targets.
func TestPatchDeltaRebuildsTargets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		base := randomText(r, 1+r.IntN(300_000))
		target := editText(r, base)
		delta := packfile.DiffDelta(base, target)
		got, err := patchDelta(base, delta)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !bytes.Equal(got, target) {
			t.Fatalf("case %d: rebuilt %d bytes, want %d", i, len(got), len(target))
		}
		if cap(got) != len(target) {
			t.Fatalf("case %d: allocated %d bytes for %d", i, cap(got), len(target))
		}
	}
}

// Any input gives what go-git's PatchDelta gives: the same bytes, or an
// error when it errs.
func FuzzPatchDelta(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		base := randomText(r, 1+r.IntN(2000))
		f.Add(base, packfile.DiffDelta(base, editText(r, base)))
	}
	f.Add([]byte("x"), []byte{1, 0})
	f.Add([]byte("abc"), []byte{3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80})
	f.Add([]byte("abc"), []byte{3, 5, 0x90, 3, 2, 'x', 'y'})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		want, werr := packfile.PatchDelta(base, delta)
		got, err := patchDelta(base, delta)
		if (err != nil) != (werr != nil) {
			t.Fatalf("error %v, go-git's %v", err, werr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("%d bytes, go-git's %d", len(got), len(want))
		}
	})
}

func randomText(r *rand.Rand, n int) []byte {
	words := []string{"static ", "int ", "return ", "foo", "(bar)", ";\n", "{\n", "}\n", "\t", "if ", "x = y + 1"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.Bytes()[:n]
}

// editText returns text with a few spans deleted, replaced or inserted.
func editText(r *rand.Rand, text []byte) []byte {
	out := append([]byte(nil), text...)
	for range 1 + r.IntN(6) {
		at := r.IntN(len(out) + 1)
		cut := min(r.IntN(200), len(out)-at)
		ins := randomText(r, r.IntN(300))
		out = append(out[:at:at], append(ins, out[at+cut:]...)...)
	}
	return out
}
