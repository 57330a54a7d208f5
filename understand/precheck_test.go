package understand

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// The fast paths of classification and design notes must not change a
// result: each is checked here against the plain computation it replaces,
// on texts built at random from the fragments that matter to it.

// pcRandom returns n strings of up to max fragments drawn from frags,
// the same on every run.
func pcRandom(frags []string, n, max int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range rng.IntN(max + 1) {
			b.WriteString(frags[rng.IntN(len(frags))])
		}
		out[i] = b.String()
	}
	return out
}

// pcText are fragments of prose with everything the fast paths look at:
// case, code spans, identifiers, white space of all kinds, the runes
// case folding treats specially, invalid UTF-8.
var pcText = []string{
	" ", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2003", "a", "Fix", "the", "bug", "_", "foo_bar", "()",
	"f()", "::", "->", "-", ">", ":", "`", "``", "(", ")", "+", "1", "2.3", ".", ",", "о", "Ошибка",
	"İ", "\u212a", "ſ", "é", "\xff", "\xe2\x80", "'", "\"", "ü", "ŉ", "Ⱥ",
}

func TestProseWordsIsFieldsOfProse(t *testing.T) {
	texts := append(pcRandom(pcText, 20000, 12),
		"", "`", "a`b`c", "fix `foo_bar` now", "x_y z", "a->b c", "std::vector", "call f() now",
		"trailing`", "`open code span with words")
	for _, text := range texts {
		want := strings.Fields(clsNormalize(clsProse(text)))
		if got := clsProseWords(text); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("clsProseWords(%q) = %q, want %q", text, got, want)
		}
	}
}

// pcMessage are fragments of the phrases the prechecks look for, in
// several cases and spellings, and near misses.
var pcMessage = []string{
	" ", "\n", "no ", "No ", "NO ", "nO ", "no", "functional", "Functional", "behavioral", "behaviour",
	"ſemantic", "semantic", "user-visible", "user visible", "change", "changes", "nfc", "NFCI", "Nfc",
	"just ", "purely ", "a ", "refactor", "Refactoring", "REFACTOR", "from ", "From ", "FROM ", "fRom ",
	"to ", "To ", "TO ", "tO ", "v", "V", "1", "2.3", "1.2.3", "4.5", ".", "-", "+", "x", "o(", "O(", "o(1)",
	"O(N)", "n+1", "N+1", "log", "n^2)", "n²)", "İ", "\u212a", "fix ", "longer",
	"no semantic change", "No ſemantic changes", "no user-visible change", "NO Behavioral change",
	"no functional changes", "just a refactoring", "from v1.2 to v1.3", "To 1.2.3",
}

func TestPrechecksAdmitEveryMatch(t *testing.T) {
	rejected := 0
	for _, text := range pcRandom(pcMessage, 50000, 8) {
		low := strings.ToLower(text)
		if !clsMayStateNoChange(low) {
			rejected++
			if clsNoChangeRe.MatchString(text) {
				t.Fatalf("clsMayStateNoChange ruled out %q, which clsNoChangeRe matches", text)
			}
		}
		fromTo, toVer := clsMayNameVersions(text)
		if !fromTo && clsFromToRe.MatchString(text) {
			t.Fatalf("clsMayNameVersions ruled out %q, which clsFromToRe matches", text)
		}
		if !toVer && clsToVerRe.MatchString(text) {
			t.Fatalf("clsMayNameVersions ruled out %q, which clsToVerRe matches", text)
		}
		if !clsMayHaveRaw(text) {
			prose := strings.ToLower(clsProse(text))
			for _, p := range clsWords.pats {
				if p.raw != "" && clsContainsAtWord(prose, p.raw) {
					t.Fatalf("clsMayHaveRaw ruled out %q, where %q occurs", text, p.raw)
				}
			}
		}
	}
	if rejected == 0 {
		t.Error("clsMayStateNoChange ruled nothing out")
	}
}

func TestPrechecksRuleOut(t *testing.T) {
	if clsMayStateNoChange("no longer needed") || clsMayStateNoChange("a fix") {
		t.Error("clsMayStateNoChange admits text without its phrases")
	}
	if fromTo, toVer := clsMayNameVersions("move 3 files to t/ from lib"); fromTo || toVer {
		t.Error("clsMayNameVersions admits text without a version after from or to")
	}
	if clsMayHaveRaw("call f(x) + 1") {
		t.Error("clsMayHaveRaw admits text without o( or n+")
	}
}

func TestSqueezeHashIsOfSqueeze(t *testing.T) {
	lines := pcRandom(pcText, 20000, 6)
	byHash := map[uint64]string{}
	for _, a := range lines {
		sq := clsSqueeze(a)
		h := clsSqueezeHash(a)
		if prev, ok := byHash[h]; ok && prev != sq {
			continue // a collision: allowed, the lines are compared then
		}
		byHash[h] = sq
		// The same line with its white space moved, and an invalid byte
		// swapped for another (both squeeze to U+FFFD), hashes the same.
		b := strings.ReplaceAll(strings.Join(strings.Fields(a), "\t "), "\xff", "\xfe")
		if clsSqueeze(b) == sq && clsSqueezeHash(b) != h {
			t.Fatalf("clsSqueezeHash differs for %q and %q, which squeeze alike", a, b)
		}
	}
	for h, sq := range byHash {
		if want := clsSqueezeHash(sq); want != h {
			t.Fatalf("clsSqueezeHash(%q) = %x, but of a line squeezing to it %x", sq, want, h)
		}
	}
}

