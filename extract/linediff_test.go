package extract

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/model"
	gogitdiff "github.com/go-git/go-git/v5/utils/diff"
)

func TestDiffLinesTable(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		ctx      int
		want     []model.Hunk
		ins, del int
	}{
		{
			name: "identical",
			old:  "a\nb\n", new: "a\nb\n", ctx: 3,
		},
		{
			name: "both empty",
			ctx:  3,
		},
		{
			name: "empty to content",
			old:  "", new: "a\nb\nc\n", ctx: 3,
			want: []model.Hunk{{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 3, Text: "+a\n+b\n+c\n"}},
			ins:  3,
		},
		{
			name: "content to empty",
			old:  "a\nb\n", new: "", ctx: 3,
			want: []model.Hunk{{OldStart: 1, OldLines: 2, NewStart: 0, NewLines: 0, Text: "-a\n-b\n"}},
			del:  2,
		},
		{
			name: "empty to content without newline",
			old:  "", new: "a\nb", ctx: 3,
			want: []model.Hunk{{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 2, Text: "+a\n+b\n\\ No newline at end of file\n"}},
			ins:  2,
		},
		{
			name: "newline added at end",
			old:  "a\nb", new: "a\nb\n", ctx: 3,
			want: []model.Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2,
				Text: " a\n-b\n\\ No newline at end of file\n+b\n"}},
			ins: 1, del: 1,
		},
		{
			name: "newline removed at end",
			old:  "a\nb\n", new: "a\nb", ctx: 3,
			want: []model.Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2,
				Text: " a\n-b\n+b\n\\ No newline at end of file\n"}},
			ins: 1, del: 1,
		},
		{
			name: "change last line, no newline on either side",
			old:  "1\n2\n3\n4\n5\nx", new: "1\n2\n3\n4\n5\ny", ctx: 3,
			want: []model.Hunk{{OldStart: 3, OldLines: 4, NewStart: 3, NewLines: 4,
				Text: " 3\n 4\n 5\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"}},
			ins: 1, del: 1,
		},
		{
			name: "unchanged last line without newline as context",
			old:  "a\nb\nc", new: "a\nB\nc", ctx: 3,
			want: []model.Hunk{{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3,
				Text: " a\n-b\n+B\n c\n\\ No newline at end of file\n"}},
			ins: 1, del: 1,
		},
		{
			name: "single line change",
			old:  "x\n", new: "y\n", ctx: 3,
			want: []model.Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Text: "-x\n+y\n"}},
			ins:  1, del: 1,
		},
		{
			name: "CRLF lines",
			old:  "a\r\nb\r\nc\r\n", new: "a\r\nB\r\nc\r\n", ctx: 3,
			want: []model.Hunk{{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3,
				Text: " a\r\n-b\r\n+B\r\n c\r\n"}},
			ins: 1, del: 1,
		},
		{
			name: "CRLF to LF is a full change",
			old:  "a\r\nb\r\n", new: "a\nb\n", ctx: 3,
			want: []model.Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2,
				Text: "-a\r\n-b\r\n+a\n+b\n"}},
			ins: 2, del: 2,
		},
		{
			name: "pure insertion in the middle",
			old:  "1\n2\n3\n4\n5\n6\n7\n8\n", new: "1\n2\n3\n4\nnew\n5\n6\n7\n8\n", ctx: 3,
			want: []model.Hunk{{OldStart: 2, OldLines: 6, NewStart: 2, NewLines: 7,
				Text: " 2\n 3\n 4\n+new\n 5\n 6\n 7\n"}},
			ins: 1,
		},
		{
			name: "pure deletion, zero context",
			old:  "1\n2\n3\n4\n5\n", new: "1\n2\n4\n5\n", ctx: 0,
			want: []model.Hunk{{OldStart: 3, OldLines: 1, NewStart: 2, NewLines: 0, Text: "-3\n"}},
			del:  1,
		},
		{
			name: "two changes 6 lines apart share a hunk",
			old:  "a\n1\n2\n3\n4\n5\n6\nb\n", new: "A\n1\n2\n3\n4\n5\n6\nB\n", ctx: 3,
			want: []model.Hunk{{OldStart: 1, OldLines: 8, NewStart: 1, NewLines: 8,
				Text: "-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n"}},
			ins: 2, del: 2,
		},
		{
			name: "two changes 7 lines apart make two hunks",
			old:  "a\n1\n2\n3\n4\n5\n6\n7\nb\n", new: "A\n1\n2\n3\n4\n5\n6\n7\nB\n", ctx: 3,
			want: []model.Hunk{
				{OldStart: 1, OldLines: 4, NewStart: 1, NewLines: 4, Text: "-a\n+A\n 1\n 2\n 3\n"},
				{OldStart: 6, OldLines: 4, NewStart: 6, NewLines: 4, Text: " 5\n 6\n 7\n-b\n+B\n"},
			},
			ins: 2, del: 2,
		},
		{
			name: "indent heuristic places the inserted block",
			old:  "func a() {\n\tx()\n}\n\nfunc c() {\n\tz()\n}\n",
			new:  "func a() {\n\tx()\n}\n\nfunc b() {\n\ty()\n}\n\nfunc c() {\n\tz()\n}\n",
			ctx:  3,
			want: []model.Hunk{{OldStart: 2, OldLines: 6, NewStart: 2, NewLines: 10,
				Text: " \tx()\n }\n \n+func b() {\n+\ty()\n+}\n+\n func c() {\n \tz()\n }\n"}},
			ins: 4,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hunks, ins, del := DiffLines([]byte(tc.old), []byte(tc.new), tc.ctx)
			if ins != tc.ins || del != tc.del {
				t.Errorf("counts = +%d -%d, want +%d -%d", ins, del, tc.ins, tc.del)
			}
			if fmt.Sprintf("%#v", hunks) != fmt.Sprintf("%#v", tc.want) && !(len(hunks) == 0 && len(tc.want) == 0) {
				t.Errorf("hunks =\n%s\nwant\n%s", ldFormatHunks(hunks), ldFormatHunks(tc.want))
			}
			ldCheckPatch(t, []byte(tc.old), []byte(tc.new), hunks, ins, del)
		})
	}
}

