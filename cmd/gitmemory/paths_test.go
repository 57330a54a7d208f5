package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// historyOf runs history --json and returns the commits.
func historyOf(t *testing.T, home string, args ...string) ([]string, string, int) {
	t.Helper()
	out, errOut, code := cli(t, home, append([]string{"history", "--json"}, args...)...)
	if code != 0 {
		return nil, errOut, code
	}
	var cs []struct {
		Commit string `json:"commit"`
		Path   string `json:"path"`
	}
	if err := json.Unmarshal([]byte(out), &cs); err != nil {
		t.Fatalf("history %v: %v\n%s", args, err, out)
	}
	var hs []string
	for _, c := range cs {
		hs = append(hs, c.Commit)
	}
	return hs, "", 0
}

// chdir changes the working directory for the rest of the test.
func chdir(t *testing.T, dir string) {
	t.Helper()
	old, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(old) })
}

// TestHistoryPathsResolveAsGit: a path is relative to the current
// directory inside the work tree, as in git (whether or not the file still
// exists), "a/../b" resolves, a path above the root is refused, an
// absolute path works, and a path typed from the root still does from a
// subdirectory.
func TestHistoryPathsResolveAsGit(t *testing.T) {
	g := gittest.New(t)
	g.Write("crates/core/app.rs", "fn main() {}\n")
	g.Write("README.md", "hello\n")
	first := g.Commit("add app")
	g.Write("crates/core/app.rs", "fn main() { run(); }\n")
	second := g.Commit("change app")
	g.Write("crates/core/gone.rs", "fn gone() {}\n")
	added := g.Commit("add gone")
	g.Git("rm", "-q", "crates/core/gone.rs")
	removed := g.Commit("remove gone")
	home := t.TempDir()
	mustCLI(t, home, "add", g.Dir, "--name", "demo")
	mustCLI(t, home, "sync", "demo")
	app := []string{second, first}

	chdir(t, filepath.Join(g.Dir, "crates", "core"))
	cases := []struct {
		arg  string
		want []string
	}{
		{"app.rs", app},
		{"./app.rs", app},
		{"../core/app.rs", app},
		{"../../crates/core/app.rs", app},
		{"gone.rs", []string{removed, added}}, // deleted: not on disk any more
		{"crates/core/app.rs", app},           // typed from the root
		{filepath.Join(g.Dir, "crates", "core", "app.rs"), app},
		{"..", []string{removed, added, second, first}}, // the directory crates
	}
	for _, c := range cases {
		got, errOut, code := historyOf(t, home, "--repo", "demo", c.arg)
		if code != 0 || !slices.Equal(got, c.want) {
			t.Errorf("history %s in crates/core: %v (exit %d, %s), want %v", c.arg, got, code, errOut, c.want)
		}
	}
	if _, errOut, code := historyOf(t, home, "--repo", "demo", "../../../x"); code == 0 || !strings.Contains(errOut, "outside the repository") {
		t.Errorf("a path above the root: exit %d, %q", code, errOut)
	}

	chdir(t, t.TempDir()) // outside the work tree: paths are repository-relative
	for _, arg := range []string{"crates/core/app.rs", "crates/x/../core/app.rs", "./crates//core/app.rs"} {
		got, errOut, code := historyOf(t, home, "--repo", "demo", arg)
		if code != 0 || !slices.Equal(got, app) {
			t.Errorf("history %s from outside: %v (exit %d, %s), want %v", arg, got, code, errOut, app)
		}
	}
}

// TestHistoryOfNonUTF8Name: a file whose name is not UTF-8 is indexed and
// can be asked for by its bytes or as git quotes it, and the answer
// names it quoted.
func TestHistoryOfNonUTF8Name(t *testing.T) {
	g := gittest.New(t)
	name := "caf\xe9.txt"
	g.Write(name, "one\n")
	first := g.Commit("add a latin-1 name")
	g.Write(name, "two\n")
	second := g.Commit("change it")
	home := t.TempDir()
	mustCLI(t, home, "add", g.Dir, "--name", "demo")
	mustCLI(t, home, "sync", "demo")
	want := []string{second, first}
	for _, arg := range []string{name, `"caf\351.txt"`} {
		got, errOut, code := historyOf(t, home, "--repo", "demo", arg)
		if code != 0 || !slices.Equal(got, want) {
			t.Errorf("history %q: %v (exit %d, %s), want %v", arg, got, code, errOut, want)
		}
	}
	out := mustCLI(t, home, "history", "--repo", "demo", "--json", name)
	if !strings.Contains(out, `"path": "\"caf\\351.txt\""`) {
		t.Errorf("the answer should name the file quoted: %s", out)
	}
}

// TestQueryIncludeRewritten: --include-rewritten reaches the search, so a
// commit a reset dropped is found with it and not without it.
func TestQueryIncludeRewritten(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.txt", "a\n")
	g.Commit("feat: start")
	g.Write("zebra.go", "package zebra\n\nfunc ParseZebra() {}\n")
	dropped := g.Commit("feat: add the zebra stripe parser")
	home := t.TempDir()
	mustCLI(t, home, "add", g.Dir, "--name", "demo")
	mustCLI(t, home, "sync", "demo")
	g.Git("reset", "-q", "--hard", "HEAD~1")
	g.Write("b.txt", "b\n")
	g.Commit("docs: something else")
	mustCLI(t, home, "sync", "demo")
	found := func(args ...string) bool {
		out := mustCLI(t, home, append([]string{"query", "--repo", "demo", "--list", "--json", "zebra stripe parser"}, args...)...)
		return strings.Contains(out, dropped)
	}
	if found() {
		t.Errorf("the rewritten commit %s was returned without --include-rewritten", dropped)
	}
	if !found("--include-rewritten") {
		t.Errorf("--include-rewritten did not return the rewritten commit %s", dropped)
	}
}

// TestLookupPathsNormalised: lookup reads "a/../b" as b and an absolute
// path inside the work tree relative to it; a relative path stays
// relative to the root, wherever the command runs (hooks pass git's
// paths), and one above the root is refused.
func TestLookupPathsNormalised(t *testing.T) {
	home := t.TempDir()
	g, _ := lookupSample(t, home)
	want := matchIDs(lookupAsJSON(t, home, "demo", "--path", "auth/token.go", "--days", "36500", "--limit", "9"))
	if len(want) == 0 {
		t.Fatal("the fixture has no match")
	}
	t.Chdir(filepath.Join(g.Dir, "auth"))
	for _, p := range []string{"http/../auth/token.go", "./auth//token.go", filepath.Join(g.Dir, "auth", "token.go")} {
		res := lookupAsJSON(t, home, "demo", "--path", p, "--days", "36500", "--limit", "9")
		if !slices.Equal(matchIDs(res), want) || !slices.Equal(res.Paths, []string{"auth/token.go"}) {
			t.Errorf("lookup --path %s: %v %v, want %v", p, res.Paths, matchIDs(res), want)
		}
	}
	if _, errOut, code := cli(t, home, "lookup", "demo", "--path", "../x"); code == 0 || !strings.Contains(errOut, "outside the repository") {
		t.Errorf("above the root: %d %q", code, errOut)
	}
}
