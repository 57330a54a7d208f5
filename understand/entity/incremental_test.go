package entity

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/model"
	"github.com/google/go-cmp/cmp"
	sitter "github.com/smacker/go-tree-sitter"
)

// checker compares Parser.Changes, run on one Parser over a sequence of
// file changes as an indexer runs it, with its definition: Diff of the
// entities of both versions, each parsed whole by another Parser.
type checker struct {
	t        testing.TB
	inc, ref *Parser
	lang     string
	steps    int
	failures int
	// With tolerateRecovery, a difference in a version with syntax errors
	// is counted in recoveries, not failed: see the package documentation
	// on error recovery. errorSteps counts the versions with errors.
	tolerateRecovery       bool
	errorSteps, recoveries int
}

func newChecker(t testing.TB, lang string) *checker {
	c := &checker{t: t, inc: NewParser(), ref: NewParser(), lang: lang}
	c.inc.SetLineDiff(lineDiff)
	t.Cleanup(func() {
		c.inc.Close()
		c.ref.Close()
	})
	return c
}

// lineDiff is the line diff an indexer gives its Parser: git's.
func lineDiff(old, new []byte) []model.Hunk {
	hunks, _, _ := extract.DiffLines(old, new, 0)
	return hunks
}

// version returns a Version named by its git blob hash, or a missing one
// for nil src.
func version(path string, src []byte) Version {
	if src == nil {
		return Version{Path: path}
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(src))
	h.Write(src)
	return Version{Path: path, Hash: hex.EncodeToString(h.Sum(nil)), Src: src}
}

// step checks one change, with hunks of git's diff with the given context.
func (c *checker) step(what string, old, new Version, context int) {
	c.t.Helper()
	hunks, _, _ := extract.DiffLines(old.Src, new.Src, context)
	c.stepHunks(what, old, new, hunks)
}

func (c *checker) stepHunks(what string, old, new Version, hunks []model.Hunk) {
	c.t.Helper()
	c.steps++
	ctx := context.Background()
	got, err := c.inc.Changes(ctx, c.lang, old, new, hunks)
	if err != nil {
		c.t.Fatalf("%s: Changes: %v", what, err)
	}
	var olds, news []Entity
	if old.Src != nil {
		olds = c.entities(old)
	}
	if new.Src != nil {
		news = c.entities(new)
	}
	var diffs []string
	if d := cmp.Diff(Diff(olds, news, hunks), got); d != "" {
		diffs = append(diffs, "Changes differ from Diff of Entities (-want +got):\n"+d)
	}
	// The whole new version, not only what Diff reports from it.
	key := c.lang + "\x00" + new.Hash
	if s := c.inc.incremental().states.get(key); s != nil && new.Src != nil {
		if d := cmp.Diff(c.entities(Version{Hash: new.Hash, Src: new.Src}), s.entities()); d != "" {
			diffs = append(diffs, "the new version's entities differ from a full parse's (-want +got):\n"+d)
		}
	}
	broken := c.tolerateRecovery && new.Src != nil && c.syntaxErrors(new.Src)
	if broken {
		c.errorSteps++
	}
	switch {
	case len(diffs) == 0:
	case broken:
		c.recoveries++
		c.t.Logf("%s: a version with syntax errors: %s", what, diffs[0])
		// Do not carry the difference on to the next versions.
		if e, ok := c.inc.incremental().states.byKey[key]; ok {
			c.inc.incremental().states.remove(e)
		}
	default:
		for _, d := range diffs {
			c.fail("%s: %s", what, d)
		}
	}
}

// syntaxErrors reports whether tree-sitter finds syntax errors in src.
func (c *checker) syntaxErrors(src []byte) bool {
	st, err := c.ref.state(languages[c.lang])
	if err != nil {
		c.t.Fatal(err)
	}
	tree, err := st.parser.ParseCtx(context.Background(), nil, src)
	if err != nil {
		c.t.Fatal(err)
	}
	defer tree.Close()
	return tree.RootNode().HasError()
}

func (c *checker) entities(v Version) []Entity {
	c.t.Helper()
	ents, err := c.ref.Entities(context.Background(), c.lang, v.Path, v.Hash, v.Src)
	if err != nil {
		c.t.Fatalf("Entities: %v", err)
	}
	return ents
}

func (c *checker) fail(format string, args ...any) {
	c.t.Helper()
	c.failures++
	if c.failures <= 5 {
		c.t.Errorf(format, args...)
	}
}

// withMinChunk runs f with chunks cut at every top-level boundary when
// small is true, so that small test files have many chunks.
func withMinChunk(small bool, f func()) {
	saved := minChunk
	if small {
		minChunk = 1
	}
	defer func() { minChunk = saved }()
	f()
}