func ldFormatHunks(hunks []model.Hunk) string {
	var sb strings.Builder
	for _, h := range hunks {
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n%s", h.OldStart, h.OldLines, h.NewStart, h.NewLines, h.Text)
	}
	return sb.String()
}

// ldApplyHunks applies hunks to old, checking that context and removed lines
// match old and that headers agree with bodies.
func ldApplyHunks(old []byte, hunks []model.Hunk) ([]byte, error) {
	oldLines := ldSplitKeep(old)
	var out []byte
	cur := 0      // next old line to copy
	produced := 0 // lines written to out
	for hi, h := range hunks {
		type op struct {
			kind byte
			line []byte
		}
		var ops []op
		if !strings.HasSuffix(h.Text, "\n") {
			return nil, fmt.Errorf("hunk %d: text does not end with newline", hi)
		}
		for _, l := range strings.SplitAfter(strings.TrimSuffix(h.Text, "\n"), "\n") {
			if l == "" {
				return nil, fmt.Errorf("hunk %d: empty body line", hi)
			}
			if !strings.HasSuffix(l, "\n") {
				l += "\n"
			}
			switch l[0] {
			case ' ', '-', '+':
				ops = append(ops, op{l[0], []byte(l[1:])})
			case '\\':
				if l != "\\ No newline at end of file\n" || len(ops) == 0 {
					return nil, fmt.Errorf("hunk %d: bad marker line %q", hi, l)
				}
				last := &ops[len(ops)-1]
				last.line = last.line[:len(last.line)-1]
			default:
				return nil, fmt.Errorf("hunk %d: bad line %q", hi, l)
			}
		}
		var nOld, nNew int
		for _, o := range ops {
			if o.kind != '+' {
				nOld++
			}
			if o.kind != '-' {
				nNew++
			}
		}
		if nOld != h.OldLines || nNew != h.NewLines {
			return nil, fmt.Errorf("hunk %d: header counts %d,%d but body has %d,%d", hi, h.OldLines, h.NewLines, nOld, nNew)
		}
		pos := h.OldStart - 1
		if h.OldLines == 0 {
			pos = h.OldStart
		}
		if pos < cur || pos > len(oldLines) {
			return nil, fmt.Errorf("hunk %d: start %d out of order (cursor %d, %d lines)", hi, pos, cur, len(oldLines))
		}
		for _, l := range oldLines[cur:pos] {
			out = append(out, l...)
		}
		produced += pos - cur
		wantNewStart := h.NewStart - 1
		if h.NewLines == 0 {
			wantNewStart = h.NewStart
		}
		if produced != wantNewStart {
			return nil, fmt.Errorf("hunk %d: new start %d, but %d lines were produced before it", hi, h.NewStart, produced)
		}
		cur = pos
		for _, o := range ops {
			switch o.kind {
			case ' ', '-':
				if cur >= len(oldLines) || !bytes.Equal(oldLines[cur], o.line) {
					return nil, fmt.Errorf("hunk %d: line %d does not match %q", hi, cur+1, o.line)
				}
				cur++
				if o.kind == ' ' {
					out = append(out, o.line...)
					produced++
				}
			case '+':
				out = append(out, o.line...)
				produced++
			}
		}
	}
	for _, l := range oldLines[cur:] {
		out = append(out, l...)
	}
	return out, nil
}

