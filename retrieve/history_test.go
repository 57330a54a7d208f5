package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/store"
)

func indexRepo(t *testing.T, g *gittest.Repo) *store.Store {
	t.Helper()
	st := openStore(t, "")
	syncInto(t, g, st)
	return st
}

// syncInto indexes g's new commits into st.
func syncInto(t testing.TB, g *gittest.Repo, st *store.Store) {
	t.Helper()
	s, err := indexer.New(g.Dir, st, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func commitsOf(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Commit)
	}
	return out
}

// TestHistoryMatchesGit compares History with git log --follow for files
// (through two renames) and with git log for a directory.
func TestHistoryMatchesGit(t *testing.T) {
	g := gittest.New(t)
	body := func(i int) string {
		return fmt.Sprintf("package a\n\n%s\nvar X = %d\n", gittest.Lines("// line", 20), i)
	}
	g.Write("a/old.go", body(0))
	g.Write("b/other.go", "package b\n")
	g.Commit("add old.go")
	for i := 1; i <= 3; i++ {
		g.Write("a/old.go", body(i))
		g.Commit(fmt.Sprintf("change old.go %d", i))
	}
	g.Git("mv", "a/old.go", "a/mid.go")
	g.Commit("rename to mid.go")
	g.Write("a/mid.go", body(10))
	g.Write("b/other.go", "package b\n\nvar Y = 1\n")
	g.Commit("change mid.go and other.go")
	g.Git("rm", "-q", "a/mid.go")
	g.Write("c/new.go", body(11))
	g.Commit("move and edit to c/new.go")
	g.Write("c/new.go", body(12))
	g.Commit("change new.go")
	g.Write("a/keep.go", "package a\n")
	g.Commit("add keep.go")
	st := indexRepo(t, g)
	ctx := context.Background()

	gitLog := func(args ...string) []string {
		return strings.Fields(g.Git(append([]string{"log", "--no-merges", "--format=%H"}, args...)...))
	}
	cases := []struct {
		path string
		want []string
	}{
		{"c/new.go", gitLog("--follow", "--", "c/new.go")},
		{"a", gitLog("--", "a")},
		{"a/", gitLog("--", "a")},
		{"b/other.go", gitLog("--follow", "--", "b/other.go")},
	}
	for _, tc := range cases {
		got, err := History(ctx, st, HistoryQuery{Path: tc.path})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(commitsOf(got), tc.want) {
			t.Errorf("history %s:\n got %v\nwant %v", tc.path, commitsOf(got), tc.want)
		}
	}
	if len(cases[0].want) != 8 {
		t.Fatalf("git log --follow gave %d commits; the fixture is wrong", len(cases[0].want))
	}
	limited, err := History(ctx, st, HistoryQuery{Path: "c/new.go", Limit: 3})
	if err != nil || !slices.Equal(commitsOf(limited), cases[0].want[:3]) {
		t.Errorf("limit 3: %v %v", commitsOf(limited), err)
	}
	since, err := History(ctx, st, HistoryQuery{Path: "c/new.go", Since: gittest.Epoch.Add(90 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if want := gitLog("--follow", "--since", gittest.Epoch.Add(90*time.Minute).Format(time.RFC3339), "--", "c/new.go"); !slices.Equal(commitsOf(since), want) {
		t.Errorf("since:\n got %v\nwant %v", commitsOf(since), want)
	}
	for _, c := range since {
		if c.When.Before(gittest.Epoch.Add(90 * time.Minute)) {
			t.Errorf("--since let %s (%s) through", c.Commit, c.When)
		}
	}
	if _, err := History(ctx, st, HistoryQuery{Path: "./"}); err == nil {
		t.Error("the root was accepted")
	}
	recent, err := Recent(ctx, st, RecentQuery{Days: 1, Now: gittest.Epoch.Add(time.Hour)})
	if err != nil || len(recent) != len(gitLog()) {
		t.Errorf("recent: %d commits (err %v), want %d", len(recent), err, len(gitLog()))
	}
	none, err := Recent(ctx, st, RecentQuery{Days: 1, Now: gittest.Epoch.AddDate(0, 0, 10)})
	if err != nil || len(none) != 0 {
		t.Errorf("recent 10 days later: %v %v", commitsOf(none), err)
	}
}

// TestHistoryMatchesGitOnGenerated compares every file's history with git
// log --follow --no-merges, and every directory's with git log
// --full-history --no-merges (history does not simplify merges away), on
// a generated history with renames, merges, and commits sharing a second
// with the renames, at limits that cut the lists short.
func TestHistoryMatchesGitOnGenerated(t *testing.T) {
	g := gittest.GenerateWith(t, 300, 11, gittest.GenerateOptions{SameSecond: true, DirMoves: true})
	st := indexRepo(t, g)
	ctx := context.Background()
	files := strings.Fields(g.Git("log", "--format=", "--name-only", "--no-renames"))
	slices.Sort(files)
	files = slices.Compact(files)
	var dirs []string
	for _, p := range files {
		if i := strings.LastIndexByte(p, '/'); i > 0 {
			dirs = append(dirs, p[:i])
		}
	}
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	compared, renamed := 0, 0
	check := func(path string, args ...string) {
		t.Helper()
		want := strings.Fields(g.Git(append([]string{"log", "--no-merges", "--format=%H"}, append(args, "--", path)...)...))
		for _, limit := range []int{3, 10000} {
			got, err := History(ctx, st, HistoryQuery{Path: path, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			w := want[:min(limit, len(want))]
			if !slices.Equal(commitsOf(got), w) {
				t.Errorf("history %s (limit %d):\n got %v\nwant %v", path, limit, commitsOf(got), w)
			}
			if limit > 3 && len(got) > 0 && got[len(got)-1].Path != path {
				renamed++
			}
		}
		compared++
	}
	for _, f := range files {
		check(f, "--follow")
	}
	for _, d := range dirs {
		check(d, "--full-history")
	}
	if compared < 50 || renamed < 5 {
		t.Errorf("compared %d histories, %d through renames: the fixture is too small", compared, renamed)
	}
}

// TestHistoryOnlyMergesNewer: when every recent change of a file is a merge
// (each resolved by editing it), the shortcut's candidates hold no commit
// a merge-less history shows, and the whole query finds the older one.
func TestHistoryOnlyMergesNewer(t *testing.T) {
	g := gittest.New(t)
	g.Write("m.txt", "0\n")
	root := g.Commit("add m.txt")
	main := g.Git("rev-parse", "--abbrev-ref", "HEAD")
	for i := range 25 {
		branch := fmt.Sprintf("t%d", i)
		g.Git("checkout", "-q", "-b", branch)
		g.Write(branch+".txt", "x\n")
		g.Commit("work on " + branch)
		g.Git("checkout", "-q", main)
		g.Tick()
		g.Git("merge", "-q", "--no-ff", "--no-commit", branch)
		g.Write("m.txt", fmt.Sprintf("%d\n", i+1))
		g.Commit("merge " + branch)
	}
	st := indexRepo(t, g)
	got, err := History(context.Background(), st, HistoryQuery{Path: "m.txt", Limit: 1})
	if err != nil || !slices.Equal(commitsOf(got), []string{root}) {
		t.Errorf("history without merges: %v %v, want [%s]", commitsOf(got), err, root)
	}
	got, err = History(context.Background(), st, HistoryQuery{Path: "m.txt", Limit: 30, Merges: true})
	if err != nil || len(got) != 26 {
		t.Errorf("history with merges: %d commits, %v; want 26", len(got), err)
	}
}
