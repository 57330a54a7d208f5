package indexer

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// relFixture is a small program in one language: a library file with a
// base class (or interface) and a helper, and a main file that imports
// it, extends the class and calls the helper, its own methods and a local
// function. after is the main file without the local function and its
// call; want the relationships (KIND from -> to, keys without the
// "entity:" prefix) at the end.
type relFixture struct {
	lang  string
	files map[string]string
	main  string
	after string
	want  []string
	// gone is a relationship the second commit removes.
	gone string
}

var relFixtures = []relFixture{
	{lang: "Go", files: map[string]string{
		"go.mod":     "module example.com/m\n",
		"lib/lib.go": "package lib\n\ntype Shape interface {\n\tArea() int\n}\n\nfunc Helper() int { return 1 }\n",
	}, main: "main.go",
		after: "package main\n\nimport \"example.com/m/lib\"\n\ntype Square struct{ n int }\n\nfunc (s *Square) Area() int { return s.n * lib.Helper() }\n\nfunc run() int {\n\ts := &Square{}\n\treturn s.Area()\n}\n",
		want: []string{
			"CALLS main.go#main.Square.Area -> lib/lib.go#lib.Helper",
			"CALLS main.go#main.run -> main.go#main.Square.Area",
			"IMPLEMENTS main.go#main.Square -> lib/lib.go#lib.Shape",
			"IMPORTS file:main.go -> module:./lib",
		}, gone: "CALLS main.go#main.run -> main.go#main.local"},
	{lang: "Python", files: map[string]string{
		"lib/shapes.py": "class Base:\n    def area(self):\n        return 0\n\n\ndef helper():\n    return 1\n",
	}, main: "main.py",
		after: "from lib.shapes import Base, helper\n\n\nclass Square(Base):\n    def area(self):\n        return helper() + self.side()\n\n    def side(self):\n        return 2\n\n\ndef run():\n    s = Square()\n    return s.area()\n",
		want: []string{
			"CALLS main.py#Square.area -> lib/shapes.py#helper",
			"CALLS main.py#Square.area -> main.py#Square.side",
			"CALLS main.py#run -> main.py#Square.area",
			"EXTENDS main.py#Square -> lib/shapes.py#Base",
			"IMPORTS file:main.py -> file:lib/shapes.py",
		}, gone: "CALLS main.py#run -> main.py#local"},
	{lang: "JavaScript", files: map[string]string{
		"lib/shapes.js": "class Base {\n  area() { return 0; }\n}\n\nfunction helper() { return 1; }\n\nmodule.exports = { Base, helper };\n",
	}, main: "main.js",
		after: "const { Base, helper } = require('./lib/shapes');\n\nclass Square extends Base {\n  constructor() { super(); this.n = 2; }\n  area() { return helper() + this.side(); }\n  side() { return this.n; }\n}\n\nfunction run() {\n  const s = new Square();\n  return s.area();\n}\n",
		want: []string{
			"CALLS main.js#Square.area -> lib/shapes.js#helper",
			"CALLS main.js#Square.area -> main.js#Square.side",
			"CALLS main.js#run -> main.js#Square.area",
			"CALLS main.js#run -> main.js#Square.constructor",
			"EXTENDS main.js#Square -> lib/shapes.js#Base",
			"IMPORTS file:main.js -> file:lib/shapes.js",
		}, gone: "CALLS main.js#run -> main.js#local"},
	{lang: "TypeScript", files: map[string]string{
		"lib/shapes.ts": "export interface Shape {\n  area(): number;\n}\n\nexport class Base {\n  area(): number { return 0; }\n}\n\nexport function helper(): number { return 1; }\n",
	}, main: "main.ts",
		after: "import { Base, Shape, helper } from './lib/shapes';\n\nexport class Square extends Base implements Shape {\n  area(): number { return helper() + this.side(); }\n  side(): number { return 2; }\n}\n\nexport function run(): number {\n  const s: Square = new Square();\n  return s.area();\n}\n",
		want: []string{
			"CALLS main.ts#Square.area -> lib/shapes.ts#helper",
			"CALLS main.ts#Square.area -> main.ts#Square.side",
			"CALLS main.ts#run -> main.ts#Square.area",
			"EXTENDS main.ts#Square -> lib/shapes.ts#Base",
			"IMPLEMENTS main.ts#Square -> lib/shapes.ts#Shape",
			"IMPORTS file:main.ts -> file:lib/shapes.ts",
		}, gone: "CALLS main.ts#run -> main.ts#local"},
	{lang: "Java", files: map[string]string{
		"src/lib/Base.java":  "package lib;\n\npublic class Base {\n  public int area() { return 0; }\n  public static int helper() { return 1; }\n}\n",
		"src/lib/Shape.java": "package lib;\n\npublic interface Shape {\n  int area();\n}\n",
	}, main: "src/app/Square.java",
		after: "package app;\n\nimport lib.Base;\nimport lib.Shape;\n\npublic class Square extends Base implements Shape {\n  public int area() { return Base.helper() + side(); }\n  int side() { return 2; }\n  static int run() {\n    Square s = new Square();\n    return s.area();\n  }\n}\n",
		want: []string{
			"CALLS src/app/Square.java#app.Square.area -> src/app/Square.java#app.Square.side",
			"CALLS src/app/Square.java#app.Square.area -> src/lib/Base.java#lib.Base.helper",
			"CALLS src/app/Square.java#app.Square.run -> src/app/Square.java#app.Square.area",
			"EXTENDS src/app/Square.java#app.Square -> src/lib/Base.java#lib.Base",
			"IMPLEMENTS src/app/Square.java#app.Square -> src/lib/Shape.java#lib.Shape",
			"IMPORTS file:src/app/Square.java -> file:src/lib/Base.java",
			"IMPORTS file:src/app/Square.java -> file:src/lib/Shape.java",
		}, gone: "CALLS src/app/Square.java#app.Square.run -> src/app/Square.java#app.Square.local"},
	{lang: "C", files: map[string]string{
		"lib.h": "int helper(void);\n",
		"lib.c": "#include \"lib.h\"\n\nint helper(void)\n{\n\treturn 1;\n}\n\nstatic int twice(int x)\n{\n\treturn 2 * x;\n}\n",
	}, main: "main.c",
		after: "#include \"lib.h\"\n\nstatic int twice(int x)\n{\n\treturn x + x;\n}\n\nint run(void)\n{\n\treturn twice(helper());\n}\n",
		want: []string{
			"CALLS main.c#run -> lib.c#helper",
			"CALLS main.c#run -> main.c#twice",
			"IMPORTS file:lib.c -> file:lib.h",
			"IMPORTS file:main.c -> file:lib.h",
		}, gone: "CALLS main.c#run -> main.c#local"},
	{lang: "C++", files: map[string]string{
		"shape.h":   "#pragma once\nclass Base {\npublic:\n  virtual int area() { return 0; }\n};\nint helper();\n",
		"shape.cpp": "#include \"shape.h\"\n\nint helper() {\n  return 1;\n}\n",
	}, main: "main.cpp",
		after: "#include \"shape.h\"\n\nclass Square : public Base {\npublic:\n  int area() override { return helper() + side(); }\n  int side() { return 2; }\n};\n\nint run() {\n  Square s;\n  return s.area();\n}\n",
		want: []string{
			"CALLS main.cpp#Square.area -> main.cpp#Square.side",
			"CALLS main.cpp#Square.area -> shape.cpp#helper",
			"CALLS main.cpp#run -> main.cpp#Square.area",
			"EXTENDS main.cpp#Square -> shape.h#Base",
			"IMPORTS file:main.cpp -> file:shape.h",
			"IMPORTS file:shape.cpp -> file:shape.h",
		}, gone: "CALLS main.cpp#run -> main.cpp#local"},
	{lang: "Rust", files: map[string]string{
		"src/shapes.rs": "pub trait Shape {\n    fn area(&self) -> i32;\n}\n\npub fn helper() -> i32 {\n    1\n}\n",
	}, main: "src/lib.rs",
		after: "mod shapes;\n\nuse crate::shapes::{Shape, helper};\n\npub struct Square {\n    n: i32,\n}\n\nimpl Shape for Square {\n    fn area(&self) -> i32 {\n        helper() + self.side()\n    }\n}\n\nimpl Square {\n    fn side(&self) -> i32 {\n        self.n\n    }\n}\n\npub fn run() -> i32 {\n    let s = Square { n: 2 };\n    s.area()\n}\n",
		want: []string{
			"CALLS src/lib.rs#Square.area -> src/lib.rs#Square.side",
			"CALLS src/lib.rs#Square.area -> src/shapes.rs#helper",
			"CALLS src/lib.rs#run -> src/lib.rs#Square.area",
			"IMPLEMENTS src/lib.rs#Square -> src/shapes.rs#Shape",
			"IMPORTS file:src/lib.rs -> file:src/shapes.rs",
		}, gone: "CALLS src/lib.rs#run -> src/lib.rs#local"},
	{lang: "Ruby", files: map[string]string{
		"lib/base.rb": "class Base\n  def area\n    0\n  end\nend\n\ndef helper\n  1\nend\n",
	}, main: "main.rb",
		after: "require_relative 'lib/base'\n\nclass Square < Base\n  def area\n    helper() + side()\n  end\n\n  def side\n    2\n  end\nend\n\ndef run\n  s = Square.new()\n  s.area()\nend\n",
		want: []string{
			"CALLS main.rb#Square.area -> lib/base.rb#helper",
			"CALLS main.rb#Square.area -> main.rb#Square.side",
			"CALLS main.rb#run -> main.rb#Square.area",
			"EXTENDS main.rb#Square -> lib/base.rb#Base",
			"IMPORTS file:main.rb -> file:lib/base.rb",
		}, gone: "CALLS main.rb#run -> main.rb#local"},
	{lang: "C#", files: map[string]string{
		"Lib/Base.cs": "namespace Lib {\n  public interface IShape { int Area(); }\n  public class Base {\n    public virtual int Area() { return 0; }\n    public static int Helper() { return 1; }\n  }\n}\n",
	}, main: "App/Square.cs",
		after: "using Lib;\n\nnamespace App {\n  public class Square : Base, IShape {\n    public override int Area() { return Base.Helper() + Side(); }\n    int Side() { return 2; }\n    static int Run() {\n      var s = new Square();\n      return s.Area();\n    }\n  }\n}\n",
		want: []string{
			"CALLS App/Square.cs#App.Square.Area -> App/Square.cs#App.Square.Side",
			"CALLS App/Square.cs#App.Square.Area -> Lib/Base.cs#Lib.Base.Helper",
			"CALLS App/Square.cs#App.Square.Run -> App/Square.cs#App.Square.Area",
			"EXTENDS App/Square.cs#App.Square -> Lib/Base.cs#Lib.Base",
			"IMPLEMENTS App/Square.cs#App.Square -> Lib/Base.cs#Lib.IShape",
			"IMPORTS file:App/Square.cs -> module:Lib",
		}, gone: "CALLS App/Square.cs#App.Square.Run -> App/Square.cs#App.Square.Local"},
	{lang: "PHP", files: map[string]string{
		"lib/Base.php": "<?php\nnamespace Lib;\n\nclass Base {\n  public function area() { return 0; }\n}\n\nfunction helper() { return 1; }\n",
	}, main: "app/Square.php",
		after: "<?php\nnamespace App;\n\nrequire_once __DIR__ . '/../lib/Base.php';\n\nuse Lib\\Base;\n\nclass Square extends Base {\n  public function area() { return helper() + $this->side(); }\n  public function side() { return 2; }\n}\n\nfunction run() {\n  $s = new Square();\n  return $s->area();\n}\n",
		want: []string{
			"CALLS app/Square.php#App.Square.area -> app/Square.php#App.Square.side",
			"CALLS app/Square.php#App.Square.area -> lib/Base.php#Lib.helper",
			"CALLS app/Square.php#App.run -> app/Square.php#App.Square.area",
			"EXTENDS app/Square.php#App.Square -> lib/Base.php#Lib.Base",
			"IMPORTS file:app/Square.php -> file:lib/Base.php",
		}, gone: "CALLS app/Square.php#App.run -> app/Square.php#App.local"},
}