func ldSplitKeep(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// ldCheckPatch verifies that hunks turn old into new and that the counts
// equal the number of '+' and '-' lines.
func ldCheckPatch(t testing.TB, old, new []byte, hunks []model.Hunk, ins, del int) {
	t.Helper()
	got, err := ldApplyHunks(old, hunks)
	if err != nil {
		t.Fatalf("applying hunks: %v\nold=%q\nnew=%q\n%s", err, old, new, ldFormatHunks(hunks))
	}
	if !bytes.Equal(got, new) {
		t.Fatalf("patched old = %q, want %q\n%s", got, new, ldFormatHunks(hunks))
	}
	var plus, minus int
	for _, h := range hunks {
		for _, l := range strings.SplitAfter(h.Text, "\n") {
			if strings.HasPrefix(l, "+") {
				plus++
			} else if strings.HasPrefix(l, "-") {
				minus++
			}
		}
	}
	if plus != ins || minus != del {
		t.Fatalf("counts +%d -%d, hunk texts have +%d -%d", ins, del, plus, minus)
	}
}

// ldRandomPair returns two related random files drawn from a small
// vocabulary, so that lines repeat and many alignments are possible.
func ldRandomPair(r *rand.Rand) (a, b []byte) {
	vocabs := [][]string{
		{"a", "b", "c", "d", "e"},
		{"x", "y", ""},
		{"func f() {", "\tif x {", "\t\treturn y", "\t}", "}", "", "\treturn nil", "// comment", "    spaced", "\t\t", " "},
		{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t"},
	}
	vocab := vocabs[r.Intn(len(vocabs))]
	word := func() string {
		if r.Intn(12) == 0 {
			return fmt.Sprintf("unique %d", r.Intn(1000000))
		}
		return vocab[r.Intn(len(vocab))]
	}
	gen := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = word()
		}
		return out
	}
	base := gen(r.Intn(301))
	var other []string
	switch r.Intn(4) {
	case 0: // independent
		other = gen(r.Intn(301))
	default: // edited copy
		other = append([]string(nil), base...)
		edits := 1 + r.Intn(12)
		for e := 0; e < edits; e++ {
			pos := 0
			if len(other) > 0 {
				pos = r.Intn(len(other) + 1)
			}
			n := 1 + r.Intn(6)
			switch r.Intn(3) {
			case 0: // insert
				ins := gen(n)
				other = append(other[:pos], append(ins, other[pos:]...)...)
			case 1: // delete
				end := min(pos+n, len(other))
				other = append(other[:pos], other[end:]...)
			default: // replace
				end := min(pos+n, len(other))
				for i := pos; i < end; i++ {
					other[i] = word()
				}
			}
		}
		if len(other) > 300 {
			other = other[:300]
		}
	}
	join := func(ls []string, eol string, finalNL bool) []byte {
		var sb strings.Builder
		for i, l := range ls {
			sb.WriteString(l)
			if i < len(ls)-1 || finalNL {
				sb.WriteString(eol)
			}
		}
		return []byte(sb.String())
	}
	eol := "\n"
	if r.Intn(10) == 0 {
		eol = "\r\n"
	}
	a = join(base, eol, r.Intn(5) != 0)
	b = join(other, eol, r.Intn(5) != 0)
	return a, b
}

type ldGitHunk struct {
	oldStart, oldLines, newStart, newLines int
	text                                   string
}

