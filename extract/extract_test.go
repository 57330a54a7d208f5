package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/model"
)

func open(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func extract(t *testing.T, r *Repo, hash string) *model.Commit {
	t.Helper()
	c, err := r.Extract(hash)
	if err != nil {
		t.Fatalf("extract %s: %v", hash, err)
	}
	return c
}

// nameStatus renders changes like git's --name-status.
func nameStatus(c *model.Commit) string {
	var lines []string
	for _, fc := range c.Changes {
		switch fc.Status {
		case model.Renamed, model.Copied:
			lines = append(lines, fmt.Sprintf("%c%03d %s %s", strings.ToUpper(string(fc.Status))[0], fc.Similarity, fc.OldPath, fc.Path))
		default:
			lines = append(lines, fmt.Sprintf("%c %s", strings.ToUpper(string(fc.Status))[0], fc.Path))
		}
	}
	return strings.Join(lines, "\n")
}

func TestChangeStatuses(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.go", gittest.Lines("package a // a", 40))
	g.Write("docs/b.md", gittest.Lines("b", 30))
	g.Write("c.txt", gittest.Lines("c", 30))
	g.Write("gone.txt", "bye\n")
	first := g.Commit("initial")
	// modify, delete, rename with edits, copy with edits, add
	g.Write("a.go", strings.Replace(gittest.Lines("package a // a", 40), "a line 7", "a line seven", 1))
	os.Remove(g.Dir + "/gone.txt")
	g.Git("mv", "docs/b.md", "docs/renamed.md")
	g.Write("docs/renamed.md", gittest.Lines("b", 30)+"one more\n")
	g.Write("c-copy.txt", gittest.Lines("c", 30)+"copied\n")
	g.Write("c.txt", gittest.Lines("c", 30)+"and c changed\n")
	g.Write("new.py", "print('hi')\n")
	second := g.Commit("many kinds of change")

	r := open(t, g.Dir)
	c1 := extract(t, r, first)
	if got := nameStatus(c1); got != "A a.go\nA c.txt\nA docs/b.md\nA gone.txt" {
		t.Errorf("root commit:\n%s", got)
	}
	c2 := extract(t, r, second)
	want := g.Git("show", "--format=", "--name-status", "-M", "-C", second)
	if got := nameStatus(c2); got != normalizeGit(want) {
		t.Errorf("name-status:\ngot:\n%s\ngit:\n%s", got, normalizeGit(want))
	}
	if got, want := numstat(c2), g.Git("show", "--format=", "--numstat", "-M", "-C", second); got != normalizeNumstat(want) {
		t.Errorf("numstat:\ngot:\n%s\ngit:\n%s", got, normalizeNumstat(want))
	}
	for _, fc := range c2.Changes {
		if fc.Path == "a.go" && (fc.Language != "Go" || len(fc.Hunks) != 1 || !strings.Contains(fc.Hunks[0].Text, "+package a // a line seven\n")) {
			t.Errorf("a.go change: %+v", fc)
		}
		if fc.Path == "new.py" && fc.Language != "Python" {
			t.Errorf("new.py language %q", fc.Language)
		}
	}
}

// normalizeGit turns git's tab-separated name-status into nameStatus' form,
// sorted by the new path as we sort.
func normalizeGit(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		f := strings.Split(l, "\t")
		lines = append(lines, strings.Join(f, " "))
	}
	sort.Slice(lines, func(i, j int) bool { return lastField(lines[i]) < lastField(lines[j]) })
	return strings.Join(lines, "\n")
}

func lastField(s string) string { f := strings.Fields(s); return f[len(f)-1] }

func numstat(c *model.Commit) string {
	var lines []string
	for _, fc := range c.Changes {
		if fc.Binary {
			lines = append(lines, fmt.Sprintf("-\t-\t%s", fc.Path))
			continue
		}
		lines = append(lines, fmt.Sprintf("%d\t%d\t%s", fc.Insertions, fc.Deletions, fc.Path))
	}
	return strings.Join(lines, "\n")
}

// normalizeNumstat rewrites git's "old => new" rename paths to the new path.
func normalizeNumstat(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		f := strings.SplitN(l, "\t", 3)
		p := f[2]
		if i := strings.Index(p, " => "); i >= 0 {
			p = expandRename(p)
		}
		lines = append(lines, f[0]+"\t"+f[1]+"\t"+p)
	}
	sort.Slice(lines, func(i, j int) bool { return lastField(lines[i]) < lastField(lines[j]) })
	return strings.Join(lines, "\n")
}

// expandRename turns "dir/{a => b}/x" or "a => b" into the new path.
func expandRename(p string) string {
	if i := strings.Index(p, "{"); i >= 0 {
		j := strings.Index(p, "}")
		inner := p[i+1 : j]
		_, newPart, _ := strings.Cut(inner, " => ")
		return strings.ReplaceAll(p[:i]+newPart+p[j+1:], "//", "/")
	}
	_, n, _ := strings.Cut(p, " => ")
	return n
}