// TestChangesHistories runs TestHistory's mini history of every language
// through Changes: a function added, changed, renamed, moved to another
// file and deleted, and a method's body changed.
func TestChangesHistories(t *testing.T) {
	for _, h := range histories {
		for _, small := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/small=%v", h.lang, small), func(t *testing.T) {
				withMinChunk(small, func() {
					c := newChecker(t, h.lang)
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
					pathA, pathB := "src/a."+h.ext, "src/b."+h.ext
					c.step("add a", version(pathA, nil), version(pathA, a[0]), 3)
					for i := 1; i < len(a); i++ {
						c.step(fmt.Sprintf("a v%d", i), version(pathA, a[i-1]), version(pathA, a[i]), 3*(i%2))
					}
					c.step("add b", version(pathB, nil), version(pathB, b[0]), 0)
					c.step("b v1", version(pathB, b[0]), version(pathB, b[1]), 0)
					c.step("rename b", version(pathB, b[1]), version("src/c."+h.ext, b[2]), 3)
					c.step("delete a", version(pathA, a[5]), version(pathA, nil), 3)
				})
			})
		}
	}
}

// TestChangesUnseenVersion gives a change whose old version the Parser
// never saw, as a merge's result is to an indexer: it is derived from the
// version last seen under its path, with the line diff or without, and
// the chunks its edits merged are cut again as a whole parse cuts them.
func TestChangesUnseenVersion(t *testing.T) {
	fn := func(name, body string) string {
		return fmt.Sprintf("int %s(void)\n{\n    return %s;\n}\n\n", name, body)
	}
	file := func(fns ...string) []byte { return []byte(strings.Join(fns, "")) }
	base := version("f.c", file(fn("a", "0"), fn("b", "1"), fn("c", "2"), fn("d", "3")))
	ours := version("f.c", file(fn("a", "0"), fn("b", "10"), fn("c", "2"), fn("d", "3")))
	// The other side deleted c and renamed d: one hunk across chunks.
	merged := version("f.c", file(fn("a", "0"), fn("b", "10"), fn("dd", "3")))
	child := version("f.c", file(fn("a", "5"), fn("b", "10"), fn("dd", "3")))
	for _, withDiff := range []bool{true, false} {
		withMinChunk(true, func() {
			c := newChecker(t, "C")
			if !withDiff {
				c.inc.SetLineDiff(nil)
			}
			c.step("add", version("f.c", nil), base, 0)
			c.step("ours", base, ours, 0)
			c.step("after the merge", merged, child, 0)
			states := c.inc.incremental().states
			m, o := states.get("C\x00"+merged.Hash), states.get("C\x00"+ours.Hash)
			if m == nil || o == nil {
				t.Fatal("the merged version or ours is not cached")
			}
			if !slices.Contains(o.chunks, m.chunks[0]) {
				t.Errorf("withDiff=%v: the merged version shares no chunk with ours: parsed whole", withDiff)
			}
			built, err := c.ref.buildState(context.Background(), languages["C"], merged.Src)
			if err != nil {
				t.Fatal(err)
			}
			defer built.release()
			if got, want := chunkSizes(m), chunkSizes(built); !slices.Equal(got, want) {
				t.Errorf("withDiff=%v: chunks %v, a whole parse cuts %v", withDiff, got, want)
			}
		})
	}
}

// TestChangesUnseenNearerBase derives a merge's result from the nearer of
// the two versions last seen under its path: here the older one, whose
// side changed less than the other.
func TestChangesUnseenNearerBase(t *testing.T) {
	fn := func(name, body string) string {
		return fmt.Sprintf("int %s(void)\n{\n    return %s;\n}\n\n", name, body)
	}
	file := func(bodies string) []byte {
		var b strings.Builder
		for i, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			b.WriteString(fn(name, string(bodies[i])))
		}
		return []byte(b.String())
	}
	base := version("f.c", file("00000000"))
	ours := version("f.c", file("01111110"))   // changes b to g
	theirs := version("f.c", file("00000002")) // changes h
	merged := version("f.c", file("01111112"))
	child := version("f.c", file("31111112"))
	withMinChunk(true, func() {
		c := newChecker(t, "C")
		c.step("add", version("f.c", nil), base, 0)
		c.step("ours", base, ours, 0)
		c.step("theirs", base, theirs, 0) // now the latest version
		c.step("after the merge", merged, child, 0)
		states := c.inc.incremental().states
		m, o := states.get("C\x00"+merged.Hash), states.get("C\x00"+ours.Hash)
		if m == nil || o == nil {
			t.Fatal("the merged version or ours is not cached")
		}
		for i := 1; i <= 6; i++ {
			if !slices.Contains(o.chunks, m.chunks[i]) {
				t.Fatalf("chunk %d of the merged version is not ours: derived from the farther version", i)
			}
		}
	})
}

func chunkSizes(s *fileState) []int {
	var out []int
	for _, ch := range s.chunks {
		out = append(out, ch.size)
	}
	return out
}

