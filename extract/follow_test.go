package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/model"
)

// sharedLines is a file of ten equally long lines, the first shared of
// which are the created file's.
func sharedLines(name string, shared int) string {
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		if i <= shared {
			fmt.Fprintf(&b, "new line %02d\n", i)
		} else {
			fmt.Fprintf(&b, "%.3s line %02d\n", name, i)
		}
	}
	return b.String()
}

// gitFollows is the path git log --follow continues with at the commit
// that created path, or "".
func gitFollows(g *gittest.Repo, commit, path string) string {
	out := g.Git("log", "--follow", "-1", "--format=", "--name-status", commit, "--", path)
	f := strings.Split(out, "\t")
	if len(f) == 3 && (strings.HasPrefix(f[0], "R") || strings.HasPrefix(f[0], "C")) {
		return f[1]
	}
	return ""
}

// followOf is the follow source recorded for a path a commit created.
func followOf(t *testing.T, r *Repo, commit, path string) string {
	t.Helper()
	for _, fc := range extract(t, r, commit).Changes {
		if fc.Path == path {
			return fc.Follow
		}
	}
	t.Fatalf("%s did not create %s", commit, path)
	return ""
}

// TestFollowTieAsGit: two deleted files are equally similar to a created
// one, as when git/git renamed its t4013 expectations (877176e0, where git
// follows diff.log_-SF_main_--max-count=1 into diff.log_-SF_master).
// git keeps a file's four best candidates in four cells, a better one
// taking the first of the worst cells, and the sort keeps the cells' order
// among equals. Unchanged files of the tree met before the two (git's
// follow looks at every file, --find-copies-harder) fill the cells so that
// the second tied file lands before the first: git follows the second.
// Counting only the commit's changes would follow the first.
func TestFollowTieAsGit(t *testing.T) {
	g := gittest.New(t)
	g.Write("t/1-u.txt", sharedLines("u1", 2))
	g.Write("t/2-u.txt", sharedLines("u2", 1))
	g.Write("t/3-u.txt", sharedLines("u3", 2))
	g.Write("t/4-u.txt", sharedLines("u4", 2))
	g.Write("t/5-a.txt", sharedLines("a", 8))
	g.Write("t/6-b.txt", "b\n")
	first := g.Commit("first")
	g.Write("t/6-b.txt", sharedLines("b", 8))
	second := g.Commit("second")
	g.Git("rm", "-q", "t/5-a.txt", "t/6-b.txt")
	g.Write("t/7-new.txt", sharedLines("new", 10))
	h := g.Commit("rename")
	r := open(t, g.Dir)
	if got, git := followOf(t, r, h, "t/7-new.txt"), gitFollows(g, h, "t/7-new.txt"); got != "t/6-b.txt" || git != got {
		t.Errorf("t/7-new.txt follows %q, git %q; want t/6-b.txt", got, git)
	}
	// The history the two names give differ: only 6-b.txt changed in second.
	if log := g.Git("log", "--follow", "--format=%H", "--", "t/7-new.txt"); log != h+"\n"+second+"\n"+first {
		t.Errorf("git log --follow: %q, want %s, %s, %s", log, h, second, first)
	}
}

// TestFollowCopyOfUnchangedFile: git log --follow follows a created file
// into a similar or identical file the commit did not change, as
// --find-copies-harder does, and a deleted file first when both are exact.
func TestFollowCopyOfUnchangedFile(t *testing.T) {
	g := gittest.New(t)
	g.Write("LICENSE", gittest.Lines("license", 20))
	g.Write("docs/guide.md", gittest.Lines("guide", 20))
	g.Write("old/notes.txt", gittest.Lines("notes", 12))
	g.Write("keep/notes.txt", gittest.Lines("notes", 12))
	g.Write("empty", "")
	g.Commit("start")
	g.Write("crates/cli/LICENSE", gittest.Lines("license", 20))
	g.Write("docs/guide-v2.md", gittest.Lines("guide", 20)+"one more line\n")
	g.Git("rm", "-q", "old/notes.txt")
	g.Write("new/notes.txt", gittest.Lines("notes", 12))
	g.Write("other/empty", "")
	g.Write("fresh.txt", gittest.Lines("nothing like it", 8))
	h := g.Commit("copies")
	r := open(t, g.Dir)
	want := map[string]string{
		"crates/cli/LICENSE": "LICENSE",
		"docs/guide-v2.md":   "docs/guide.md",
		"new/notes.txt":      "old/notes.txt",
		"other/empty":        "empty",
		"fresh.txt":          "",
	}
	for _, fc := range extract(t, r, h).Changes {
		w, ok := want[fc.Path]
		if !ok {
			continue
		}
		delete(want, fc.Path)
		if git := gitFollows(g, h, fc.Path); fc.Follow != w || git != w {
			t.Errorf("%s (%s) follows %q, git %q; want %q", fc.Path, fc.Status, fc.Follow, git, w)
		}
		if fc.Path == "crates/cli/LICENSE" && fc.Status != model.Added {
			t.Errorf("crates/cli/LICENSE is %s from %q: git -M -C does not pair it", fc.Status, fc.OldPath)
		}
	}
	if len(want) > 0 {
		t.Errorf("not created: %v", want)
	}
}

