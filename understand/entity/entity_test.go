package entity

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures maps each language to its fixture and the entities expected in
// it, one "kind qualified start-end" line each.
var fixtures = []struct {
	lang, file, want string
}{
	{"Go", "sample.go", `
interface shapes.Shape 7-9
struct shapes.Circle 12-14
method shapes.Circle.Area 17-19
struct shapes.pair 22-22
struct shapes.empty 23-23
method shapes.pair.First 26-26
function shapes.Top 29-31`},
	{"Python", "sample.py", `
function P:top 4-5
class P:Shape 8-18
method P:Shape.area 11-12
method P:Shape.name 14-18
function P:Shape.name.helper 16-17
function P:fetch 21-22`},
	{"JavaScript", "sample.js", `
function P:top 3-5
class P:Shape 7-15
method P:Shape.area 8-10
method P:Shape.create 12-14
function P:arrow 17-19
function P:gen 21-23`},
	{"TypeScript", "sample.ts", `
function P:top 3-5
interface P:Named 7-9
class P:Shape 11-17
method P:Shape.name 14-16
function P:arrow 19-19
module P:Geo 21-25
function P:Geo.dist 22-24
enum P:Color 27-30`},
	{"TSX", "sample.tsx", `
interface P:Props 3-5
function P:Title 7-9
class P:Page 11-15
method P:Page.render 12-14
function P:Button 17-19`},
	{"Rust", "sample.rs", `
function P:top 3-5
struct P:Point 7-10
method P:Point.new 13-15
interface P:Shape 18-23
method P:Shape.name 20-22
method P:Wrapper.fmt 26-28
enum P:Kind 31-34
module P:tests 36-41
function P:tests.it_works 38-40`},
	{"Java", "Sample.java", `
interface com.example.shapes.Shape 5-7
class com.example.shapes.Circle 9-25
method com.example.shapes.Circle.Circle 12-14
method com.example.shapes.Circle.area 16-19
class com.example.shapes.Circle.Inner 21-24
method com.example.shapes.Circle.Inner.run 22-23
enum com.example.shapes.Color 27-33
method com.example.shapes.Color.lower 30-32`},
	{"C", "sample.c", `
struct P:point 3-6
struct P:size_t2 8-10
function P:top 12-15
function P:name 17-20`},
	{"C++", "sample.cpp", `
class P:geo.Shape 5-9
method P:geo.Shape.~Shape 7-7
method P:geo.Shape.area 8-8
struct P:geo.Point 11-14
method P:geo.Point.sum 13-13
method P:geo.Shape.perimeter 16-18
function P:geo.top 20-23`},
	{"Ruby", "sample.rb", `
function P:top 3-5
module P:Geo 7-17
class P:Geo.Shape 8-16
method P:Geo.Shape.area 9-11
method P:Geo.Shape.create 13-15`},
	{"C#", "Sample.cs", `
interface Geo.Shapes.IShape 5-8
struct Geo.Shapes.Point 10-13
class Geo.Shapes.Circle 15-28
method Geo.Shapes.Circle.Circle 17-20
method Geo.Shapes.Circle.Area 22-25
method Geo.Shapes.Circle.Twice 27-27`},
	{"PHP", "sample.php", `
function P:App.Models.top 5-8
interface P:App.Models.Named 10-13
class P:App.Models.User 15-21
method P:App.Models.User.name 17-20
class P:App.Models.Greets 23-29
method P:App.Models.Greets.greet 25-28`},
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// summary renders entities as the fixtures' want strings, with the path
// prefix written as "P:".
func summary(ents []Entity, path string) string {
	var b strings.Builder
	for _, e := range ents {
		q := strings.Replace(e.Qualified, path+":", "P:", 1)
		fmt.Fprintf(&b, "\n%s %s %d-%d", e.Kind, q, e.StartLine, e.EndLine)
	}
	return b.String()
}

func TestEntitiesFixtures(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for _, fx := range fixtures {
		t.Run(fx.lang, func(t *testing.T) {
			path := "src/" + fx.file
			ents, err := p.Entities(context.Background(), fx.lang, path, "", readFixture(t, fx.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(ents, path); got != fx.want {
				t.Errorf("entities:%s\nwant:%s", got, fx.want)
			}
			for _, e := range ents {
				if last := e.Qualified[strings.LastIndexAny(e.Qualified, ".:")+1:]; last != e.Name {
					t.Errorf("%s: name %q is not the last part of its qualified name", e.Qualified, e.Name)
				}
				if e.Signature == "" || e.BodyHash == 0 {
					t.Errorf("%s: no signature or hash", e.Qualified)
				}
			}
		})
	}
}

func TestSignatures(t *testing.T) {
	want := map[string]string{
		"Go:shapes.Circle.Area":               "func (c *Circle) Area() float64",
		"Go:shapes.Circle":                    "type Circle struct",
		"Python:P:Shape.name":                 "def name(self):",
		"Python:P:fetch":                      "async def fetch(url):",
		"JavaScript:P:arrow":                  "export const arrow = (x) =>",
		"TypeScript:P:top":                    "export function top(a: number, b: number): number",
		"Rust:P:Wrapper.fmt":                  "fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result",
		"Java:com.example.shapes.Circle.area": "@Override public double area()",
		"C:P:name":                            "char *name(struct point *p)",
		"C++:P:geo.top":                       "template <typename T> T top(T a, T b)",
		"C++:P:geo.Shape.perimeter":           "double Shape::perimeter() const",
		"Ruby:P:Geo.Shape.create":             "def self.create",
		"C#:Geo.Shapes.Circle.Twice":          "public double Twice()",
		"PHP:P:App.Models.User.name":          "public function name(): string",
	}
	p := NewParser()
	defer p.Close()
	got := map[string]string{}
	for _, fx := range fixtures {
		ents, err := p.Entities(context.Background(), fx.lang, "P", "", readFixture(t, fx.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			got[fx.lang+":"+e.Qualified] = e.Signature
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: signature %q, want %q", k, got[k], w)
		}
	}
}

func TestSignatureTruncated(t *testing.T) {
	src := "def f(" + strings.Repeat("abcdefghij, ", 40) + "z):\n    return 1\n"
	p := NewParser()
	defer p.Close()
	ents, err := p.Entities(context.Background(), "Python", "a.py", "", []byte(src))
	if err != nil || len(ents) != 1 {
		t.Fatalf("entities %v, %v", ents, err)
	}
	sig := ents[0].Signature
	if n := len([]rune(sig)); n != maxSignature || !strings.HasPrefix(sig, "def f(abcdefghij, ") || !strings.HasSuffix(sig, "…") {
		t.Errorf("signature of %d runes: %q", n, sig)
	}
}

func TestEntitiesErrors(t *testing.T) {
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	if _, err := p.Entities(ctx, "Haskell", "a.hs", "", []byte("main = pure ()")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Haskell: %v, want ErrUnsupported", err)
	}
	big := make([]byte, MaxSourceSize+1)
	if _, err := p.Entities(ctx, "Go", "big.go", "", big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big file: %v, want ErrTooLarge", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	src := []byte(strings.Repeat("func f() { x := 1; _ = x }\n", 20000))
	if _, err := p.Entities(cancelled, "Go", "c.go", "", src); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	// The parser stays usable after a cancelled parse.
	ents, err := p.Entities(ctx, "Go", "c.go", "", []byte("package p\nfunc f() {}\n"))
	if err != nil || len(ents) != 1 {
		t.Errorf("after cancel: %v, %v", ents, err)
	}
}

func TestEntitiesSyntaxErrors(t *testing.T) {
	src := []byte("package p\n\nfunc ok() {\n}\n\nfunc broken( {\n\nfunc (r *R) M() int {\n\treturn 1\n}\n")
	p := NewParser()
	defer p.Close()
	ents, err := p.Entities(context.Background(), "Go", "p.go", "", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) == 0 || ents[0].Qualified != "p.ok" || ents[0].StartLine != 3 || ents[0].EndLine != 4 {
		t.Errorf("entities of a broken file: %+v", ents)
	}
}

func TestEntitiesCache(t *testing.T) {
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	src := readFixture(t, "sample.py")
	a, err := p.Entities(ctx, "Python", "a.py", "blob1", src)
	if err != nil {
		t.Fatal(err)
	}
	a[0].Name = "scribbled" // callers own their copy
	// The same blob under another path is not parsed again: pass other
	// bytes to prove it, and get the path's own qualified names.
	b, err := p.Entities(ctx, "Python", "b/c.py", "blob1", []byte("garbage"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 6 || b[0].Name != "top" || b[0].Qualified != "b/c.py:top" {
		t.Errorf("cached entities: %+v", b[:1])
	}
	// The cache is keyed by language too.
	if c, _ := p.Entities(ctx, "Ruby", "a.rb", "blob1", []byte("def x\nend\n")); len(c) != 1 || c[0].Name != "x" {
		t.Errorf("Ruby entities of a Python blob hash: %+v", c)
	}
}

func TestBlobCacheBounded(t *testing.T) {
	c := newBlobCache(8, 1000)
	for i := range 100 {
		c.put(fmt.Sprint(i), nil)
		if c.len() > 8 {
			t.Fatalf("cache holds %d entries, bound 8", c.len())
		}
	}
	if _, ok := c.get("99"); !ok {
		t.Error("newest entry evicted")
	}
	if _, ok := c.get("0"); ok {
		t.Error("oldest entry kept")
	}
	c.put("a", nil)
	for i := range 3 {
		c.put(fmt.Sprint("x", i), nil)
		c.get("a") // promoted on use
	}
	for i := range 20 {
		c.put(fmt.Sprint("y", i), nil)
		if i%3 == 0 {
			c.get("a")
		}
	}
	if _, ok := c.get("a"); !ok {
		t.Error("an entry in use was evicted")
	}
	c = newBlobCache(100, 10)
	c.put("big", make([]Entity, 4))
	c.put("bigger", make([]Entity, 4))
	c.put("biggest", make([]Entity, 4))
	if _, ok := c.get("big"); ok || c.len() != 2 {
		t.Errorf("entity bound not kept: %d blobs cached", c.len())
	}
}

func TestBodyHash(t *testing.T) {
	h := func(text, name string) uint64 { return bodyHash([]byte(text), name) }
	same := [][2]string{
		{"def foo(x):\n    return foo(x-1)", "foo"},
		{"def bar(x):\n        return bar(x-1)", "bar"},
	}
	if h(same[0][0], same[0][1]) != h(same[1][0], same[1][1]) {
		t.Error("renamed, re-indented function hashes differ")
	}
	if h("def foo(x): return foods", "foo") == h("def foo(x): return s", "foo") {
		t.Error("name removed inside a longer identifier")
	}
	if h("f(a, b)", "") == h("f(ab)", "") {
		t.Error("white space between words dropped, not collapsed")
	}
	// With nothing to remove and no white space, it is plain FNV-1a.
	if got := h("abc", "x"); got != 0xe71fa2190541574b {
		t.Errorf("bodyHash(abc) = %#x, want FNV-1a 0xe71fa2190541574b", got)
	}
}
