package llm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSummaryRunes bounds the length of a summary: the prompt asks for at
// most 30 words, which is about 200 characters of English.
const MaxSummaryRunes = 240

// minSummaryWords is the fewest words a usable summary has.
const minSummaryWords = 3

// oneLine makes s valid UTF-8 on one line (control characters and line
// separators become spaces, runs of spaces one) of at most max runes.
func oneLine(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return truncate(strings.Join(strings.Fields(s), " "), max)
}

// truncate cuts s to at most max runes, at a word boundary when one is in
// the second half, and marks the cut with an ellipsis.
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	cut, n := 0, 0
	for i := range s {
		if n == max-1 {
			cut = i
			break
		}
		n++
	}
	s = s[:cut]
	if sp := strings.LastIndexByte(s, ' '); sp > len(s)/2 {
		s = s[:sp]
	}
	return strings.TrimRight(s, " ,;:-") + "…"
}

// clean makes a model's summary one trimmed line of at most
// MaxSummaryRunes runes, without wrapping quotes, Markdown emphasis or a
// "Summary:" label.
func clean(s string) string {
	s = oneLine(s, 4*MaxSummaryRunes)
	for {
		t := strings.TrimSpace(s)
		for _, label := range []string{"summary:", "summary -", "commit summary:"} {
			if len(t) >= len(label) && strings.EqualFold(t[:len(label)], label) {
				t = strings.TrimSpace(t[len(label):])
			}
		}
		t = strings.Trim(t, "\"'`*_“”‘’ ")
		if t == s {
			break
		}
		s = t
	}
	return truncate(s, MaxSummaryRunes)
}

// refusals start answers that are not summaries.
var refusals = []string{"i'm sorry", "i am sorry", "sorry,", "i cannot", "i can't", "i'm unable",
	"i am unable", "as an ai", "unable to summarize", "no summary"}

// usable reports whether a cleaned summary says something: a few words
// with letters, no refusal, and more than (part of) the commit's subject.
func usable(summary, subject string) bool {
	if len(strings.Fields(summary)) < minSummaryWords || !strings.ContainsFunc(summary, unicode.IsLetter) {
		return false
	}
	lower := strings.ToLower(summary)
	for _, r := range refusals {
		if strings.HasPrefix(lower, r) {
			return false
		}
	}
	return !strings.Contains(letters(subject), letters(summary))
}

// letters keeps the lower-cased letters and digits of s.
func letters(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
