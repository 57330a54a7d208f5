package entity

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/model"
)

func TestChangedLines(t *testing.T) {
	hunks := []model.Hunk{
		{OldStart: 2, OldLines: 4, NewStart: 2, NewLines: 3, Text: " a\n-b\n-c\n+C\n d\n\n"},
		{OldStart: 10, OldLines: 0, NewStart: 11, NewLines: 2, Text: "+x\n+y\n"}, // pure insertion: old start is the line before
		{OldStart: 20, OldLines: 1, NewStart: 21, NewLines: 0, Text: "-z\n"},     // pure deletion: new start is the line before
		{OldStart: 30, OldLines: 1, NewStart: 30, NewLines: 1, Text: "-end\n\\ No newline at end of file\n+end\n"},
	}
	removed, added := changedLines(hunks)
	if want := []int{3, 4, 20, 30}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	if want := []int{3, 11, 12, 30}; !slices.Equal(added, want) {
		t.Errorf("added %v, want %v", added, want)
	}
}

func TestDiffRules(t *testing.T) {
	e := func(q string, start, end int, sig string) Entity {
		return Entity{Kind: KindFunction, Name: q[strings.LastIndexAny(q, ".:")+1:], Qualified: q, StartLine: start, EndLine: end, Signature: sig}
	}
	old := []Entity{
		e("a.py:K", 1, 10, ""), e("a.py:K.m", 2, 4, ""), e("a.py:K.n", 6, 10, ""),
		e("a.py:gone", 12, 13, ""),
		e("a.py:over", 15, 16, "over(int)"), e("a.py:over", 17, 18, "over(string)"),
		e("a.py:still", 20, 21, ""),
	}
	// The file was renamed: qualified names carry the new path. Line 3 of
	// K.m changed, over(string) was moved before over(int) and changed,
	// "gone" was deleted, "fresh" added; "still" is unchanged.
	new := []Entity{
		e("b.py:K", 1, 10, ""), e("b.py:K.m", 2, 4, ""), e("b.py:K.n", 6, 10, ""),
		e("b.py:over", 12, 13, "over(string)"), e("b.py:over", 14, 15, "over(int)"),
		e("b.py:fresh", 17, 18, ""),
		e("b.py:still", 20, 21, ""),
	}
	hunks := []model.Hunk{
		{OldStart: 2, OldLines: 2, NewStart: 2, NewLines: 2, Text: " def m\n-  a\n+  b\n"},
		{OldStart: 11, OldLines: 9, NewStart: 11, NewLines: 9, Text: " \n-gone\n-gone\n-\n+over2\n+over2\n over\n over\n-over\n-over\n+\n+fresh\n+fresh\n \n"},
	}
	got := changeSummary(Diff(old, new, hunks))
	want := `
modifies K (old 1-10)
modifies K.m (old 2-4)
modifies over (old 17-18)
introduces fresh
deletes gone`
	if got != want {
		t.Errorf("changes:%s\nwant:%s", got, want)
	}
	if d := Diff(nil, new[:2], nil); len(d) != 2 || d[0].Action != Introduces || d[0].Old != nil {
		t.Errorf("added file: %+v", d)
	}
	if d := Diff(old[:1], nil, nil); len(d) != 1 || d[0].Action != Deletes || d[0].Entity.Qualified != "a.py:K" {
		t.Errorf("deleted file: %+v", d)
	}
	if d := Diff(old, old, nil); len(d) != 0 {
		t.Errorf("unchanged file: %+v", d)
	}
}

func changeSummary(changes []Change) string {
	var b strings.Builder
	for _, c := range changes {
		fmt.Fprintf(&b, "\n%s %s", c.Action, localName(c.Entity.Qualified))
		if c.Old != nil {
			fmt.Fprintf(&b, " (old %d-%d)", c.Old.StartLine, c.Old.EndLine)
		}
	}
	return b.String()
}

func TestRenamesPreferences(t *testing.T) {
	pe := func(path, name string, hash uint64) PathEntity {
		return PathEntity{Path: path, Entity: Entity{Kind: KindFunction, Name: name, Qualified: path + ":" + name, BodyHash: hash}}
	}
	deleted := []PathEntity{pe("a.go", "f", 1), pe("a.go", "g", 1), pe("a.go", "h", 2), pe("a.go", "lonely", 3)}
	introduced := []PathEntity{pe("b.go", "x", 1), pe("a.go", "y", 1), pe("b.go", "g", 1), pe("c.go", "h2", 2), pe("c.go", "h3", 2)}
	var got []string
	for _, r := range Renames(deleted, introduced) {
		got = append(got, r.FromPath+":"+r.From.Name+">"+r.ToPath+":"+r.To.Name)
	}
	// f prefers the same file; g its own name; h the first candidate.
	want := []string{"a.go:f>a.go:y", "a.go:g>b.go:g", "a.go:h>c.go:h2"}
	if !slices.Equal(got, want) {
		t.Errorf("renames %v, want %v", got, want)
	}
}

