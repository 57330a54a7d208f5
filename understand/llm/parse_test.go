package llm

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var parseHashes = []string{
	"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
	"0fedcba9876543210fedcba9876543210fedcba9",
	"a1b2c3d4ffffffffffffffffffffffffffffffff",
}

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer string
		hashes []string
		want   []string // nil: an error
	}{
		{"object with ids", `{"summaries":[{"id":1,"summary":"one"},{"id":2,"summary":"two"},{"id":3,"summary":"three"}]}`,
			parseHashes, []string{"one", "two", "three"}},
		{"ids out of order", `{"summaries":[{"id":3,"summary":"three"},{"id":1,"summary":"one"},{"id":2,"summary":"two"}]}`,
			parseHashes, []string{"one", "two", "three"}},
		{"string ids", `{"summaries":[{"id":"2","summary":"two"},{"id":"#1","summary":"one"},{"id":"commit 3","summary":"three"}]}`,
			parseHashes, []string{"one", "two", "three"}},
		{"zero-based ids", `{"summaries":[{"id":0,"summary":"one"},{"id":1,"summary":"two"},{"id":2,"summary":"three"}]}`,
			parseHashes, []string{"one", "two", "three"}},
		{"hash ids", `[{"hash":"0fedcba98","summary":"two"},{"commit":"A1B2C3D4E5F6","summary":"one"}]`,
			parseHashes, []string{"one", "two", ""}},
		{"ambiguous hash prefix is ignored", `[{"hash":"a1b2c3d4","summary":"x"},{"id":2,"summary":"two"}]`,
			parseHashes, []string{"", "two", ""}},
		{"some ids missing", `{"summaries":[{"id":1,"summary":"one"},{"id":3,"summary":"three"}]}`,
			parseHashes, []string{"one", "", "three"}},
		{"duplicate id keeps the first", `{"summaries":[{"id":1,"summary":"one"},{"id":1,"summary":"again"}]}`,
			parseHashes, []string{"one", "", ""}},
		{"unknown ids only", `{"summaries":[{"id":7,"summary":"x"},{"id":9,"summary":"y"}]}`, parseHashes, nil},
		{"bare strings", `["one","two","three"]`, parseHashes, []string{"one", "two", "three"}},
		{"bare strings, wrong count", `["one","two"]`, parseHashes, nil},
		{"other wrapper name", `{"results":[{"summary":"one"},{"summary":"two"},{"summary":"three"}]}`,
			parseHashes, []string{"one", "two", "three"}},
		{"text field", `[{"id":1,"text":"one"}]`, parseHashes, []string{"one", "", ""}},
		{"keyed by id", `{"2":"two","1":"one","3":"three"}`, parseHashes, []string{"one", "two", "three"}},
		{"single summary", `{"summary":"only"}`, parseHashes[:1], []string{"only"}},
		{"single with a wrong id", `{"id":4,"summary":"only"}`, parseHashes[:1], []string{"only"}},
		{"single in an array", `{"summaries":[{"id":1,"summary":"only"}]}`, parseHashes[:1], []string{"only"}},
		{"prose around", "Here you go:\n{\"summaries\":[{\"id\":1,\"summary\":\"only\"}]}\nHope it helps {!}",
			parseHashes[:1], []string{"only"}},
		{"code fence", "```json\n[\"one\",\"two\",\"three\"]\n```", parseHashes, []string{"one", "two", "three"}},
		{"think block", "<think>maybe {\"summary\":\"wrong\"}</think>\n{\"summary\":\"right\"}", parseHashes[:1], []string{"right"}},
		{"unclosed think", "<think>{\"summary\":\"wrong\"} and then", parseHashes[:1], nil},
		{"bracket in prose first", `See [1] and {"summaries":["one","two","three"]}`, parseHashes, []string{"one", "two", "three"}},
		{"not json", "This commit fixes the parser.", parseHashes[:1], nil},
		{"empty", "", parseHashes, nil},
		{"truncated keeps whole entries", `{"summaries":[{"id":1,"summary":"one"},{"id":2,"summ`, parseHashes, []string{"one", "", ""}},
		{"truncated in the first entry", `{"summaries":[{"id":1,"summary":"on`, parseHashes, nil},
		{"summaries beside another array", `{"notes":["x"],"summaries":["one","two","three"]}`, parseHashes, []string{"one", "two", "three"}},
		{"numbers only", `[1, 2, 3]`, parseHashes, nil},
		{"empty summaries", `{"summaries":[]}`, parseHashes, nil},
		{"two arrays", `{"a":["one","two","three"],"b":["x","y","z"]}`, parseHashes, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseAnswer(tc.answer, tc.hashes)
			if tc.want == nil {
				if err == nil || !errors.Is(err, ErrBadAnswer) {
					t.Errorf("parseAnswer = %q, %v; want ErrBadAnswer", got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("parseAnswer = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestClean(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for in, want := range map[string]string{
		"  Fix the parser.  ":            "Fix the parser.",
		"\"Fix the parser.\"":            "Fix the parser.",
		"**Summary:** Fix the parser.":   "Fix the parser.",
		"Summary: `Fix the parser.`":     "Fix the parser.",
		"Fix the\nparser\r\n\tfor good.": "Fix the parser for good.",
		"Fix the parser\u2028now.":       "Fix the parser now.",
		"Fix \xff parser.":               "Fix \uFFFD parser.",
		"":                               "",
		long:                             strings.TrimSpace(strings.Repeat("word ", 47)) + "…",
		"“Handles the empty input of the parser.”": "Handles the empty input of the parser.",
	} {
		got := clean(in)
		if got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
		if n := utf8.RuneCountInString(got); n > MaxSummaryRunes {
			t.Errorf("clean(%q) has %d runes, max %d", in, n, MaxSummaryRunes)
		}
	}
}

func TestUsable(t *testing.T) {
	subject := "fix(parser): handle empty input"
	for _, tc := range []struct {
		summary string
		want    bool
	}{
		{"Handle empty input in the parser so that blank files no longer crash the indexer.", true},
		{"Fix parser: handle empty input.", false}, // the subject again
		{"Handle empty input", false},              // part of the subject
		{"fix(parser): handle empty input", false},
		{"Fixes it.", false},   // too short
		{"... ... ...", false}, // no letters
		{"I'm sorry, but I cannot summarise this commit.", false},
		{"As an AI language model I think it fixes things.", false},
		{"Makes the parser accept empty input.", true},
	} {
		if got := usable(tc.summary, subject); got != tc.want {
			t.Errorf("usable(%q) = %v, want %v", tc.summary, got, tc.want)
		}
	}
}

// FuzzParseAnswer checks that no answer panics the parser and that what
// it returns, once cleaned, is one line of bounded valid UTF-8.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		`{"summaries":[{"id":1,"summary":"one"},{"id":2,"summary":"two"}]}`,
		`["a","b"]`, `{"1":"a","2":"b"}`, `{"summary":"x"}`, "```json\n[\"a\",\"b\"]\n```",
		"<think>{</think>[{\"hash\":\"a1b2c3d4e5\",\"text\":\"x\"}]", `[{"id":0,"summary":"\u2028"}]`, "{[{[",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		got, err := parseAnswer(answer, parseHashes[:2])
		if err != nil {
			if !errors.Is(err, ErrBadAnswer) || got != nil {
				t.Fatalf("parseAnswer(%q) = %q, %v", answer, got, err)
			}
			return
		}
		if len(got) != 2 {
			t.Fatalf("parseAnswer(%q) returned %d texts for 2 commits", answer, len(got))
		}
		for _, s := range got {
			c := clean(s)
			if !utf8.ValidString(c) || strings.ContainsAny(c, "\n\r") || utf8.RuneCountInString(c) > MaxSummaryRunes ||
				c != strings.TrimSpace(c) {
				t.Fatalf("clean(%q) = %q: not one trimmed bounded line", s, c)
			}
		}
	})
}