func ldGitEnv(home string) []string {
	return append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"HOME="+home,
		"LC_ALL=C",
	)
}

func ldRunGitDiff(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", append([]string{"diff", "--no-index", "--no-color"}, args...)...)
	cmd.Dir = dir
	cmd.Env = ldGitEnv(dir)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("git %v: %v", args, err)
	}
	return out
}

// ldParseGitHunks extracts the hunks of a single-file `git diff` output.
func ldParseGitHunks(t *testing.T, out []byte) []ldGitHunk {
	t.Helper()
	var hunks []ldGitHunk
	var body strings.Builder
	inHunk := false
	flush := func() {
		if inHunk {
			hunks[len(hunks)-1].text = body.String()
			body.Reset()
		}
	}
	for _, l := range strings.SplitAfter(string(out), "\n") {
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "@@ -") {
			flush()
			inHunk = true
			end := strings.Index(l[3:], " @@")
			if end < 0 {
				t.Fatalf("bad hunk header %q", l)
			}
			fields := strings.Fields(l[3 : 3+end])
			var h ldGitHunk
			h.oldStart, h.oldLines = ldParseRange(t, fields[0][1:])
			h.newStart, h.newLines = ldParseRange(t, fields[1][1:])
			hunks = append(hunks, h)
			continue
		}
		if inHunk {
			body.WriteString(l)
		}
	}
	flush()
	return hunks
}

func ldParseRange(t *testing.T, s string) (start, count int) {
	t.Helper()
	count = 1
	if i := strings.IndexByte(s, ','); i >= 0 {
		c, err := strconv.Atoi(s[i+1:])
		if err != nil {
			t.Fatalf("bad range %q", s)
		}
		count = c
		s = s[:i]
	}
	start, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("bad range %q", s)
	}
	return start, count
}

func ldParseNumstat(t *testing.T, out []byte) (ins, del int) {
	t.Helper()
	s := strings.TrimSpace(string(out))
	if s == "" {
		return 0, 0
	}
	f := strings.Fields(s)
	var err1, err2 error
	ins, err1 = strconv.Atoi(f[0])
	del, err2 = strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		t.Fatalf("bad numstat %q", s)
	}
	return ins, del
}

// ldCompareWithGit diffs a and b with DiffLines and with git in dir. It
// fails the test when the patch is wrong or the counts differ from git's
// numstat, and reports whether the hunks equal git's.
func ldCompareWithGit(t *testing.T, dir string, a, b []byte, ctx int) (countOK, hunkOK bool) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "a"), a, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	hunks, ins, del := DiffLines(a, b, ctx)
	ldCheckPatch(t, a, b, hunks, ins, del)

	// -U only matters to numstat for -U0, where git trims the common tail.
	gIns, gDel := ldParseNumstat(t, ldRunGitDiff(t, dir, "--numstat", "-U"+strconv.Itoa(ctx), "a", "b"))
	if ins == gIns && del == gDel {
		countOK = true
	} else {
		t.Errorf("counts +%d -%d, git --numstat +%d -%d\nold=%q\nnew=%q", ins, del, gIns, gDel, a, b)
	}

	want := ldParseGitHunks(t, ldRunGitDiff(t, dir, "-U"+strconv.Itoa(ctx), "a", "b"))
	got := make([]ldGitHunk, len(hunks))
	for k, h := range hunks {
		got[k] = ldGitHunk{h.OldStart, h.OldLines, h.NewStart, h.NewLines, h.Text}
	}
	hunkOK = fmt.Sprint(got) == fmt.Sprint(want)
	if !hunkOK && testing.Verbose() {
		t.Logf("-U%d: hunks differ from git\nold=%q\nnew=%q\nours:\n%s\ngit:\n%v", ctx, a, b, ldFormatHunks(hunks), want)
	}
	return countOK, hunkOK
}