func TestMergeRecordsOnlyItsOwnChanges(t *testing.T) {
	g := gittest.New(t)
	g.Write("shared.txt", gittest.Lines("s", 20))
	g.Commit("base")
	g.Git("checkout", "-q", "-b", "feature")
	g.Write("feature.txt", "feature work\n")
	g.Write("shared.txt", strings.Replace(gittest.Lines("s", 20), "s line 3", "feature edit", 1))
	g.Commit("feature change")
	g.Git("checkout", "-q", "main")
	g.Write("main.txt", "main work\n")
	g.Write("shared.txt", strings.Replace(gittest.Lines("s", 20), "s line 18", "main edit", 1))
	g.Commit("main change")
	g.Tick()
	g.Git("merge", "-q", "--no-ff", "--no-edit", "feature")
	clean := g.Head()

	r := open(t, g.Dir)
	c := extract(t, r, clean)
	if !c.IsMerge || len(c.Parents) != 2 {
		t.Fatalf("merge flag %v parents %v", c.IsMerge, c.Parents)
	}
	// shared.txt differs from both parents (it combines both edits), so a
	// combined diff lists it; feature.txt came from the feature branch only.
	want := g.Git("diff-tree", "-c", "--name-only", "--format=", clean)
	var got []string
	for _, fc := range c.Changes {
		got = append(got, fc.Path)
	}
	if strings.Join(got, "\n") != want {
		t.Errorf("merge changes %v, git -c lists %q", got, want)
	}

	// A merge that only brings a branch's commits in records nothing.
	g.Git("checkout", "-q", "-b", "topic")
	g.Write("topic.txt", "topic\n")
	g.Commit("topic")
	g.Git("checkout", "-q", "main")
	g.Write("other.txt", "other\n")
	g.Commit("other")
	g.Tick()
	g.Git("merge", "-q", "--no-ff", "--no-edit", "topic")
	r2 := open(t, g.Dir)
	if c := extract(t, r2, g.Head()); len(c.Changes) != 0 {
		t.Errorf("clean merge recorded %d changes: %+v", len(c.Changes), c.Changes)
	}
}

func TestBinaryHugeVendoredAndEncoding(t *testing.T) {
	g := gittest.New(t)
	g.Write("img.png", "\x89PNG\x00\x01\x02binary")
	g.Write("vendor/lib/x.go", "package x\n")
	g.Write("big.txt", strings.Repeat("0123456789abcdef\n", 80_000)) // 1.3 MiB
	g.Write("zz.pb.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage zz\n")
	g.Write("sorbet/rbi/gems/json@2.7.rbi", "# typed: true\n\n# DO NOT EDIT MANUALLY\n# This is an autogenerated file for types exported from the `json` gem.\n\nmodule JSON\n  def self.parse(s); end\nend\n")
	g.Write("lib/json.rb", "# Parses JSON; the autogenerated type file is in sorbet/.\nmodule JSON\nend\n")
	g.Commit("assets")
	g.Write("latin1.txt", "x\n")
	g.Git("add", "-A")
	msgFile := g.Dir + "/.git/MSG"
	os.WriteFile(msgFile, []byte("Caf\xe9 au lait\n\nna\xefve text\n"), 0o644)
	g.Git("-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "-F", msgFile)
	latin := g.Head()
	g.Write("raw.txt", "y\n")
	broken := g.RawCommit([]byte("broken \xff\xfe bytes\n"))

	r := open(t, g.Dir)
	c := extract(t, r, g.Git("rev-parse", "HEAD~2"))
	skipped := map[string]model.SkipReason{}
	for _, fc := range c.Changes {
		skipped[fc.Path] = fc.Skipped
		if fc.Skipped != "" && len(fc.Hunks) > 0 {
			t.Errorf("%s skipped but has hunks", fc.Path)
		}
	}
	want := map[string]model.SkipReason{"img.png": model.SkipBinary, "vendor/lib/x.go": model.SkipVendor,
		"big.txt": model.SkipHuge, "zz.pb.go": model.SkipGen, "sorbet/rbi/gems/json@2.7.rbi": model.SkipGen, "lib/json.rb": ""}
	for p, w := range want {
		if skipped[p] != w {
			t.Errorf("%s skipped %q, want %q", p, skipped[p], w)
		}
	}
	if c := extract(t, r, latin); c.Message != "Café au lait\n\nnaïve text\n" || c.RawMessage == nil {
		t.Errorf("latin-1 message %q raw %q", c.Message, c.RawMessage)
	}
	c = extract(t, r, broken)
	if c.Message != "broken \uFFFD bytes\n" || string(c.RawMessage) != "broken \xff\xfe bytes\n" {
		t.Errorf("broken message %q raw %q", c.Message, c.RawMessage)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), ErrNotRepository.Error()) {
		t.Errorf("plain dir: %v", err)
	}
	if _, err := Open("/no/such/dir", Options{}); err == nil || !strings.Contains(err.Error(), ErrNoPath.Error()) {
		t.Errorf("missing dir: %v", err)
	}
	g := gittest.New(t)
	r := open(t, g.Dir)
	if _, err := r.DefaultBranch(); err != ErrEmpty {
		t.Errorf("empty repo default branch: %v", err)
	}
}

