package retrieve

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

func TestConfidence(t *testing.T) {
	for _, c := range []struct {
		direct         bool
		covered, terms int
		stale          bool
		want           string
	}{
		{true, 0, 3, false, ConfS1},  // the question names the commit
		{false, 2, 3, false, ConfS1}, // two thirds of its words
		{false, 1, 3, false, ConfS2}, // a third
		{false, 0, 3, false, ConfS3}, // a neighbour by meaning alone
		{false, 1, 1, false, ConfS1},
		{false, 0, 0, false, ConfS3},
		{true, 0, 3, true, ConfS2},   // stale drops a level
		{false, 1, 3, true, ConfS3},  // ...
		{false, 0, 3, true, ConfS3},  // ... but not below S3
		{false, 3, 4, false, ConfS1}, // 3/4 ≥ 2/3
	} {
		if got := confidence(c.direct, c.covered, c.terms, c.stale); got != c.want {
			t.Errorf("confidence(direct %v, %d of %d, stale %v) = %s, want %s", c.direct, c.covered, c.terms, c.stale, got, c.want)
		}
	}
}

// graded builds items named by tier and confidence, in rank order.
func graded(specs ...string) []Item {
	var out []Item
	for i, s := range specs {
		tier := TierHard
		if s[0] == 's' {
			tier = TierSoft
		}
		out = append(out, Item{Commit: fmt.Sprintf("%s-%d", s, i), Tier: tier, Confidence: "S" + s[1:]})
	}
	return out
}

func gradedCommits(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Commit)
	}
	return out
}