func TestChangesErrors(t *testing.T) {
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	v := version("a.cob", []byte("x"))
	if _, err := p.Changes(ctx, "COBOL", v, v, nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unsupported language: %v", err)
	}
	big := version("a.go", make([]byte, MaxSourceSize+1))
	if _, err := p.Changes(ctx, "Go", version("a.go", []byte("package p\n")), big, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
	if got, err := p.Changes(ctx, "Go", Version{}, Version{}, nil); got != nil || err != nil {
		t.Errorf("no versions: %v %v", got, err)
	}
}

// TestChangesWithoutCgo runs the mini histories through the path taken
// if go-tree-sitter's layout is not the one incremental_cgo.go reads.
func TestChangesWithoutCgo(t *testing.T) {
	cgoLayoutOK = false
	defer func() { cgoLayoutOK = true }()
	if !firstFieldIsPointer(reflect.TypeFor[sitter.BaseTree](), "c") {
		t.Fatal("go-tree-sitter's BaseTree does not start with its C pointer")
	}
	for _, h := range histories[:3] {
		c := newChecker(t, h.lang)
		a, b := h.file(h.kWith("1")), h.file(h.kWith("2"), h.fnWith("foo", "1"))
		c.step("add", version("a", nil), version("a", a), 3)
		c.step("change", version("a", a), version("a", b), 0)
		c.step("delete", version("a", b), version("a", nil), 3)
	}
}

// TestChangesBadHunks gives hunks that do not describe the change: the
// edits then come from the bytes, and the result is still Diff's.
func TestChangesBadHunks(t *testing.T) {
	c := newChecker(t, "Go")
	old := readFixture(t, "sample.go")
	longer := []byte(strings.Replace(string(old), "return", "return 1 +", 1))
	same := []byte(strings.Replace(string(old), "math.Pi", "math.E ", 1)) // as long as old
	for _, new := range [][]byte{longer, same} {
		good, _, _ := extract.DiffLines(old, new, 0)
		for _, hunks := range [][]model.Hunk{
			nil,
			{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Text: "-package shapes\n+package shapes\n"}},
			{{OldStart: good[0].OldStart + 5, OldLines: 1, NewStart: good[0].NewStart + 5, NewLines: 1}},
			{{OldStart: good[0].OldStart - 1, OldLines: 1, NewStart: good[0].NewStart - 1, NewLines: 1}},
			{{OldStart: 1000, OldLines: 1, NewStart: 1000, NewLines: 1}},
			append(good, good...),
		} {
			c.inc.Close()
			c.inc = NewParser()
			c.stepHunks(fmt.Sprintf("hunks %v", hunks), version("a.go", old), version("a.go", new), hunks)
		}
	}
}

// TestChangesWideHunks gives hunks that mark lines equal in both versions
// as changed, as a diff may when it aligns lines: an entity they fall in
// is modified although its chunk is the same in both versions.
func TestChangesWideHunks(t *testing.T) {
	for _, small := range []bool{false, true} {
		withMinChunk(small, func() {
			c := newChecker(t, "C")
			old := []byte("int a(void)\n{\n    return 0;\n}\n\nint b(void)\n{\n    return 1;\n}\n\nint c(void)\n{\n    return 2;\n}\n")
			new := []byte(strings.Replace(string(old), "return 1", "return 7", 1))
			hunks := []model.Hunk{{OldStart: 3, OldLines: 6, NewStart: 3, NewLines: 6,
				Text: "-    return 0;\n-}\n-\n-int b(void)\n-{\n-    return 1;\n+    return 0;\n+}\n+\n+int b(void)\n+{\n+    return 7;\n"}}
			c.stepHunks("wide hunk", version("w.c", old), version("w.c", new), hunks)
			got, err := c.inc.Changes(context.Background(), "C", version("w.c", old), version("w.c", new), hunks)
			if err != nil || len(got) != 2 || got[0].Entity.Name != "a" || got[1].Entity.Name != "b" {
				t.Errorf("small=%v: changes %+v, want a and b modified", small, got)
			}
		})
	}
}

// comments maps each history language to its line comment.
var comments = map[string]string{"Python": "#", "Ruby": "#"}

// junk are lines that break the syntax of some language.
var junk = []string{"{", "}", "(", ")", "/*", "*/", `"`, "'''", "@decorator", "#if 0", "#endif",
	"end", "def", "class", "};", "fn (", "<<EOS", "`", "export", "template <typename T>", "else {", "a = b", "(c)"}

// randomHistory builds file versions of one language by random edits: whole
// functions and classes inserted, deleted, moved, renamed and changed;
// lines changed, deleted and broken; and versions branched off earlier
// ones.
type randomHistory struct {
	h   histLang
	rnd *rand.Rand
}

var names = []string{"foo", "bar", "baz", "qux", "dup", "dup", "run", "Area"}

func (r *randomHistory) block() string {
	body := fmt.Sprint(r.rnd.IntN(100))
	if r.rnd.IntN(4) == 0 {
		return r.h.kWith(body)
	}
	return r.h.fnWith(names[r.rnd.IntN(len(names))], body)
}

