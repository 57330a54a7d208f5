package retrieve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/store"
)

// packRepo is an indexed repository whose history explains why SignIn
// retries: a rationale in a message and in a comment, a test, a long
// refactor, an unrelated change, and a commit that a reset rewrote away.
type packRepo struct {
	st                                   *store.Store
	add, fix, docs, refactor, gone, perf string
}

const (
	packSignIn = "auth/sso.go#auth.SignIn"
	packNow    = "2025-06-01T12:00:00Z"
)

func packFixture(t *testing.T) *packRepo {
	t.Helper()
	g := gittest.New(t)
	r := &packRepo{}
	signIn := func(body string) string {
		return "package auth\n\nimport \"errors\"\n\n// SignIn logs a user in through the SSO provider.\n" +
			"func SignIn(user string) error {\n\tif user == \"\" {\n\t\treturn errors.New(\"no user\")\n\t}\n" + body + "}\n\n" +
			"func dial(user string) error { return nil }\n"
	}
	g.Write("auth/sso.go", signIn("\treturn dial(user)\n"))
	g.Write("auth/sso_test.go", "package auth\n\nimport \"testing\"\n\nfunc TestSignIn(t *testing.T) {\n\tif SignIn(\"\") == nil {\n\t\tt.Fatal(\"no error\")\n\t}\n}\n")
	g.Write("auth/session.go", "package auth\n\n// Session is a signed-in user.\ntype Session struct{ User string }\n")
	r.add = g.Commit("feat: add SignIn for SSO login")
	retry := "\tvar err error\n\t// NOTE: three attempts, because the provider resets idle connections.\n" +
		"\tfor attempt := 0; attempt < 3; attempt++ {\n\t\tif err = dial(user); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn err\n"
	g.Write("auth/sso.go", signIn(retry))
	r.fix = g.Commit("fix: retry SignIn three times because the SSO provider drops connections under load")
	g.Write("README.md", "# auth\n\nSign in with SSO.\n")
	r.docs = g.Commit("docs: describe the auth package")
	var long strings.Builder
	long.WriteString("\n// backoff waits before an attempt.\nfunc backoff(attempt int) int {\n\tn := 0\n")
	for i := range 60 {
		fmt.Fprintf(&long, "\tn += attempt * %d\n", i)
	}
	long.WriteString("\treturn n\n}\n")
	g.Write("auth/sso.go", signIn(strings.Replace(retry, "\t\tif err", "\t\tbackoff(attempt)\n\t\tif err", 1))+long.String())
	r.refactor = g.Commit("refactor: extract the backoff of SignIn")
	head := r.refactor
	g.Write("auth/sso.go", signIn("\treturn dial(user)\n"))
	r.gone = g.Commit("fix: SignIn gives up after one attempt")
	r.st = indexRepo(t, g)
	g.Git("reset", "-q", "--hard", head)
	g.Write("auth/session.go", "package auth\n\n// Session is a signed-in user.\ntype Session struct{ User, Token string }\n")
	r.perf = g.Commit("perf: keep the token in Session")
	s, err := indexer.New(g.Dir, r.st, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// input is a search's answer to "why does SignIn retry?": the rewritten
// commit ranked first, as a stale vector index might.
func (r *packRepo) input() PackInput {
	return PackInput{
		Query: "why does SignIn retry three times?", Repository: "auth", Intent: "explain", Mode: ModeHybrid,
		Items: []Item{
			{Commit: r.gone, Score: 0.95}, {Commit: r.fix, Score: 0.9}, {Commit: r.refactor, Score: 0.7},
			{Commit: r.add, Score: 0.5}, {Commit: r.perf, Score: 0.3}, {Commit: r.docs, Score: 0.2},
		},
		Entities: []string{packSignIn},
		Files:    []string{"auth/sso.go"},
	}
}

func packOpts(tokens int, format string) PackOptions {
	now, _ := time.Parse(time.RFC3339, packNow)
	return PackOptions{Tokens: tokens, Format: format, Now: func() time.Time { return now }}
}

func buildTestPack(t *testing.T, r *packRepo, in PackInput, opts PackOptions) *Pack {
	t.Helper()
	p, err := BuildPack(context.Background(), r.st, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func renderPackText(t *testing.T, p *Pack, format string) string {
	t.Helper()
	b, err := Render(p, format)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPackSections(t *testing.T) {
	r := packFixture(t)
	p := buildTestPack(t, r, r.input(), packOpts(0, ""))
	js := renderPackText(t, p, FormatJSON)
	md := renderPackText(t, p, FormatMarkdown)

	var keys []string
	for _, k := range p.KeyItems {
		keys = append(keys, k.Hash)
	}
	if want := []string{r.fix, r.refactor, r.add, r.perf, r.docs}; !slices.Equal(keys, want) {
		t.Errorf("key items %v, want %v (the rewritten commit left out, the rest in rank order)", keys, want)
	}
	if p.KeyItems[0].Classification != "bugfix" || p.KeyItems[0].RelevanceScore != 0.9 {
		t.Errorf("first key item %+v", p.KeyItems[0])
	}
	if strings.Contains(js, r.gone) || strings.Contains(md, r.gone[:7]) {
		t.Errorf("the rewritten commit %s is in the pack", r.gone[:7])
	}
	if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "1 rewritten commit left out") }) {
		t.Errorf("warnings %q do not report the rewritten commit", p.Warnings)
	}

	var notes []string
	for _, n := range p.DesignNotes {
		notes = append(notes, n.Source+" "+n.Note)
	}
	for _, want := range []string{r.fix + " fix: retry SignIn three times because the SSO provider drops connections under load",
		"auth/sso.go:11 NOTE: three attempts, because the provider resets idle connections."} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("design notes lack %q:\n%s", want, strings.Join(notes, "\n"))
		}
	}

	if len(p.ImportantDiffs) == 0 {
		t.Fatal("no diffs")
	}
	d := p.ImportantDiffs[0]
	if d.Commit != r.fix || d.Path != "auth/sso.go" {
		t.Errorf("first diff is %s %s, want the fix's change to the named file", d.Commit[:7], d.Path)
	}
	if !strings.Contains(d.Diff, "+\tfor attempt := 0; attempt < 3; attempt++ {") || !strings.HasPrefix(d.Diff, "@@ -") {
		t.Errorf("the fix's diff lacks its hunk:\n%s", d.Diff)
	}
	for _, d := range p.ImportantDiffs {
		if n := strings.Count(d.Diff, "\n"); n > packMaxDiffLines {
			t.Errorf("diff of %s %s has %d lines, more than %d", d.Commit[:7], d.Path, n, packMaxDiffLines)
		}
		if d.Commit == r.refactor && d.Path == "auth/sso.go" && !strings.Contains(d.Diff, "more lines") {
			t.Errorf("the refactor's long diff is not cut:\n%s", d.Diff)
		}
	}

	c := p.CodeContext[0]
	if c.Path != "auth/sso.go" || c.Entity != "auth.SignIn" || !strings.HasPrefix(c.Snippet, "func SignIn(user string) error") ||
		!strings.Contains(c.Explanation, "modified in "+r.fix[:7]+" (bugfix)") {
		t.Errorf("first code context %+v, want SignIn modified in %s (bugfix)", c, r.fix[:7])
	}

	if !slices.ContainsFunc(p.RelatedTests, func(x TestItem) bool { return x.Path == "auth/sso_test.go" }) {
		t.Errorf("related tests %+v lack auth/sso_test.go", p.RelatedTests)
	}

	for _, want := range []string{r.fix[:7] + " (bugfix, ", "because the SSO provider drops connections", "auth.SignIn (auth/sso.go)"} {
		if !strings.Contains(p.Summary, want) {
			t.Errorf("summary lacks %q: %s", want, p.Summary)
		}
	}
	if n, _ := CountTokens(p.Summary); n > packSummaryTokens {
		t.Errorf("summary has %d tokens", n)
	}

	if len(p.Timeline) == 0 || !sort.SliceIsSorted(p.Timeline, func(i, j int) bool { return p.Timeline[i].Date < p.Timeline[j].Date }) {
		t.Errorf("timeline not oldest first: %+v", p.Timeline)
	}
	var inTimeline []string
	for _, e := range p.Timeline {
		inTimeline = append(inTimeline, e.Commits...)
	}
	if len(inTimeline) != 5 {
		t.Errorf("timeline has %d commits, want the 5 live results", len(inTimeline))
	}

	pv := p.Provenance
	if !slices.Contains(pv.Commits, r.fix) || pv.Commits[0] != r.fix || !slices.Contains(pv.Files, "auth/sso.go") ||
		!slices.Equal(pv.Authors, []string{"Ada Lovelace"}) {
		t.Errorf("provenance %+v", pv)
	}
	if p.Clarify != "" {
		t.Errorf("an explain question got a clarify suggestion: %s", p.Clarify)
	}
	if n, _ := CountTokens(md); p.Metadata.TokenCount != n || n > DefaultPackTokens {
		t.Errorf("token_count %d, the Markdown has %d tokens (budget %d)", p.Metadata.TokenCount, n, DefaultPackTokens)
	}
}

