package entity

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestParserSourceReusesBuffers: a parser's sources share their buffers,
// and what each returns is what a source of its own returns, even after
// the next sources have overwritten the buffers; the previous source
// itself can no longer be used.
func TestParserSourceReusesBuffers(t *testing.T) {
	versions := []struct{ lang, src string }{
		{"Go", "package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\ntype I interface {\n\tRun(n int) error\n}\n\nfunc A() { fmt.Println(os.Args); B(1) }\n\nfunc B(n int) { A() }\n"},
		{"C", strings.Repeat("/* a long header comment */\n", 400) + "#include \"cache.h\"\n#include <stdio.h>\n\nint f(void)\n{\n\treturn g(h(1));\n}\n"},
		{"Python", "import os\nfrom . import util\n\ndef run(x):\n    util.go(x)\n    os.exit(len(x))\n"},
		{"Go", "package q\n\nimport \"strings\"\n\nfunc C(s string) string { return strings.ToUpper(D(s)) }\n"},
	}
	ctx := context.Background()
	read := func(s *Source, lang, src string) string {
		p := NewParser()
		defer p.Close()
		ents, err := p.Entities(ctx, lang, "f", "", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		out := fmt.Sprint(s.Imports(0))
		for _, e := range ents {
			out += fmt.Sprint(e.Name, s.Calls(e, spansOf(ents)))
			if e.Kind == KindInterface {
				m, embeds, ok := s.InterfaceSpec(e)
				out += fmt.Sprint(m, embeds, ok)
			}
		}
		return out
	}
	var want []string
	for _, v := range versions {
		s, _ := NewSource(v.lang, []byte(v.src))
		want = append(want, read(s, v.lang, v.src))
	}
	p := NewParser()
	defer p.Close()
	var got []string
	var prev *Source
	for round := 0; round < 2; round++ {
		for _, v := range versions {
			s, ok := p.Source(v.lang, []byte(v.src))
			if !ok {
				t.Fatalf("no scanner for %s", v.lang)
			}
			got = append(got, read(s, v.lang, v.src))
			if prev != nil && (prev.lines != nil || prev.toks != nil || prev.src != nil) {
				t.Fatal("the previous source still holds the buffers the new one uses")
			}
			prev = s
		}
	}
	for i, g := range got {
		if w := want[i%len(want)]; g != w {
			t.Errorf("version %d read through the parser's buffers:\n%s\nalone:\n%s", i%len(want), g, w)
		}
	}
	if !strings.Contains(want[0], "Run") || !strings.Contains(want[1], "cache.h") || !strings.Contains(want[3], "ToUpper") {
		t.Fatalf("the versions did not read as expected: %q", want)
	}
	old, _ := p.Source("Go", []byte(versions[0].src))
	p.Source("Go", []byte(versions[3].src))
	for name, use := range map[string]func(){
		"Imports": func() { old.Imports(0) },
		"Calls":   func() { old.Calls(Entity{Kind: KindFunction, StartLine: 12, EndLine: 12}, nil) },
		"Impls":   func() { old.Impls() },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s on a source used after the parser's next Source did not fail", name)
				}
			}()
			use()
		}()
	}
}