// indent is the indentation of the history's top-level blocks.
func (r *randomHistory) indent() string {
	return r.h.fn[:len(r.h.fn)-len(strings.TrimLeft(r.h.fn, " \t"))]
}

func (r *randomHistory) first() []byte {
	parts := make([]string, 8)
	for i := range parts {
		parts[i] = r.block()
	}
	return r.h.file(parts...)
}

// mutate returns src with one to three random edits.
func (r *randomHistory) mutate(src []byte) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	pos := func() int { return r.rnd.IntN(len(lines) + 1) }
	for range 1 + r.rnd.IntN(3) {
		switch r.rnd.IntN(12) {
		case 0, 1, 2: // a block where blocks start
			var at []int
			for i, l := range lines {
				if strings.HasPrefix(l, r.indent()) && !strings.HasPrefix(l, r.indent()+" ") && !strings.HasPrefix(l, r.indent()+"\t") {
					at = append(at, i)
				}
			}
			i := len(lines)
			if len(at) > 0 {
				i = at[r.rnd.IntN(len(at))]
			}
			lines = insert(lines, i, strings.SplitAfter(r.block()+"\n", "\n")...)
		case 3, 4: // delete lines
			if len(lines) > 0 {
				i := r.rnd.IntN(len(lines))
				lines = append(lines[:i], lines[min(i+1+r.rnd.IntN(6), len(lines)):]...)
			}
		case 5, 6: // change a number or a name in a line
			if len(lines) > 0 {
				i := r.rnd.IntN(len(lines))
				l := lines[i]
				for d := '0'; d <= '9'; d++ {
					l = strings.ReplaceAll(l, string(d), fmt.Sprint(r.rnd.IntN(10)))
				}
				for _, n := range names {
					if strings.Contains(l, n) && r.rnd.IntN(2) == 0 {
						l = strings.ReplaceAll(l, n, names[r.rnd.IntN(len(names))])
					}
				}
				lines[i] = l
			}
		case 7: // break the syntax
			lines = insert(lines, pos(), junk[r.rnd.IntN(len(junk))]+"\n")
		case 8: // move lines
			if len(lines) > 2 {
				i := r.rnd.IntN(len(lines))
				j := min(i+1+r.rnd.IntN(8), len(lines))
				moved := append([]string(nil), lines[i:j]...)
				lines = append(lines[:i], lines[j:]...)
				lines = insert(lines, r.rnd.IntN(len(lines)+1), moved...)
			}
		case 9: // a comment or a blank line
			c := comments[r.h.lang]
			if c == "" {
				c = "//"
			}
			lines = insert(lines, pos(), []string{"\n", c + " note\n", r.indent() + c + " note\n"}[r.rnd.IntN(3)])
		case 10: // change a character
			if len(lines) > 0 {
				i := r.rnd.IntN(len(lines))
				if l := lines[i]; len(l) > 1 {
					k := r.rnd.IntN(len(l) - 1)
					lines[i] = l[:k] + string("{}();:x "[r.rnd.IntN(8)]) + l[k+1:]
				}
			}
		case 11: // the same text again (copied from elsewhere) or a last line without newline
			if len(lines) > 0 && r.rnd.IntN(2) == 0 {
				lines[len(lines)-1] = strings.TrimSuffix(lines[len(lines)-1], "\n")
			} else if len(lines) > 0 {
				lines[len(lines)-1] = strings.TrimSuffix(lines[len(lines)-1], "\n") + "\n"
			}
		}
	}
	return []byte(strings.Join(lines, ""))
}

func insert(lines []string, i int, add ...string) []string {
	if i > 0 && i <= len(lines) && !strings.HasSuffix(lines[i-1], "\n") {
		lines[i-1] += "\n"
	}
	return append(lines[:i], append(add, lines[i:]...)...)
}

var randomSeeds = flag.Int("changes.seeds", 3, "random histories per language in TestChangesRandom")

// TestChangesRandom checks Changes over random edit sequences in every
// language, with files cut into chunks at every boundary and at the
// default size.
func TestChangesRandom(t *testing.T) {
	steps, seeds := 60, uint64(*randomSeeds)
	var allErrorSteps, allRecoveries int
	for _, h := range histories {
		for _, small := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/small=%v", h.lang, small), func(t *testing.T) {
				withMinChunk(small, func() {
					var errorSteps, recoveries int
					for seed := range seeds {
						r := &randomHistory{h: h, rnd: rand.New(rand.NewPCG(seed, uint64(len(h.lang))))}
						c := newChecker(t, h.lang)
						c.tolerateRecovery = true
						path := "src/r." + h.ext
						versions := [][]byte{r.first()}
						c.step("first", version(path, nil), version(path, versions[0]), 3)
						for i := range steps {
							parent := versions[len(versions)-1]
							if r.rnd.IntN(10) == 0 {
								parent = versions[r.rnd.IntN(len(versions))]
							}
							next := r.mutate(parent)
							versions = append(versions, next)
							c.step(fmt.Sprintf("seed %d step %d", seed, i), version(path, parent), version(path, next), 3*r.rnd.IntN(2))
							if c.failures > 0 {
								t.Logf("old:\n%s\nnew:\n%s", parent, next)
								return
							}
						}
						errorSteps += c.errorSteps
						recoveries += c.recoveries
					}
					t.Logf("%d versions with syntax errors, %d recovered differently", errorSteps, recoveries)
					allErrorSteps += errorSteps
					allRecoveries += recoveries
				})
			})
		}
	}
	t.Logf("in all: %d versions with syntax errors, %d recovered differently", allErrorSteps, allRecoveries)
	if allRecoveries*200 > allErrorSteps {
		t.Errorf("%d of %d versions with syntax errors recovered differently: more than 0.5%%", allRecoveries, allErrorSteps)
	}
}

