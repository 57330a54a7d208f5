package vectors

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Any bytes after the magic either replay or fail with an error: no
// panic, no allocation beyond the input's size.
func FuzzScanLog(f *testing.F) {
	var enc encoder
	enc.put(CommitID(sha(1)), map[string]string{MetaKind: KindCommit, MetaCommit: sha(1)}, []float32{0.6, 0.8})
	enc.delCommit(sha(2))
	f.Add(enc.frame())
	enc = encoder{}
	enc.put(CommitID(sha(3)), map[string]string{MetaCommit: sha(3)}, []float32{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Add(enc.frame())
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "log")
		if err := os.WriteFile(path, append([]byte(logMagic), data...), 0o600); err != nil {
			t.Fatal(err)
		}
		valid, size, err := replayLog(path, func(r *record) error {
			if r.op == opPut && len(r.vec) > 8*len(data) { // a sparse put spends a bit per element
				t.Fatalf("vector of %d dims from %d bytes", len(r.vec), len(data))
			}
			return nil
		})
		if err == nil && (valid > size || valid < int64(len(logMagic))) {
			t.Fatalf("valid %d of %d", valid, size)
		}
		fh, oerr := os.OpenFile(path, os.O_RDWR, 0)
		if oerr != nil {
			t.Fatal(oerr)
		}
		defer fh.Close()
		if v2, err2 := validPrefix(fh); (err2 == nil) != (err == nil) || err == nil && v2 != valid {
			t.Fatalf("validPrefix %d, %v; replay %d, %v", v2, err2, valid, err)
		}
	})
}

// Any text embeds to a unit vector of the configured size.
func FuzzLocalEmbed(f *testing.F) {
	for _, s := range append(append([]string{}, devDocs...), "HTTPServer_v2", "ошибкаПарсера", "\xff\xfe", "___", "a1b2c3d4e5f6") {
		f.Add(s)
	}
	e := NewLocal(64)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := e.Embed(context.Background(), []string{s})
		if err != nil {
			return // blank
		}
		if len(v[0]) != e.Dims() || math.Abs(norm(v[0])-1) > 1e-4 {
			t.Fatalf("%q: %d dims, norm %v", s, len(v[0]), norm(v[0]))
		}
	})
}

// splitIdent slices the word by its runes; it must split exactly as its
// first version did, over a []rune copy.
func FuzzSplitIdent(f *testing.F) {
	for _, s := range []string{"parseConfig", "HTTPServer", "sha256sum", "_a__b_", "getURLForID", "A1b2C3", "ABc",
		"ÉtatCivil", "πΣω_Ab", "конфигФайл2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		if !utf8.ValidString(w) {
			return // words come from analyze, which never yields invalid UTF-8
		}
		if got, want := splitIdent(w), splitIdentRunes(w); !slices.Equal(got, want) {
			t.Fatalf("%q: %q, over runes %q", w, got, want)
		}
	})
}

// splitIdentRunes is splitIdent as first written, the oracle.
func splitIdentRunes(w string) []string {
	var parts []string
	rs := []rune(w)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, string(rs[start:end]))
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev),
			unicode.IsDigit(r) != unicode.IsDigit(prev),
			unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return parts
}