// withLocal returns the fixture's main file with the local function and
// its call, as the first commit has it.
func (f relFixture) withLocal() string {
	s := f.after
	switch f.lang {
	case "Go":
		s = strings.Replace(s, "return s.Area()", "return s.Area() + local()", 1) + "\nfunc local() int { return 2 }\n"
	case "Python":
		s = strings.Replace(s, "return s.area()", "return s.area() + local()", 1) + "\n\ndef local():\n    return 3\n"
	case "JavaScript", "TypeScript":
		s = strings.Replace(s, "return s.area();", "return s.area() + local();", 1) + "\nfunction local() { return 3; }\n"
	case "Java":
		s = strings.Replace(s, "return s.area();", "return s.area() + local();", 1)
		s = strings.Replace(s, "  static int run()", "  static int local() { return 3; }\n  static int run()", 1)
	case "C":
		s = strings.Replace(s, "return twice(helper());", "return twice(helper()) + local();", 1) + "\nint local(void)\n{\n\treturn 3;\n}\n"
	case "C++":
		s = strings.Replace(s, "return s.area();", "return s.area() + local();", 1) + "\nint local() {\n  return 3;\n}\n"
	case "Rust":
		s = strings.Replace(s, "    s.area()\n", "    s.area() + local()\n", 1) + "\nfn local() -> i32 {\n    3\n}\n"
	case "Ruby":
		s = strings.Replace(s, "  s.area()\n", "  s.area() + local()\n", 1) + "\ndef local\n  3\nend\n"
	case "C#":
		s = strings.Replace(s, "return s.Area();", "return s.Area() + Local();", 1)
		s = strings.Replace(s, "    static int Run()", "    static int Local() { return 3; }\n    static int Run()", 1)
	case "PHP":
		s = strings.Replace(s, "return $s->area();", "return $s->area() + local();", 1) + "\nfunction local() { return 3; }\n"
	}
	return s
}