func TestPackIncludeRewritten(t *testing.T) {
	r := packFixture(t)
	opts := packOpts(0, FormatJSON)
	opts.IncludeRewritten = true
	p := buildTestPack(t, r, r.input(), opts)
	if k := p.KeyItems[0]; k.Hash != r.gone || !strings.HasPrefix(k.Summary, "[rewritten] ") {
		t.Errorf("first key item %+v, want the rewritten commit, labelled", k)
	}
	if slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "rewritten") }) {
		t.Errorf("warnings %q report a rewritten commit that is shown", p.Warnings)
	}
}

// TestPackTokenBudget holds token_count to the rendered pack's real count
// and to the budget, in both formats, and checks the priority order: the
// summary and key items survive a small budget, diffs and tests go first.
func TestPackTokenBudget(t *testing.T) {
	r := packFixture(t)
	for _, format := range []string{FormatMarkdown, FormatJSON} {
		all := packItems(buildTestPack(t, r, r.input(), packOpts(100_000, format)))
		var prev *Pack
		for _, budget := range []int{300, 600, 1000, 2000, 4000} {
			p := buildTestPack(t, r, r.input(), packOpts(budget, format))
			n, err := CountTokens(renderPackText(t, p, format))
			if err != nil {
				t.Fatal(err)
			}
			if n != p.Metadata.TokenCount || n > budget {
				t.Errorf("%s %d: token_count %d, rendered %d tokens", format, budget, p.Metadata.TokenCount, n)
			}
			if p.Summary == "" || len(p.KeyItems) == 0 {
				t.Errorf("%s %d: summary %q and %d key items", format, budget, p.Summary, len(p.KeyItems))
			}
			if budget == 300 && (len(p.ImportantDiffs) > 0 || len(p.RelatedTests) > 0 || len(p.CodeContext) > 0) {
				t.Errorf("%s 300: %d diffs, %d tests, %d code items kept before the key items and timeline",
					format, len(p.ImportantDiffs), len(p.RelatedTests), len(p.CodeContext))
			}
			if len(p.ImportantDiffs) > 0 && len(p.KeyItems) < 5 {
				t.Errorf("%s %d: a diff in, but only %d key items", format, budget, len(p.KeyItems))
			}
			if prev != nil && packItems(p) < packItems(prev) {
				t.Errorf("%s %d: %d items, fewer than %d at the smaller budget", format, budget, packItems(p), packItems(prev))
			}
			if left := slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "items left out") }); left != (packItems(p) < all) {
				t.Errorf("%s %d: left-out warning %v: %q", format, budget, left, p.Warnings)
			}
			prev = p
		}
		if len(prev.ImportantDiffs) == 0 || len(prev.RelatedTests) == 0 {
			t.Errorf("%s 4000: %d diffs, %d tests", format, len(prev.ImportantDiffs), len(prev.RelatedTests))
		}
	}
	if _, err := BuildPack(context.Background(), r.st, r.input(), packOpts(40, "")); !errors.Is(err, ErrBudgetTooSmall) {
		t.Errorf("budget 40: %v, want ErrBudgetTooSmall", err)
	}
	if _, err := BuildPack(context.Background(), r.st, r.input(), packOpts(0, "yaml")); err == nil {
		t.Error("format yaml accepted")
	}
}