// TestChangesWrappers changes what wraps a definition without touching
// it: decorators, export keywords, declaration groups and template
// headers decide an entity's lines and signature.
func TestChangesWrappers(t *testing.T) {
	cases := []struct {
		lang     string
		versions []string
	}{
		{"Python", []string{
			"import os\n\ndef f(x):\n    return x\n\nclass K:\n    def m(self):\n        return 1\n",
			"import os\n\n@cache\ndef f(x):\n    return x\n\nclass K:\n    @property\n    def m(self):\n        return 1\n",
			"import os\n\n@cache(3)\n@trace\ndef f(x):\n    return x\n\nclass K:\n    @property\n    def m(self):\n        return 1\n",
			"import os\n\ndef f(x):\n    return x\n\nclass K:\n    def m(self):\n        return 1\n",
		}},
		{"Go", []string{
			"package p\n\ntype A struct {\n\tn int\n}\n\nfunc f() {}\n",
			"package p\n\ntype (\n\tA struct {\n\t\tn int\n\t}\n\tB struct{}\n)\n\nfunc f() {}\n",
			"package p\n\ntype (\n\tA struct {\n\t\tn int\n\t}\n)\n\nfunc f() {}\n",
			"package q\n\ntype (\n\tA struct {\n\t\tn int\n\t}\n)\n\nfunc f() {}\n",
		}},
		{"JavaScript", []string{
			"const f = () => {\n  return 1;\n};\n\nfunction g() {}\n",
			"export const f = () => {\n  return 1;\n};\n\nfunction g() {}\n",
			"export const f = () => {\n  return 1;\n}, h = 2;\n\nfunction g() {}\n",
			"const f = () => {\n  return 1;\n}, h = 2;\n\nfunction g() {}\n",
			"const f = () => {\n  return 1;\n};\n\nfunction g() {}\n",
		}},
		{"TypeScript", []string{
			"class K {\n  m(): number {\n    return 1;\n  }\n}\n\nfunction g() {}\n",
			"export class K {\n  m(): number {\n    return 1;\n  }\n}\n\nfunction g() {}\n",
			"@Component()\nexport class K {\n  m(): number {\n    return 1;\n  }\n}\n\nfunction g() {}\n",
			"export default class K {\n  m(): number {\n    return 1;\n  }\n}\n\nfunction g() {}\n",
		}},
		{"C++", []string{
			"int f(int x) {\n    return x;\n}\n\nint g() { return 0; }\n",
			"template <typename T>\nint f(int x) {\n    return x;\n}\n\nint g() { return 0; }\n",
			"template <typename T, typename U>\nint f(int x) {\n    return x;\n}\n\nint g() { return 0; }\n",
			"int f(int x) {\n    return x;\n}\n\nint g() { return 0; }\n",
		}},
	}
	for _, tc := range cases {
		for _, small := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/small=%v", tc.lang, small), func(t *testing.T) {
				withMinChunk(small, func() {
					c := newChecker(t, tc.lang)
					for i := 1; i < len(tc.versions); i++ {
						for _, j := range []int{i - 1, 0} { // each version from the last and from the first
							c.step(fmt.Sprintf("v%d from v%d", i, j), version("w", []byte(tc.versions[j])), version("w", []byte(tc.versions[i])), 0)
						}
					}
				})
			})
		}
	}
}

// mirrors holds bare clones of public repositories, on the developers'
// machines only: the tests that read them skip without.
const mirrors = "/work/.mirror"

// fileChange is one commit's change of a file against its first parent.
type fileChange struct {
	commit   string
	old, new Version
}