// pcSplitTrailersPlain is clsSplitTrailers written line by line.
func pcSplitTrailersPlain(body string) (string, []string) {
	if !strings.Contains(body, ":") {
		return body, nil
	}
	var b strings.Builder
	var trailers []string
	for line := range strings.Lines(body) {
		if t := strings.TrimSpace(line); clsIsTrailer(t) {
			trailers = append(trailers, t)
			continue
		}
		b.WriteString(line)
	}
	return b.String(), trailers
}

func TestSplitTrailersKeepsProse(t *testing.T) {
	frags := []string{"\n", "\n\n", "Fix the bug.", "Signed-off-by: A <a@b>", "Fixes: 1234567 (\"x\")",
		"Note: this", "Cc: stable@vger", "a: b", ":", " ", "Reviewed-by: B", "\r\n"}
	for _, body := range pcRandom(frags, 20000, 8) {
		text, trailers := clsSplitTrailers(body)
		wantText, wantTrailers := pcSplitTrailersPlain(body)
		if text != wantText || !slices.Equal(trailers, wantTrailers) {
			t.Fatalf("clsSplitTrailers(%q) = %q, %q; want %q, %q", body, text, trailers, wantText, wantTrailers)
		}
	}
}

func TestSingleSpaceIsFieldsJoined(t *testing.T) {
	for _, s := range append(pcRandom(pcText, 20000, 8), "", " ", "a", "a b", " a", "a ", "a  b") {
		if got, want := dnSingleSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("dnSingleSpace(%q) = %q, want %q", s, got, want)
		}
	}
}

