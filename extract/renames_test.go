package extract

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/go-enry/go-enry/v2"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/model"
)

// TestRenamesAsGitOnGenerated: every non-merge commit of a generated
// history with renames, directory moves and copies has git's -M -C name
// status, similarities and line counts.
func TestRenamesAsGitOnGenerated(t *testing.T) {
	g := gittest.GenerateWith(t, 300, 13, gittest.GenerateOptions{DirMoves: true, RealCode: true})
	r := open(t, g.Dir)
	renames := 0
	for _, h := range strings.Fields(g.Git("rev-list", "--no-merges", "main")) {
		c := extract(t, r, h)
		want := strings.TrimSpace(g.Git("show", "--format=", "--name-status", "-M", "-C", h))
		if want == "" {
			continue
		}
		if got := nameStatus(c); got != normalizeGit(want) {
			t.Errorf("%s name-status:\ngot:\n%s\ngit:\n%s", h, got, normalizeGit(want))
		}
		if got, want := numstat(c), g.Git("show", "--format=", "--numstat", "-M", "-C", h); got != normalizeNumstat(want) {
			t.Errorf("%s numstat:\ngot:\n%s\ngit:\n%s", h, got, normalizeNumstat(want))
		}
		for _, l := range strings.Split(want, "\n") {
			if strings.HasPrefix(l, "R") {
				renames++
			}
		}
	}
	if renames < 10 {
		t.Errorf("only %d renames: the fixture is too small", renames)
	}
}

// TestRenameCompetition: two added files compete for one deleted source.
// git -M -C makes the more similar one the rename and the other a copy
// (the first in path order is the copy, the last the rename); git log
// --follow of either follows it into the source, which Follow records.
func TestRenameCompetition(t *testing.T) {
	g := gittest.New(t)
	base := gittest.Lines("shared line", 40)
	g.Write("old.txt", base)
	g.Write("keep.txt", gittest.Lines("keep", 30))
	g.Commit("start")
	g.Git("rm", "-q", "old.txt")
	g.Write("a/new.txt", base+"a bit more\n")
	g.Write("b/new.txt", base+"more\nand more\nand more\n")
	g.Write("copy.txt", gittest.Lines("keep", 30)+"copied\n")
	g.Write("keep.txt", gittest.Lines("keep", 30)+"kept\n")
	h := g.Commit("split")
	c := extract(t, open(t, g.Dir), h)
	want := g.Git("show", "--format=", "--name-status", "-M", "-C", h)
	if got := nameStatus(c); got != normalizeGit(want) {
		t.Errorf("name-status:\ngot:\n%s\ngit:\n%s", got, normalizeGit(want))
	}
	for _, fc := range c.Changes {
		switch fc.Path {
		case "a/new.txt", "b/new.txt":
			if fc.Follow != "old.txt" {
				t.Errorf("%s follows %q, want old.txt", fc.Path, fc.Follow)
			}
			// git log --follow agrees.
			if log := g.Git("log", "--follow", "--format=%H", "--", fc.Path); len(strings.Fields(log)) != 2 {
				t.Errorf("git log --follow %s: %q", fc.Path, log)
			}
		case "copy.txt":
			if fc.Status != model.Copied || fc.Follow != "keep.txt" {
				t.Errorf("copy.txt: %s from %q, follows %q", fc.Status, fc.OldPath, fc.Follow)
			}
		}
	}
}

// TestPureRenameKeepsLanguage: a file renamed without edits is read for
// its language, so a .rs file stays Rust (go-enry's guess for .rs without
// content is XML), and its content goes to the entity stage.
func TestPureRenameKeepsLanguage(t *testing.T) {
	g := gittest.New(t)
	src := "pub fn escape(s: &str) -> String {\n    s.to_string()\n}\n"
	g.Write("grep-cli/src/escape.rs", src)
	g.Write("grep-cli/src/lib.rs", "mod escape;\n")
	g.Commit("add crate")
	g.Git("mv", "grep-cli", "cli")
	h := g.Commit("move the crate")
	r := open(t, g.Dir)
	l, err := r.Load(h)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	c := l.FinishWith(func(fc *model.FileChange, old, new []byte) {
		if fc.Path == "cli/src/escape.rs" && string(new) == src && string(old) == src {
			seen++
		}
	})
	for _, fc := range c.Changes {
		if fc.Status != model.Renamed || fc.Language != "Rust" || fc.Follow != fc.OldPath {
			t.Errorf("%s: %s, %q, follows %q", fc.Path, fc.Status, fc.Language, fc.Follow)
		}
	}
	if seen != 1 {
		t.Errorf("the renamed file's content reached the entity stage %d times", seen)
	}
}

