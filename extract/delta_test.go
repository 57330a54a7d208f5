package extract

import (
	"bytes"
	"errors"
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

// Each malformed delta is refused with go-git's error, before any result.
func TestPatchDeltaRejects(t *testing.T) {
	base := []byte("0123456789")
	for _, tc := range []struct {
		name        string
		base, delta []byte
		want        error
	}{
		{"empty base", nil, []byte{0, 0}, packfile.ErrInvalidDelta},
		{"short delta", base, []byte{10}, packfile.ErrInvalidDelta},
		{"base size differs", base, []byte{9, 1, 1, 'x'}, packfile.ErrInvalidDelta},
		{"size too long for a uint", base, []byte{10, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, packfile.ErrLengthOverflow},
		{"target no command can reach", base, []byte{10, 0xff, 0xff, 0x7f, 0x90, 4}, packfile.ErrInvalidDelta},
		{"reserved command 0", base, []byte{10, 2, 0}, packfile.ErrDeltaCmd},
		{"copy past the base", base, []byte{10, 4, 0x91, 8, 4}, packfile.ErrInvalidDelta},
		{"copy past the target", base, []byte{10, 2, 0x90, 4}, packfile.ErrInvalidDelta},
		{"copy with its offset cut", base, []byte{10, 2, 0x83, 1}, packfile.ErrInvalidDelta},
		{"insert cut short", base, []byte{10, 3, 3, 'a'}, packfile.ErrInvalidDelta},
		{"commands run out", base, []byte{10, 3, 1, 'a'}, packfile.ErrInvalidDelta},
		{"bytes after the target", base, []byte{10, 1, 1, 'a', 1, 'b'}, packfile.ErrInvalidDelta},
	} {
		got, err := patchDelta(tc.base, tc.delta)
		if !errors.Is(err, tc.want) || got != nil {
			t.Errorf("%s: %q, %v; want nil, %v", tc.name, got, err, tc.want)
		}
		if _, werr := packfile.PatchDelta(tc.base, tc.delta); werr == nil {
			t.Errorf("%s: go-git accepts it", tc.name)
		}
	}
}
