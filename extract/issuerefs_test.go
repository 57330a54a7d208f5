package extract

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/model"
)

// wantRef abbreviates an expected reference without a URL.
func wantRef(key, kind string, action model.IssueAction, raw string) model.IssueRef {
	return model.IssueRef{Key: key, Kind: kind, Action: action, Raw: raw}
}

// wantURLRef abbreviates an expected URL reference, whose Raw is its URL.
func wantURLRef(key string, action model.IssueAction, url string) model.IssueRef {
	return model.IssueRef{Key: key, Kind: "url", Action: action, Raw: url, URL: url}
}

const (
	refFix = model.Fixes
	refSee = model.References
)

func TestParseIssueRefs(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want []model.IssueRef
	}{
		{"empty", "", nil},
		{"no refs", "Refactor the walker\n\nNo functional change.", nil},
		{"plain hash", "Handle empty trees (#123)", []model.IssueRef{wantRef("#123", "github", refSee, "#123")}},
		{"squash merge", "Merge pull request #4521 from alice/feature-x\n\nAdd feature x",
			[]model.IssueRef{wantRef("#4521", "github", refSee, "#4521")}},
		{"fixes", "Fix crash on empty input\n\nFixes #12", []model.IssueRef{wantRef("#12", "github", refFix, "#12")}},
		{"verb forms and case", "FIXED #1. closing #2; Resolving #3, RESOLVES #4, fix #5, Close #6, closed #7, resolve #8, resolved #9, fixing #10, closes #11",
			[]model.IssueRef{
				wantRef("#1", "github", refFix, "#1"), wantRef("#2", "github", refFix, "#2"), wantRef("#3", "github", refFix, "#3"),
				wantRef("#4", "github", refFix, "#4"), wantRef("#5", "github", refFix, "#5"), wantRef("#6", "github", refFix, "#6"),
				wantRef("#7", "github", refFix, "#7"), wantRef("#8", "github", refFix, "#8"), wantRef("#9", "github", refFix, "#9"),
				wantRef("#10", "github", refFix, "#10"), wantRef("#11", "github", refFix, "#11"),
			}},
		{"list", "Fixes #1, #2 and #3\n\nSee #4",
			[]model.IssueRef{
				wantRef("#1", "github", refFix, "#1"), wantRef("#2", "github", refFix, "#2"),
				wantRef("#3", "github", refFix, "#3"), wantRef("#4", "github", refSee, "#4"),
			}},
		{"oxford list", "closes #1, #2, and #3 & #4", []model.IssueRef{
			wantRef("#1", "github", refFix, "#1"), wantRef("#2", "github", refFix, "#2"),
			wantRef("#3", "github", refFix, "#3"), wantRef("#4", "github", refFix, "#4"),
		}},
		{"list broken by words", "Fixes #1 and refs #2", []model.IssueRef{
			wantRef("#1", "github", refFix, "#1"), wantRef("#2", "github", refSee, "#2"),
		}},
		{"list does not cross lines", "Fixes #1,\n#2", []model.IssueRef{
			wantRef("#1", "github", refFix, "#1"), wantRef("#2", "github", refSee, "#2"),
		}},
		{"verb not immediately before", "Fixed in #5; fixes the bug from #6", []model.IssueRef{
			wantRef("#5", "github", refSee, "#5"), wantRef("#6", "github", refSee, "#6"),
		}},
		{"verb inside a word", "prefixes #1, suffixed #2, unfixed #3", []model.IssueRef{
			wantRef("#1", "github", refSee, "#1"), wantRef("#2", "github", refSee, "#2"), wantRef("#3", "github", refSee, "#3"),
		}},
		{"verb wrapped onto next line", "This change fixes\n#77 for good.", []model.IssueRef{
			wantRef("#77", "github", refFix, "#77"),
		}},
		{"verb separated by blank line", "Some text that fixes\n\n#77", []model.IssueRef{
			wantRef("#77", "github", refSee, "#77"),
		}},
		{"conventional commit", "fix(#123): handle nil", []model.IssueRef{wantRef("#123", "github", refSee, "#123")}},
		{"trailers", "Add retries\n\nFixes: #12\nCloses: PROJ-7\nRefs: #13", []model.IssueRef{
			wantRef("#12", "github", refFix, "#12"), wantRef("PROJ-7", "jira", refFix, "PROJ-7"), wantRef("#13", "github", refSee, "#13"),
		}},
		{"fixes wins in dedupe", "Related to #9.\n\nFixes #9", []model.IssueRef{wantRef("#9", "github", refFix, "#9")}},
		{"dedupe keeps first", "#3 #3 GH-3", []model.IssueRef{wantRef("#3", "github", refSee, "#3")}},
		{"GH prefix", "Backport GH-1234 and gh-99", []model.IssueRef{
			wantRef("#1234", "github", refSee, "GH-1234"), wantRef("#99", "github", refSee, "gh-99"),
		}},
		{"GH prefix fixes", "Fixes GH-5", []model.IssueRef{wantRef("#5", "github", refFix, "GH-5")}},
		{"owner repo", "Port of golang/go#12345, closes kubernetes/kubernetes#9", []model.IssueRef{
			wantRef("golang/go#12345", "github", refSee, "golang/go#12345"),
			wantRef("kubernetes/kubernetes#9", "github", refFix, "kubernetes/kubernetes#9"),
		}},
		{"owner repo with dots", "See my-org/repo.js#42", []model.IssueRef{
			wantRef("my-org/repo.js#42", "github", refSee, "my-org/repo.js#42"),
		}},
		{"gitlab merge commit", "Merge branch 'fix-x' into 'main'\n\nFix x\n\nCloses #34\n\nSee merge request gitlab-org/gitlab!12345",
			[]model.IssueRef{
				wantRef("#34", "github", refFix, "#34"),
				wantRef("gitlab-org/gitlab!12345", "gitlab", refSee, "gitlab-org/gitlab!12345"),
			}},
		{"gitlab nested shorthand", "Relates to group/sub/project#8", []model.IssueRef{
			wantRef("group/sub/project#8", "github", refSee, "group/sub/project#8"),
		}},
		{"jira", "PROJ-123: Add login page", []model.IssueRef{wantRef("PROJ-123", "jira", refSee, "PROJ-123")}},
		{"jira fixes and digits in key", "Resolves ABC2_X-77 and AB-1", []model.IssueRef{
			wantRef("ABC2_X-77", "jira", refFix, "ABC2_X-77"), wantRef("AB-1", "jira", refFix, "AB-1"),
		}},
		{"jira in branch name", "Merge branch 'feature/PROJ-42-login' into develop", []model.IssueRef{
			wantRef("PROJ-42", "jira", refSee, "PROJ-42"),
		}},
		{"jira lookalikes", "Use UTF-8 and UTF-16, SHA-1 and SHA-256, ISO-8859-1, ISO-8601, RFC-2616, X-1, A-1, TLS-1, HTTP-2",
			nil},
		{"jira lowercase or mixed", "Proj-12 proj-13 pRoJ-14", nil},
		{"jira embedded", "fooPROJ-1 PROJ-1a PROJ_-x _PROJ-3", nil},
		{"advisory ids", "Bump for RUSTSEC-2021-0001, GO-2022-0123 and RHSA-2021:1234", nil},
		{"cve", "Fix CVE-2021-44228 (log4shell); see also cve-2014-0160 and CVE-2021", []model.IssueRef{
			wantRef("CVE-2021-44228", "cve", refFix, "CVE-2021-44228"),
			wantRef("CVE-2014-0160", "cve", refSee, "cve-2014-0160"),
		}},
		{"cve in url", "https://nvd.nist.gov/vuln/detail/CVE-2023-1234", []model.IssueRef{
			wantRef("CVE-2023-1234", "cve", refSee, "CVE-2023-1234"),
		}},
		{"github urls", "Fixes https://github.com/a/b/issues/9 and https://github.com/a/b/pull/10", []model.IssueRef{
			wantURLRef("a/b#9", refFix, "https://github.com/a/b/issues/9"),
			wantURLRef("a/b#10", refFix, "https://github.com/a/b/pull/10"),
		}},
		{"url trailing punctuation", "Broken by the parser (see https://github.com/a/b/issues/9).", []model.IssueRef{
			wantURLRef("a/b#9", refSee, "https://github.com/a/b/issues/9"),
		}},
		{"url with fragment and suffix", "https://github.com/o/r/pull/5#issuecomment-1 and https://github.com/o/r/pull/6/files", []model.IssueRef{
			wantURLRef("o/r#5", refSee, "https://github.com/o/r/pull/5"),
			wantURLRef("o/r#6", refSee, "https://github.com/o/r/pull/6"),
		}},
		{"url and shorthand dedupe", "Closes a/b#9\n\nhttps://github.com/a/b/issues/9", []model.IssueRef{
			wantRef("a/b#9", "github", refFix, "a/b#9"),
		}},
		{"gitlab urls", "Closes https://gitlab.com/group/sub/repo/-/issues/12\nSee https://gitlab.example.org:8443/g/r/-/merge_requests/3", []model.IssueRef{
			wantURLRef("group/sub/repo#12", refFix, "https://gitlab.com/group/sub/repo/-/issues/12"),
			wantURLRef("g/r!3", refSee, "https://gitlab.example.org:8443/g/r/-/merge_requests/3"),
		}},
		{"gitea url", "http://git.example.com/o/r/pulls/7", []model.IssueRef{
			wantURLRef("o/r#7", refSee, "http://git.example.com/o/r/pulls/7"),
		}},
		{"jira url", "Resolves https://acme.atlassian.net/browse/PROJ-123. Also PROJ-123.", []model.IssueRef{
			wantURLRef("PROJ-123", refFix, "https://acme.atlassian.net/browse/PROJ-123"),
		}},
		{"self-hosted jira url", "<https://jira.example.com/jira/browse/OPS-9>", []model.IssueRef{
			wantURLRef("OPS-9", refSee, "https://jira.example.com/jira/browse/OPS-9"),
		}},
		{"non-forge urls", "https://example.com/docs/a/b/c/issues/3 https://github.com/a/b/issues/new https://github.com/a/b#12 https://example.com/#12", nil},
		{"git.git fixes trailer", "Fix the fix\n\nFixes: 1234abcd5678 (\"net: frob the widget\")\nSigned-off-by: A U Thor <a@example.com>", nil},
		{"linux style", "net: fix leak in frob()\n\nThe buffer leaks when ...\n\nFixes: 0123456789ab (\"net: add frob()\")\n" +
			"Cc: stable@vger.kernel.org # 5.10+\nCc: <stable@vger.kernel.org> #5.4.x\nReported-by: syzbot+abc@syzkaller.appspotmail.com\n" +
			"Closes: https://lore.kernel.org/r/20230101.GA1@x/\nLink: https://bugzilla.kernel.org/show_bug.cgi?id=12345\nSigned-off-by: Dev <dev@example.com>", nil},
		{"fixes trailer with issue in subject", "Fixes: deadbeef (\"Revert PROJ-12\")", []model.IssueRef{
			wantRef("PROJ-12", "jira", refSee, "PROJ-12"),
		}},
		{"hex after hash", "Fixes #1234abcd and #deadbeef", nil},
		{"false positive hashes", "abc#123 &#123; &#x1F; #fff #0 #0123 #1234567890 ## Title\n# 12\n#define X 1\n#5.10 a/#12", nil},
		{"nine digits ok", "#123456789", []model.IssueRef{wantRef("#123456789", "github", refSee, "#123456789")}},
		{"hash at end and before punctuation", "see #1: #2) #3-x #4", []model.IssueRef{
			wantRef("#1", "github", refSee, "#1"), wantRef("#2", "github", refSee, "#2"),
			wantRef("#3", "github", refSee, "#3"), wantRef("#4", "github", refSee, "#4"),
		}},
		{"unicode around", "修复 #12。Fixes #13！ é#14 #15é", []model.IssueRef{
			wantRef("#12", "github", refSee, "#12"), wantRef("#13", "github", refFix, "#13"),
		}},
		{"invalid utf-8", "\xff#12\xfe Fixes\xff #13 \xc3", []model.IssueRef{
			wantRef("#12", "github", refSee, "#12"), wantRef("#13", "github", refSee, "#13"),
		}},
		{"mixed kinds list", "Fixes #1, PROJ-2 and owner/repo#3", []model.IssueRef{
			wantRef("#1", "github", refFix, "#1"), wantRef("PROJ-2", "jira", refFix, "PROJ-2"),
			wantRef("owner/repo#3", "github", refFix, "owner/repo#3"),
		}},
		{"email and path not shorthand", "mail bob@a/b#1 or x.y/z#2 or -a/b#3 or http://h/a/b#4", nil},
		{"bare and bad bangs", "Merge !12 and a/b!0 and a/b!5.1 and a/b!12x", nil},
		{"overlong path and key", strings.Repeat("a", 300) + "/b#1 " + strings.Repeat("A", 300) + "-1", nil},
		{"old gitlab url", "https://gitlab.example.com/g/r/issues/4 https://gitlab.example.com/g/r/merge_requests/5", []model.IssueRef{
			wantURLRef("g/r#4", refSee, "https://gitlab.example.com/g/r/issues/4"),
			wantURLRef("g/r!5", refSee, "https://gitlab.example.com/g/r/merge_requests/5"),
		}},
		{"colon without space", "Fixes:#1\nCloses:PROJ-2", []model.IssueRef{
			wantRef("#1", "github", refFix, "#1"), wantRef("PROJ-2", "jira", refFix, "PROJ-2"),
		}},
		{"GH after slash", "see docs/GH-12 and GH-13/x", []model.IssueRef{wantRef("#13", "github", refSee, "GH-13")}},
		{"list continues only after fixes", "See #1, #2", []model.IssueRef{
			wantRef("#1", "github", refSee, "#1"), wantRef("#2", "github", refSee, "#2"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseIssueRefs(tt.msg)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseIssueRefs(%q)\n got %#v\nwant %#v", tt.msg, got, tt.want)
			}
			checkIssueRefs(t, tt.msg, got)
		})
	}
}