// pcCode are fragments of source lines: every comment token and quote of
// every syntax, and plain code.
var pcCode = []string{
	" ", "\t", "x", "= 1;", "*", "* ", "/", "//", "/*", "*/", "#", "# ", "--", "--[[", "]]", ";", ";;",
	"{-", "-}", "#|", "|#", "<!--", "-->", "%", "(*", "*)", "=begin", "=end", `"`, `'`, "`", `"""`,
	`'''`, `\`, "because", "NOTE:", "é", "\r",
}

func TestScanLineFastPathsAgree(t *testing.T) {
	lines := pcRandom(pcCode, 5000, 8)
	states := []dnScanState{{}, {blockEnd: "*/"}, {strEnd: "`"}, {blockEnd: `"""`}}
	seen := map[*dnSyntax]bool{dnSyntaxAny: false}
	for _, m := range []map[string]*dnSyntax{dnSyntaxByExt, dnSyntaxByName, dnSyntaxByLang} {
		for _, sx := range m {
			seen[sx] = false
		}
	}
	for sx := range seen {
		// slow takes no fast path: every byte may start a token.
		slow := *sx
		for c := range slow.special {
			slow.opens[c], slow.starts[c], slow.special[c] = true, true, true
		}
		for _, line := range lines {
			for _, st0 := range states {
				st, stSlow := st0, st0
				text, kind := dnScanLine(sx, &st, line)
				wantText, wantKind := dnScanLine(&slow, &stSlow, line)
				if text != wantText || kind != wantKind || st != stSlow {
					t.Fatalf("%+v: dnScanLine(%q) from %+v = %q %d %+v, want %q %d %+v",
						sx, line, st0, text, kind, st, wantText, wantKind, stSlow)
				}
				// dnCommentNotes skips a context line on this ground.
				if st0 == (dnScanState{}) && !dnHasAny(line, &sx.opens) && st != st0 {
					t.Fatalf("%+v: %q leaves %+v open without an opening byte", sx, line, st)
				}
			}
		}
	}
}

// pcCommentTagPlain is dnCommentTag written tag by tag.
func pcCommentTagPlain(text string) string {
	best, bestPos := "", -1
	for _, tag := range dnTags {
		for off := 0; off < len(text); {
			k := strings.Index(text[off:], tag)
			if k < 0 {
				break
			}
			pos := off + k
			off = pos + len(tag)
			if !dnBoundaryBefore(text, pos) {
				continue
			}
			if r, _ := utf8.DecodeRuneInString(text[pos+len(tag):]); pos+len(tag) < len(text) && dnIsWordRune(r) {
				continue
			}
			if tag == "NB" && !strings.HasPrefix(text[pos+2:], ":") {
				continue
			}
			if bestPos < 0 || pos < bestPos {
				best, bestPos = tag, pos
			}
			break
		}
	}
	if best == "NB" {
		best = "NOTE"
	}
	if best != "" {
		return best
	}
	for _, tag := range dnTags[:5] {
		if strings.HasPrefix(text, tag[:1]+strings.ToLower(tag[1:])+":") {
			return tag
		}
	}
	return ""
}

func TestCommentTagEarliest(t *testing.T) {
	frags := []string{" ", "NOTE", "Note", "NOTES", "WHY", "Why", "HACK", "XXX", "XXXX", "IMPORTANT", "NB",
		"NB:", ":", "(rsc)", "x", "_", "é", "É", "1"}
	for _, text := range pcRandom(frags, 20000, 6) {
		if got, want := dnCommentTag(text), pcCommentTagPlain(text); got != want {
			t.Fatalf("dnCommentTag(%q) = %q, want %q", text, got, want)
		}
	}
}

// pcFindMarkerPlain is dnFindMarker trying every marker at every word.
func pcFindMarkerPlain(lower string, comment bool) (string, bool) {
	wordRune := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	prevWord := false
	for pos, r := range lower {
		isWord := wordRune(r)
		if isWord && !prevWord {
			bestEnd, canon := -1, ""
			for mi, m := range dnMarkers {
				if comment && m.msgOnly {
					continue
				}
				end, ok := dnMatchWords(lower, pos, dnMarkerWords[mi], m.comma)
				if !ok || end <= bestEnd || m.reject != nil && m.reject(lower[:pos], lower[end:]) {
					continue
				}
				bestEnd, canon = end, m.canon
			}
			if bestEnd >= 0 {
				return canon, true
			}
		}
		prevWord = isWord
	}
	return "", false
}

func TestFindMarkerTriesEveryMarker(t *testing.T) {
	var frags []string
	for _, m := range dnMarkers {
		frags = append(frags, strings.Join(m.words, " "), strings.ReplaceAll(m.words[0], "*", "s"))
	}
	frags = append(frags, " ", ", ", ".", "i", "in", "is", "x", "_", "2019", "ever ", "говоря", "é", "\xff")
	for _, text := range pcRandom(frags, 20000, 5) {
		for _, comment := range []bool{false, true} {
			got, gotOK := dnFindMarker(text, comment)
			want, wantOK := pcFindMarkerPlain(text, comment)
			if got != want || gotOK != wantOK {
				t.Fatalf("dnFindMarker(%q, %v) = %q %v, want %q %v", text, comment, got, gotOK, want, wantOK)
			}
		}
	}
}

// The raw patterns' precheck relies on their shape; a new raw pattern
// breaking it panics at init, and this test names the rule.
func TestRawHeads(t *testing.T) {
	re := regexp.MustCompile(`^[a-hj-z][^a-z]$`)
	for _, h := range clsRawHeads {
		if !re.MatchString(strings.ToLower(h)) {
			t.Errorf("raw head %q: want a letter other than i or k, then punctuation", h)
		}
	}
}

// pcScoreHunksPlain is clsScoreHunks building and sorting every line.
func pcScoreHunksPlain(changes []model.FileChange, s *clsScores) {
	var added, removed []string
	comments, lines, code := 0, 0, false
	for _, fc := range changes {
		for _, h := range fc.Hunks {
			for line := range strings.Lines(h.Text) {
				if line[0] != '+' && line[0] != '-' {
					continue
				}
				if lines++; lines > clsHunkLineLimit {
					return
				}
				body := strings.TrimSpace(line[1:])
				switch {
				case body == "":
				case clsIsComment(body):
					comments++
				default:
					code = true
				}
				if line[0] == '+' {
					added = append(added, clsSqueeze(body))
				} else {
					removed = append(removed, clsSqueeze(body))
				}
			}
		}
	}
	switch {
	case lines == 0:
	case len(added) == len(removed) && clsSameLines(added, removed):
		s.add(model.Cleanup, 2.5)
	case !code && comments > 0:
		s.add(model.Documentation, 2)
	}
}

func TestScoreHunksAsSorted(t *testing.T) {
	// Few distinct lines, so that the two sides are often equal.
	frags := []string{"+a b\n", "-ab\n", "+ab\n", "-a\tb\n", "+// c\n", "-//c\n", "+\xff x\n", "-\xfex\n",
		"+\n", "-\n", " ctx\n", "@@ -1 +1 @@\n", "+# d\n", "-#  d\n", "+x"}
	hunks := pcRandom(frags, 20000, 6)
	cleanups := 0
	for i := 0; i+1 < len(hunks); i += 2 {
		changes := []model.FileChange{{Hunks: []model.Hunk{{Text: hunks[i]}}}, {Hunks: []model.Hunk{{Text: hunks[i+1]}}}}
		var got, want clsScores
		clsScoreHunks(changes, &got)
		pcScoreHunksPlain(changes, &want)
		if got != want {
			t.Fatalf("clsScoreHunks(%q, %q) = %v, want %v", hunks[i], hunks[i+1], got, want)
		}
		if got[clsIndex(model.Cleanup)] > 0 {
			cleanups++
		}
	}
	if cleanups == 0 {
		t.Error("no change was white space only: the test proves nothing")
	}
	long := []model.FileChange{{Hunks: []model.Hunk{{Text: strings.Repeat("+a\n-a\n", clsHunkLineLimit)}}}}
	var s clsScores
	if clsScoreHunks(long, &s); s != (clsScores{}) {
		t.Errorf("more than clsHunkLineLimit lines scored %v", s)
	}
}
