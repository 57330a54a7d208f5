package retrieve

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/store"
)

// labelLines returns the numbered lines "prefix line from" .. "prefix line to".
func labelLines(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("%s line %d", prefix, i))
	}
	return out
}

func labelText(parts ...[]string) string { return strings.Join(slices.Concat(parts...), "\n") + "\n" }

// labelsOf labels the commits as a search would, a year after the history:
// the old rule (older than 90 days, a file changed since) would mark every
// one of them stale.
func labelsOf(t *testing.T, st *store.Store, hashes ...string) []Item {
	t.Helper()
	return labelsAt(t, st, gittest.Epoch.AddDate(1, 0, 0), hashes...)
}

// labelsAt labels the commits as a search at now would.
func labelsAt(t *testing.T, st *store.Store, now time.Time, hashes ...string) []Item {
	t.Helper()
	s := NewSearcher(st, nil, nil, SearchOptions{Now: func() time.Time { return now }})
	a := &Answer{}
	for _, h := range hashes {
		a.Items = append(a.Items, Item{Commit: h})
	}
	if err := s.label(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return a.Items
}

// survivalOf returns LineSurvival's entry for path (zero if none).
func survivalOf(t *testing.T, st *store.Store, hash, path string) Survival {
	t.Helper()
	svs, err := LineSurvival(context.Background(), st.DB, hash)
	if err != nil {
		t.Fatal(err)
	}
	for _, sv := range svs {
		if sv.Path == path {
			return sv
		}
	}
	return Survival{}
}

func TestStaleWhenLinesRewritten(t *testing.T) {
	g := gittest.New(t)
	g.Write("f.go", labelText(labelLines("base", 1, 30)))
	g.Commit("base")
	g.Write("f.go", labelText(labelLines("base", 1, 10), labelLines("a", 1, 10), labelLines("base", 11, 30)))
	a := g.Commit("add ten lines")
	g.Write("f.go", labelText(labelLines("base", 1, 10), labelLines("b", 1, 8), labelLines("a", 9, 10), labelLines("base", 11, 30)))
	b := g.Commit("rewrite eight of them")
	st := indexRepo(t, g)

	if sv := survivalOf(t, st, a, "f.go"); sv.Added != 10 || sv.Alive != 2 || sv.Now != "f.go" {
		t.Errorf("survival of a = %+v, want 2 of 10 lines alive", sv)
	}
	items := labelsOf(t, st, a, b)
	if !items[0].Stale || items[1].Stale {
		t.Errorf("stale: a %v, b %v; want a stale (8 of 10 lines rewritten), b not", items[0].Stale, items[1].Stale)
	}
	// Seed 004's 90 days: a memory younger than that is not stale, however
	// much was rewritten since.
	if items := labelsAt(t, st, gittest.Epoch.AddDate(0, 0, 30), a); items[0].Stale {
		t.Error("a commit a month old is stale")
	}
}

// TestNotStaleWhenOtherLinesChange: later commits shift the lines, edit
// the lines right next to them (inside the hunks' context) and elsewhere,
// and none of the commit's lines is rewritten.
func TestNotStaleWhenOtherLinesChange(t *testing.T) {
	g := gittest.New(t)
	g.Write("f.go", labelText(labelLines("base", 1, 40)))
	g.Commit("base")
	g.Write("f.go", labelText(labelLines("base", 1, 20), labelLines("a", 1, 6), labelLines("base", 21, 40)))
	a := g.Commit("add six lines")
	g.Write("f.go", labelText(labelLines("top", 1, 5), labelLines("base", 1, 20), labelLines("a", 1, 6), labelLines("base", 21, 40)))
	g.Commit("insert lines above")
	g.Write("f.go", labelText(labelLines("top", 1, 5), labelLines("base", 1, 19), []string{"edited 20"}, labelLines("a", 1, 6),
		[]string{"edited 21"}, labelLines("base", 22, 40)))
	g.Commit("edit the lines around them")
	g.Write("f.go", labelText(labelLines("top", 1, 5), labelLines("base", 1, 19), []string{"edited 20"}, labelLines("a", 1, 6),
		[]string{"edited 21"}, labelLines("base", 22, 30)))
	g.Commit("drop the tail")
	st := indexRepo(t, g)

	if sv := survivalOf(t, st, a, "f.go"); sv.Added != 6 || sv.Alive != 6 || sv.Capped || sv.Approx {
		t.Errorf("survival of a = %+v, want all 6 lines alive, exactly", sv)
	}
	if items := labelsOf(t, st, a); items[0].Stale || len(items[0].Gone) > 0 {
		t.Errorf("a labelled %+v, want neither stale nor gone", items[0])
	}
}

func TestStaleFollowsRename(t *testing.T) {
	g := gittest.New(t)
	g.Write("old.go", labelText(labelLines("base", 1, 30)))
	g.Commit("base")
	g.Write("old.go", labelText(labelLines("base", 1, 5), labelLines("a", 1, 8), labelLines("base", 6, 30)))
	a := g.Commit("add eight lines")
	g.Write("old.go", labelText(labelLines("base", 1, 5), labelLines("a", 1, 8), labelLines("base", 6, 25), labelLines("k", 1, 4), labelLines("base", 26, 30)))
	k := g.Commit("add four lines further down")
	g.Git("mv", "old.go", "new.go")
	g.Write("new.go", labelText([]string{"// moved"}, labelLines("base", 1, 5), labelLines("a", 1, 8), labelLines("base", 6, 25), labelLines("k", 1, 4), labelLines("base", 26, 30)))
	g.Commit("rename old.go to new.go")
	g.Write("new.go", labelText([]string{"// moved"}, labelLines("base", 1, 5), labelLines("b", 1, 6), labelLines("a", 7, 8), labelLines("base", 6, 25), labelLines("k", 1, 4), labelLines("base", 26, 30)))
	g.Commit("rewrite six of a's lines")
	st := indexRepo(t, g)

	if sv := survivalOf(t, st, a, "old.go"); sv.Added != 8 || sv.Alive != 2 || sv.Now != "new.go" {
		t.Errorf("survival of a = %+v, want 2 of 8 alive in new.go", sv)
	}
	if sv := survivalOf(t, st, k, "old.go"); sv.Added != 4 || sv.Alive != 4 || sv.Now != "new.go" {
		t.Errorf("survival of k = %+v, want 4 of 4 alive in new.go", sv)
	}
	items := labelsOf(t, st, a, k)
	if !items[0].Stale || items[1].Stale {
		t.Errorf("stale: a %v, k %v; want a stale through the rename, k not", items[0].Stale, items[1].Stale)
	}
	if !slices.Equal(items[0].Gone, []string{"old.go"}) {
		t.Errorf("gone %v, want old.go (moved away)", items[0].Gone)
	}
}

func TestDeleteOnlyCommitNotStale(t *testing.T) {
	g := gittest.New(t)
	g.Write("f.go", labelText(labelLines("base", 1, 30)))
	g.Commit("base")
	g.Write("f.go", labelText(labelLines("base", 1, 10), labelLines("base", 21, 30)))
	d := g.Commit("delete ten lines")
	g.Write("f.go", labelText(labelLines("new", 1, 20)))
	g.Commit("rewrite everything")
	st := indexRepo(t, g)

	if svs, err := LineSurvival(context.Background(), st.DB, d); err != nil || len(svs) != 0 {
		t.Errorf("survival of a pure deletion = %+v (%v), want no added lines", svs, err)
	}
	if items := labelsOf(t, st, d); items[0].Stale {
		t.Error("a commit that only deleted lines is stale")
	}
}

// TestGone: deleted and renamed-away files are gone; a copied, changed or
// re-created file is not. A moved file's label says where it is now,
// through every later rename, unless a later change deleted it.
func TestGone(t *testing.T) {
	g := gittest.New(t)
	body := func(p string) string { return labelText(labelLines(p, 1, 30)) }
	for _, p := range []string{"deleted.go", "moved.go", "copied.go", "changed.go", "recreated.go", "twice.go", "moved-deleted.go"} {
		g.Write(p, body(p))
	}
	a := g.Commit("add the files")
	g.Git("rm", "-q", "deleted.go", "recreated.go")
	g.Git("mv", "moved.go", "moved-to.go")
	g.Git("mv", "twice.go", "once.go")
	g.Git("mv", "moved-deleted.go", "doomed.go")
	g.Write("copy.go", body("copied.go"))
	g.Write("copied.go", body("copied.go")+"// one more\n")
	g.Write("changed.go", body("changed.go")+"// one more\n")
	g.Commit("delete, move, copy and change")
	g.Write("recreated.go", "package again\n")
	g.Commit("re-create recreated.go")
	g.Git("mv", "once.go", "twice-now.go")
	g.Git("rm", "-q", "doomed.go")
	g.Commit("move once.go again, delete doomed.go")
	st := indexRepo(t, g)

	var status string
	if err := st.DB.QueryRow(`SELECT status FROM file_changes WHERE path = 'copy.go'`).Scan(&status); err != nil || status != "copied" {
		t.Fatalf("copy.go stored as %q (%v); the fixture needs a detected copy", status, err)
	}
	items := labelsOf(t, st, a)
	if want := []string{"deleted.go", "moved-deleted.go", "moved.go", "twice.go"}; !slices.Equal(slices.Sorted(slices.Values(items[0].Gone)), want) {
		t.Errorf("gone %v, want %v", items[0].Gone, want)
	}
	if want := map[string]string{"moved.go": "moved-to.go", "twice.go": "twice-now.go"}; !maps.Equal(items[0].Moved, want) {
		t.Errorf("moved %v, want %v", items[0].Moved, want)
	}
	if got, want := items[0].GoneText(), "twice-now.go"; !strings.Contains(got, "deleted.go gone") || !strings.HasSuffix(got, ", 1 more") {
		t.Errorf("GoneText() = %q, want the first three named and 1 more", got)
	} else if all := (Item{Gone: items[0].Gone[2:], Moved: items[0].Moved}).GoneText(); !strings.Contains(all, "twice.go → "+want) {
		t.Errorf("GoneText() of the last two = %q", all)
	}
	if sv := survivalOf(t, st, a, "deleted.go"); sv.Alive != 0 || sv.Now != "" {
		t.Errorf("survival in the deleted file = %+v, want none alive", sv)
	}
}

// A store that fails mid-way is an error that names where, not a label
// that says a file is still there.
func TestGoneReportsStoreErrors(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.go", "package a\n")
	a := g.Commit("add a.go")
	g.Git("mv", "a.go", "b.go")
	g.Commit("move a.go")
	st := indexRepo(t, g)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := goneFiles(ctx, st.DB, a); !errors.Is(err, context.Canceled) {
		t.Errorf("goneFiles on a cancelled query: %v, want context.Canceled", err)
	}
	if _, err := whereNow(ctx, st.DB, "a.go", 1); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "a.go") {
		t.Errorf("whereNow on a cancelled query: %v, want context.Canceled naming a.go", err)
	}
	if now, err := whereNow(context.Background(), st.DB, "a.go", 1); err != nil || now != "b.go" {
		t.Errorf("whereNow(a.go) = %q, %v; want b.go", now, err)
	}
}