// current returns the store's relationships at the newest version, in
// the fixtures' notation, without REQUIRES.
func current(t *testing.T, st *store.Store) []string {
	t.Helper()
	rels, err := st.CurrentRelations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rels {
		if r.Kind != model.Requires {
			out = append(out, relString(r))
		}
	}
	sort.Strings(out)
	return out
}

func relString(r model.Relation) string {
	trim := func(s string) string { return strings.TrimPrefix(s, "entity:") }
	return r.Kind + " " + trim(r.From) + " -> " + trim(r.To)
}

// TestRelationshipsPerLanguage syncs each fixture's two commits and checks
// the relationships at the end, the second commit's removal, and that the
// graph holds the same relationships as SQLite, also when replayed from it.
func TestRelationshipsPerLanguage(t *testing.T) {
	for _, f := range relFixtures {
		t.Run(f.lang, func(t *testing.T) {
			repo := gittest.New(t)
			for p, text := range f.files {
				repo.Write(p, text)
			}
			repo.Write(f.main, f.withLocal())
			repo.Commit("add " + f.lang)
			repo.Write(f.main, f.after)
			c2 := repo.Commit("drop local")
			st := openStore(t)
			g := openGraph(t)
			sync(t, repo.Dir, st, Options{Graph: g})

			if got := current(t, st); !slices.Equal(got, f.want) {
				t.Errorf("relationships:\n got %q\nwant %q", got, f.want)
			}
			u, _, err := st.GetUnderstood(context.Background(), c2)
			if err != nil {
				t.Fatal(err)
			}
			var removed []string
			for _, r := range u.Relations {
				if r.Removed {
					removed = append(removed, relString(r))
				}
			}
			if !slices.Contains(removed, f.gone) {
				t.Errorf("second commit removed %q, want %q among them", removed, f.gone)
			}
			checkGraphMatches(t, st, g)
		})
	}
}

