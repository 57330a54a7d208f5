package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// openStore opens a store in a new temporary directory, registered as
// repository "t", and closes it when the test ends.
func openStore(tb testing.TB) *store.Store {
	tb.Helper()
	return openStoreIn(tb, tb.TempDir())
}

func openStoreIn(tb testing.TB, dir string) *store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	_, err = st.DB.Exec(`INSERT OR IGNORE INTO repository(id, name, path, created_at) VALUES (1, 't', '', 0)`)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

func sync(t *testing.T, dir string, st *store.Store, opts Options) *Result {
	t.Helper()
	s, err := New(dir, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return res
}

// dump renders the live (not rewritten) commits and their file changes
// canonically, for comparing two stores.
func dump(t *testing.T, st *store.Store) string {
	t.Helper()
	rows, err := st.DB.Query(`SELECT c.hash, c.is_merge, c.files_changed, c.insertions, c.deletions,
		COALESCE(f.seq, -1), COALESCE(f.path, ''), COALESCE(f.old_path, ''), COALESCE(f.status, ''),
		COALESCE(f.insertions, 0), COALESCE(f.deletions, 0)
		FROM commits c LEFT JOIN file_changes f ON f.commit_id = c.id
		WHERE c.rewritten = 0 ORDER BY c.hash, f.seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var h, p, op, status string
		var merge bool
		var files, ins, del, seq, fi, fd int
		if err := rows.Scan(&h, &merge, &files, &ins, &del, &seq, &p, &op, &status, &fi, &fd); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %v %d +%d -%d | %d %s %s %s +%d -%d\n", h, merge, files, ins, del, seq, status, op, p, fi, fd)
	}
	return b.String()
}

func hashes(t *testing.T, st *store.Store, where string) []string {
	t.Helper()
	rows, err := st.DB.Query(`SELECT hash FROM commits WHERE ` + where + ` ORDER BY hash`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		rows.Scan(&h)
		out = append(out, h)
	}
	return out
}

func revList(g *gittest.Repo, args ...string) []string {
	out := strings.Fields(g.Git(append([]string{"rev-list"}, args...)...))
	sort.Strings(out)
	return out
}

// history builds a repository with n commits over several languages, with
// renames, deletions and merges.
func history(t *testing.T, n int) *gittest.Repo {
	g := gittest.New(t)
	exts := []string{"go", "py", "js", "rs", "md"}
	for i := 0; i < n; i++ {
		switch {
		case i%25 == 24:
			g.Git("checkout", "-q", "-b", fmt.Sprintf("topic%d", i))
			g.Write(fmt.Sprintf("topic/%d.txt", i), gittest.Lines("topic", 5))
			g.Commit(fmt.Sprintf("topic work %d", i))
			g.Git("checkout", "-q", "main")
			g.Write("main.txt", gittest.Lines(fmt.Sprint("main", i), 3))
			g.Commit(fmt.Sprintf("main work %d", i))
			g.Tick()
			g.Git("merge", "-q", "--no-ff", "--no-edit", fmt.Sprintf("topic%d", i))
		case i%10 == 9 && i > 10:
			ext := exts[i%len(exts)]
			g.Git("mv", fmt.Sprintf("src/f%d.%s", i-5, exts[(i-5)%len(exts)]), fmt.Sprintf("src/moved%d.%s", i, ext))
			g.Commit(fmt.Sprintf("refactor: rename f%d (#%d)", i-5, i))
		default:
			ext := exts[i%len(exts)]
			g.Write(fmt.Sprintf("src/f%d.%s", i, ext), gittest.Lines(fmt.Sprintf("file %d", i), 10+i%7))
			if i > 3 {
				g.Write(fmt.Sprintf("src/f%d.%s", i-3, exts[(i-3)%len(exts)]), gittest.Lines(fmt.Sprintf("changed %d", i), 12))
			}
			g.Commit(fmt.Sprintf("fix: change %d\n\nBecause reasons. Fixes #%d", i, i))
		}
	}
	return g
}

func TestInitialAndIncrementalSync(t *testing.T) {
	g := history(t, 60)
	st := openStore(t)
	res := sync(t, g.Dir, st, Options{BatchSize: 7})
	want := revList(g, "main")
	if got := hashes(t, st, "rewritten = 0"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("indexed %d commits, git has %d", len(got), len(want))
	}
	if res.Indexed != len(want) || res.Failed != 0 {
		t.Errorf("result %+v", res)
	}
	// Insertions and deletions sum to git's numstat (git log shows no diff
	// for a clean merge, and neither do we: no double counting).
	var ins, del int
	st.DB.QueryRow(`SELECT SUM(insertions), SUM(deletions) FROM commits`).Scan(&ins, &del)
	gi, gd := numstatTotals(g, "main")
	if ins != gi || del != gd {
		t.Errorf("totals +%d -%d, git +%d -%d", ins, del, gi, gd)
	}
	// Nothing new: nothing done.
	if res := sync(t, g.Dir, st, Options{}); res.Indexed != 0 || res.Branches[0].New != 0 {
		t.Errorf("second sync %+v", res)
	}
	g.Write("late.go", "package late\n")
	late := g.Commit("feat: late addition")
	g.Git("tag", "-a", "-m", "release", "v1.0")
	g.Git("tag", "light", "HEAD~1")
	res = sync(t, g.Dir, st, Options{})
	if res.Indexed != 1 || res.Branches[0].Head != late || res.Branches[0].Rewritten {
		t.Errorf("incremental %+v", res.Branches)
	}
	c, info, err := st.GetCommit(t.Context(), late)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Refs, ",") != "main,tag: v1.0" || info.Branch != "main" || c.Subject() != "feat: late addition" {
		t.Errorf("late commit refs %v branch %q subject %q", c.Refs, info.Branch, c.Subject())
	}
	if c, _, _ := st.GetCommit(t.Context(), g.Git("rev-parse", "HEAD~1")); strings.Join(c.Refs, ",") != "tag: light" {
		t.Errorf("lightweight tag: %v", c.Refs)
	}
	// The understand stage ran: classification, summary, design notes.
	u, _, err := st.GetUnderstood(t.Context(), late)
	if err != nil || u.Classification.Primary.Type != model.Feature || u.Summary == "" {
		t.Errorf("late commit understood as %+v %q (%v)", u.Classification, u.Summary, err)
	}
	fix := g.Git("log", "-1", "--format=%H", "--grep", "^fix: change 5$", "main")
	u, _, err = st.GetUnderstood(t.Context(), fix)
	if err != nil || u.Classification.Primary.Type != model.Bugfix || len(u.Notes) != 1 || u.Notes[0].Text != "Because reasons." {
		t.Errorf("fix commit understood as %+v notes %+v (%v)", u.Classification, u.Notes, err)
	}
}

func numstatTotals(g *gittest.Repo, rev string) (ins, del int) {
	for _, l := range strings.Split(g.Git("log", "--numstat", "-M", "--format=", rev), "\n") {
		var a, d int
		if n, _ := fmt.Sscanf(l, "%d\t%d", &a, &d); n == 2 {
			ins, del = ins+a, del+d
		}
	}
	return
}

func TestForcePushes(t *testing.T) {
	cases := []struct {
		name    string
		rewrite func(g *gittest.Repo)
	}{
		{"amend", func(g *gittest.Repo) {
			g.Tick()
			g.Git("commit", "-q", "--amend", "-m", "amended message")
		}},
		{"rebase", func(g *gittest.Repo) {
			g.Git("checkout", "-q", "-b", "side", "HEAD~3")
			g.Write("side.txt", "side\n")
			g.Commit("side work")
			g.Git("checkout", "-q", "main")
			g.Tick()
			g.Git("rebase", "-q", "side")
			g.Git("branch", "-q", "-D", "side")
		}},
		{"reset", func(g *gittest.Repo) {
			g.Git("reset", "-q", "--hard", "HEAD~2")
		}},
		{"reset-and-new-work", func(g *gittest.Repo) {
			g.Git("reset", "-q", "--hard", "HEAD~2")
			g.Write("new.txt", "new\n")
			g.Commit("new work after reset")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := history(t, 12)
			st := openStore(t)
			sync(t, g.Dir, st, Options{})
			before := revList(g, "main")
			tc.rewrite(g)
			res := sync(t, g.Dir, st, Options{})
			after := revList(g, "main")
			if !res.Branches[0].Rewritten {
				t.Errorf("rewrite not detected: %+v", res.Branches[0])
			}
			if got := hashes(t, st, "rewritten = 0"); strings.Join(got, ",") != strings.Join(after, ",") {
				t.Errorf("live commits %v, reachable %v", got, after)
			}
			orphans := minus(before, after)
			if got := hashes(t, st, "rewritten = 1"); strings.Join(got, ",") != strings.Join(orphans, ",") {
				t.Errorf("rewritten %v, want %v", got, orphans)
			}
			if res.Rewritten != len(orphans) {
				t.Errorf("result says %d rewritten, want %d", res.Rewritten, len(orphans))
			}
		})
	}
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}

func TestResetThenForwardRevives(t *testing.T) {
	g := history(t, 8)
	st := openStore(t)
	sync(t, g.Dir, st, Options{})
	head := g.Head()
	g.Git("reset", "-q", "--hard", "HEAD~3")
	if res := sync(t, g.Dir, st, Options{}); res.Rewritten != 3 {
		t.Fatalf("rewritten %d, want 3", res.Rewritten)
	}
	g.Git("reset", "-q", "--hard", head)
	res := sync(t, g.Dir, st, Options{})
	if res.Revived != 3 || res.Indexed != 0 {
		t.Errorf("revived %d indexed %d, want 3 and 0", res.Revived, res.Indexed)
	}
	if got := hashes(t, st, "rewritten = 1"); len(got) != 0 {
		t.Errorf("still rewritten: %v", got)
	}
}

func TestBranchStrategies(t *testing.T) {
	g := history(t, 6)
	g.Git("checkout", "-q", "-b", "feature")
	g.Write("feature.txt", "f\n")
	feature := g.Commit("feature work")
	g.Git("checkout", "-q", "-b", "experiment", "main")
	g.Write("exp.txt", "e\n")
	exp := g.Commit("experiment")
	g.Git("checkout", "-q", "main")

	st := openStore(t)
	sync(t, g.Dir, st, Options{})
	if got := hashes(t, st, "hash IN ('"+feature+"','"+exp+"')"); len(got) != 0 {
		t.Errorf("default branch sync indexed other branches: %v", got)
	}
	res := sync(t, g.Dir, st, Options{Mode: ListedBranch, Branches: []string{"main", "feature"}})
	if res.Indexed != 1 || len(hashes(t, st, "hash = '"+feature+"'")) != 1 {
		t.Errorf("listed branches: %+v", res)
	}
	res = sync(t, g.Dir, st, Options{Mode: AllBranches})
	if res.Indexed != 1 || len(res.Branches) != 3 {
		t.Errorf("all branches: indexed %d branches %+v", res.Indexed, res.Branches)
	}
	// Deleting a branch makes its own commits unreachable: rewritten.
	g.Git("branch", "-q", "-D", "experiment")
	res = sync(t, g.Dir, st, Options{Mode: AllBranches})
	if got := hashes(t, st, "rewritten = 1"); len(got) != 1 || got[0] != exp {
		t.Errorf("after deleting a branch, rewritten %v, want [%s]", got, exp)
	}
	if _, err := New(g.Dir, st, Options{Mode: ListedBranch, Branches: []string{"nope"}}); err != nil {
		t.Fatal(err)
	}
	s, _ := New(g.Dir, st, Options{Mode: ListedBranch, Branches: []string{"nope"}})
	if _, err := s.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "no such branch") {
		t.Errorf("unknown branch: %v", err)
	}
}

func TestEmptyShallowBare(t *testing.T) {
	empty := gittest.New(t)
	st := openStore(t)
	if res := sync(t, empty.Dir, st, Options{}); !res.Empty || res.Indexed != 0 {
		t.Errorf("empty: %+v", res)
	}

	src := history(t, 10)
	shallowDir := filepath.Join(t.TempDir(), "shallow")
	src.Git("clone", "-q", "--depth", "3", "file://"+src.Dir, shallowDir)
	st = openStore(t)
	res := sync(t, shallowDir, st, Options{})
	if !res.Shallow || res.Indexed != 3 || len(res.Missing) == 0 {
		t.Errorf("shallow: indexed %d shallow %v missing %v", res.Indexed, res.Shallow, res.Missing)
	}

	bareDir := filepath.Join(t.TempDir(), "bare.git")
	src.Git("clone", "-q", "--bare", src.Dir, bareDir)
	st = openStore(t)
	if res := sync(t, bareDir, st, Options{}); res.Indexed != len(revList(src, "main")) {
		t.Errorf("bare: indexed %d", res.Indexed)
	}
}

func TestRetention(t *testing.T) {
	g := history(t, 20)
	st := openStore(t)
	res := sync(t, g.Dir, st, Options{KeepCommits: 5})
	if n := len(hashes(t, st, "1")); n != 5 {
		t.Errorf("kept %d commits, want 5 (result %+v)", n, res)
	}
	// A later sync must not index the pruned commits again.
	if res := sync(t, g.Dir, st, Options{KeepCommits: 5}); res.Indexed != 0 {
		t.Errorf("re-indexed %d pruned commits", res.Indexed)
	}
	var blobs int
	st.DB.QueryRow(`SELECT COUNT(*) FROM blobs`).Scan(&blobs)
	var live int
	st.DB.QueryRow(`SELECT COUNT(*) FROM blobs WHERE id >> 32 IN (SELECT id FROM commits)`).Scan(&live)
	if blobs != live {
		t.Errorf("%d blobs of pruned commits left behind", blobs-live)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv("GITMEMORY_TEST_CHILD") != "" {
		os.Exit(childSync())
	}
	os.Exit(m.Run())
}

// The refs table follows the repository's refs from sync to sync: a moved
// branch, a new and a deleted tag, a retargeted tag, and the rest kept.
func TestSyncRefsFollowRepository(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.txt", "one\n")
	first := g.Commit("first")
	g.Git("tag", "v1")
	g.Git("tag", "gone")
	g.Git("tag", "-a", "moved", "-m", "annotated")
	st := openStore(t)
	sync(t, g.Dir, st, Options{})
	want := func() string {
		var lines []string
		for _, l := range strings.Split(g.Git("for-each-ref", "--format=%(refname:short) %(objectname) %(*objectname)",
			"refs/heads", "refs/tags"), "\n") {
			f := strings.Fields(l)
			target := f[1]
			if len(f) == 3 {
				target = f[2]
			}
			lines = append(lines, fmt.Sprintf("%s %s %s\n", f[0], f[1], target))
		}
		sort.Strings(lines)
		return strings.Join(lines, "")
	}
	got := func() string {
		rows, err := st.DB.Query(`SELECT name, object, target FROM refs ORDER BY name`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var name, object, target string
			if err := rows.Scan(&name, &object, &target); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %s %s\n", name, object, target)
		}
		return b.String()
	}
	if g, w := got(), want(); g != w {
		t.Fatalf("after the first sync, refs:\n%s\nwant:\n%s", g, w)
	}
	g.Write("a.txt", "two\n")
	second := g.Commit("second")
	g.Git("tag", "-d", "gone")
	g.Git("tag", "v2")
	g.Git("tag", "-f", "-a", "moved", "-m", "again")
	sync(t, g.Dir, st, Options{})
	if g, w := got(), want(); g != w {
		t.Fatalf("after the second sync, refs:\n%s\nwant:\n%s", g, w)
	}
	if !strings.Contains(got(), "v1 "+first) || !strings.Contains(got(), "v2 "+second) || strings.Contains(got(), "gone ") {
		t.Errorf("refs do not name the commits: %s", got())
	}
}

// A partial clone syncs whole: no commit fails for a blob the clone left
// on its promisor remote, and a missing documentation file is skipped.
func TestSyncPartialClone(t *testing.T) {
	g := gittest.New(t)
	// show.go outgrows the clone's limit at the head, after its imports
	// were read from a version the clone holds.
	big := func(n int) string {
		return "package main\n\nimport \"fmt\"\n\n" + strings.Repeat("// a long comment line to make the file large\n", n) +
			"func show() { fmt.Println() }\n"
	}
	g.Write("README.md", gittest.Lines("A paragraph of the manual", 300))
	g.Write("main.go", "package main\n\nfunc main() {}\n")
	g.Write("show.go", big(2)) // small enough for the clone to hold
	g.Commit("Start")
	g.Git("checkout", "-q", "-b", "side")
	g.Write("show.go", big(41))
	g.Commit("Say more")
	g.Git("checkout", "-q", "main")
	g.Write("README.md", gittest.Lines("A paragraph of the manual", 301))
	g.Write("util.go", "package main\n\nfunc helper() int { return 1 }\n")
	g.Commit("Add a helper")
	g.Tick()
	g.Git("merge", "-q", "--no-ff", "-m", "Merge side", "side")
	st := openStore(t)
	res := sync(t, g.PartialClone(1000).Dir, st, Options{})
	if res.Indexed != 4 || res.Failed != 0 {
		t.Fatalf("indexed %d, failed %d; want 4 and 0", res.Indexed, res.Failed)
	}
	var missing, diffed int
	err := st.DB.QueryRow(`SELECT count(*) FILTER (WHERE skipped = 'missing'), count(*) FILTER (WHERE skipped = '' AND insertions > 0)
		FROM file_changes`).Scan(&missing, &diffed)
	if err != nil || missing != 3 || diffed != 3 {
		t.Errorf("file changes: %d missing, %d diffed (%v); want README.md twice and the large show.go missing, the rest diffed", missing, diffed, err)
	}
}

// A commit that cannot be read fails and waits for its backoff; once the
// cause is fixed, RetryFailed indexes it at once.
func TestRetryFailedAfterTheCauseIsFixed(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.go", "package a\n")
	g.Commit("First")
	g.Write("b.go", "package a\n\nfunc B() {}\n")
	second := g.Commit("Second")
	tree := g.Git("rev-parse", second+"^{tree}")
	loose := filepath.Join(g.Dir, ".git", "objects", tree[:2], tree[2:])
	aside := loose + ".aside"
	if err := os.Rename(loose, aside); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	if res := sync(t, g.Dir, st, Options{}); res.Indexed != 1 || res.Failed != 1 {
		t.Fatalf("with the tree missing: indexed %d, failed %d; want 1 and 1", res.Indexed, res.Failed)
	}
	if err := os.Rename(aside, loose); err != nil {
		t.Fatal(err)
	}
	var waiting int
	if err := st.DB.QueryRow(`SELECT count(*) FROM queue WHERE status = 'failed'`).Scan(&waiting); err != nil || waiting != 1 {
		t.Fatalf("%d failed commits queued (%v), want 1", waiting, err)
	}
	if res := sync(t, g.Dir, st, Options{}); res.Indexed != 0 {
		t.Fatalf("before the backoff: indexed %d, want 0", res.Indexed)
	}
	res := sync(t, g.Dir, st, Options{RetryFailed: true})
	if res.Retried != 1 || res.Indexed != 1 || res.Failed != 0 {
		t.Fatalf("retried: %d retried, indexed %d, failed %d; want 1, 1, 0", res.Retried, res.Indexed, res.Failed)
	}
}