func packItems(p *Pack) int {
	return len(p.KeyItems) + len(p.Timeline) + len(p.DesignNotes) + len(p.CodeContext) + len(p.ImportantDiffs) + len(p.RelatedTests)
}

func TestPackMarkdown(t *testing.T) {
	r := packFixture(t)
	in := r.input()
	in.Mode, in.Degraded, in.Warnings = ModeKeyword, true, []string{"vectors unavailable: no embedder"}
	md := renderPackText(t, buildTestPack(t, r, in, packOpts(0, "")), FormatMarkdown)
	for _, want := range []string{
		"# Context pack: why does SignIn retry three times?\n\n⚠ [keyword] · intent explain · auth · 2025-06-01 12:00 UTC · ",
		"> ⚠ vectors unavailable: no embedder\n",
		"## Summary\n\nMost relevant: " + r.fix[:7] + " (bugfix, ",
		"## Key commits\n\n- `" + r.fix[:7] + "` bugfix · 0.9 · Retry SignIn three times because",
		"## Timeline\n\n- 2024-03-01 · ",
		"## Design notes\n\n- fix: retry SignIn three times because",
		"## Code context\n\n### `auth.SignIn` (auth/sso.go)\n\nmodified in " + r.fix[:7] + " (bugfix)",
		"```go\nfunc SignIn(user string) error",
		"## Important diffs\n\n### `" + r.fix[:7] + "` auth/sso.go\n\nbugfix in " + r.fix[:7] + ": ",
		"```diff\n@@ -",
		"## Related tests\n\n",
		"`auth.TestSignIn` in auth/sso_test.go — verifies",
		"## Provenance\n\n- Commits: `" + r.fix[:7] + "`",
		"- Authors: Ada Lovelace\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	in.Degraded, in.Mode = false, ModeHybrid
	if md := renderPackText(t, buildTestPack(t, r, in, packOpts(0, "")), FormatMarkdown); !strings.Contains(md, "\n\n[hybrid] · ") {
		t.Errorf("hybrid header: %s", md[:200])
	}
}

func TestPackJSON(t *testing.T) {
	r := packFixture(t)
	p := buildTestPack(t, r, r.input(), packOpts(0, FormatJSON))
	b, err := RenderJSON(p)
	if err != nil {
		t.Fatal(err)
	}
	var back Pack
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := RenderJSON(&back)
	if string(again) != string(b) {
		t.Errorf("JSON does not round-trip:\n%s\n%s", b, again)
	}
	var raw, std map[string]any
	json.Unmarshal(b, &raw)
	plain, _ := json.Marshal(p)
	json.Unmarshal(plain, &std)
	if diff := gocmp.Diff(std, raw); diff != "" {
		t.Errorf("RenderJSON differs from encoding/json (-want +got):\n%s", diff)
	}
	fields := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	want := []string{"code_context", "design_notes", "important_diffs", "key_items", "metadata", "provenance",
		"related_tests", "summary", "timeline", "warnings"}
	if got := fields(raw); !slices.Equal(got, want) {
		t.Errorf("fields %v, want %v", got, want)
	}
	meta := raw["metadata"].(map[string]any)
	if got := fields(meta); !slices.Equal(got, []string{"degraded", "generated_at", "intent", "mode", "query", "repository", "token_count"}) {
		t.Errorf("metadata fields %v", got)
	}
	if meta["generated_at"] != packNow {
		t.Errorf("generated_at %s", meta["generated_at"])
	}
	if strings.Contains(string(b), `\u003c`) || !strings.Contains(string(b), `attempt < 3`) {
		t.Error("diff text is HTML-escaped or missing")
	}
}

func TestPackClarify(t *testing.T) {
	r := packFixture(t)
	in := r.input()
	in.Entities, in.Files, in.Intent = nil, nil, "debug"
	p := buildTestPack(t, r, in, packOpts(0, ""))
	if !strings.Contains(p.Clarify, "names no file or function") || !strings.Contains(p.Clarify, "error message") ||
		!strings.Contains(p.Clarify, "`auth.SignIn`") {
		t.Errorf("debug without entities: clarify %q", p.Clarify)
	}
	if md := renderPackText(t, p, FormatMarkdown); !strings.Contains(md, "**Clarify:** Critical information is missing") {
		t.Errorf("Markdown lacks the clarify suggestion")
	}
	in.Intent = "explain"
	if p := buildTestPack(t, r, in, packOpts(0, "")); p.Clarify != "" {
		t.Errorf("explain: clarify %q", p.Clarify)
	}
	in.Intent, in.Items = "research", nil
	p = buildTestPack(t, r, in, packOpts(0, ""))
	if !strings.Contains(p.Clarify, "no indexed commit matches") || !strings.Contains(p.Summary, "No indexed commit matches") ||
		len(p.KeyItems) != 0 {
		t.Errorf("no results: clarify %q, summary %q", p.Clarify, p.Summary)
	}
	in.Intent, in.Items, in.Entities = "plan", r.input().Items, []string{packSignIn}
	if p := buildTestPack(t, r, in, packOpts(0, "")); p.Clarify != "" {
		t.Errorf("plan naming SignIn: clarify %q", p.Clarify)
	}
	in.Clarify = "Name the SSO provider."
	if p := buildTestPack(t, r, in, packOpts(0, "")); p.Clarify != in.Clarify {
		t.Errorf("the search's clarify suggestion was replaced by %q", p.Clarify)
	}
}

func TestPackTimelineMonths(t *testing.T) {
	day := time.Date(2024, 1, 10, 12, 0, 0, 0, time.UTC)
	var cs []*packCommit
	for i, d := range []int{200, 0, 1, 100} { // rank order
		cs = append(cs, &packCommit{hash: strings.Repeat(fmt.Sprint(i), 40), class: "bugfix", subject: fmt.Sprint("change ", i),
			when: day.AddDate(0, 0, d)})
	}
	items, _ := packTimeline(cs)
	var got []string
	for _, e := range items {
		got = append(got, fmt.Sprintf("%s %d", e.Date, len(e.Commits)))
	}
	if want := []string{"2024-07 1", "2024-01 2", "2024-04 1"}; !slices.Equal(got, want) {
		t.Errorf("months over 200 days: %v, want %v (best first)", got, want)
	}
	items, _ = packTimeline(cs[1:3])
	if len(items) != 2 || items[0].Date != "2024-01-10" {
		t.Errorf("days: %+v", items)
	}
}

func TestTrimDiff(t *testing.T) {
	var text strings.Builder
	for h := range 3 {
		fmt.Fprintf(&text, "@@ -%d,10 +%d,10 @@\n", 1+h*100, 1+h*100)
		for i := range 10 {
			fmt.Fprintf(&text, "+hunk %d line %d\n", h, i)
		}
	}
	src := packDiffSource{text: text.String(), focus: [][2]int{{205, 206}}}
	got := trimDiff(src, 24)
	if n := strings.Count(got, "\n"); n > 24 {
		t.Errorf("%d lines", n)
	}
	if !strings.HasPrefix(got, "@@ -1,10 +1,10 @@\n") || !strings.Contains(got, "@@ -201,10 +201,10 @@\n+hunk 2 line 0") ||
		strings.Contains(got, "hunk 1") || !strings.HasSuffix(got, "… 11 more lines\n") {
		t.Errorf("trimmed diff (focus on the third hunk, then the first in file order):\n%s", got)
	}
	if all := trimDiff(packDiffSource{text: text.String()}, 100); all != text.String() {
		t.Errorf("a diff within the limit changed:\n%s", all)
	}
	if cut := trimDiff(packDiffSource{text: text.String()}, 8); strings.Count(cut, "\n") != 8 || !strings.Contains(cut, "… 26 more lines") {
		t.Errorf("first hunk cut to 8 lines:\n%s", cut)
	}
}

// TestPackLatency reports BuildPack's time on the fixture store, warm
// (the tokenizer loaded, SQLite's pages cached).
func TestPackLatency(t *testing.T) {
	r := packFixture(t)
	in := r.input()
	ctx := context.Background()
	if _, err := BuildPack(ctx, r.st, in, packOpts(0, "")); err != nil {
		t.Fatal(err)
	}
	const n = 20
	for _, format := range []string{FormatMarkdown, FormatJSON} {
		var took []time.Duration
		for range n {
			start := time.Now()
			if _, err := BuildPack(ctx, r.st, in, packOpts(0, format)); err != nil {
				t.Fatal(err)
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		t.Logf("BuildPack %s, 4000 tokens: p50 %v, max %v", format, took[n/2], took[n-1])
	}
}

// evidenceRepo is an indexed repository whose commits say why SignIn
// retries in a body sentence (behind an unrelated one and trailers) and
// in an added comment.
type evidenceRepo struct {
	st                *store.Store
	add, fix, backoff string
}

func evidenceFixture(tb testing.TB) *evidenceRepo {
	tb.Helper()
	g := gittest.New(tb)
	r := &evidenceRepo{}
	g.Write("auth/sso.go", "package auth\n\n// SignIn logs a user in.\nfunc SignIn(user string) error { return dial(user) }\n\n"+
		"func dial(user string) error { return nil }\n")
	r.add = g.Commit("feat: add SignIn for SSO login")
	g.Write("auth/sso.go", "package auth\n\n// SignIn logs a user in.\nfunc SignIn(user string) (err error) {\n"+
		"\tfor attempt := 0; attempt < 3; attempt++ {\n\t\tif err = dial(user); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn err\n}\n\n"+
		"func dial(user string) error { return nil }\n")
	r.fix = g.Commit("fix: make the client more robust\n\nUpdate the changelog for the next release.\n\n" +
		"The SSO provider resets idle connections after thirty seconds, so SignIn now retries the dial three times.\n\n" +
		"Signed-off-by: Ada Lovelace <ada@example.com>\nFixes #12\n")
	g.Write("auth/backoff.go", "package auth\n\n// NOTE: SignIn waits between the dial retries, since the provider throttles three quick dials.\n"+
		"func wait(attempt int) {}\n")
	r.backoff = g.Commit("refactor: extract a helper")
	r.st = openStore(tb, "")
	syncInto(tb, g, r.st)
	return r
}

// TestPackEvidence shows each key commit's evidence in both formats, and
// holds the budget: evidence goes before a key item does.
func TestPackEvidence(t *testing.T) {
	r := evidenceFixture(t)
	in := PackInput{Query: "why does SignIn retry the dial three times?", Repository: "auth", Intent: "explain", Mode: ModeHybrid,
		Items: []Item{{Commit: r.fix, Score: 0.9}, {Commit: r.backoff, Score: 0.8}, {Commit: r.add, Score: 0.5}}}
	wantFix := &Evidence{Text: "The SSO provider resets idle connections after thirty seconds, so SignIn now retries the dial three times.",
		Source: "message"}
	wantBackoff := &Evidence{Text: "NOTE: SignIn waits between the dial retries, since the provider throttles three quick dials.",
		Source: "comment in auth/backoff.go:3"}

	md := renderPackText(t, buildTestPack(t, &packRepo{st: r.st}, in, packOpts(0, FormatMarkdown)), FormatMarkdown)
	for _, want := range []string{
		"- `" + r.fix[:7] + "` bugfix · 0.9 · Make the client more robust\n  > \"" + wantFix.Text + "\" — message\n",
		"- `" + r.backoff[:7] + "` refactor · 0.8 · Extract a helper\n  > \"" + wantBackoff.Text + "\" — comment in auth/backoff.go:3\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}

	js := renderPackText(t, buildTestPack(t, &packRepo{st: r.st}, in, packOpts(0, FormatJSON)), FormatJSON)
	var p Pack
	if err := json.Unmarshal([]byte(js), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.KeyItems) < 2 {
		t.Fatalf("%d key items", len(p.KeyItems))
	}
	if diff := gocmp.Diff(wantFix, p.KeyItems[0].Evidence); diff != "" {
		t.Errorf("JSON evidence of the fix (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(wantBackoff, p.KeyItems[1].Evidence); diff != "" {
		t.Errorf("JSON evidence of the refactor (-want +got):\n%s", diff)
	}
	if !strings.Contains(js, `"evidence":{"text":"The SSO provider resets`) {
		t.Errorf("JSON lacks the evidence field:\n%s", js)
	}

	evidenced := func(p *Pack) int {
		n := 0
		for _, k := range p.KeyItems {
			if k.Evidence != nil {
				n++
			}
		}
		return n
	}
	count, err := tokenCounter()
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{FormatMarkdown, FormatJSON} {
		all := evidenced(buildTestPack(t, &packRepo{st: r.st}, in, packOpts(100_000, format)))
		shed := false
		for budget := 150; budget <= 600; budget += 10 {
			opts := packOpts(budget, format)
			p, err := BuildPack(context.Background(), r.st, in, opts)
			if errors.Is(err, ErrBudgetTooSmall) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			n, err := CountTokens(renderPackText(t, p, format))
			if err != nil {
				t.Fatal(err)
			}
			if n != p.Metadata.TokenCount || n > budget {
				t.Errorf("%s %d: token_count %d, rendered %d tokens", format, budget, p.Metadata.TokenCount, n)
			}
			// The same pack fitted without evidence has as many key items.
			pc, err := gatherPack(context.Background(), r.st, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			bare, err := newPackFitter(pc, opts, count).fit()
			if err != nil {
				t.Fatal(err)
			}
			if len(p.KeyItems) != len(bare.KeyItems) {
				t.Errorf("%s %d: %d key items with evidence, %d without", format, budget, len(p.KeyItems), len(bare.KeyItems))
			}
			if len(p.KeyItems) == len(in.Items) && evidenced(p) < all {
				shed = true
			}
		}
		if !shed {
			t.Errorf("%s: no budget kept every key item by leaving out evidence", format)
		}
	}
}