// checkGraphMatches checks that the graph's code edges are the store's
// current relationships, then rebuilds the graph from SQLite and checks
// that it holds the same quads.
func checkGraphMatches(t *testing.T, st *store.Store, g *graph.Graph) {
	t.Helper()
	ctx := context.Background()
	quads := func(g *graph.Graph) []string {
		var out []string
		g.EachQuad(ctx, func(q quad.Quad) error {
			out = append(out, q.String())
			return nil
		})
		sort.Strings(out)
		return out
	}
	var code []string
	iri := func(v quad.Value) string { s, _ := v.(quad.IRI); return strings.TrimPrefix(string(s), "entity:") }
	g.EachQuad(ctx, func(q quad.Quad) error {
		switch p := iri(q.Predicate); p {
		case model.Calls, model.Imports, model.Implements, model.Extends:
			code = append(code, p+" "+iri(q.Subject)+" -> "+iri(q.Object))
		}
		return nil
	})
	sort.Strings(code)
	if want := current(t, st); !slices.Equal(code, want) {
		t.Errorf("graph's code edges:\n got %q\nwant %q", code, want)
	}
	before := quads(g)
	fresh := openGraph(t)
	if _, err := st.DB.Exec(`UPDATE commits SET graphed = 0`); err != nil {
		t.Fatal(err)
	}
	s, err := New("", st, Options{Graph: fresh})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.syncGraph(ctx); err != nil {
		t.Fatal(err)
	}
	if after := quads(fresh); !slices.Equal(after, before) {
		t.Errorf("graph replayed from SQLite differs:\n got %d quads\nwant %d", len(after), len(before))
	}
}

