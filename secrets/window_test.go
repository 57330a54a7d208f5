package secrets

import (
	"fmt"
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/report"
)

func TestFoldsToASCII(t *testing.T) {
	var want []rune
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		folds := false
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf {
				folds = true
			}
		}
		lower := strings.ToLower(string(r))
		for i := 0; i < len(lower); i++ {
			if lower[i] < utf8.RuneSelf {
				folds = true
			}
		}
		if folds {
			want = append(want, r)
		}
	}
	for _, r := range want {
		if !hasFoldRune(string(r)) {
			t.Errorf("rune %U folds or lower-cases to ASCII but hasFoldRune misses it", r)
		}
	}
	if len(want) != 3 {
		t.Errorf("expected 3 such runes, got %U", want)
	}
}

func TestAnalyzeRegexp(t *testing.T) {
	tests := []struct {
		expr     string
		keywords []string
		lits     []string
		window   bool
		maxNL    int
	}{
		{`ghp_[0-9a-zA-Z]{36}`, []string{"ghp_"}, []string{"ghp_"}, true, 0},
		{`\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b`, []string{"akia", "asia", "abia", "acca", "a3t"},
			[]string{"\x00a3t", "\x00abia", "\x00acca", "\x00akia", "\x00asia"}, true, 0},
		{`(?i)[\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|key|passw(?:or)?d|secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|:)([\w.=-]{10,150})(?:[\x60'"\s;]|$)`,
			[]string{"access", "api", "auth", "key", "passwd", "password", "secret", "token"},
			[]string{"access", "api", "auth", "key", "passwd", "password", "secret", "token"}, true, 4},
		// The keyword is not part of the match: cannot be windowed.
		{`\b(\d{15,16}(\||%)[0-9a-z\-_]{27,40})`, []string{"facebook"}, nil, false, 0},
		// Unbounded across lines: cannot be windowed.
		{`(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY-----[\s\S-]{64,}?KEY-----`, []string{"-----begin"}, []string{"-----begin"}, false, -1},
		// '.' is any character: the keyword "hooks.slack.com" is not required.
		{`hooks.slack.com/services/[A-Za-z0-9+/]{43,56}`, []string{"hooks.slack.com"}, []string{"com/services/"}, false, 0},
	}
	for _, tt := range tests {
		sh, ok := analyzeRegexp(tt.expr, tt.keywords)
		if !ok {
			t.Fatalf("%s: parse failed", tt.expr)
		}
		if !slices.Equal(sh.lits, tt.lits) {
			t.Errorf("%s: lits = %q, want %q", tt.expr, sh.lits, tt.lits)
		}
		if got := sh.windowable(tt.keywords); got != tt.window {
			t.Errorf("%s: windowable = %v, want %v", tt.expr, got, tt.window)
		}
		if sh.maxNL != tt.maxNL {
			t.Errorf("%s: maxNL = %d, want %d", tt.expr, sh.maxNL, tt.maxNL)
		}
	}
}

// TestRelaxedIsSuperset checks that the relaxed and anchored regexps match
// wherever the rule's own regexp does, on generated matches.
func TestRelaxedIsSuperset(t *testing.T) {
	s := newScanner(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, w := range s.win {
		for id, r := range w.det.Config.Rules {
			re, err := syntax.Parse(r.Regex.String(), syntax.Perl)
			if err != nil {
				t.Fatal(err)
			}
			for range 30 {
				m := "  " + generate(rng, re) + " \n"
				loc := r.Regex.FindStringIndex(m)
				if loc == nil {
					continue
				}
				if !w.re.MatchString(m) {
					t.Errorf("%s: relaxed regexp misses %q", id, m)
				}
			}
		}
	}
}

func findingKey(f report.Finding) string {
	return fmt.Sprintf("%s|%q|%q|%d-%d|%d-%d|%q", f.RuleID, f.Secret, f.Match,
		f.StartLine, f.EndLine, f.StartColumn, f.EndColumn, f.Line)
}

func findingKeys(fs []report.Finding) []string {
	keys := make([]string, 0, len(fs))
	for _, f := range fs {
		keys = append(keys, findingKey(f))
	}
	slices.Sort(keys)
	return keys
}

// checkEquivalent compares the windowed scan with gitleaks' whole-text scan.
func checkEquivalent(t testing.TB, s *Scanner, text string) {
	t.Helper()
	got := findingKeys(s.findings(text))
	want := findingKeys(dedupGeneric(s.all.get().DetectString(text)))
	if !slices.Equal(got, want) {
		t.Errorf("windowed findings differ from whole-text findings on %q\n got: %q\nwant: %q", text, got, want)
	}
}

// generate returns a random string that often matches re.
func generate(rng *rand.Rand, re *syntax.Regexp) string {
	var b strings.Builder
	var gen func(re *syntax.Regexp)
	reps := func(lo, hi int) int {
		if hi < 0 {
			hi = lo + 4
		}
		if hi > lo+8 {
			hi = lo + 8
		}
		return lo + rng.IntN(hi-lo+1)
	}
	gen = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			for _, r := range re.Rune {
				if re.Flags&syntax.FoldCase != 0 && rng.IntN(2) == 0 {
					if f := unicode.SimpleFold(r); f < utf8.RuneSelf {
						r = f
					}
				}
				b.WriteRune(r)
			}
		case syntax.OpCharClass:
			// Prefer ASCII ranges.
			var ranges [][2]rune
			for i := 0; i+1 < len(re.Rune); i += 2 {
				if re.Rune[i] < utf8.RuneSelf {
					ranges = append(ranges, [2]rune{re.Rune[i], min(re.Rune[i+1], 0x7e)})
				}
			}
			if len(ranges) == 0 {
				b.WriteRune(re.Rune[0])
				return
			}
			r := ranges[rng.IntN(len(ranges))]
			b.WriteRune(r[0] + rune(rng.IntN(int(r[1]-r[0])+1)))
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte(byte('a' + rng.IntN(26)))
		case syntax.OpCapture:
			gen(re.Sub[0])
		case syntax.OpConcat:
			for _, s := range re.Sub {
				gen(s)
			}
		case syntax.OpAlternate:
			gen(re.Sub[rng.IntN(len(re.Sub))])
		case syntax.OpQuest:
			if rng.IntN(2) == 0 {
				gen(re.Sub[0])
			}
		case syntax.OpStar:
			for range reps(0, 3) {
				gen(re.Sub[0])
			}
		case syntax.OpPlus:
			for range reps(1, 4) {
				gen(re.Sub[0])
			}
		case syntax.OpRepeat:
			for range reps(re.Min, re.Max) {
				gen(re.Sub[0])
			}
		}
	}
	gen(re)
	return b.String()
}