// histLang is one language's mini history: a container K with a method m,
// and a function written by fn. The file is header + entities + footer.
type histLang struct {
	lang, ext      string
	header, footer string
	k              string // K with MBODY as m's body
	fn             string // a function NAME with BODY in its body
	prefix         string // local qualified prefix of top-level names
	fnKind         Kind
	container      string   // an enclosing entity modified by every change, if any
	nested         []string // what changing m's body modifies
}

var histories = []histLang{
	{lang: "Go", ext: "go", header: "package p\n\n", prefix: "p.", fnKind: KindFunction,
		k:      "type K struct {\n\tn int\n}\n\nfunc (k K) m() int {\n\treturn MBODY\n}\n",
		fn:     "func NAME(x int) int {\n\ty := x + BODY\n\treturn y\n}\n",
		nested: []string{"p.K.m"}},
	{lang: "Python", ext: "py", header: "import os\n\n\n", fnKind: KindFunction,
		k:      "class K:\n    def m(self):\n        return MBODY\n",
		fn:     "def NAME(x):\n    y = x + BODY\n    return y\n",
		nested: []string{"K", "K.m"}},
	{lang: "JavaScript", ext: "js", fnKind: KindFunction,
		k:      "class K {\n  m() {\n    return MBODY;\n  }\n}\n",
		fn:     "function NAME(x) {\n  const y = x + BODY;\n  return y;\n}\n",
		nested: []string{"K", "K.m"}},
	{lang: "TypeScript", ext: "ts", fnKind: KindFunction,
		k:      "export class K {\n  m(): number {\n    return MBODY;\n  }\n}\n",
		fn:     "export function NAME(x: number): number {\n  const y = x + BODY;\n  return y;\n}\n",
		nested: []string{"K", "K.m"}},
	{lang: "TSX", ext: "tsx", fnKind: KindFunction,
		k:      "export class K extends React.Component {\n  render() {\n    return <p>{MBODY}</p>;\n  }\n}\n",
		fn:     "export const NAME = (x: number) => {\n  return <div>{x + BODY}</div>;\n};\n",
		nested: []string{"K", "K.render"}},
	{lang: "Rust", ext: "rs", fnKind: KindFunction,
		k:      "struct K;\n\nimpl K {\n    fn m(&self) -> i32 {\n        MBODY\n    }\n}\n",
		fn:     "fn NAME(x: i32) -> i32 {\n    let y = x + BODY;\n    y\n}\n",
		nested: []string{"K.m"}},
	{lang: "Java", ext: "java", header: "package p;\n\nclass Util {\n", footer: "}\n", prefix: "p.Util.", fnKind: KindMethod,
		container: "p.Util",
		k:         "    static class K {\n        int m() {\n            return MBODY;\n        }\n    }\n",
		fn:        "    static int NAME(int x) {\n        int y = x + BODY;\n        return y;\n    }\n",
		nested:    []string{"p.Util", "p.Util.K", "p.Util.K.m"}},
	{lang: "C", ext: "c", header: "#include <stdio.h>\n\n", fnKind: KindFunction,
		k:      "struct K {\n    int n;\n};\n\nint m(struct K *k)\n{\n    return MBODY;\n}\n",
		fn:     "int NAME(int x)\n{\n    int y = x + BODY;\n    return y;\n}\n",
		nested: []string{"m"}},
	{lang: "C++", ext: "cpp", fnKind: KindFunction,
		k:      "class K {\npublic:\n    int m() {\n        return MBODY;\n    }\n};\n",
		fn:     "int NAME(int x) {\n    int y = x + BODY;\n    return y;\n}\n",
		nested: []string{"K", "K.m"}},
	{lang: "Ruby", ext: "rb", fnKind: KindFunction,
		k:      "class K\n  def m\n    MBODY\n  end\nend\n",
		fn:     "def NAME(x)\n  y = x + BODY\n  y\nend\n",
		nested: []string{"K", "K.m"}},
	{lang: "C#", ext: "cs", header: "namespace P\n{\n    public static class Util\n    {\n", footer: "    }\n}\n",
		prefix: "P.Util.", fnKind: KindMethod, container: "P.Util",
		k:      "        class K\n        {\n            int M()\n            {\n                return MBODY;\n            }\n        }\n",
		fn:     "        static int NAME(int x)\n        {\n            var y = x + BODY;\n            return y;\n        }\n",
		nested: []string{"P.Util", "P.Util.K", "P.Util.K.M"}},
	{lang: "PHP", ext: "php", header: "<?php\n\n", fnKind: KindFunction,
		k:      "class K\n{\n    public function m()\n    {\n        return MBODY;\n    }\n}\n",
		fn:     "function NAME($x)\n{\n    $y = $x + BODY;\n    return $y;\n}\n",
		nested: []string{"K", "K.m"}},
}

// file assembles a version of a history file.
func (h histLang) file(parts ...string) []byte {
	return []byte(h.header + strings.Join(parts, "\n") + h.footer)
}

func (h histLang) kWith(body string) string { return strings.ReplaceAll(h.k, "MBODY", body) }

func (h histLang) fnWith(name, body string) string {
	return strings.ReplaceAll(strings.ReplaceAll(h.fn, "NAME", name), "BODY", body)
}

