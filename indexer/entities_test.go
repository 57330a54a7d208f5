package indexer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/graph/graphtest"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/vectors"
)

// fixtureLang writes one function of a language: fn(name, body) is a file
// holding the function; keep is a function the history never touches.
type fixtureLang struct {
	lang, ext string
	// file renders a whole file from its functions' texts.
	file func(fns ...string) string
	fn   func(name, body string) string
	// qual turns a function name into its qualified name in the file.
	qual func(name string) string
}

func plain(name string) string { return name }

var fixtureLangs = []fixtureLang{
	{"Go", "go", func(fns ...string) string { return "package p\n\n" + strings.Join(fns, "\n") },
		func(n, b string) string { return "func " + n + "() int {\n\tx := 1\n\treturn x + " + b + "\n}\n" },
		func(n string) string { return "p." + n }},
	{"Python", "py", joinFns, func(n, b string) string { return "def " + n + "():\n    x = 1\n    return x + " + b + "\n" }, plain},
	{"JavaScript", "js", joinFns, func(n, b string) string {
		return "function " + n + "() {\n  const x = 1;\n  return x + " + b + ";\n}\n"
	}, plain},
	{"TypeScript", "ts", joinFns, func(n, b string) string {
		return "function " + n + "(): number {\n  const x = 1;\n  return x + " + b + ";\n}\n"
	}, plain},
	{"Rust", "rs", joinFns, func(n, b string) string { return "fn " + n + "() -> i32 {\n    let x = 1;\n    x + " + b + "\n}\n" }, plain},
	{"Java", "java", func(fns ...string) string { return "class K {\n" + strings.Join(fns, "\n") + "}\n" },
		func(n, b string) string {
			return "  int " + n + "() {\n    int x = 1;\n    return x + " + b + ";\n  }\n"
		},
		func(n string) string { return "K." + n }},
	{"C", "c", joinFns, func(n, b string) string { return "int " + n + "(void) {\n  int x = 1;\n  return x + " + b + ";\n}\n" }, plain},
	{"C++", "cpp", joinFns, func(n, b string) string { return "int " + n + "() {\n  int x = 1;\n  return x + " + b + ";\n}\n" }, plain},
	{"Ruby", "rb", joinFns, func(n, b string) string { return "def " + n + "\n  x = 1\n  x + " + b + "\nend\n" }, plain},
	{"C#", "cs", func(fns ...string) string { return "class K {\n" + strings.Join(fns, "\n") + "}\n" },
		func(n, b string) string {
			return "  int " + n + "() {\n    int x = 1;\n    return x + " + b + ";\n  }\n"
		},
		func(n string) string { return "K." + n }},
	{"PHP", "php", func(fns ...string) string { return "<?php\n" + strings.Join(fns, "\n") },
		func(n, b string) string { return "function " + n + "() {\n  $x = 1;\n  return $x + " + b + ";\n}\n" }, plain},
}

func joinFns(fns ...string) string { return strings.Join(fns, "\n") }

// TestEntityHistoryPerLanguage builds, in every supported language, a
// history in which a function is added, changed, renamed, moved to another
// file and deleted, and checks that the store and the graph say exactly that,
// on every graph backend.
func TestEntityHistoryPerLanguage(t *testing.T) {
	for _, be := range graphtest.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			g, err := graph.Open(context.Background(), be.Addr(t))
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			for _, l := range fixtureLangs {
				t.Run(l.lang, func(t *testing.T) { entityHistory(t, l, g) })
			}
		})
	}
}