var contexts = []string{
	"%s",
	"+%s\n",
	" x := \"%s\"\n",
	"+\tapi_key = \"%s\"\n+}\n",
	"-token: %s\n",
	"password=%s;\n",
	"+    \"secret\": \"%s\",\n",
	"foo(%s)\n",
	"+// %s gitleaks:allow\n",
	"key=\n%s\n",
	"AUTH_TOKEN = '%s' # comment\n",
	"+import { a, b } from '%s'\n",
	"--mount=type=secret,id=%s\n",
}

var fillers = []string{
	"+func (s *Scanner) Redact(text string) (string, []string) {\n",
	" \treturn s.win[r].det.DetectString(text[a:b])\n",
	"-\tkeys, err := ssh.ParsePublicKey(b)\n",
	"@@ -12,7 +12,9 @@ func main() {\n",
	"+\tif err != nil {\n+\t\treturn nil, err\n+\t}\n",
	"+const apiVersion = \"v1\"\n",
	"diff --git a/x.go b/x.go\nindex 83db48f..bf269f4 100644\n",
	" s.foo = bar\n",
	"\n",
	"   \n",
}

// randomText builds a diff-like text with generated matches of random rules.
func randomText(rng *rand.Rand, s *Scanner, trees []*syntax.Regexp, keywords [][]string) string {
	var b strings.Builder
	for range 1 + rng.IntN(8) {
		switch rng.IntN(3) {
		case 0:
			b.WriteString(fillers[rng.IntN(len(fillers))])
		default:
			i := rng.IntN(len(trees))
			if len(keywords[i]) > 0 && rng.IntN(3) == 0 {
				b.WriteString("# " + keywords[i][rng.IntN(len(keywords[i]))] + "\n")
			}
			fmt.Fprintf(&b, contexts[rng.IntN(len(contexts))], generate(rng, trees[i]))
		}
	}
	return b.String()
}

func ruleTrees(t testing.TB, s *Scanner) ([]*syntax.Regexp, [][]string) {
	var trees []*syntax.Regexp
	var keywords [][]string
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range s.all.cfg.Rules {
			if !yield(id) {
				return
			}
		}
	})
	for _, id := range ids {
		r := s.all.cfg.Rules[id]
		if r.Regex == nil {
			continue
		}
		re, err := syntax.Parse(r.Regex.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, re)
		keywords = append(keywords, r.Keywords)
	}
	return trees, keywords
}

// TestWindowedEqualsWholeText is the central check of the windowed scan:
// on generated texts full of (near-)matches of every gitleaks rule, and on
// real diffs, it must report exactly what gitleaks' DetectString reports.
func TestWindowedEqualsWholeText(t *testing.T) {
	s := newScanner(t)
	for _, name := range []string{"clean.diff", "auth.diff"} {
		checkEquivalent(t, s, string(testInput(t, name)))
	}
	trees, keywords := ruleTrees(t, s)
	rng := rand.New(rand.NewPCG(7, 11))
	n := 3000
	if testing.Short() {
		n = 300
	}
	matched := 0
	for range n {
		text := randomText(rng, s, trees, keywords)
		if len(s.all.get().DetectString(text)) > 0 {
			matched++
		}
		checkEquivalent(t, s, text)
		if t.Failed() {
			return
		}
	}
	t.Logf("%d of %d generated texts had gitleaks findings", matched, n)
	if matched < n/4 {
		t.Errorf("generator too weak: only %d of %d texts had findings", matched, n)
	}
}

// FuzzWindowedEqualsWholeText fuzzes the same property.
func FuzzWindowedEqualsWholeText(f *testing.F) {
	s, err := New()
	if err != nil {
		f.Fatal(err)
	}
	trees, keywords := ruleTrees(f, s)
	rng := rand.New(rand.NewPCG(3, 5))
	for range 200 {
		f.Add(randomText(rng, s, trees, keywords))
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkEquivalent(t, s, text)
	})
}

func newScanner(t testing.TB) *Scanner {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