// gitHistory returns the changes of path in the last n commits of a
// mirrored repository that touched it, oldest first.
func gitHistory(t testing.TB, repo, path string, n int) []fileChange {
	t.Helper()
	gitDir := filepath.Join(mirrors, repo, "repo")
	if _, err := os.Stat(gitDir); err != nil {
		t.Skipf("no mirror of %s: %v", repo, err)
	}
	out, err := exec.Command("git", "--git-dir="+gitDir, "log", "--format=%H", "-n", strconv.Itoa(n), "--", path).Output()
	if err != nil {
		t.Fatalf("git log %s: %v", path, err)
	}
	commits := strings.Fields(string(out))
	slices.Reverse(commits)
	cmd := exec.Command("git", "--git-dir="+gitDir, "cat-file", "--batch")
	var in strings.Builder
	for _, c := range commits {
		fmt.Fprintf(&in, "%s^1:%s\n%s:%s\n", c, path, c, path)
	}
	cmd.Stdin = strings.NewReader(in.String())
	blobs, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	// Each answer is "<hash> blob <size>\n<content>\n" or "<name> missing\n".
	next := func() Version {
		i := bytes.IndexByte(blobs, '\n')
		f := strings.Fields(string(blobs[:i]))
		blobs = blobs[i+1:]
		if len(f) != 3 {
			return Version{Path: path}
		}
		size, _ := strconv.Atoi(f[2])
		v := Version{Path: path, Hash: f[0], Src: blobs[:size:size]}
		blobs = blobs[size+1:]
		return v
	}
	var changes []fileChange
	for _, c := range commits {
		old, new := next(), next()
		if old.Hash != new.Hash {
			changes = append(changes, fileChange{commit: c, old: old, new: new})
		}
	}
	return changes
}

// realHistories are files with long histories in the mirrors.
var realHistories = []struct {
	repo, path, lang string
	n                int
}{
	{"git+git", "diff.c", "C", 300},
	{"git+git", "refs.c", "C", 100},
	{"git+git", "odb.h", "C", 80},
	// top-level ERROR nodes (static GIT_PATH_FUNC(...)) and UNUSED parameters: chunks that grow
	{"git+git", "sequencer.c", "C", 300},
	{"jqlang+jq", "src/builtin.c", "C", 100},
	{"go-git+go-git", "repository.go", "Go", 100},
	{"vuejs+core", "packages/compiler-sfc/src/compileScript.ts", "TypeScript", 100},
	{"expressjs+express", "lib/response.js", "JavaScript", 100},
	{"EvilBeaver+OneScript", "src/ScriptEngine/Machine/MachineInstance.cs", "C#", 100},
}

// TestChangesRealHistory checks Changes over the last versions of real
// files, each against its parent with git's hunks (no context), in the
// order an indexer meets them.
func TestChangesRealHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("parses hundreds of file versions")
	}
	for _, rh := range realHistories {
		t.Run(rh.repo+"/"+rh.path, func(t *testing.T) {
			changes := gitHistory(t, rh.repo, rh.path, rh.n)
			c := newChecker(t, rh.lang)
			for _, fc := range changes {
				c.step(fc.commit, fc.old, fc.new, 0)
			}
			t.Logf("%d changes", c.steps)
		})
	}
}

// TestChangesCacheBounded checks that the kept states stay within their
// budget, that evicted states free their trees, and that Close frees all.
func TestChangesCacheBounded(t *testing.T) {
	changes := syntheticHistory(60)
	trees0 := liveTrees.Load()
	p := NewParser()
	states := p.incremental().states
	states.budget = 1 << 20
	for _, c := range changes {
		if _, err := p.Changes(context.Background(), "Go", c.old, c.new, c.hunks); err != nil {
			t.Fatal(err)
		}
		if states.used > states.budget+treeBytesPerSourceByte*len(c.new.Src) {
			t.Fatalf("%d bytes kept, budget %d", states.used, states.budget)
		}
		// The kept chunks are those of the kept states, and hold the
		// only trees.
		used, trees := 0, 0
		seen := map[*chunk]bool{}
		for _, l := range []*list.List{&states.lru, &states.cold} {
			for e := l.Front(); e != nil; e = e.Next() {
				for _, ch := range e.Value.(*cacheEntry).state.chunks {
					if !seen[ch] {
						seen[ch] = true
						used += ch.mem
						if ch.tree != nil {
							trees++
						}
					}
				}
			}
		}
		if used != states.used {
			t.Fatalf("the account says %d bytes, the kept chunks hold %d", states.used, used)
		}
		if live := liveTrees.Load() - trees0; live != int64(trees) {
			t.Fatalf("%d trees live, the kept chunks hold %d", live, trees)
		}
	}
	if states.len() >= len(changes) {
		t.Errorf("%d states kept of %d versions: nothing evicted", states.len(), len(changes)+1)
	}
	p.Close()
	if live := liveTrees.Load() - trees0; live != 0 {
		t.Errorf("%d trees live after Close", live)
	}
}