// TestRelationshipsOfVanishedFiles: a file renamed to a path the entity
// stage does not read (vendored here) takes its relationships along, in
// both directions, though no entity change says its entities went.
func TestRelationshipsOfVanishedFiles(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("a.c", "int helper(void);\n\nint run(void)\n{\n\treturn helper();\n}\n")
	repo.Write("b.c", "#include <stdio.h>\n\nint other(void);\n\nint helper(void)\n{\n\treturn other();\n}\n\nint other(void)\n{\n\treturn 1;\n}\n")
	repo.Commit("add")
	st := openStore(t)
	sync(t, repo.Dir, st, Options{})
	want := []string{"CALLS a.c#run -> b.c#helper", "CALLS b.c#helper -> b.c#other", "IMPORTS file:b.c -> module:stdio.h"}
	if got := current(t, st); !slices.Equal(got, want) {
		t.Fatalf("before: %q, want %q", got, want)
	}
	repo.Write("vendor/b.c", "int other(void);\n\nint helper(void)\n{\n\treturn other();\n}\n\nint other(void)\n{\n\treturn 1;\n}\n")
	repo.Git("rm", "-q", "b.c")
	repo.Commit("vendor b")
	sync(t, repo.Dir, st, Options{})
	if got := current(t, st); len(got) != 0 {
		t.Errorf("after the rename: %q, want none", got)
	}
}

// TestImportsOfDirectories: require('..') names the directory's index
// file; a relative import of nothing the repository has is no module.
func TestImportsOfDirectories(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("index.js", "module.exports = require('./lib/app');\n")
	repo.Write("lib/app.js", "module.exports = function app() {};\n")
	repo.Write("test/app.js", "var express = require('..');\nvar gone = require('./missing');\nvar x = require('supertest');\n")
	repo.Commit("add")
	st := openStore(t)
	sync(t, repo.Dir, st, Options{})
	want := []string{"IMPORTS file:index.js -> file:lib/app.js", "IMPORTS file:test/app.js -> file:index.js",
		"IMPORTS file:test/app.js -> module:supertest"}
	if got := current(t, st); !slices.Equal(got, want) {
		t.Errorf("imports:\n got %q\nwant %q", got, want)
	}
}

// TestPlainCallsInJavaScript: a plain call reaches neither a function
// assigned to a property nor one an outside module's import shadows;
// this.f() in a prototype function reaches the file's f.
func TestPlainCallsInJavaScript(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("response.js", "var send = require('send');\nvar res = module.exports = {};\n\n"+
		"res.send = function send(body) {\n  return body;\n};\n\n"+
		"res.sendFile = function sendFile(path) {\n  var file = send(path);\n  return file;\n};\n\n"+
		"res.json = function json(obj) {\n  return this.send(obj);\n};\n")
	repo.Commit("add")
	st := openStore(t)
	sync(t, repo.Dir, st, Options{})
	rels, err := st.CurrentRelations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		if r.Kind == model.Calls {
			got = append(got, fmt.Sprintf("%s %.1f", relString(r), r.Confidence))
		}
	}
	if want := []string{"CALLS response.js#json -> response.js#send 0.8"}; !slices.Equal(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
}