// mergeRepo: a topic forks from base; main inserts four lines (c0) three
// lines above where the topic rewrites four (s1); a merge brings the topic
// in, so it records f.go, diffed against main.
func mergeRepo(t *testing.T) (*gittest.Repo, map[string]string) {
	g := gittest.New(t)
	c := map[string]string{}
	g.Write("f.go", labelText(labelLines("base", 1, 40)))
	c["base"] = g.Commit("base")
	g.Git("checkout", "-q", "-b", "topic")
	g.Write("f.go", labelText(labelLines("base", 1, 6), labelLines("s", 7, 10), labelLines("base", 11, 40)))
	c["s1"] = g.Commit("topic rewrites base 7-10")
	g.Git("checkout", "-q", "main")
	g.Write("f.go", labelText(labelLines("base", 1, 5), labelLines("c", 1, 4), labelLines("base", 6, 40)))
	c["c0"] = g.Commit("main inserts four lines after base 5")
	g.Tick()
	g.Git("merge", "-q", "--no-ff", "-m", "merge topic", "topic")
	c["merge"] = g.Head()
	return g, c
}

// TestMergeAppliesEachChangeOnce: the topic's commit and the merge carry
// the same change; applying both, or the topic's in main's coordinates,
// would rewrite c0's lines (the topic rewrites lines 7-10 of its version,
// which are c0's 7-9 in main's).
func TestMergeAppliesEachChangeOnce(t *testing.T) {
	g, c := mergeRepo(t)
	g.Write("f.go", labelText(labelLines("base", 1, 5), labelLines("c", 1, 4), labelLines("base", 6, 6), labelLines("s", 7, 10), labelLines("base", 11, 35),
		labelLines("y", 1, 5)))
	c["y"] = g.Commit("main rewrites the last five lines")
	st := indexRepo(t, g)
	var stored int
	st.DB.QueryRow(`SELECT COUNT(*) FROM file_changes f JOIN commits k ON k.id = f.commit_id WHERE k.hash = ?`, c["merge"]).Scan(&stored)
	if stored != 1 {
		t.Fatalf("the merge records %d files; the fixture needs it to record f.go", stored)
	}

	if sv := survivalOf(t, st, c["c0"], "f.go"); sv.Added != 4 || sv.Alive != 4 || sv.Approx {
		t.Errorf("survival of c0 = %+v, want 4 of 4, exactly", sv)
	}
	if sv := survivalOf(t, st, c["s1"], "f.go"); sv.Added != 4 || sv.Alive != 4 || !sv.Approx {
		t.Errorf("survival of s1 = %+v, want 4 of 4, across the merge", sv)
	}
	for i, it := range labelsOf(t, st, c["c0"], c["s1"]) {
		if it.Stale {
			t.Errorf("result %d stale: its lines all survive", i)
		}
	}
}