func TestPrioritize(t *testing.T) {
	for _, c := range []struct {
		name  string
		items []Item
		opts  GradeOptions
		broad bool
		want  []string
	}{
		{"seed order", graded("s1", "h3", "s2", "h1", "h2"), GradeOptions{Limit: 5}, false,
			[]string{"h1-3", "h2-4", "h3-1", "s1-0"}}, // Soft S2 only when Hard is empty
		{"soft asked for", graded("s1", "h3", "s2", "h1"), GradeOptions{Limit: 5, Soft: true}, false,
			[]string{"h1-3", "h3-1", "s1-0", "s2-2"}},
		{"hard empty", graded("s3", "s2", "s1", "s2"), GradeOptions{Limit: 5}, false,
			[]string{"s1-2", "s2-1", "s2-3"}}, // Soft at most 3, S2 before S3
		{"hard at most 5", graded("h1", "h1", "h1", "h1", "h1", "h1", "h2"), GradeOptions{Limit: 20}, false,
			[]string{"h1-0", "h1-1", "h1-2", "h1-3", "h1-4"}},
		{"limit", graded("h1", "h2", "h1"), GradeOptions{Limit: 2}, false, []string{"h1-0", "h1-2"}},
		{"broad keeps S1 and S2", graded("h3", "s1", "s3", "h2"), GradeOptions{Limit: 5}, true,
			[]string{"h2-3", "s1-1"}},
	} {
		if got := gradedCommits(prioritize(c.items, c.opts, c.broad)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestGrade(t *testing.T) {
	g := gittest.New(t)
	g.Write("upload/client.go", "package upload\n\nfunc sendChunk(b []byte) error {\n\treturn nil\n}\n")
	plain := g.Commit("Add the upload client")
	g.Write("upload/client.go", "package upload\n\nfunc sendChunk(b []byte) error {\n\tretries := 3\n\t_ = retries\n\treturn nil\n}\n")
	reason := g.Commit("Retry chunk uploads because flaky proxies drop connections")
	g.Write("old/legacy.go", "package old\n\nfunc legacy() {}\n")
	goneReason := g.Commit("Keep the legacy path because old clients still call it")
	g.Git("rm", "-q", "old/legacy.go")
	g.Commit("Drop the legacy path")
	st := indexRepo(t, g)
	ctx := context.Background()

	a := &Answer{Query: "retry flaky proxies", Items: []Item{{Commit: plain, Why: []string{"vector"}},
		{Commit: reason, Why: []string{"keyword"}}, {Commit: goneReason, Why: []string{"vector"}, Gone: []string{"old/legacy.go"}}}}
	if err := Grade(ctx, st.DB, a, GradeOptions{Limit: 5, SeedOrder: true}); err != nil {
		t.Fatal(err)
	}
	if len(a.Items) != 1 || a.Items[0].Commit != reason || a.Items[0].Tier != TierHard || a.Items[0].Confidence != ConfS1 {
		t.Fatalf("items %+v, want only the reasoned retry commit, Hard S1 (Soft S3 is left out beside Hard)", a.Items)
	}
	// By default the search's order and count stand, labelled.
	a = &Answer{Query: "retry flaky proxies", Items: []Item{{Commit: plain, Why: []string{"vector"}},
		{Commit: reason, Why: []string{"keyword"}}}}
	if err := Grade(ctx, st.DB, a, GradeOptions{Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if len(a.Items) != 2 || a.Items[0].Commit != plain || a.Items[0].Tier != TierSoft || a.Items[0].Confidence != ConfS3 || a.Items[1].Tier != TierHard {
		t.Errorf("default order: %+v", a.Items)
	}
	// Without the Hard one: the commit that states a reason but whose only
	// file is gone is Soft, and with the plain one, S3: the seed's reply.
	a = &Answer{Query: "retry flaky proxies", Items: []Item{{Commit: plain, Why: []string{"vector"}},
		{Commit: goneReason, Why: []string{"vector"}, Gone: []string{"old/legacy.go"}}}}
	if err := Grade(ctx, st.DB, a, GradeOptions{Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if len(a.Items) != 2 || a.Items[0].Tier != TierSoft || a.Items[1].Tier != TierSoft || !slices.Contains(a.Warnings, WarnLowConfidence) {
		t.Errorf("items %+v, warnings %v; want two Soft S3 and the low-confidence reply", a.Items, a.Warnings)
	}
	// One word of three (uploads, stemmed) and the entity sendChunk's part
	// "chunk": two thirds, S1, and no low-confidence reply.
	a = &Answer{Query: "retry chunk uploads", Items: []Item{{Commit: plain, Why: []string{"vector"}}}}
	if err := Grade(ctx, st.DB, a, GradeOptions{Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if len(a.Items) != 1 || a.Items[0].Confidence != ConfS1 || len(a.Warnings) != 0 {
		t.Errorf("plain commit for its own words: %+v, warnings %v", a.Items, a.Warnings)
	}
	a = &Answer{Query: "proxies dropping websockets", Items: []Item{{Commit: plain, Why: []string{"vector"}}}}
	if err := Grade(ctx, st.DB, a, GradeOptions{Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if len(a.Items) != 1 || a.Items[0].Confidence != ConfS3 || !slices.Contains(a.Warnings, WarnLowConfidence) {
		t.Errorf("a neighbour by meaning alone: %+v, warnings %v; want Soft S3 and the low-confidence reply", a.Items, a.Warnings)
	}
}

func TestTooBroad(t *testing.T) {
	g := gittest.New(t)
	for i := range 14 {
		area := []string{"parser", "printer"}[i%2]
		g.Write(fmt.Sprintf("%s/f%d.go", area, i), fmt.Sprintf("package %s\n\nfunc f%d() {}\n", area, i))
		g.Commit(fmt.Sprintf("Add feature %d to the %s", i, area))
	}
	st := indexRepo(t, g)
	s := NewSearcher(st, nil, nil, SearchOptions{Now: func() time.Time { return gittest.Epoch.AddDate(0, 0, 1) }})
	a, err := s.Search(context.Background(), Request{Query: "feature"})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Broad || !slices.Contains(a.Warnings, WarnTooBroad) {
		t.Fatalf("14 commits alike for \"feature\": broad %v, warnings %v", a.Broad, a.Warnings)
	}
	if n := len(a.Suggestions); n < 3 || n > 5 || slices.Contains(a.Suggestions, "feature") {
		t.Errorf("suggestions %v: want 3 to 5 terms other than the query's", a.Suggestions)
	}
	if !slices.Contains(a.Suggestions, "parser") || !slices.Contains(a.Suggestions, "printer") {
		t.Errorf("suggestions %v lack the words that split the commits", a.Suggestions)
	}
	a, err = s.Search(context.Background(), Request{Query: "feature 3 parser printer"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Broad {
		t.Error("a four-word question is too broad")
	}
}

func TestParseDateRange(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	r, err := ParseDateRange("2024-01-01..2024-06-30")
	if err != nil || !r.From.Equal(day("2024-01-01")) || !r.To.Equal(day("2024-07-01").Add(-time.Second)) {
		t.Errorf("range = %+v, %v", r, err)
	}
	if r, err := ParseDateRange("..2024-06-30T12:00:00Z"); err != nil || !r.From.IsZero() || r.To.Hour() != 12 {
		t.Errorf("open start = %+v, %v", r, err)
	}
	for _, bad := range []string{"", "..", "2024-01-01", "soon..", "2024-02-01..2024-01-01"} {
		if _, err := ParseDateRange(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestDateRangeFilter(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.go", "package a\n")
	first := g.Commit("first")
	g.Write("b.go", "package a\n")
	second := g.Commit("second")
	st := indexRepo(t, g)
	a := &Answer{Items: []Item{{Commit: first}, {Commit: second}}}
	r := DateRange{From: gittest.Epoch.Add(90 * time.Minute)} // between the two commits
	if err := r.Filter(context.Background(), st.DB, a); err != nil {
		t.Fatal(err)
	}
	if len(a.Items) != 1 || a.Items[0].Commit != second {
		t.Errorf("items %+v, want only the second", a.Items)
	}
	a = &Answer{Items: []Item{{Commit: first}}}
	if err := (DateRange{To: gittest.Epoch}).Filter(context.Background(), st.DB, a); err != nil || len(a.Items) != 0 || !a.NoMatch {
		t.Errorf("nothing in range: %+v, %v", a, err)
	}
}

func TestCheckMemory(t *testing.T) {
	g := gittest.New(t)
	g.Write("f.go", labelText(labelLines("base", 1, 30)))
	g.Commit("base")
	g.Write("f.go", labelText(labelLines("base", 1, 10), labelLines("a", 1, 10), labelLines("base", 11, 30)))
	g.Commit("Add ten lines because the parser needs them")
	g.Write("f.go", labelText(labelLines("base", 1, 10), labelLines("b", 1, 8), labelLines("a", 9, 10), labelLines("base", 11, 30)))
	g.Commit("Rewrite eight of them because the first try was wrong")
	g.Write("g.go", "package g\n")
	g.Commit("Add g.go because f.go grew too long")
	g.Git("rm", "-q", "g.go")
	g.Commit("Remove g.go")
	st := indexRepo(t, g)
	m, err := CheckMemory(context.Background(), st.DB, gittest.Epoch.AddDate(1, 0, 0), 90)
	if err != nil {
		t.Fatal(err)
	}
	// Stale: the ten lines (eight rewritten) and g.go (deleted).
	want := MemoryHealth{Entries: 5, HardEntries: 3, Stale: 2, StaleChecked: 3, StaleEligible: 3, SourceWarnings: 1, StaleDays: 90}
	if *m != want {
		t.Errorf("health = %+v, want %+v", *m, want)
	}
	// A month after the history, nothing is old enough to be stale.
	if m, err = CheckMemory(context.Background(), st.DB, gittest.Epoch.AddDate(0, 1, 0), 90); err != nil || m.Stale+m.StaleChecked != 0 {
		t.Errorf("a month on: %+v, %v", m, err)
	}
}

func TestLanguages(t *testing.T) {
	g := gittest.New(t)
	g.Write("a.go", "package a\n")
	g.Write("b.go", "package a\n")
	g.Write("tool.py", "print(1)\n")
	g.Write("old.py", "print(2)\n")
	for _, v := range []string{"1.0", "1.1", "1.2"} { // release signatures: a data format, listed last
		g.Write("sig/v"+v+".asc", "-----BEGIN PGP SIGNATURE-----\n\niQIzBAABCAAdFiEE\n-----END PGP SIGNATURE-----\n")
	}
	g.Commit("add")
	g.Git("rm", "-q", "b.go")
	g.Git("mv", "old.py", "new.py")
	g.Commit("remove b.go, rename old.py")
	st := indexRepo(t, g)
	got, err := Languages(context.Background(), st.DB)
	if err != nil {
		t.Fatal(err)
	}
	want := []LanguageCount{{"Python", 2}, {"Go", 1}, {"Public Key", 3}} // tool.py, new.py; a.go; the signatures
	if !slices.Equal(got, want) {
		t.Errorf("languages = %+v, want %+v", got, want)
	}
}
