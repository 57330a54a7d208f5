package entity

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// callsOf returns the calls of the entity named name in src, written as
// [new ][~][Qual.]Name[<Type>].
func callsOf(t *testing.T, lang, src, name string) []string {
	t.Helper()
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
	for _, e := range ents {
		if e.Name != name {
			continue
		}
		var out []string
		for _, c := range s.Calls(e, spansOf(ents)) {
			x := c.Name
			if c.Qual != "" {
				x = c.Qual + "." + x
			}
			if c.Chained {
				x = "~" + x
			}
			if c.Type != "" {
				x += "<" + c.Type + ">"
			}
			if c.New {
				x = "new " + x
			}
			out = append(out, x)
		}
		return out
	}
	t.Fatalf("no entity %s in %s", name, src)
	return nil
}

func TestCalls(t *testing.T) {
	cases := []struct {
		lang, src, name string
		want            []string
	}{
		{"Go", `package p

// run calls helper() in a comment: not a call.
func (s *Store) run(c *cobra.Command, a, b Thing, xs []Item) error {
	s.put("helper(x)")
	helper(len(xs))
	x := &Other{}
	var y Third
	x.do()
	y.go2()
	c.Execute()
	a.m(); b.n()
	fmt.Println(strings.ToUpper("x"))
	if ok(x) {
		defer cleanup()
	}
	go worker()
	f := func(v int) { inner(v) }
	return s.cfg.get()
}
`, "run", []string{"s.put<Store>", "helper", "x.do<Other>", "y.go2<Third>", "c.Execute<Command>", "a.m<Thing>",
			"b.n<Thing>", "fmt.Println", "strings.ToUpper", "ok", "cleanup", "worker", "inner", "~cfg.get"}},
		{"C", `static int run(struct ctx *c)
{
	int n = count(c);	/* call(1) */
	const char *s = "f(x)";
	if (n && c->fn(n))
		return helper(n) + sizeof(int);
	for_each_item(c, i) {
		use(i);
	}
	return (int) other(n);
}
`, "run", []string{"count", "helper", "use", "other"}},
		{"Python", `class Shape(Base):
    @decorate(1)
    def area(self, other: Point, n=3):
        """helper(x) in a docstring."""
        x = Circle(1)
        self.scale(2)  # self.not_a_call()
        other.move()
        x.grow()
        def inner():
            hidden()
        return math.pi * helper(n) + super().area()
`, "area", []string{"new Circle", "self.scale", "other.move<Point>", "x.grow<Circle>", "helper", "~area"}},
		{"JavaScript", "function send(body) {\n  const r = new Router();\n  this.set('a');\n  r.handle(req);\n  if (typeof body === 'object') { json(body) }\n  const re = /foo(x)/;\n  return `${tpl(1)}` + done();\n}\n",
			"send", []string{"new Router", "this.set", "r.handle<Router>", "json", "done"}},
		{"TypeScript", "class A {\n  run(b: Builder, n: number): void {\n    b.build();\n    const c: Cache = make();\n    c.get(n);\n    this.helper();\n  }\n}\n",
			"run", []string{"b.build<Builder>", "make", "c.get<Cache>", "this.helper"}},
		{"Java", `class K {
  void run(final Foo f, List<Bar> bs) {
    Baz z = new Baz(1);
    f.go();
    z.stop();
    helper(bs);
    int local(int x);
    Collections.sort(bs);
    Runnable r = new Runnable() {
      public void run() { inner(); }
    };
    this.done();
  }
}
`, "run", []string{"new Baz", "f.go<Foo>", "z.stop<Baz>", "helper", "Collections.sort", "new Runnable", "this.done"}},
		{"C++", `void Shape::draw(Canvas &c) const {
  Pen p(c);
  c.line(0, 0);
  helper();
  geo::util::scale(2);
  auto q = std::make_unique<Pen>();
  Base::draw(c);
}
`, "draw", []string{"c.line<Canvas>", "helper", "~util.scale", "Base.draw"}},
		{"Rust", `impl Point {
    fn len(&self, o: &Other) -> f64 {
        let v = Vec::new();
        let mut w = Widget::new(1);
        println!("{}", helper(1));
        o.norm();
        w.paint();
        self.x.sqrt() + Self::zero() + compute(r#"x("#)
    }
}
`, "len", []string{"Vec.new", "Widget.new", "helper", "o.norm<Other>", "w.paint<Widget>", "~x.sqrt", "Self.zero", "compute"}},
		{"Ruby", "class Foo < Base\n  def run(x)\n    y = Bar.new(1)\n    helper(x) # other(x)\n    y.go(2)\n    valid?(x)\n    self.done()\n  end\nend\n",
			"run", []string{"new Bar.new", "helper", "y.go<Bar>", "valid?", "self.done"}},
		{"C#", `class K {
  public int Run(Foo f) {
    var s = @"Helper(x)";
    f.Go();
    return Helper(nameof(f)) + Area();
  }
  int Twice() => Area() * 2;
}
`, "Run", []string{"f.Go<Foo>", "Helper", "Area"}},
		{"C#", "class K {\n  int Twice() => Area() * 2;\n}\n", "Twice", []string{"Area"}},
		{"PHP", `<?php
class User {
  public function save(Mailer $m) {
    $db = new Database();
    $this->validate();
    $m->send();
    $db->insert('x');
    self::log();
    \App\Util::trace();
    return helper();
  }
}
`, "save", []string{"new Database", "$this.validate", "$m.send<Mailer>", "$db.insert<Database>", "self.log", "Util.trace", "helper"}},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			if got := callsOf(t, c.lang, c.src, c.name); !slices.Equal(got, c.want) {
				t.Errorf("calls of %s:\n got %q\nwant %q", c.name, got, c.want)
			}
		})
	}
}