// TestMergeThenRewrite: after the merge main rewrites the topic's lines;
// the walk crosses the merge from the topic and sees it.
func TestMergeThenRewrite(t *testing.T) {
	g, c := mergeRepo(t)
	g.Write("f.go", labelText(labelLines("base", 1, 5), labelLines("c", 1, 4), labelLines("base", 6, 6), labelLines("z", 7, 10), labelLines("base", 11, 40)))
	g.Commit("main rewrites the topic's lines")
	st := indexRepo(t, g)

	if sv := survivalOf(t, st, c["s1"], "f.go"); sv.Alive != 0 {
		t.Errorf("survival of s1 = %+v, want none alive", sv)
	}
	items := labelsOf(t, st, c["s1"], c["c0"])
	if !items[0].Stale || items[1].Stale {
		t.Errorf("stale: s1 %v, c0 %v; want s1 stale, c0 not", items[0].Stale, items[1].Stale)
	}
}

// TestSurvivalMatchesBlame compares LineSurvival with git blame on a
// generated history of edits, renames and deletions: for every commit and
// file, the lines blame gives the commit at the head.
func TestSurvivalMatchesBlame(t *testing.T) {
	if testing.Short() {
		t.Skip("blames every file of a generated history")
	}
	g := gittest.Generate(t, 150, 7)
	st := indexRepo(t, g)
	blamed := map[string]map[string]int{}
	blame := func(path string) map[string]int {
		if b, ok := blamed[path]; ok {
			return b
		}
		b := map[string]int{}
		if _, err := g.TryGit("cat-file", "-e", "HEAD:"+path); err == nil {
			sc := bufio.NewScanner(strings.NewReader(g.Git("blame", "--line-porcelain", "HEAD", "--", path)))
			for sc.Scan() {
				if h, rest, ok := strings.Cut(sc.Text(), " "); ok && len(h) == 40 && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
					b[h]++
				}
			}
		}
		blamed[path] = b
		return b
	}
	atHead := func(c, path string) string {
		for line := range strings.Lines(g.Git("log", "--reverse", "--topo-order", "-M", "--diff-filter=R", "--name-status", "--format=", c+"..HEAD")) {
			if f := strings.Fields(line); len(f) == 3 && f[1] == path {
				path = f[2]
			}
		}
		return path
	}
	pairs, diff := 0, 0.0
	for _, c := range strings.Fields(g.Git("rev-list", "--no-merges", "HEAD")) {
		svs, err := LineSurvival(context.Background(), st.DB, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, sv := range svs {
			want := min(blame(atHead(c, sv.Path))[c], sv.Added)
			pairs++
			diff += math.Abs(float64(sv.Alive-want)) / float64(sv.Added)
			if sv.Alive != want {
				t.Errorf("%.8s %s: %d of %d lines alive, blame says %d (%+v)", c, sv.Path, sv.Alive, sv.Added, want, sv)
			}
		}
	}
	if pairs < 100 {
		t.Errorf("only %d (commit, file) pairs compared", pairs)
	}
	t.Logf("%d pairs, mean |Δ fraction| %.4f", pairs, diff/float64(pairs))
}