// TestParseIssueRefsHuge guards the linear-time promise: on these inputs a
// quadratic scan takes minutes, a linear one well under a second, so the
// generous limit still tells them apart under the race detector.
func TestParseIssueRefsHuge(t *testing.T) {
	inputs := map[string]string{
		"refs":      strings.Repeat("fixes #1, ", 25_000),
		"paths":     strings.Repeat("a/", 125_000) + "#1",
		"spaces":    "fixes" + strings.Repeat(" ", 250_000) + "#1",
		"letters":   strings.Repeat("A", 250_000) + "-1",
		"urls":      strings.Repeat("https://github.com/a/b/issues/1 ", 8_000),
		"almost":    strings.Repeat("https://x/a/b/-/issue", 12_000),
		"hashes":    strings.Repeat("#", 250_000),
		"dashdigit": strings.Repeat("AB-1-", 50_000),
		"urlpath":   "https://x" + strings.Repeat("/a", 125_000) + "/issues/1",
	}
	for name, in := range inputs {
		start := time.Now()
		refs := ParseIssueRefs(in)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
		checkIssueRefs(t, in, refs)
	}
}

// checkIssueRefs asserts the invariants every result of ParseIssueRefs holds.
func checkIssueRefs(t *testing.T, msg string, refs []model.IssueRef) {
	t.Helper()
	if refs != nil && len(refs) == 0 {
		t.Errorf("empty non-nil result for %q", msg)
	}
	seen := map[string]bool{}
	for _, r := range refs {
		if r.Key == "" || r.Raw == "" || r.Kind == "" {
			t.Errorf("incomplete ref %#v from %q", r, msg)
		}
		if r.Action != model.Fixes && r.Action != model.References {
			t.Errorf("bad action %q in %#v", r.Action, r)
		}
		if !strings.Contains(msg, r.Raw) {
			t.Errorf("Raw %q not in message %q", r.Raw, msg)
		}
		if seen[r.Key] {
			t.Errorf("duplicate key %q from %q", r.Key, msg)
		}
		seen[r.Key] = true
		if !knownRefKinds[r.Kind] || (r.URL != "") != (r.Kind == "url") {
			t.Errorf("bad kind or URL in %#v", r)
		}
		// A reference must not owe its key to its surroundings: its Raw
		// text on its own reads as the same single reference.
		if alone := ParseIssueRefs(" " + r.Raw + " "); len(alone) != 1 || alone[0].Key != r.Key {
			t.Errorf("Raw %q of %#v alone parses as %#v", r.Raw, r, alone)
		}
	}
}

var knownRefKinds = map[string]bool{"github": true, "gitlab": true, "jira": true, "cve": true, "url": true}

func FuzzParseIssueRefs(f *testing.F) {
	for _, s := range []string{
		"", "#1", "Fixes #1, #2 and #3", "fixes: GH-7", "closes a/b#9 g/s/p!3",
		"PROJ-123 UTF-8 ISO-8859-1 CVE-2021-44228 RHSA-2021:1234",
		"https://github.com/a/b/issues/9). https://gitlab.com/g/s/r/-/merge_requests/12",
		"https://x.atlassian.net/browse/PROJ-1", "Fixes: 1234abcd (\"subject #3\")",
		"&#123; abc#1 #0 #1234567890 #5.10", "\xff#1\xfe", "Fixes\n\n#1", "修复 #12。",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		checkIssueRefs(t, msg, ParseIssueRefs(msg))
	})
}