// TestCallsNested checks that a nested definition's calls are its own.
func TestCallsNested(t *testing.T) {
	src := "def outer():\n    a()\n    def inner():\n        b()\n    return inner()\n"
	if got := callsOf(t, "Python", src, "outer"); !slices.Equal(got, []string{"a", "inner"}) {
		t.Errorf("outer: %q", got)
	}
	if got := callsOf(t, "Python", src, "inner"); !slices.Equal(got, []string{"b"}) {
		t.Errorf("inner: %q", got)
	}
}

func importsOf(t *testing.T, lang, src string) []string {
	t.Helper()
	s, _ := NewSource(lang, []byte(src))
	var out []string
	for _, im := range s.Imports(0) {
		x := im.Path
		if im.Level > 0 {
			x = strings.Repeat(".", im.Level) + x
		}
		if im.Alias != "" {
			x += " as " + im.Alias
		}
		if len(im.Names) > 0 {
			x += " {" + strings.Join(im.Names, ", ") + "}"
		}
		if im.Local {
			x += " (local)"
		}
		out = append(out, fmt.Sprintf("%d:%s", im.Line, x))
	}
	return out
}

func TestImports(t *testing.T) {
	cases := []struct {
		lang, src string
		want      []string
	}{
		{"C", "#include \"cache.h\"\n#include <stdio.h>\n  #  include \"a/b.h\" /* x */\n#define X(a) f(a)\n// #include \"no.h\"\n#include MACRO\n",
			[]string{`1:cache.h (local)`, `2:stdio.h`, `3:a/b.h (local)`}},
		{"Go", "package p\n\nimport \"fmt\"\nimport (\n\tstr \"strings\"\n\t_ \"embed\"\n\t\"github.com/spf13/cobra/v2\"\n)\n",
			[]string{`3:fmt as fmt`, `5:strings as str`, `6:embed as _`, `7:github.com/spf13/cobra/v2 as cobra`}},
		{"Python", "import os, sys as system\nfrom . import util\nfrom ..core import (\n    Command as C,\n    Group,\n)\nfrom click.types import *\ndef f():\n    import json\n",
			[]string{`1:os as os`, `1:sys as system`, `2:. {util}`, `3:..core {Command as C, Group}`, `7:click.types {*}`, `9:json as json`}},
		{"JavaScript", "import React, { useState as us, useEffect } from 'react';\nimport * as path from \"path\";\nimport './side.css';\nconst debug = require('debug')('x');\nconst { a, b: c } = require('./util');\nexport { x } from './x';\nexport const y = 1;\n",
			[]string{`1:react as React {useState as us, useEffect}`, `2:path as path`, `3:./side.css`, `4:debug as debug`, `5:./util {a, b}`, `6:./x {x}`}},
		{"TypeScript", "import type { Foo } from './types'\nimport {\n  Bar,\n} from '../bar'\n",
			[]string{`1:./types {Foo}`, `2:../bar {Bar}`}},
		{"Java", "package a;\nimport java.util.List;\nimport static org.junit.Assert.assertEquals;\nimport com.x.*;\n",
			[]string{`2:java.util.List`, `3:org.junit.Assert {assertEquals}`, `4:com.x.*`}},
		{"C#", "using System;\nusing IO = System.IO;\nclass K { void F() { using (var x = G()) {} using var y = H(); } }\n",
			[]string{`1:System`, `2:System.IO as IO`}},
		{"Rust", "use std::collections::{HashMap, hash_map::Entry as E};\nuse crate::search::*;\npub(crate) mod printer;\nmod inline { }\nextern crate libc;\nuse super::Config;\n",
			[]string{`1:std::collections::HashMap {HashMap}`, `1:std::collections::hash_map::Entry as E {Entry}`, `2:crate::search::*`, `3:printer (local)`, `5:libc`, `6:super::Config {Config}`}},
		{"Ruby", "require 'json'\nrequire_relative \"lib/helper\"\nx.require('no')\nautoload :Foo, 'foo'\n",
			[]string{`1:json`, `2:lib/helper (local)`, `4:foo`}},
		{"PHP", "<?php\nnamespace App;\nuse App\\Models\\User;\nuse App\\Http\\{Request, Response as R};\nrequire_once __DIR__ . '/../vendor/autoload.php';\nclass K { use Greets; }\n",
			[]string{`3:App\Models\User`, `4:App\Http\Request`, `4:App\Http\Response as R`, `5:/../vendor/autoload.php (local)`}},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			if got := importsOf(t, c.lang, c.src); !slices.Equal(got, c.want) {
				t.Errorf("imports:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestMayImport(t *testing.T) {
	for _, c := range []struct {
		lang, line string
		want       bool
	}{
		{"C", "#include <x.h>", true}, {"C", "\tint x = 1;", false},
		{"Go", "\t\"fmt\"", true}, {"Go", "\treturn x", false},
		{"Python", "from x import y", true}, {"Python", "    y = 1", false},
		{"JavaScript", "const x = require('y')", true}, {"JavaScript", "x.y()", false},
		{"Rust", "pub use a::b;", true}, {"Java", "import a.B;", true}, {"Ruby", "require 'x'", true},
	} {
		if got := MayImport(c.lang, []byte(c.line)); got != c.want {
			t.Errorf("MayImport(%s, %q) = %v", c.lang, c.line, got)
		}
	}
}

func TestBases(t *testing.T) {
	cases := []struct {
		lang string
		kind Kind
		sig  string
		want string
	}{
		{"Java", KindClass, "public class Circle<T extends Num> extends Shape<T> implements Named, java.io.Serializable", "Shape +Named +io.Serializable"},
		{"Java", KindInterface, "interface A extends B, C", "B C"},
		{"TypeScript", KindClass, "export abstract class A extends B implements I<T>", "B +I"},
		{"TSX", KindClass, "export class Page extends React.Component<Props>", "React.Component"},
		{"JavaScript", KindClass, "class A extends mixin(B)", ""},
		{"PHP", KindClass, `class User extends \App\Model implements Named, \JsonSerializable`, "App.Model +Named +JsonSerializable"},
		{"C#", KindClass, "public class Circle<T> : Shape, IShape where T : new()", "Shape IShape"},
		{"C#", KindClass, "internal static class DefaultPredicates<TArgs, TResult> where TArgs : IOutcomeArguments<TResult>", ""},
		{"Rust", KindInterface, "pub trait Visit<T> where T: Clone", ""},
		{"C++", KindClass, "template <typename T> class A final : public B<T>, private virtual ns::C", "B ns.C"},
		{"C++", KindStruct, "struct Point", ""},
		{"Python", KindClass, "class Shape(Base, abc.ABC, metaclass=Meta):", "Base abc.ABC"},
		{"Ruby", KindClass, "class Shape < Geo::Base", "Geo.Base"},
		{"Rust", KindInterface, "pub trait Shape<T: Clone>: Debug + fmt::Display + 'static", "Debug fmt.Display"},
		{"Java", KindClass, "class A extends B implements C, VeryLongInterfaceNa…", "B +C"},
		{"Go", KindInterface, "type Shape interface", ""},
	}
	for _, c := range cases {
		var got []string
		for _, b := range Bases(c.lang, c.kind, c.sig) {
			x := b.Name
			if b.Qual != "" {
				x = b.Qual + "." + x
			}
			if b.Implements {
				x = "+" + x
			}
			got = append(got, x)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s %q: got %q, want %q", c.lang, c.sig, g, c.want)
		}
	}
}

func TestInterfaceSpec(t *testing.T) {
	src := "package p\n\ntype RW interface {\n\tio.Reader\n\tWriter\n\tRead(p []byte) (n int, err error)\n\tClose() error\n\tName(a, b string, f func(int) bool)\n}\n\ntype Num interface {\n\t~int | ~float64\n}\n"
	p := NewParser()
	defer p.Close()
	ents, _ := p.Entities(context.Background(), "Go", "f.go", "", []byte(src))
	s, _ := NewSource("Go", []byte(src))
	m, e, ok := s.InterfaceSpec(ents[0])
	want := []MethodShape{{"Read", 1, 2}, {"Close", 0, 1}, {"Name", 3, 0}}
	if !ok || !slices.Equal(m, want) || !slices.Equal(e, []string{"Reader", "Writer"}) {
		t.Errorf("RW: %v %v %v", m, e, ok)
	}
	if _, _, ok := s.InterfaceSpec(ents[1]); ok {
		t.Error("a type set satisfied by method sets")
	}
	for sig, want := range map[string]MethodShape{
		"func (s *Store) Get(key string) (int, bool)":        {"Get", 1, 2},
		"func (s Store[K]) Put(k, v K)":                      {"Put", 2, 0},
		"func (r *reader) Read(p []byte) (n int, err error)": {"Read", 1, 2},
		"func (c *Command) Execute() error":                  {"Execute", 0, 1},
	} {
		if got, ok := GoMethodShape(sig); !ok || got != want {
			t.Errorf("GoMethodShape(%q) = %v, %v", sig, got, ok)
		}
	}
	if _, ok := GoMethodShape("func plain()"); ok {
		t.Error("a function has a method shape")
	}
}

func TestImpls(t *testing.T) {
	src := "impl<T: Clone> fmt::Display for Point<T> {}\nimpl Point {}\nimpl Shape for &mut Circle {}\nimpl !Send for X {}\n// impl Fake for Y {}\n"
	s, _ := NewSource("Rust", []byte(src))
	got := s.Impls()
	want := []Impl{{"Display", "Point"}, {"Shape", "Circle"}}
	if !slices.Equal(got, want) {
		t.Errorf("impls: %v", got)
	}
}

// TestTokenizeLiterals checks that names inside every language's comments
// and literals are not tokens.
func TestTokenizeLiterals(t *testing.T) {
	cases := map[string]string{
		"Go":         "a /* b */ `c\n` 'd' \"e\\\"\" f // g",
		"Python":     "a # b\n'''c\n''' r\"d\\\"\" f'e' f",
		"JavaScript": "a /* b */ `c ${x}`, /d(/g, f",
		"Rust":       "a /* /* b */ c */ r#\"d\"# 'e' 'static b\"x\" f",
		"C++":        "a R\"x(b)\")x\" 'c' 1'000 f",
		"C":          "a\n#define b(x) c(x)\nf",
		"C#":         "a @\"b\"\"c\" f",
		"Ruby":       "a # b\n=begin\nc\n=end\n'd' f",
		"PHP":        "a # b\n'c' \"d\" f",
	}
	for lang, src := range cases {
		var names []string
		for _, tk := range tokenize(lexSpecs[lang], []byte(src)) {
			if tk.kind == tIdent {
				names = append(names, string(tk.text([]byte(src))))
			}
		}
		want := []string{"a", "f"}
		if lang == "Rust" {
			want = []string{"a", "'static", "f"}
		}
		if lang == "Python" {
			want = []string{"a", "f"}
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: names %q, want %q", lang, names, want)
		}
	}
}

// BenchmarkCalls reads the calls of every definition of a 2,000-line Go
// file: the cost the indexer pays per changed definition, per byte.
func BenchmarkCalls(b *testing.B) {
	src := source("package bench\n\nimport \"sync\"\n", goBlock, 2000)
	p := NewParser()
	defer p.Close()
	ents, err := p.Entities(context.Background(), "Go", "bench.go", "", src)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		s, _ := NewSource("Go", src)
		for _, e := range ents {
			s.Calls(e, nil)
		}
	}
}

// BenchmarkCallsTreeSitter is what BenchmarkCalls would cost with
// tree-sitter instead of the scanner: each definition parsed on its own
// and queried for its call expressions (Go's grammar; the design note in
// docs/relationships.md compares the two).
func BenchmarkCallsTreeSitter(b *testing.B) {
	src := source("package bench\n\nimport \"sync\"\n", goBlock, 2000)
	p := NewParser()
	defer p.Close()
	ents, err := p.Entities(context.Background(), "Go", "bench.go", "", src)
	if err != nil {
		b.Fatal(err)
	}
	s, _ := NewSource("Go", src)
	var frags [][]byte
	for _, e := range ents {
		if isCallable(e.Kind) {
			frags = append(frags, s.lineText(e.StartLine, e.EndLine))
		}
	}
	lang := languages["Go"].grammar()
	q, err := sitter.NewQuery([]byte(`(call_expression function: [(identifier) (selector_expression)] @callee)`), lang)
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(lang)
	cur := sitter.NewQueryCursor()
	defer cur.Close()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		for _, f := range frags {
			tree, err := parser.ParseCtx(context.Background(), nil, f)
			if err != nil {
				b.Fatal(err)
			}
			cur.Exec(q, tree.RootNode())
			for {
				if _, ok := cur.NextMatch(); !ok {
					break
				}
			}
			tree.Close()
		}
	}
}

// TestIncludesOfAPrefix: a C or C++ source's includes, read from the
// prefix that ends after the last line that may hold one, are those of
// the whole source: with a directive continued over lines (plain and
// CRLF), the word in a late comment or string, a directive after
// functions, none at all, and the C fixture.
func TestIncludesOfAPrefix(t *testing.T) {
	fixture, err := os.ReadFile("testdata/fixtures/sample.c")
	if err != nil {
		t.Fatal(err)
	}
	srcs := []string{
		string(fixture),
		"#include \"a.h\"\nint f(void)\n{\n\treturn g();\n}\n",
		"#include \\\n\t\"cont.h\"\nint f(void) { return 1; }\n",
		"#include \\\r\n\t\"crlf.h\"\r\nint f(void) { return 1; }\r\n",
		"#include <a.h>\nint f(void) { /* include \"no.h\" */ return 1; }\n#include \"late.h\"\n",
		"#include <a.h>\nconst char *s = \"#include <str.h>\";\nint include_all(void);\n",
		"/* #include \"x.h\"\n#include \"y.h\" */\n#include \"z.h\" /* a comment that goes on\n over lines */\n",
		"int f(void) { return 1; }\n",
		"#import <Foundation/Foundation.h>\n#include_next <stdio.h>\n",
	}
	for _, lang := range []string{"C", "C++"} {
		for _, src := range srcs {
			r := &importReader{lang: lang, src: []byte(src), toks: tokenizeInto(lexSpecs[lang], []byte(src), nil)}
			r.read()
			s, _ := NewSource(lang, []byte(src))
			if got := s.Imports(0); !reflect.DeepEqual(got, r.out) {
				t.Errorf("%s %q:\n got %+v\nwant %+v", lang, src, got, r.out)
			}
		}
	}
	if n := includesEnd([]byte("int f(void) { return 1; }\n")); n != 0 {
		t.Errorf("a source without the words is read to %d, want 0", n)
	}
}

// TestLastIndex: the forward search finds what bytes.LastIndex finds,
// with the word absent, once, repeated, overlapping itself and at either
// end.
func TestLastIndex(t *testing.T) {
	for _, c := range []struct{ src, word string }{
		{"", "include"}, {"int f;", "include"}, {"#include <a.h>\nint f;", "include"},
		{"#include <a.h>\n#include <b.h>\n/* include */ int f;", "include"},
		{"include", "include"}, {"xinclude", "include"}, {"aaaa", "aa"}, {"import x\nimport y", "import"},
	} {
		if got, want := lastIndex([]byte(c.src), []byte(c.word)), bytes.LastIndex([]byte(c.src), []byte(c.word)); got != want {
			t.Errorf("lastIndex(%q, %q) = %d, want %d", c.src, c.word, got, want)
		}
	}
}
