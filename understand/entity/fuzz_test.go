package entity

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// FuzzEntities parses arbitrary Go and Python sources: no panics, and
// every entity lies within the file with a sane name.
func FuzzEntities(f *testing.F) {
	for _, name := range []string{"sample.go", "sample.py"} {
		f.Add(strings.HasSuffix(name, ".py"), readFixture(f, name))
	}
	f.Add(false, []byte("package p\nfunc (r *T[K, V]) M() {}\ntype (\n\tA struct{}\n"))
	f.Add(false, []byte("func ( {\n}\n}}}"))
	f.Add(true, []byte("class A:\n  def f(self):\n\tpass\n  @d\n  def g(): ...\n"))
	f.Add(true, []byte("def f(:\n    class C(\ndef g(): return 1"))
	var mu sync.Mutex
	p := NewParser()
	f.Cleanup(p.Close)
	f.Fuzz(func(t *testing.T, python bool, src []byte) {
		lang := "Go"
		if python {
			lang = "Python"
		}
		mu.Lock()
		defer mu.Unlock()
		ents, err := p.Entities(context.Background(), lang, "f", "", src)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Count(src, []byte("\n"))
		if len(src) > 0 && src[len(src)-1] != '\n' {
			lines++
		}
		for _, e := range ents {
			if e.StartLine < 1 || e.StartLine > e.EndLine || e.EndLine > lines {
				t.Errorf("%s: lines %d-%d outside 1-%d", e.Qualified, e.StartLine, e.EndLine, lines)
			}
			if e.Name == "" || !strings.HasSuffix(e.Qualified, e.Name) {
				t.Errorf("name %q, qualified %q", e.Name, e.Qualified)
			}
			if utf8.RuneCountInString(e.Signature) > maxSignature {
				t.Errorf("%s: signature of %d runes", e.Qualified, utf8.RuneCountInString(e.Signature))
			}
		}
		if d := Diff(ents, ents, nil); len(d) != 0 {
			t.Errorf("a version diffed with itself has changes: %v", d)
		}
		again, err := p.Entities(context.Background(), lang, "f", "", src)
		if err != nil || !slices.Equal(ents, again) {
			t.Errorf("second parse differs: %v", err)
		}
	})
}
