package entity

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestSourceRelease: a released source's buffers serve the next sources,
// and neither what the released source returned nor what the next ones
// return changes: each version reads as it reads alone.
func TestSourceRelease(t *testing.T) {
	srcs := []struct{ lang, src string }{
		{"Go", "package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc A() { fmt.Println(os.Args); B(1) }\n\nfunc B(n int) { A() }\n"},
		{"Python", "import os\nfrom . import util\n\ndef run(x):\n    util.go(x)\n    os.exit(len(x))\n"},
		{"C", strings.Repeat("/* a long header comment */\n", 400) + "#include \"cache.h\"\n\nint f(void)\n{\n\treturn g(h(1));\n}\n"},
	}
	read := func(lang, src string) string {
		p := NewParser()
		defer p.Close()
		ents, err := p.Entities(context.Background(), lang, "f", "", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		s, ok := NewSource(lang, []byte(src))
		if !ok {
			t.Fatalf("no scanner for %s", lang)
		}
		defer s.Release()
		out := fmt.Sprint(s.Imports(0))
		for _, e := range ents {
			out += fmt.Sprint(e.Name, s.Calls(e, ents))
		}
		return out
	}
	// Results kept across releases, and compared with a second reading.
	first := make([]string, len(srcs))
	for i, c := range srcs {
		first[i] = read(c.lang, c.src)
		if !strings.Contains(first[i], "(") && !strings.Contains(first[i], "{") {
			t.Fatalf("%s: nothing read: %s", c.lang, first[i])
		}
	}
	for round := 0; round < 3; round++ {
		for i := len(srcs) - 1; i >= 0; i-- {
			if got := read(srcs[i].lang, srcs[i].src); got != first[i] {
				t.Errorf("%s read after other sources' releases:\n got %s\nwant %s", srcs[i].lang, got, first[i])
			}
		}
	}
	var kept []Import
	s, _ := NewSource("Go", []byte(srcs[0].src))
	kept = s.Imports(0)
	want := fmt.Sprint(kept)
	s.Release()
	other, _ := NewSource("Go", []byte("package q\n\nimport \"strings\"\n"))
	other.Imports(0)
	other.Release()
	if got := fmt.Sprint(kept); got != want || !strings.Contains(got, "fmt") {
		t.Errorf("imports changed after their source's release: %s, want %s", got, want)
	}
}