// TestDiffLinesMatchesGit compares DiffLines with `git diff --no-index` on
// random file pairs: numstat counts must always agree, hunks (headers and
// bodies) for nearly all pairs.
func TestDiffLinesMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	// LINEDIFF_GIT_PAIRS and LINEDIFF_GIT_SEED allow longer sweeps.
	pairs := 400
	if testing.Short() {
		pairs = 60
	}
	if n, err := strconv.Atoi(os.Getenv("LINEDIFF_GIT_PAIRS")); err == nil {
		pairs = n
	}
	seed := int64(20240611)
	if n, err := strconv.ParseInt(os.Getenv("LINEDIFF_GIT_SEED"), 10, 64); err == nil {
		seed = n
	}
	dir := t.TempDir()
	r := rand.New(rand.NewSource(seed))
	var hunkMatch, countMatch int
	for i := 0; i < pairs; i++ {
		a, b := ldRandomPair(r)
		ctx := 3
		if i%10 == 9 {
			ctx = []int{0, 1, 5}[i/10%3]
		}
		countOK, hunkOK := ldCompareWithGit(t, dir, a, b, ctx)
		if countOK {
			countMatch++
		}
		if hunkOK {
			hunkMatch++
		}
	}
	t.Logf("numstat agreement: %d/%d (%.1f%%); hunk agreement: %d/%d (%.1f%%)",
		countMatch, pairs, 100*float64(countMatch)/float64(pairs),
		hunkMatch, pairs, 100*float64(hunkMatch)/float64(pairs))
	if float64(hunkMatch) < 0.95*float64(pairs) {
		t.Errorf("hunks agree with git for only %d/%d pairs", hunkMatch, pairs)
	}
}

// TestDiffLinesMatchesGitSpecial compares hand-made inputs with git: long
// runs of identical lines (changes slide far), blank-line runs, wide
// context, and changes near both ends of large files.
func TestDiffLinesMatchesGitSpecial(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	rep := func(l string, n int) string { return strings.Repeat(l, n) }
	num := func(from, to int) string {
		var sb strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&sb, "line %d\n", i)
		}
		return sb.String()
	}
	cases := []struct {
		name     string
		old, new string
		ctx      int
	}{
		{"insert into long identical run", num(0, 100) + rep("x\n", 300) + num(100, 200), num(0, 100) + rep("x\n", 301) + num(100, 200), 3},
		{"delete from long identical run", num(0, 100) + rep("x\n", 300) + num(100, 200), num(0, 100) + rep("x\n", 299) + num(100, 200), 3},
		{"insert repeated block", num(0, 50) + rep("a\nb\n", 150) + num(50, 99), num(0, 50) + rep("a\nb\n", 151) + num(50, 99), 3},
		{"blank runs", num(0, 80) + rep("\n", 40) + "\tx\n" + rep("\n", 40) + num(80, 160), num(0, 80) + rep("\n", 41) + "\tx\n" + rep("\n", 40) + "\ty\n" + num(80, 160), 3},
		{"wide context", num(0, 500), num(0, 200) + "new\n" + num(200, 500), 150},
		{"wide context with shared line", num(0, 500), num(0, 200) + "line 7\n" + num(201, 500), 150},
		{"change at start of large file", num(0, 2000), "first\n" + num(1, 2000), 3},
		{"change at end of large file", num(0, 2000), num(0, 1999) + "last", 3},
		{"zero context, common tail over 1KiB", num(0, 50) + "old\n" + num(50, 400), num(0, 50) + "new\nline 3\n" + num(50, 400), 0},
		{"zero context, repetitive common tail", rep("x\n", 20) + "a\n" + rep("x\n", 2000), rep("x\n", 21) + "b\n" + rep("x\n", 1999), 0},
		{"zero context, slide stopped by trimmed tail", num(0, 10) + rep("x\n", 2000), num(0, 10) + rep("x\n", 2001), 0},
		{"context 3, slide to the end", num(0, 10) + rep("x\n", 2000), num(0, 10) + rep("x\n", 2001), 3},
		{"prefix is the whole old file", num(0, 300), num(0, 300) + num(0, 300), 3},
		{"suffix is the whole old file", num(0, 300), num(0, 300) + num(0, 300) + "z\n", 3},
		{"old is repeated new", num(0, 100) + num(0, 100), num(0, 100), 3},
		{"missing final newline in long file", num(0, 1000), strings.TrimSuffix(num(0, 1000), "\n"), 3},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, hunkOK := ldCompareWithGit(t, dir, []byte(tc.old), []byte(tc.new), tc.ctx); !hunkOK {
				t.Errorf("hunks differ from git (run with -v for details)")
			}
		})
	}
}