// TestRelationshipsOfFilesMergedAway: a branch changes a file that the
// mainline deleted; the merge keeps it deleted. Read in commit order the
// branch's change revives the file, so the sync's end checks the head:
// the file's relationships go, in SQLite and in the graph.
func TestRelationshipsOfFilesMergedAway(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("a.c", "int helper(void);\n\nint run(void)\n{\n\treturn helper();\n}\n")
	repo.Write("b.c", "#include <stdio.h>\n\nint helper(void)\n{\n\treturn puts(\"x\");\n}\n")
	repo.Commit("add")
	repo.Git("checkout", "-q", "-b", "topic")
	repo.Git("checkout", "-q", "main")
	repo.Write("a.c", "int run(void)\n{\n\treturn 0;\n}\n")
	repo.Git("rm", "-q", "b.c")
	repo.Commit("drop b")
	repo.Git("checkout", "-q", "topic")
	repo.Write("b.c", "#include <stdlib.h>\n\nint other(void)\n{\n\treturn 1;\n}\n\nint helper(void)\n{\n\treturn other();\n}\n")
	repo.Commit("change b")
	repo.Git("checkout", "-q", "main")
	repo.TryGit("merge", "-q", "--no-ff", "topic", "-m", "merge topic")
	repo.Git("rm", "-q", "b.c")
	repo.Commit("merge topic")
	st := openStore(t)
	g := openGraph(t)
	sync(t, repo.Dir, st, Options{Graph: g})
	if got := current(t, st); len(got) != 0 {
		t.Errorf("relationships %q, want none: b.c is gone", got)
	}
	checkGraphMatches(t, st, g)

	// The same from a bare clone.
	bare := t.TempDir()
	repo.Git("clone", "-q", "--bare", repo.Dir, bare)
	st2 := openStore(t)
	sync(t, bare, st2, Options{})
	if got := current(t, st2); len(got) != 0 {
		t.Errorf("relationships from a bare clone %q, want none", got)
	}
}

// TestGoImplementsWithBuildTaggedMethods: two build-tagged files define
// the same methods for one type (a renderer per platform). Deleting one
// leaves the other's: the type still implements the interface, whichever
// definition was met last.
func TestGoImplementsWithBuildTaggedMethods(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("go.mod", "module example.com/m\n")
	repo.Write("tui/tui.go", "package tui\n\ntype Renderer interface {\n\tInit()\n\tClose() int\n}\n\ntype Full struct{ n int }\n")
	method := func(tag string) string {
		return "//go:build " + tag + "\n\npackage tui\n\nfunc (r *Full) Init() {}\n\nfunc (r *Full) Close() int { return r.n }\n"
	}
	repo.Write("tui/tcell.go", method("tcell"))
	repo.Commit("tcell renderer")
	repo.Write("tui/ncurses.go", method("ncurses"))
	repo.Commit("ncurses renderer")
	repo.Git("rm", "-q", "tui/ncurses.go")
	repo.Commit("delete the ncurses renderer")
	st := openStore(t)
	g := openGraph(t)
	sync(t, repo.Dir, st, Options{Graph: g})
	want := "IMPLEMENTS tui/tui.go#tui.Full -> tui/tui.go#tui.Renderer"
	if got := current(t, st); !slices.Contains(got, want) {
		t.Errorf("relationships after the delete: %q, want %q among them", got, want)
	}
	checkGraphMatches(t, st, g)
}

// TestGraphOfAnInterruptedSync: a sync that died between storing a commit
// and writing its edges leaves it for the next sync to replay. The replay
// comes before the next commits' edges: a relationship the old commit
// added and a new one removed is not in the graph.
func TestGraphOfAnInterruptedSync(t *testing.T) {
	f := relFixtures[0]
	repo := gittest.New(t)
	for p, text := range f.files {
		repo.Write(p, text)
	}
	repo.Write(f.main, f.withLocal())
	repo.Commit("add " + f.lang)
	st := openStore(t)
	g := openGraph(t)
	sync(t, repo.Dir, st, Options{Graph: g})
	if _, err := st.DB.Exec(`UPDATE commits SET graphed = 0`); err != nil {
		t.Fatal(err)
	}
	repo.Write(f.main, f.after)
	repo.Commit("drop local")
	sync(t, repo.Dir, st, Options{Graph: g})
	if got := current(t, st); slices.Contains(got, f.gone) {
		t.Fatalf("store still holds %q", f.gone)
	}
	checkGraphMatches(t, st, g)
}