func entityHistory(t *testing.T, l fixtureLang, g *graph.Graph) {
	repo := gittest.New(t)
	a, b := "src/a."+l.ext, "lib/b."+l.ext
	keep := l.fn("keep", "7")
	repo.Write(a, l.file(keep, l.fn("alpha", "1")))
	c1 := repo.Commit("add alpha")
	repo.Write(a, l.file(keep, l.fn("alpha", "2")))
	c2 := repo.Commit("change alpha")
	repo.Write(a, l.file(keep, l.fn("beta", "2")))
	c3 := repo.Commit("rename alpha to beta")
	repo.Write(a, l.file(keep))
	repo.Write(b, l.file(l.fn("other", "9"), l.fn("beta", "2")))
	c4 := repo.Commit("move beta to b")
	repo.Write(b, l.file(l.fn("other", "9")))
	c5 := repo.Commit("delete beta")

	st := openStore(t)
	sync(t, repo.Dir, st, Options{Graph: g})
	ctx := context.Background()
	key := func(path, name string) string { return path + "#" + l.qual(name) }

	hist, err := st.EntityHistory(ctx, key(b, "beta"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range hist {
		got = append(got, fmt.Sprintf("%s %s %s %s", short(e.Commit), e.Action, e.Entity, e.Replaces))
	}
	want := []string{
		short(c5) + " deletes " + key(b, "beta") + " ",
		short(c4) + " introduces " + key(b, "beta") + " " + key(a, "beta"),
		short(c3) + " introduces " + key(a, "beta") + " " + key(a, "alpha"),
		short(c2) + " modifies " + key(a, "alpha") + " ",
		short(c1) + " introduces " + key(a, "alpha") + " ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("history of beta:\n got %q\nwant %q", got, want)
	}

	// keep is introduced once and never touched again.
	kh, err := st.EntityHistory(ctx, key(a, "keep"))
	if err != nil {
		t.Fatal(err)
	}
	if len(kh) != 1 || kh[0].Commit != c1 || kh[0].Action != "introduces" {
		t.Errorf("history of keep: %+v, want only its introduction in %s", kh, short(c1))
	}

	ent := func(path, name string) string { return EntityNode(key(path, name)) }
	wantEdges := []graph.Edge{
		{From: CommitNode(c1), Type: "INTRODUCES", To: ent(a, "alpha"), Confidence: 1},
		{From: CommitNode(c2), Type: "MODIFIES", To: ent(a, "alpha"), Confidence: 1},
		{From: CommitNode(c3), Type: "DELETES", To: ent(a, "alpha"), Confidence: 1},
		{From: ent(a, "alpha"), Type: "REPLACED_BY", To: ent(a, "beta"), Confidence: 1},
		{From: ent(a, "beta"), Type: "REPLACED_BY", To: ent(b, "beta"), Confidence: 1},
		{From: CommitNode(c5), Type: "DELETES", To: ent(b, "beta"), Confidence: 1},
		{From: FileNode(a), Type: "CONTAINS", To: ent(a, "keep"), Confidence: 1},
	}
	for _, w := range wantEdges {
		es, err := g.Edges(ctx, w.From, graph.Out, w.Type)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(es, w) {
			t.Errorf("graph lacks %s -%s-> %s; %s has %v", w.From, w.Type, w.To, w.From, es)
		}
	}
	// No commit after the first touched keep.
	in, err := g.Edges(ctx, ent(a, "keep"), graph.In)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range in {
		if strings.HasPrefix(e.From, "commit:") && e.From != CommitNode(c1) {
			t.Errorf("keep touched by %v", e)
		}
	}
	var ungraphed int
	if err := st.DB.QueryRow(`SELECT COUNT(*) FROM commits WHERE graphed = 0`).Scan(&ungraphed); err != nil || ungraphed != 0 {
		t.Errorf("%d commits not graphed (err %v)", ungraphed, err)
	}
}

func short(h string) string { return h[:8] }

// TestRewrittenLeaveEntityAnswers: after a reset drops the last commits,
// they leave the entity's history and the graph hides them; a sync that
// brings them back restores both.
func TestRewrittenLeaveEntityAnswers(t *testing.T) {
	l := fixtureLangs[0]
	repo := gittest.New(t)
	repo.Write("a.go", l.file(l.fn("alpha", "1")))
	c1 := repo.Commit("add alpha")
	repo.Write("a.go", l.file(l.fn("alpha", "2")))
	c2 := repo.Commit("change alpha")
	g := openGraph(t)
	st := openStore(t)
	sync(t, repo.Dir, st, Options{Graph: g})
	ctx := context.Background()
	commits := func() []string {
		h, err := st.EntityHistory(ctx, "a.go#p.alpha")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range h {
			out = append(out, e.Commit)
		}
		return out
	}
	modifiedBy := func() []string {
		es, err := g.Edges(ctx, EntityNode("a.go#p.alpha"), graph.In, "MODIFIES")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.From)
		}
		return out
	}
	if got := commits(); !slices.Equal(got, []string{c2, c1}) {
		t.Fatalf("history before reset: %v", got)
	}
	repo.Git("reset", "-q", "--hard", c1)
	sync(t, repo.Dir, st, Options{Graph: g})
	if got := commits(); !slices.Equal(got, []string{c1}) {
		t.Errorf("history after reset: %v, want only %s", got, c1)
	}
	if got := modifiedBy(); len(got) != 0 {
		t.Errorf("graph still shows MODIFIES from %v", got)
	}
	repo.Git("reset", "-q", "--hard", c2)
	sync(t, repo.Dir, st, Options{Graph: g})
	if got := commits(); !slices.Equal(got, []string{c2, c1}) {
		t.Errorf("history after revival: %v", got)
	}
	if got := modifiedBy(); !slices.Equal(got, []string{CommitNode(c2)}) {
		t.Errorf("graph MODIFIES after revival: %v", got)
	}
}

