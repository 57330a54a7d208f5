package understand

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

func TestSummarize(t *testing.T) {
	long := "Teach the retrieval stage to rank design notes above plain commits when the query asks why, " +
		"and to break ties by recency and then by hash so that answers never change between runs"
	cases := []struct {
		name  string
		msg   string
		files []model.FileChange
		merge bool
		want  string
	}{
		{"conventional prefix", "feat(retrieve)!: support hybrid search over BM25 and vectors\n\nBREAKING CHANGE: x", nil, false,
			"Support hybrid search over BM25 and vectors"},
		{"squash PR number", "Fix race condition in queue worker shutdown (#482)", nil, false,
			"Fix race condition in queue worker shutdown"},
		{"jira key", "PROJ-123: Add CSV export for invoices", nil, false, "Add CSV export for invoices"},
		{"bracket ticket", "[PROJ-9] Add CSV export for invoices", nil, false, "Add CSV export for invoices"},
		{"skip ci", "Update install steps in README [skip ci]", nil, false, "Update install steps in README"},
		{"closes trailer in subject", "Handle empty pathspec, closes #12", nil, false, "Handle empty pathspec"},
		{"several refs", "Add CSV export (#12, PROJ-7) (fixes #3) [skip ci]", nil, false, "Add CSV export"},
		{"kernel area kept", "net: fix use-after-free in tcp_close()\n\nSigned-off-by: A <a@b>", nil, false,
			"net: fix use-after-free in tcp_close()"},
		{"gitmoji", "✨ add dark theme", nil, false, "Add dark theme"},
		{"placeholder subject", "upstream commit\n\nskip if running as root; many systems allow\nroot to ptrace\n\nUpstream-Regress-ID: be2b\n",
			nil, false, "Skip if running as root; many systems allow root to ptrace"},
		{"gitmoji shortcode", ":bug: fix tooltip position in RTL layouts.", nil, false, "Fix tooltip position in RTL layouts"},
		{"one-token description keeps its type", "release: v3.4.3", nil, false, "release: v3.4.3"},
		{"identifier not capitalised", "feat: checksums.split for large releases", nil, false, "checksums.split for large releases"},
		{"git shortlog merge", "Merge branch 'ps/odb-sources' into ps/object-counting\n\n* ps/odb-sources:\n  odb/source: make `begin_transaction()` function pluggable\n  odb/source: make `write_alternate()` function pluggable", nil, true,
			"Merge ps/odb-sources into ps/object-counting: odb/source: make `begin_transaction()` function pluggable (0 files resolved)"},
		{"wip prefix", "WIP: sketch the notes extractor", nil, false, "Sketch the notes extractor"},
		{"dependabot", "Bump lodash from 4.17.20 to 4.17.21\n\nBumps [lodash](https://x) from 4.17.20 to 4.17.21.", nil, false,
			"Bump lodash from 4.17.20 to 4.17.21"},
		{"renovate", "chore(deps): update dependency eslint to v8.57.0", nil, false, "Update dependency eslint to v8.57.0"},
		{"revert kept", "Revert \"feat: add --json output\"\n\nThis reverts commit 3f2a1b9c.", nil, false,
			"Revert \"feat: add --json output\""},
		{"russian kept", "Исправлена ошибка при парсинге дат", nil, false, "Исправлена ошибка при парсинге дат"},
		{"wip uses body sentence", "wip\n\nThe walker now stops after the first read error. More to come.\n\nSigned-off-by: A <a@b>",
			clsFiles("M extract/walk.go 4 1"), false, "The walker now stops after the first read error (extract/walk.go)"},
		{"body sentence with abbreviation", "update\n\n* use a pool, e.g. sync.Pool, for line buffers. Second sentence.",
			clsFiles("M extract/linediff.go 4 1", "M extract/pack.go 1 1"), false,
			"Use a pool, e.g. sync.Pool, for line buffers (2 files in extract/)"},
		{"body skips code and trailers", "fix\n\n    if x != nil {\n\nCc: stable@vger.kernel.org", clsFiles("M a/b.go 1 1"), false,
			"Fix a/b.go"},
		{"wip builds from files", "wip", clsFiles("M extract/repo.go 10 2", "M extract/walk.go 3 3", "M extract/pack.go 30 1", "M extract/hash.go 1 0"), false,
			"Update 4 files in extract/: repo.go, walk.go, pack.go, ..."},
		{"dot, new files", ".", clsFiles("A understand/notes.go 120", "A understand/notes_test.go 80"), false,
			"Add 2 files in understand/: notes.go, notes_test.go"},
		{"typo, confident cleanup", "typo", clsFiles("M extract/walk.go 1 1"), false, "Clean up extract/walk.go"},
		{"russian filler", "Мелкие правки", clsFiles("M app/a.py 2 2", "M lib/b.py 1 1"), false, "Update 2 files: app/a.py, lib/b.py"},
		{"rename", "misc", clsFiles("R old/name.go new/name.go 100 0 0"), false, "Rename old/name.go to new/name.go"},
		{"merge pull request", "Merge pull request #42 from alice/fix-login\n\nFix login redirect loop", nil, true,
			"Merge alice/fix-login (#42): Fix login redirect loop (0 files resolved)"},
		{"merge branch into", "Merge branch 'main' into feature/search", clsFiles("M retrieve/search.go 3 3"), true,
			"Merge main into feature/search (1 file resolved)"},
		{"merge shortlog body", "Merge branch 'jc/doc-fixes'\n\n* jc/doc-fixes:\n  doc: fix typos in git-log.txt", clsFiles("M a.c 1 1", "M b.c 1 1"), true,
			"Merge jc/doc-fixes: doc: fix typos in git-log.txt (2 files resolved)"},
		{"merge tag", "Merge tag 'net-6.8-rc2' of git://git.kernel.org/pub/scm/linux/kernel/git/netdev/net\n\nPull networking fixes from Paolo Abeni:\n\n - fix a crash", nil, true,
			"Merge tag net-6.8-rc2: Pull networking fixes from Paolo Abeni (0 files resolved)"},
		{"merge, own subject", "Fix conflicts after merging main", clsFiles("M store/store.go 4 6"), true,
			"Fix conflicts after merging main (1 file resolved)"},
		{"empty commit", "", nil, false, "Empty commit"},
		{"whitespace message", " \n\t\n", nil, false, "Empty commit"},
		{"empty message with changes", "", clsFiles("M pkg/a.go 3 1"), false, "Update pkg/a.go"},
		{"uninformative, nothing else", "wip", nil, false, "wip"},
		{"control characters", "Add\x00 parser\x1b for \xff dates", nil, false, "Add parser for dates"},
		{"long subject truncated", long, nil, false,
			"Teach the retrieval stage to rank design notes above plain commits when the query asks why, and to break ties by recency and then by hash so that answers…"},
	}
	for _, tc := range cases {
		c := clsCommit(clsCase{msg: tc.msg, files: tc.files, merge: tc.merge})
		got := Summarize(c, Classify(c))
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > MaxSummaryRunes {
			t.Errorf("%s: %d runes", tc.name, n)
		}
	}
	if got := Summarize(nil, model.Classification{}); got != "" {
		t.Errorf("nil commit: %q", got)
	}
}