// TestFollowSourcesOrder: a tree's files are met depth first in git's
// order, a directory sorting as its name followed by '/', with their file
// names and blob sizes, submodules left out.
func TestFollowSourcesOrder(t *testing.T) {
	g := gittest.New(t)
	for _, p := range []string{"a.b", "a/x", "a-b", "a/y/z", "b", "sub/m"} {
		g.Write(p, p+"\n")
	}
	g.Git("add", "-A")
	g.Git("update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",sub/mod")
	g.Tick()
	g.Git("commit", "-q", "-m", "tree")
	h := g.Head()
	r := open(t, g.Dir)
	oc, err := r.commitObject(h)
	if err != nil {
		t.Fatal(err)
	}
	files, err := r.flatTree("", oc.TreeHash)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, fmt.Sprintf("%s:%s:%d", f.path, f.path[f.base:], f.size))
	}
	want := "a-b:a-b:4 a.b:a.b:4 a/x:x:4 a/y/z:z:6 b:b:2 sub/m:m:6"
	if strings.Join(got, " ") != want {
		t.Errorf("sources:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	// Read again, from the cache of subtrees, into the root's same array.
	files = slices.Clone(files)
	if again, err := r.flatTree("", oc.TreeHash); err != nil || !slices.Equal(again, files) {
		t.Errorf("read again: %v, %v", again, err)
	}
	if ls := g.Git("ls-tree", "-r", "--name-only", h); !strings.Contains(ls, "sub/mod") {
		t.Errorf("the fixture has no submodule: %s", ls)
	}
}

// TestFollowSourcesAfterChange: a directory's files listed again after
// it changed (a file edited, its size too; files added before, between
// and after the others, one removed, one made executable) are the ones a
// repository opened afresh lists, though the unchanged ones are taken
// from the directory's previous list.
func TestFollowSourcesAfterChange(t *testing.T) {
	g := gittest.New(t)
	for _, p := range []string{"b.txt", "d.txt", "f.txt", "sub/b.txt", "sub/d.txt", "sub/deep/x"} {
		g.Write(p, p+"\n")
	}
	var commits []string
	commits = append(commits, g.Commit("first"))
	g.Write("b.txt", "b.txt, longer now\n")
	g.Write("sub/a.txt", "new first\n")
	g.Write("sub/c.txt", "new between\n")
	g.Write("sub/z.txt", "new last\n")
	g.Write("a.txt", "new at the root\n")
	g.Git("rm", "-q", "d.txt", "sub/d.txt")
	commits = append(commits, g.Commit("second"))
	if err := os.Chmod(filepath.Join(g.Dir, "f.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	g.Write("sub/deep/x", "x changed\n")
	commits = append(commits, g.Commit("third"))
	r := open(t, g.Dir)
	for _, h := range commits {
		oc, err := r.commitObject(h)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.flatTree("", oc.TreeHash)
		if err != nil {
			t.Fatal(err)
		}
		want, err := open(t, g.Dir).flatTree("", oc.TreeHash)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: listed again\n%v\nfresh\n%v", h, got, want)
		}
	}
	if n := len(r.rootFlat); n != 8 {
		t.Errorf("the last tree lists %d files, want 8", n)
	}
}
