package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// codeFixture is a small Go module: a library package with a function and
// an interface, and a main package that imports it, calls the function
// and implements the interface.
func codeFixture(t *testing.T) *gittest.Repo {
	g := gittest.New(t)
	g.Write("go.mod", "module example.com/shapes\n")
	g.Write("lib/lib.go", "package lib\n\ntype Shape interface {\n\tArea() int\n}\n\nfunc Scale(n int) int {\n\treturn 2 * n\n}\n")
	g.Write("main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/shapes/lib\"\n)\n\ntype Square struct{ n int }\n\n"+
		"func (s *Square) Area() int { return lib.Scale(s.n) }\n\nfunc main() {\n\ts := &Square{n: 2}\n\tfmt.Println(s.Area())\n}\n")
	g.Commit("feat: squares")
	return g
}

// TestStatusCountsCode: status counts the code relationships, in text and
// JSON.
func TestStatusCountsCode(t *testing.T) {
	home := t.TempDir()
	g := codeFixture(t)
	mustCLI(t, home, "add", g.Dir, "--name", "shapes")
	mustCLI(t, home, "sync", "shapes")
	var st struct {
		Code struct{ Calls, Imports, Implements, Extends int } `json:"code_relations"`
	}
	out := mustCLI(t, home, "status", "shapes", "--format", "json")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// Area → Scale, main → Area; main.go → fmt and → lib; Square → Shape.
	if st.Code.Calls != 2 || st.Code.Imports != 2 || st.Code.Implements != 1 || st.Code.Extends != 0 {
		t.Errorf("code relationships %+v, want 2 calls, 2 imports, 1 implements", st.Code)
	}
	if text := mustCLI(t, home, "status", "shapes"); !strings.Contains(text, "code graph:  2 calls, 2 imports, 1 implements, 0 extends") {
		t.Errorf("status:\n%s", text)
	}
}

// TestEntityShowsCode: entity lists callers, callees, importers and types.
func TestEntityShowsCode(t *testing.T) {
	home := t.TempDir()
	g := codeFixture(t)
	mustCLI(t, home, "add", g.Dir, "--name", "shapes")
	mustCLI(t, home, "sync", "shapes")
	var r struct {
		Code struct {
			Callers, Callees, Importers, Derived []struct{ ID, Basis string }
		} `json:"code"`
	}
	out := mustCLI(t, home, "entity", "Scale", "--repo", "shapes", "--format", "json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(r.Code.Callers) != 1 || r.Code.Callers[0].ID != "entity:main.go#main.Square.Area" ||
		len(r.Code.Importers) != 1 || r.Code.Importers[0].ID != "file:main.go" {
		t.Errorf("Scale's code: %+v", r.Code)
	}
	text := mustCLI(t, home, "entity", "Area", "--repo", "shapes")
	for _, want := range []string{"callers (1):\n    main.go#main.main", "calls (1):\n    lib/lib.go#lib.Scale"} {
		if !strings.Contains(text, want) {
			t.Errorf("entity Area lacks %q:\n%s", want, text)
		}
	}
	text = mustCLI(t, home, "entity", "Shape", "--repo", "shapes", "--format", "markdown")
	if !strings.Contains(text, "### Extended or implemented by (1)\n\n- `main.go#main.Square  (implements)`") {
		t.Errorf("entity Shape:\n%s", text)
	}
}