// TestChangesChilledLatest changes many files under a budget that keeps
// few trees: the latest version of each path is chilled, not dropped, so
// a path's next change finds its old version and parses what it touches,
// not the whole file; the cold list stays within its budget, and Close
// frees every tree.
func TestChangesChilledLatest(t *testing.T) {
	trees0 := liveTrees.Load()
	c := newChecker(t, "C")
	states := c.inc.incremental().states
	states.budget = 64 << 10
	fn := func(name string, v int) string {
		return fmt.Sprintf("int %s(int x)\n{\n    if (x > %d) {\n        return x * %d;\n    }\n    return %d;\n}\n\n", name, v, v, v)
	}
	file := func(i, v int) []byte {
		var b strings.Builder
		for k := range 40 {
			b.WriteString(fn(fmt.Sprintf("f%d_%d", i, k), v+k))
		}
		return []byte(b.String())
	}
	const paths = 30
	vs := make([]Version, paths)
	for i := range vs {
		vs[i] = version(fmt.Sprintf("p%d.c", i), file(i, 0))
		c.step("add", version(vs[i].Path, nil), vs[i], 0)
	}
	if states.cold.Len() == 0 {
		t.Fatal("no latest version was chilled")
	}
	for round := 1; round <= 3; round++ {
		for i := range vs {
			old := vs[i]
			if states.get("C\x00"+old.Hash) == nil {
				t.Fatalf("round %d: %s's latest version was dropped", round, old.Path)
			}
			src := bytes.Replace(old.Src, []byte("return 5;"), []byte(fmt.Sprintf("return 5 + %d;", round)), 1)
			vs[i] = version(old.Path, src)
			c.step("change", old, vs[i], 0)
		}
		if states.coldUsed > states.coldBudget {
			t.Fatalf("cold entries hold %d bytes, budget %d", states.coldUsed, states.coldBudget)
		}
	}
	c.inc.Close()
	if live := liveTrees.Load() - trees0; live != 0 {
		t.Errorf("%d trees live after Close", live)
	}
	if states.used != 0 || states.srcUsed != 0 || states.coldUsed != 0 {
		t.Errorf("after Close: used %d, sources %d, cold %d", states.used, states.srcUsed, states.coldUsed)
	}
}

// TestChangesMemoryFlat runs thousands of changes through a Parser whose
// cache evicts all the time, and checks that no tree is left unclosed and
// that neither the Go heap nor the process's other memory grows once the
// C allocator has reached its working size.
func TestChangesMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of changes")
	}
	changes := syntheticHistory(300)
	trees0 := liveTrees.Load()
	p := NewParser()
	p.incremental().states.budget = 4 << 20
	ctx := context.Background()
	round := 0
	run := func(rounds int) {
		for range rounds {
			for i, c := range changes {
				// Other blob names each round: every version is new.
				old, new := c.old, c.new
				old.Hash = fmt.Sprintf("%d-%d", round, i-1)
				new.Hash = fmt.Sprintf("%d-%d", round, i)
				if _, err := p.Changes(ctx, "Go", old, new, c.hunks); err != nil {
					t.Fatal(err)
				}
			}
			round++
		}
	}
	// glibc's allocator keeps freed C memory in its arenas, so the
	// resident size grows for a while before it levels off.
	run(30)
	heap0, rss0 := memory(t)
	run(20)
	heap1, rss1 := memory(t)
	t.Logf("after %d changes heap %d KiB, non-Go RSS %d KiB; after %d more heap %d KiB, non-Go RSS %d KiB",
		30*len(changes), heap0>>10, rss0>>10, 20*len(changes), heap1>>10, rss1>>10)
	if heap1 > heap0+8<<20 {
		t.Errorf("Go heap grew from %d to %d KiB", heap0>>10, heap1>>10)
	}
	// glibc keeps some freed C memory in its arenas for later: 7 MiB more
	// was seen on a loaded machine with nothing leaked. A tree not closed
	// leaks its whole parse tree (22-37 bytes a source byte) at each of
	// these 6,000 changes, far more than the margin.
	if rss0 > 0 && rss1 > rss0+16<<20 {
		t.Errorf("memory outside the Go heap grew from %d to %d KiB", rss0>>10, rss1>>10)
	}
	p.Close()
	if live := liveTrees.Load() - trees0; live != 0 {
		t.Errorf("%d trees live after Close", live)
	}
}

// FuzzChanges compares Changes with Diff of Entities on arbitrary pairs
// of versions (of Go, Python, C or JavaScript, by lang), with files cut at
// every boundary. Versions with syntax errors may differ (see Changes).
func FuzzChanges(f *testing.F) {
	langs := []string{"Go", "Python", "C", "JavaScript"}
	for i, name := range []string{"sample.go", "sample.py", "sample.c", "sample.js"} {
		src := readFixture(f, name)
		f.Add(uint8(i), src, []byte(strings.Replace(string(src), "\n\n", "\n\n\n", 2)))
		f.Add(uint8(i), src, src[:len(src)/2])
	}
	var mu sync.Mutex
	c := newChecker(f, "")
	c.tolerateRecovery = true
	f.Fuzz(func(t *testing.T, lang uint8, old, new []byte) {
		mu.Lock()
		defer mu.Unlock()
		withMinChunk(true, func() {
			c.t, c.lang = t, langs[int(lang)%len(langs)]
			c.step("fuzz", version("f", old), version("f", new), 0)
		})
	})
}