// BenchmarkLabel times label runs on an indexed repository's meta.db,
// opened read-only: GITMEMORY_LABEL_DB=…/repos/jq/meta.db. Each run labels
// the keyword-mode answer (MaxResults results) to a question of the
// evaluation set GITMEMORY_LABEL_QUESTIONS (eval/jq.jsonl), or, without
// one, MaxResults random commits. It reports CPU and wall time per run.
func BenchmarkLabel(b *testing.B) {
	path := os.Getenv("GITMEMORY_LABEL_DB")
	if path == "" {
		b.Skip("GITMEMORY_LABEL_DB is not set")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?immutable=1")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := NewSearcher(&store.Store{DB: db}, nil, nil, SearchOptions{Limit: MaxResults})
	answers, err := benchAnswers(s, db, os.Getenv("GITMEMORY_LABEL_QUESTIONS"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var took []time.Duration
	stale, results := 0, 0
	cpu := cpuTime()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		a := answers[i%len(answers)]
		start := time.Now()
		if err := s.label(ctx, a); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		for _, it := range a.Items {
			results++
			if it.Stale {
				stale++
			}
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(len(took)), "cpu-ms/run")
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "p90-ms")
	b.ReportMetric(float64(stale)/float64(results), "stale/result")
}

func benchAnswers(s *Searcher, db *sql.DB, questions string) ([]*Answer, error) {
	var answers []*Answer
	if questions == "" {
		var hashes []string
		err := store.EachRow(context.Background(), db, `SELECT hash FROM commits WHERE rewritten = 0`, nil,
			func(r *sql.Rows) error {
				var h string
				err := r.Scan(&h)
				hashes = append(hashes, h)
				return err
			})
		rng := rand.New(rand.NewPCG(1, 2))
		for range 100 {
			a := &Answer{}
			for range MaxResults {
				a.Items = append(a.Items, Item{Commit: hashes[rng.IntN(len(hashes))]})
			}
			answers = append(answers, a)
		}
		return answers, err
	}
	f, err := os.Open(questions)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cases, err := ReadEvalCases(f)
	if err != nil {
		return nil, err
	}
	for _, c := range cases {
		if c.Question == "" {
			continue
		}
		a, err := s.Search(context.Background(), Request{Query: c.Question, Mode: ModeKeyword, Limit: MaxResults})
		if err != nil {
			return nil, err
		}
		answers = append(answers, a)
	}
	return answers, nil
}

// cpuTime is the process's CPU time: the machine may be busy with others.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