// TestDiffLinesCommonLines checks the byte-level prefix/suffix trimming and
// the lazy line splitting against a plain line-by-line computation.
func TestDiffLinesCommonLines(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 3000; i++ {
		a, b := ldRandomPair(r)
		if r.Intn(3) == 0 {
			// Long repetitive content makes prefix and suffix overlap.
			unit := [][]byte{[]byte("x\n"), []byte("ab\ncd\n"), []byte("\n")}[r.Intn(3)]
			a = bytes.Repeat(unit, r.Intn(200))
			b = bytes.Repeat(unit, r.Intn(200))
			if r.Intn(2) == 0 {
				b = append(b, 'x')
			}
		}
		la, lb := ldSplitKeep(a), ldSplitKeep(b)
		lim := min(len(la), len(lb))
		pre := 0
		for pre < lim && bytes.Equal(la[pre], lb[pre]) {
			pre++
		}
		suf := 0
		for suf < lim-pre && bytes.Equal(la[len(la)-1-suf], lb[len(lb)-1-suf]) {
			suf++
		}
		var d ldDiffer
		d.a.load(a)
		d.b.load(b)
		gotPre, gotSuf := d.prepare()
		if gotPre != pre || gotSuf != suf || d.a.n != len(la) || d.b.n != len(lb) {
			t.Fatalf("prepare = pre %d suf %d n %d/%d, want %d %d %d/%d\na=%q\nb=%q",
				gotPre, gotSuf, d.a.n, d.b.n, pre, suf, len(la), len(lb), a, b)
		}
		for k := len(la) - 1; k >= 0; k -= 1 + r.Intn(7) {
			if !bytes.Equal(d.a.line(k), la[k]) {
				t.Fatalf("line %d = %q, want %q", k, d.a.line(k), la[k])
			}
		}
	}
}

// TestDiffLinesPathological checks that inputs with a huge edit distance
// finish quickly and still produce a correct patch.
func TestDiffLinesPathological(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	mk := func(n int, vocab int, tag string) []byte {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			if vocab == 0 {
				fmt.Fprintf(&sb, "%s line %d\n", tag, i)
			} else {
				fmt.Fprintf(&sb, "w%d\n", r.Intn(vocab))
			}
		}
		return []byte(sb.String())
	}
	cases := []struct {
		name string
		a, b []byte
	}{
		{"nothing in common", mk(50000, 0, "old"), mk(50000, 0, "new")},
		{"random small vocabulary", mk(50000, 4, ""), mk(50000, 4, "")},
		{"random medium vocabulary", mk(50000, 200, ""), mk(50000, 200, "")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			hunks, ins, del := DiffLines(tc.a, tc.b, 3)
			el := time.Since(start)
			t.Logf("%d hunks, +%d -%d in %v", len(hunks), ins, del, el)
			ldCheckPatch(t, tc.a, tc.b, hunks, ins, del)
			if el > 20*time.Second {
				t.Errorf("took %v", el)
			}
		})
	}
}

