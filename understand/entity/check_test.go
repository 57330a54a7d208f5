package entity

import (
	"context"
	"strings"
	"testing"
)

// TestCheckCounts runs Changes over a C file's history with SetCheck:
// every derived version is counted and none differs from a whole parse;
// a state compared with another source's parse is counted as differing.
func TestCheckCounts(t *testing.T) {
	ctx := context.Background()
	p := NewParser()
	defer p.Close()
	p.SetLineDiff(lineDiff)
	p.SetCheck(true)
	src := "#include <stdio.h>\n\nstatic int one(int x)\n{\n\treturn x + 1;\n}\n\nstatic int two(int x)\n{\n\treturn x + 2;\n}\n"
	edits := []struct{ from, to string }{
		{"x + 1", "x * 1"},
		{"static int two", "static int three(int y)\n{\n\treturn y;\n}\n\nstatic int two"},
		{"static int one(int x)", "static int one(int x UNUSED)"},
	}
	prev := version("f.c", []byte(src))
	if _, err := p.Changes(ctx, "C", Version{Path: "f.c"}, prev, nil); err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		src = strings.Replace(src, e.from, e.to, 1)
		next := version("f.c", []byte(src))
		if _, err := p.Changes(ctx, "C", prev, next, lineDiff(prev.Src, next.Src)); err != nil {
			t.Fatal(err)
		}
		prev = next
	}
	if got := p.Checked(); got.Derived != len(edits) || got.Differing != 0 {
		t.Errorf("after %d edits: %+v, want %d derived, none differing", len(edits), got, len(edits))
	}

	other, err := p.buildState(ctx, languages["C"], []byte("int f(void) { return 0; }\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.release()
	p.checkDerived(ctx, languages["C"], other, []byte(src))
	if got := p.Checked(); got.Derived != len(edits)+1 || got.Differing != 1 {
		t.Errorf("after a wrong state: %+v, want %d derived, 1 differing", got, len(edits)+1)
	}
}