// TestHistory runs each language's mini history through Entities, real
// diff hunks, Diff and Renames: v1 adds foo, v2 changes its body, v3
// renames it bar, v4 moves bar to another file, v5 deletes it; finally a
// method's body changes.
func TestHistory(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for _, h := range histories {
		t.Run(h.lang, func(t *testing.T) {
			pathA, pathB := "src/a."+h.ext, "src/b."+h.ext
			k1 := h.kWith("1")
			a := [][]byte{
				h.file(k1),
				h.file(k1, h.fnWith("foo", "1")),
				h.file(k1, h.fnWith("foo", "2")),
				h.file(k1, h.fnWith("bar", "2")),
				h.file(k1),
				h.file(h.kWith("7")),
			}
			other := h.fnWith("other", "9")
			b := [][]byte{h.file(other), h.file(other, h.fnWith("bar", "2")), h.file(other)}
			step := func(path string, old, new []byte) []Change {
				t.Helper()
				return diffVersions(t, p, h.lang, path, old, new)
			}
			fn := string(h.fnKind)
			h.expect(t, "v1 adds foo", step(pathA, a[0], a[1]), "introduces "+fn+" "+h.prefix+"foo")
			h.expect(t, "v2 changes foo", step(pathA, a[1], a[2]), "modifies "+fn+" "+h.prefix+"foo")
			v3 := step(pathA, a[2], a[3])
			h.expect(t, "v3 renames foo", v3, "introduces "+fn+" "+h.prefix+"bar", "deletes "+fn+" "+h.prefix+"foo")
			checkRenames(t, "v3", v3, pathA, v3, pathA, "foo", "bar")
			v4a, v4b := step(pathA, a[3], a[4]), step(pathB, b[0], b[1])
			h.expect(t, "v4 moves bar out", v4a, "deletes "+fn+" "+h.prefix+"bar")
			h.expect(t, "v4 moves bar in", v4b, "introduces "+fn+" "+h.prefix+"bar")
			checkRenames(t, "v4", v4a, pathA, v4b, pathB, "bar", "bar")
			h.expect(t, "v5 deletes bar", step(pathB, b[1], b[2]), "deletes "+fn+" "+h.prefix+"bar")

			var nested []string
			for _, q := range h.nested {
				nested = append(nested, "modifies * "+q)
			}
			h.expectAny(t, "method body", step(pathA, a[4], a[5]), nested...)
		})
	}
}

// diffVersions parses two versions of a file and diffs them.
func diffVersions(t *testing.T, p *Parser, lang, path string, old, new []byte) []Change {
	t.Helper()
	ctx := context.Background()
	oldEnts, err := p.Entities(ctx, lang, path, "", old)
	if err != nil {
		t.Fatal(err)
	}
	newEnts, err := p.Entities(ctx, lang, path, "", new)
	if err != nil {
		t.Fatal(err)
	}
	return Diff(oldEnts, newEnts, fileHunks(old, new))
}

// expect checks changes against "action kind local-name" lines; the
// history's container, if any, is expected to be modified first.
func (h histLang) expect(t *testing.T, what string, changes []Change, want ...string) {
	t.Helper()
	if h.container != "" {
		want = append([]string{"modifies class " + h.container}, want...)
	}
	var got []string
	for _, c := range changes {
		got = append(got, fmt.Sprintf("%s %s %s", c.Action, c.Entity.Kind, localName(c.Entity.Qualified)))
		if (c.Action == Modifies) != (c.Old != nil) {
			t.Errorf("%s: %s %s has old version %v", what, c.Action, c.Entity.Qualified, c.Old)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: changes\n\t%s\nwant\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// expectAny is expect with kinds not checked ("*").
func (h histLang) expectAny(t *testing.T, what string, changes []Change, want ...string) {
	t.Helper()
	var got []string
	for _, c := range changes {
		got = append(got, fmt.Sprintf("%s * %s", c.Action, localName(c.Entity.Qualified)))
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: changes\n\t%s\nwant\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// checkRenames feeds the deletions of one diff and the introductions of
// another to Renames and expects the one pair from → to.
func checkRenames(t *testing.T, what string, fromChanges []Change, fromPath string, toChanges []Change, toPath, from, to string) {
	t.Helper()
	var deleted, introduced []PathEntity
	for _, c := range fromChanges {
		if c.Action == Deletes {
			deleted = append(deleted, PathEntity{Path: fromPath, Entity: c.Entity})
		}
	}
	for _, c := range toChanges {
		if c.Action == Introduces {
			introduced = append(introduced, PathEntity{Path: toPath, Entity: c.Entity})
		}
	}
	r := Renames(deleted, introduced)
	if len(r) != 1 || r[0].From.Name != from || r[0].To.Name != to || r[0].FromPath != fromPath || r[0].ToPath != toPath {
		t.Errorf("%s: renames %+v, want %s:%s → %s:%s", what, r, fromPath, from, toPath, to)
	}
}

// fileHunks diffs two file versions as git does, with 3 lines of context.
func fileHunks(old, new []byte) []model.Hunk {
	hunks, _, _ := extract.DiffLines(old, new, 3)
	return hunks
}