// TestDiffLinesConcurrent runs DiffLines from several goroutines (the
// working memory is pooled) and compares with sequential results.
func TestDiffLinesConcurrent(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	type pair struct{ a, b []byte }
	pairs := make([]pair, 200)
	want := make([]string, len(pairs))
	for i := range pairs {
		a, b := ldRandomPair(r)
		pairs[i] = pair{a, b}
		h, ins, del := DiffLines(a, b, 3)
		want[i] = fmt.Sprint(h, ins, del)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range pairs {
				i := (k + g*25) % len(pairs)
				h, ins, del := DiffLines(pairs[i].a, pairs[i].b, 3)
				if got := fmt.Sprint(h, ins, del); got != want[i] {
					t.Errorf("pair %d: concurrent result differs", i)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func FuzzDiffLines(f *testing.F) {
	f.Add([]byte(""), []byte("a\n"), 3)
	f.Add([]byte("a\nb\nc\n"), []byte("a\nc\nb\n"), 3)
	f.Add([]byte("a\nb"), []byte("a\nb\n"), 1)
	f.Add([]byte("x\r\ny\r\n"), []byte("x\ny\r\n"), 0)
	f.Add([]byte("}\n\n}\n\nfunc\n"), []byte("}\n\nfunc\n}\n\n"), 3)
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		a, b := ldRandomPair(r)
		f.Add(a, b, i%5)
	}
	f.Fuzz(func(t *testing.T, old, new []byte, ctx int) {
		ctx %= 10
		if ctx < 0 {
			ctx = -ctx
		}
		hunks, ins, del := DiffLines(old, new, ctx)
		ldCheckPatch(t, old, new, hunks, ins, del)
		if bytes.Equal(old, new) != (len(hunks) == 0) {
			t.Fatalf("equal=%v but %d hunks", bytes.Equal(old, new), len(hunks))
		}
	})
}

// ldBenchFiles builds a ~2,000-line Go-like file and a copy with about 20
// scattered edits (changed, inserted and deleted lines).
func ldBenchFiles() (old, new []byte) {
	r := rand.New(rand.NewSource(42))
	var lines []string
	lines = append(lines, "package bench", "", "import (", "\t\"fmt\"", "\t\"strings\"", ")", "")
	for f := 0; len(lines) < 2000; f++ {
		lines = append(lines, fmt.Sprintf("// Func%d does step %d of the pipeline.", f, f))
		lines = append(lines, fmt.Sprintf("func Func%d(x int, s string) (int, error) {", f))
		body := 5 + r.Intn(15)
		for i := 0; i < body; i++ {
			switch r.Intn(6) {
			case 0:
				lines = append(lines, "\tif x > 0 {", fmt.Sprintf("\t\tx -= %d", r.Intn(100)), "\t}")
			case 1:
				lines = append(lines, "")
			case 2:
				lines = append(lines, fmt.Sprintf("\ts = strings.Repeat(s, %d)", r.Intn(5)))
			case 3:
				lines = append(lines, "\tfor i := 0; i < x; i++ {", "\t\tfmt.Println(i, s)", "\t}")
			default:
				lines = append(lines, fmt.Sprintf("\tx = x*%d + len(s)", r.Intn(1000)))
			}
		}
		lines = append(lines, "\treturn x, nil", "}", "")
	}
	lines = lines[:2000]
	edited := append([]string(nil), lines...)
	for e := 0; e < 20; e++ {
		pos := 50 + e*95 + r.Intn(40)
		switch e % 3 {
		case 0:
			edited[pos] = edited[pos] + " // changed"
		case 1:
			edited = append(edited[:pos], append([]string{"\tlog.Printf(\"debug %d\", x)", "\tx++"}, edited[pos:]...)...)
		default:
			edited = append(edited[:pos], edited[pos+1:]...)
		}
	}
	return []byte(strings.Join(lines, "\n") + "\n"), []byte(strings.Join(edited, "\n") + "\n")
}

func BenchmarkDiffLines(b *testing.B) {
	old, new := ldBenchFiles()
	b.SetBytes(int64(len(old) + len(new)))
	b.ReportAllocs()
	for b.Loop() {
		DiffLines(old, new, 3)
	}
}

// BenchmarkGoGitDiff runs go-git's line diff (sergi/go-diff based) on the
// same input as BenchmarkDiffLines, for comparison.
func BenchmarkGoGitDiff(b *testing.B) {
	old, new := ldBenchFiles()
	so, sn := string(old), string(new)
	b.SetBytes(int64(len(old) + len(new)))
	b.ReportAllocs()
	for b.Loop() {
		gogitdiff.Do(so, sn)
	}
}

// ldLargeFileOneEdit returns a 10,000-line Go-like file and a copy with one
// line inserted in the middle, the most common shape of a change.
func ldLargeFileOneEdit() (old, new []byte) {
	base, _ := ldBenchFiles()
	for i := 0; i < 5; i++ {
		old = append(old, bytes.ReplaceAll(base, []byte("Func"), []byte(fmt.Sprintf("F%d_", i)))...)
	}
	mid := len(old) / 2
	for old[mid-1] != '\n' {
		mid++
	}
	new = append(append(append([]byte{}, old[:mid]...), "\tlog.Println(\"added\")\n"...), old[mid:]...)
	return old, new
}

func BenchmarkDiffLinesLargeFileOneEdit(b *testing.B) {
	old, new := ldLargeFileOneEdit()
	b.ReportAllocs()
	for b.Loop() {
		DiffLines(old, new, 3)
	}
}

func BenchmarkGoGitDiffLargeFileOneEdit(b *testing.B) {
	old, new := ldLargeFileOneEdit()
	so, sn := string(old), string(new)
	b.ReportAllocs()
	for b.Loop() {
		gogitdiff.Do(so, sn)
	}
}