// TestChangesGrowsGroups edits a C file whose reparsed chunks do not fit
// the file at once: top-level error nodes from macros (git's
// GIT_PATH_FUNC) and a function whose new parameter macro breaks the
// chunk's first node. Each is parsed with its neighbours instead of the
// whole file, and the entities stay exact; a missing closing brace still
// costs a whole parse.
func TestChangesGrowsGroups(t *testing.T) {
	var b strings.Builder
	b.WriteString("#include \"cache.h\"\n\nstatic const char prefix[] = \"x\";\n\n" +
		"GIT_PATH_FUNC(path_a, \"a\")\n\nstatic GIT_PATH_FUNC(path_b, \"b\")\n\n")
	for i := range 6 {
		fmt.Fprintf(&b, "static int f%d(int x)\n{\n\treturn x + %d;\n}\n\n", i, i)
	}
	base := b.String()
	steps := []editStep{
		{"a macro line added", "static GIT_PATH_FUNC(path_b, \"b\")\n", "static GIT_PATH_FUNC(path_b, \"b\")\n\nstatic GIT_PATH_FUNC(path_c, \"c\")\n"},
		{"a parameter macro", "static int f3(int x)\n", "static int f3(int x UNUSED)\n"},
		{"a body changed", "\treturn x + 4;\n", "\treturn x * 4;\n"},
		{"a closing brace lost", "\treturn x + 2;\n}\n", "\treturn x + 2;\n"},
	}
	wantWhole := []bool{false, false, false, true}
	withMinChunk(true, func() {
		replaceSteps(newChecker(t, "C"), "sequencer.c", base, steps, func(i int, step func()) {
			before := wholeParses.Load()
			step()
			if whole := wholeParses.Load() > before; whole != wantWhole[i] {
				t.Errorf("%s: parsed whole: %v, want %v", steps[i].name, whole, wantWhole[i])
			}
		})
	})
}

// editStep replaces the first from in a file's text with to.
type editStep struct{ name, from, to string }

// replaceSteps adds path with content base, then makes the edits one after
// another, each checked by c; around calls the i-th edit's check, step, so
// that it can measure it.
func replaceSteps(c *checker, path, base string, steps []editStep, around func(i int, step func())) {
	prev := version(path, []byte(base))
	c.step("add", Version{Path: path}, prev, 0)
	src := base
	for i, s := range steps {
		if !strings.Contains(src, s.from) {
			c.t.Fatalf("%s: the file lacks %q", s.name, s.from)
		}
		src = strings.Replace(src, s.from, s.to, 1)
		next := version(path, []byte(src))
		around(i, func() { c.step(s.name, prev, next, 0) })
		prev = next
	}
}

// TestChangesGuardedHeaderParsedOnce edits a C++ header that an include
// guard makes one top-level node, so one chunk, and that a macro in a
// template's parameter list leaves with a missing ")" (fmt's
// FMT_ENABLE_IF(sizeof(To) > sizeof(From))). Such a chunk's reparse could
// only end in a whole parse: each version is parsed once, whole, and the
// entities stay exact.
func TestChangesGuardedHeaderParsedOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("#ifndef FORMAT_H_\n#define FORMAT_H_\n\n#include <cstddef>\n\n" +
		"template <typename To, typename From, ENABLE_IF(sizeof(To) > sizeof(From))>\n" +
		"inline auto narrow(From x) -> To {\n  return static_cast<To>(x);\n}\n\n")
	for i := range 6 {
		fmt.Fprintf(&b, "inline int f%d(int x) {\n  return x + %d;\n}\n\n", i, i)
	}
	b.WriteString("#endif  // FORMAT_H_\n")
	base := b.String()
	steps := []editStep{
		{"a function added", "#endif", "inline int g(int x) {\n  return -x;\n}\n\n#endif"},
		{"a signature changed", "inline int f3(int x) {", "inline long f3(long x) {"},
		{"a function removed", "inline int f1(int x) {\n  return x + 1;\n}\n\n", ""},
	}
	withMinChunk(true, func() {
		replaceSteps(newChecker(t, "C++"), "format.h", base, steps, func(i int, step func()) {
			before := treeParses.Load()
			step()
			if n := treeParses.Load() - before; n != 1 {
				t.Errorf("%s: %d parses, want 1", steps[i].name, n)
			}
		})
	})
}

// TestChangesPythonIndentedAfterComment: a chunk must not start at a
// comment before an indented line, which a block added before the comment
// takes into itself (found by TestChangesRandom with 20 seeds).
func TestChangesPythonIndentedAfterComment(t *testing.T) {
	old := "import os\n\n# note\n    return y\ndef area(x):\n    return x\n\ndef dup(x):\n    return x\n"
	new := strings.Replace(old, "import os\n\n", "import os\nclass K:\n    def m(self):\n        return 41\n\n\n", 1)
	withMinChunk(true, func() {
		c := newChecker(t, "Python")
		c.step("add", Version{Path: "m.py"}, version("m.py", []byte(old)), 0)
		c.step("a class before the comment", version("m.py", []byte(old)), version("m.py", []byte(new)), 0)
	})
}