// TestVectorsFollowTheStore: sync writes each commit's documents, a reset
// removes the rewritten commit's, and an index built by another embedder
// is rebuilt from SQLite.
func TestVectorsFollowTheStore(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("a.go", "package a\n")
	c1 := repo.Commit("Add the retry budget for flaky uploads")
	repo.Write("a.go", "package a\n\nvar X = 1\n")
	c2 := repo.Commit("Teach the parser about unicode escapes")
	dir := t.TempDir()
	open := func(dims int) *vectors.Index {
		v, err := vectors.Open(dir, vectors.NewLocal(dims), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Close() })
		return v
	}
	st := openStore(t)
	ctx := context.Background()
	top := func(v *vectors.Index, q string) string {
		t.Helper()
		hits, err := v.Query(ctx, q, 1, vectors.Filter{Kind: vectors.KindCommit})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			return ""
		}
		return hits[0].Commit
	}
	v := open(0)
	sync(t, repo.Dir, st, Options{Vectors: v})
	if got := top(v, "unicode escapes in the parser"); got != c2 {
		t.Errorf("top hit %s, want %s", got, c2)
	}
	repo.Git("reset", "-q", "--hard", c1)
	sync(t, repo.Dir, st, Options{Vectors: v})
	if got := top(v, "unicode escapes in the parser"); got == c2 {
		t.Errorf("rewritten commit %s still found", c2)
	}
	v.Close()
	// Another embedder: the index is rebuilt from SQLite on the next sync.
	v2 := open(128)
	sync(t, repo.Dir, st, Options{Vectors: v2})
	if got := top(v2, "retry budget for uploads"); got != c1 {
		t.Errorf("after rebuild: top hit %q, want %s", got, c1)
	}
}

// TestCheckEntities: with CheckEntities, the sync's result counts the file
// versions the entity parsers derived and compared with whole parses.
func TestCheckEntities(t *testing.T) {
	repo := gittest.New(t)
	body := "package a\n\nfunc One() int {\n\treturn 1\n}\n\nfunc Two() int {\n\treturn 2\n}\n"
	repo.Write("a.go", body)
	repo.Commit("add a")
	for _, to := range []string{"return 10", "return 100"} {
		body = strings.Replace(body, "return 1\n", to+"\n", 1)
		repo.Write("a.go", body)
		repo.Commit("change One")
		body = strings.Replace(body, to+"\n", "return 1\n", 1)
	}
	res := sync(t, repo.Dir, openStore(t), Options{CheckEntities: true})
	if c := res.EntityCheck; c == nil || c.Derived != 2 || c.Differing != 0 {
		t.Errorf("entity check: %+v, want 2 derived, none differing", c)
	}
	if res := sync(t, repo.Dir, openStore(t), Options{}); res.EntityCheck != nil {
		t.Errorf("entity check without CheckEntities: %+v", res.EntityCheck)
	}
}