// TestMergedAwayAfterAnInterruptedSync: a sync killed after storing the
// commits of TestRelationshipsOfFilesMergedAway but before its end's check
// of the head leaves the check to the next sync, which has no commit left
// to store: it still removes the relationships of the file merged away.
func TestMergedAwayAfterAnInterruptedSync(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("a.c", "int helper(void);\n\nint run(void)\n{\n\treturn helper();\n}\n")
	repo.Write("b.c", "#include <stdio.h>\n\nint helper(void)\n{\n\treturn puts(\"x\");\n}\n")
	repo.Commit("add")
	repo.Git("checkout", "-q", "-b", "topic")
	repo.Git("checkout", "-q", "main")
	repo.Write("a.c", "int run(void)\n{\n\treturn 0;\n}\n")
	repo.Git("rm", "-q", "b.c")
	repo.Commit("drop b")
	repo.Git("checkout", "-q", "topic")
	repo.Write("b.c", "#include <stdlib.h>\n\nint other(void)\n{\n\treturn 1;\n}\n\nint helper(void)\n{\n\treturn other();\n}\n")
	repo.Commit("change b")
	repo.Git("checkout", "-q", "main")
	repo.TryGit("merge", "-q", "--no-ff", "topic", "-m", "merge topic")
	repo.Git("rm", "-q", "b.c")
	head := repo.Commit("merge topic")
	st := openStore(t)
	sync(t, repo.Dir, st, Options{})
	// What the kill loses: the check's removals (recorded at the head, a
	// merge with no relationships of its own), and what the sync's end
	// records after it: the relationships pass and the sync state.
	if _, err := st.DB.Exec(`DELETE FROM code_relations WHERE commit_id = (SELECT id FROM commits WHERE hash = ?);
		UPDATE relations_state SET last_commit = 0, stale = 1; DELETE FROM sync_state`, head); err != nil {
		t.Fatal(err)
	}
	if got := current(t, st); len(got) == 0 {
		t.Fatal("the simulated kill left no relationship to remove")
	}
	sync(t, repo.Dir, st, Options{})
	if got := current(t, st); len(got) != 0 {
		t.Errorf("relationships %q, want none: b.c is gone", got)
	}
}

// TestInheritedCallsInALaterSync: a later sync resolves self.fail() in a
// subclass's changed method through its base class, which it has not read
// from the store yet, as a sync of the whole history does.
func TestInheritedCallsInALaterSync(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("types.py", "class Base:\n    def fail(self):\n        return 1\n\n\nclass Sub(Base):\n    def convert(self):\n        return self.fail()\n")
	repo.Commit("add")
	st := openStore(t)
	sync(t, repo.Dir, st, Options{})
	repo.Write("types.py", "class Base:\n    def fail(self):\n        return 1\n\n\nclass Sub(Base):\n    def convert(self):\n        return self.fail() + 1\n")
	repo.Commit("change convert")
	sync(t, repo.Dir, st, Options{})
	whole := openStore(t)
	sync(t, repo.Dir, whole, Options{})
	want := "CALLS types.py#Sub.convert -> types.py#Base.fail"
	if got := current(t, whole); !slices.Contains(got, want) {
		t.Fatalf("one sync: %q, want %q among them", got, want)
	}
	if got, all := current(t, st), current(t, whole); !slices.Equal(got, all) {
		t.Errorf("two syncs: %q\none sync: %q", got, all)
	}
}

// TestVanishedEntitiesStayGone: the entities of a file renamed to a path
// the entity stage does not read went with it (TestRelationshipsOfVanishedFiles);
// a later sync does not resolve a call to them, as a sync of the whole
// history does not.
func TestVanishedEntitiesStayGone(t *testing.T) {
	repo := gittest.New(t)
	body := "int other(void);\n\nint helper(void)\n{\n\treturn other();\n}\n\nint other(void)\n{\n\treturn 1;\n}\n"
	repo.Write("a.c", "int helper(void);\n\nint run(void)\n{\n\treturn 0;\n}\n")
	repo.Write("b.c", body)
	repo.Commit("add")
	repo.Write("vendor/b.c", body)
	repo.Git("rm", "-q", "b.c")
	repo.Commit("vendor b")
	st := openStore(t)
	sync(t, repo.Dir, st, Options{})
	repo.Write("a.c", "int helper(void);\n\nint run(void)\n{\n\treturn helper();\n}\n")
	repo.Commit("call helper")
	sync(t, repo.Dir, st, Options{})
	whole := openStore(t)
	sync(t, repo.Dir, whole, Options{})
	if got, all := current(t, st), current(t, whole); !slices.Equal(got, all) || len(all) != 0 {
		t.Errorf("two syncs: %q\none sync: %q; want none", got, all)
	}
}