// TestLanguageIsAFunctionOfNameAndContent: the language of a version does
// not depend on the versions read before it (a sync resumed after a crash
// reads from the middle of a history): one repository reads a .h file's
// history forwards, another backwards, and both name every version alike;
// a C++ version is C++ and a C one C.
func TestLanguageIsAFunctionOfNameAndContent(t *testing.T) {
	g := gittest.New(t)
	versions := []string{
		"#ifndef A_H\n#define A_H\nint a(void);\n#endif\n",
		"#ifndef A_H\n#define A_H\n#include <vector>\nint a(void);\n#endif\n",
		"#ifndef A_H\n#define A_H\nclass A { public: int a(); };\n#endif\n",
		"#ifndef A_H\n#define A_H\nint a(void);\nint b(void);\n#endif\n",
		"", // emptied: keeps the language of what it was
	}
	var hashes []string
	for i, v := range versions {
		g.Write("include/a.h", v)
		g.Write("complete/_rg", fmt.Sprintf("#compdef rg\n# vim: ft=zsh\n%d\n", i))
		hashes = append(hashes, g.Commit(fmt.Sprintf("version %d", i)))
	}
	lang := func(r *Repo, h, path string) string {
		for _, fc := range extract(t, r, h).Changes {
			if fc.Path == path {
				return fc.Language
			}
		}
		return "?"
	}
	forward, backward := open(t, g.Dir), open(t, g.Dir)
	want := []string{"C", "C++", "C++", "C", "C"}
	for i := range hashes {
		j := len(hashes) - 1 - i
		if a, b := lang(forward, hashes[i], "include/a.h"), lang(backward, hashes[j], "include/a.h"); a != want[i] || b != want[j] {
			t.Errorf("a.h: version %d is %q forwards (want %q), version %d %q backwards (want %q)", i, a, want[i], j, b, want[j])
		}
		if a := lang(forward, hashes[i], "complete/_rg"); a != "Shell" {
			t.Errorf("_rg version %d: %q", i, a)
		}
	}
}

// TestDetectLanguageAsEnry: the .h shortcut never changes go-enry's
// answer: headers built from the lines that do and do not trigger its
// Objective-C and C++ patterns, at random.
func TestDetectLanguageAsEnry(t *testing.T) {
	lines := []string{
		"#include <stdio.h>", "#include <vector>", "#  include <string>", "#include <strings.h>", "#import <Foo/Foo.h>",
		"@interface Foo : NSObject", "  @end", "template <typename T>", "try {", "  catch (x) {}", "class Foo {",
		"namespace bar {", "using namespace std;", "public:", "  private:", "std::vector<int> v;", "#if __cplusplus >= 201103L",
		"int a(void);", "/* retry the entry */", "struct classic { int x; };", "// class comment", "static inline int f(void) { return 0; }",
		"#define CLASS 1", "typedef int entry_t;", "constexpr int n = 3;", "#ifdef __has_cpp_attribute", "  trying(1);",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString(lines[rng.IntN(len(lines))] + "\n")
		}
		name := []string{"x.h", "include/y.h", "z.H"}[i%3]
		src := []byte(b.String())
		if got, want := detectLanguage(name, src), enry.GetLanguage(name, src); got != want && len(src) <= 1024 {
			t.Fatalf("%s:\n%s\ndetectLanguage %q, enry %q", name, src, got, want)
		}
	}
}

// TestModesAndBinaryRenamesAsGit: a regular file's mode is read as git
// reads it (100664, in git's own first trees, is 100644: no change), and a
// binary file renamed unchanged is binary, as git's numstat says ("-").
func TestModesAndBinaryRenamesAsGit(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.txt", "a\n")
	g.Write("img.png", "\x89PNG\x00\x01\x02binary")
	g.Commit("start")
	aBlob, imgBlob := g.Git("rev-parse", "HEAD:a.txt"), g.Git("rev-parse", "HEAD:img.png")
	mktree := func(entries ...string) string {
		t.Helper()
		var raw []byte
		for _, e := range entries {
			mode, rest, _ := strings.Cut(e, " ")
			name, hash, _ := strings.Cut(rest, " ")
			raw = append(raw, mode+" "+name+"\x00"...)
			raw = append(raw, hexBytes(t, hash)...)
		}
		path := t.TempDir() + "/tree"
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		return g.Git("hash-object", "-t", "tree", "--literally", "-w", path)
	}
	old := mktree("100664 a.txt "+aBlob, "100644 img.png "+imgBlob)
	c1 := g.Git("commit-tree", old, "-m", "old modes")
	mid := mktree("100644 a.txt "+aBlob, "100644 img.png "+imgBlob)
	c2 := g.Git("commit-tree", mid, "-p", c1, "-m", "the same files")
	moved := mktree("100644 a.txt "+aBlob, "100644 pic.png "+imgBlob)
	c3 := g.Git("commit-tree", moved, "-p", c2, "-m", "rename the image")
	r := open(t, g.Dir)
	if c := extract(t, r, c2); len(c.Changes) != 0 || g.Git("diff-tree", "-r", c1, c2) != "" {
		t.Errorf("100664 to 100644: %+v (git: %q)", c.Changes, g.Git("diff-tree", "-r", c1, c2))
	}
	c := extract(t, r, c3)
	if got, want := numstat(c), normalizeNumstat(g.Git("show", "--format=", "--numstat", "-M", c3)); got != want {
		t.Errorf("binary rename numstat: %q, git %q", got, want)
	}
}

func hexBytes(t *testing.T, h string) []byte {
	t.Helper()
	b := make([]byte, len(h)/2)
	for i := range b {
		if _, err := fmt.Sscanf(h[2*i:2*i+2], "%02x", &b[i]); err != nil {
			t.Fatal(err)
		}
	}
	return b
}