func TestModeSymlinkSubmoduleAndTypeChanges(t *testing.T) {
	sub := gittest.New(t)
	sub.Write("lib.txt", "lib\n")
	sub.Commit("lib")
	g := gittest.New(t)
	g.Write("run.sh", "echo hi\n")
	g.Write("node", "a file that becomes a directory\n")
	g.Git("-c", "protocol.file.allow=always", "submodule", "-q", "add", sub.Dir, "vendor-lib")
	g.Commit("scripts and a submodule")
	os.Chmod(g.Dir+"/run.sh", 0o755)
	os.Symlink("run.sh", g.Dir+"/link.sh")
	os.Remove(g.Dir + "/node")
	g.Write("node/inner.txt", "now a directory\n")
	sub.Write("lib.txt", "lib v2\n")
	sub.Commit("lib v2")
	g.Git("-C", "vendor-lib", "-c", "protocol.file.allow=always", "pull", "-q")
	head := g.Commit("chmod, symlink, file to directory, submodule bump")

	r := open(t, g.Dir)
	c := extract(t, r, head)
	if got, want := nameStatus(c), normalizeGit(g.Git("show", "--format=", "--name-status", "-M", "-C", head)); got != want {
		t.Errorf("name-status:\ngot:\n%s\ngit:\n%s", got, want)
	}
	if got, want := numstat(c), normalizeNumstat(g.Git("show", "--format=", "--numstat", "-M", "-C", head)); got != want {
		t.Errorf("numstat:\ngot:\n%s\ngit:\n%s", got, want)
	}
}

// TestIsBare: a work tree (opened from a subdirectory too) is not bare, a
// bare clone is.
func TestIsBare(t *testing.T) {
	g := gittest.New(t)
	g.Write("sub/a.txt", "a\n")
	g.Commit("add a")
	bareDir := filepath.Join(t.TempDir(), "bare.git")
	g.Git("clone", "-q", "--bare", g.Dir, bareDir)
	for path, want := range map[string]bool{g.Dir: false, filepath.Join(g.Dir, "sub"): false, bareDir: true} {
		r, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.IsBare(); got != want {
			t.Errorf("IsBare(%s) = %v, want %v", path, got, want)
		}
		r.Close()
	}
}

// TestSharedClone: a clone --shared keeps its history in another
// repository (objects/info/alternates, an absolute path); a commit made in
// the clone has its parent only there.
func TestSharedClone(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.txt", "one\n")
	g.Commit("first")
	shared := filepath.Join(t.TempDir(), "shared")
	g.Git("clone", "-q", "--shared", g.Dir, shared)
	c := &gittest.Repo{T: t, Dir: shared}
	os.WriteFile(filepath.Join(shared, "a.txt"), []byte("two\n"), 0o644)
	c.Git("-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-am", "second, in the clone")
	r := open(t, shared)
	got := extract(t, r, c.Git("rev-parse", "HEAD"))
	if nameStatus(got) != "M a.txt" || len(got.Changes[0].Hunks) != 1 {
		t.Errorf("a commit whose parent is in the alternate store: %+v", got.Changes)
	}
}

// A partial clone lacks the large blobs: the commits that change them
// still extract, with those files' lines left out and the rest diffed,
// and a file added beside one keeps its follow source search.
func TestPartialCloneMissingBlobs(t *testing.T) {
	g := gittest.New(t)
	g.Write("big.txt", gittest.Lines("big", 400))
	g.Write("a.txt", "a\n")
	g.Commit("one")
	g.Write("big.txt", gittest.Lines("big", 401))
	g.Write("b.txt", "b\n")
	g.Write("added.txt", gittest.Lines("added", 300)) // added and missing: no follow source to size
	two := g.Commit("two")
	r := open(t, g.PartialClone(1000).Dir)
	c := extract(t, r, two)
	got := map[string]model.SkipReason{}
	for _, fc := range c.Changes {
		got[fc.Path] = fc.Skipped
		if fc.Path == "b.txt" && (fc.Insertions != 1 || len(fc.Hunks) != 1) {
			t.Errorf("b.txt +%d, %d hunks; want +1 in one hunk", fc.Insertions, len(fc.Hunks))
		}
	}
	if got["big.txt"] != model.SkipMissing || got["added.txt"] != model.SkipMissing || got["b.txt"] != model.NotSkipped || len(got) != 3 {
		t.Errorf("skipped %v, want big.txt and added.txt missing, b.txt diffed", got)
	}
	one := extract(t, r, g.Git("rev-parse", "HEAD~1"))
	if len(one.Changes) != 2 || one.Message != "one\n" {
		t.Errorf("first commit: %d changes, message %q", len(one.Changes), one.Message)
	}
}