// TestSummarizeTable checks the summaries of every labelled commit of the
// classification table: deterministic, bounded, one line, never empty.
func TestSummarizeTable(t *testing.T) {
	for _, tc := range clsTable {
		c := clsCommit(tc)
		cl := Classify(c)
		s := Summarize(c, cl)
		if s == "" || s != Summarize(c, cl) || strings.ContainsAny(s, "\n\r\t") ||
			utf8.RuneCountInString(s) > MaxSummaryRunes {
			t.Errorf("%q: bad summary %q", firstLine(tc.msg), s)
		}
	}
}

func FuzzSummarize(f *testing.F) {
	f.Add("wip", "extract/walk.go\nextract/repo.go", false, uint8(0))
	f.Add("Merge pull request #1 from a/b\n\n"+strings.Repeat("long title ", 40), "", true, uint8(1))
	f.Add("fix\n\n* e.g. x. y", "a\nb/c\nb/d", false, uint8(2))
	f.Add("\xff\xfe", "\x00\n\n", false, uint8(3))
	f.Add(strings.Repeat("é", 500), strings.Repeat("ж/", 300), false, uint8(4))
	f.Fuzz(func(t *testing.T, msg, paths string, merge bool, status uint8) {
		c := &model.Commit{Message: msg, IsMerge: merge}
		if paths != "" {
			statuses := []model.ChangeStatus{model.Modified, model.Added, model.Deleted, model.Renamed, model.Copied}
			for i, p := range strings.Split(paths, "\n") {
				c.Changes = append(c.Changes, model.FileChange{Path: p, OldPath: p + "~", Status: statuses[(int(status)+i)%5],
					Insertions: i, Deletions: int(status)})
			}
		}
		for _, cl := range []model.Classification{Classify(c), {}, {Primary: model.Label{Type: model.Merge, Confidence: 1}}} {
			s := Summarize(c, cl)
			if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxSummaryRunes || strings.ContainsAny(s, "\n\r") {
				t.Fatalf("bad summary %q for %q / %q", s, msg, paths)
			}
			if s != Summarize(c, cl) {
				t.Fatal("not deterministic")
			}
		}
	})
}

func BenchmarkSummarize(b *testing.B) {
	c := benchCommit()
	cl := Classify(c)
	b.ReportAllocs()
	for b.Loop() {
		Summarize(c, cl)
	}
}

// BenchmarkSummarizeFromFiles covers the slower path: an uninformative
// subject, so the body and files are read.
func BenchmarkSummarizeFromFiles(b *testing.B) {
	c := benchCommit()
	c.Message = "wip\n\n" + c.Message[strings.IndexByte(c.Message, '\n')+1:]
	cl := Classify(c)
	b.ReportAllocs()
	for b.Loop() {
		Summarize(c, cl)
	}
}
