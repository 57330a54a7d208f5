package understand

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rationale markers, English and Russian, and the matcher that finds the
// earliest one in lower-cased text (see notes.go for the decisions).

// dnMarker is one spelling of a rationale marker. Words are lower-case; a
// word ending in '*' is a stem that any letters may follow (inflection).
type dnMarker struct {
	canon string
	words []string
	// comma lets a comma stand between the words ("потому, что").
	comma bool
	// msgOnly markers describe behaviour too often in doc comments.
	msgOnly bool
	// reject, when set, vetoes a match by what precedes (before) or follows
	// (after) it in the lower-cased text.
	reject func(before, after string) bool
}

var dnMarkers = []dnMarker{
	// English.
	{canon: "because", words: []string{"because"}},
	{canon: "because", words: []string{"b/c"}},
	{canon: "since", words: []string{"since"}, reject: dnSinceNotCausal},
	{canon: "so that", words: []string{"so", "that"}},
	{canon: "in order to", words: []string{"in", "order", "to"}},
	{canon: "in order to", words: []string{"in", "order", "for"}},
	{canon: "to avoid", words: []string{"to", "avoid"}},
	{canon: "to prevent", words: []string{"to", "prevent"}},
	{canon: "instead of", words: []string{"instead", "of"}, msgOnly: true},
	{canon: "rather than", words: []string{"rather", "than"}, msgOnly: true},
	{canon: "otherwise", words: []string{"otherwise"}, msgOnly: true},
	{canon: "due to", words: []string{"due", "to"}},
	{canon: "as a result", words: []string{"as", "a", "result"}},
	{canon: "the reason", words: []string{"the", "reason*"}},
	{canon: "trade-off", words: []string{"trade-off*"}},
	{canon: "trade-off", words: []string{"tradeoff*"}},
	{canon: "trade-off", words: []string{"trade", "off*"}},
	{canon: "workaround", words: []string{"workaround*"}},
	{canon: "workaround", words: []string{"work-around*"}},
	{canon: "work around", words: []string{"work", "around"}},
	{canon: "we chose", words: []string{"we", "chose"}},
	{canon: "we chose", words: []string{"we", "choose"}},
	{canon: "we chose", words: []string{"we've", "chosen"}},
	{canon: "we chose", words: []string{"we’ve", "chosen"}},
	{canon: "we chose", words: []string{"we", "have", "chosen"}},
	{canon: "we chose", words: []string{"i", "chose"}},
	{canon: "we decided", words: []string{"we", "decided"}},
	{canon: "we decided", words: []string{"we", "decide"}},
	{canon: "we decided", words: []string{"we've", "decided"}},
	{canon: "we decided", words: []string{"we’ve", "decided"}},
	{canon: "we decided", words: []string{"we", "have", "decided"}},
	{canon: "we decided", words: []string{"i", "decided"}},
	{canon: "this is needed", words: []string{"this", "is", "needed"}},
	{canon: "this is needed", words: []string{"this", "was", "needed"}},
	{canon: "this is needed", words: []string{"this", "is", "required"}},
	{canon: "this is necessary", words: []string{"this", "is", "necessary"}},
	{canon: "this is necessary", words: []string{"this", "was", "necessary"}},
	{canon: "without this", words: []string{"without", "this"}},
	{canon: "caveat", words: []string{"caveat*"}},
	{canon: "note that", words: []string{"note", "that"}},
	{canon: "note", words: []string{"note:"}},
	{canon: "unfortunately", words: []string{"unfortunately"}},
	{canon: "for compatibility", words: []string{"for", "compatibility"}},
	{canon: "for compatibility", words: []string{"for", "compat"}},
	{canon: "backward compatibility", words: []string{"backward*", "compatib*"}},
	{canon: "backward compatibility", words: []string{"backward-compatib*"}},
	{canon: "backward compatibility", words: []string{"backwards-compatib*"}},
	{canon: "at the cost of", words: []string{"at", "the", "cost", "of"}},
	{canon: "at the cost of", words: []string{"at", "the", "expense", "of"}},

	// Russian.
	{canon: "потому что", words: []string{"потому", "что"}, comma: true},
	{canon: "так как", words: []string{"так", "как"}},
	{canon: "так как", words: []string{"т.к."}},
	{canon: "так как", words: []string{"т.", "к."}},
	{canon: "для того чтобы", words: []string{"для", "того", "чтобы"}, comma: true},
	{canon: "чтобы", words: []string{"чтобы"}},
	{canon: "чтобы", words: []string{"чтоб"}},
	{canon: "из-за", words: []string{"из-за"}},
	{canon: "иначе", words: []string{"иначе"}, msgOnly: true, reject: dnInacheNotOtherwise},
	{canon: "вместо", words: []string{"вместо"}, msgOnly: true},
	{canon: "во избежание", words: []string{"во", "избежание"}},
	{canon: "поскольку", words: []string{"поскольку"}},
	{canon: "компромисс", words: []string{"компромисс*"}},
	{canon: "обходной путь", words: []string{"обходн*", "пут*"}},
	{canon: "в противном случае", words: []string{"в", "противном", "случае"}, msgOnly: true},
	{canon: "костыль", words: []string{"костыл*"}},
	{canon: "к сожалению", words: []string{"к", "сожалению"}},
	{canon: "в результате", words: []string{"в", "результате"}},
	{canon: "без этого", words: []string{"без", "этого"}},
	{canon: "обратите внимание", words: []string{"обратите", "внимание"}},
	{canon: "обратная совместимость", words: []string{"обратн*", "совместимост*"}},
	{canon: "для совместимости", words: []string{"для", "совместимост*"}},
}

// dnWord is a word of a dnMarker, compiled.
type dnWord struct {
	text string // without the stem's '*'
	stem bool
	// bounded: text ends in a word rune, so no word rune may follow it.
	bounded bool
}

// dnMarkerWords are dnMarkers' words, compiled, by the markers' indices.
var dnMarkerWords = func() [][]dnWord {
	out := make([][]dnWord, len(dnMarkers))
	for i, m := range dnMarkers {
		for _, w := range m.words {
			text := strings.TrimSuffix(w, "*")
			last, _ := utf8.DecodeLastRuneInString(text)
			out[i] = append(out[i], dnWord{text: text, stem: len(text) < len(w), bounded: dnIsWordRune(last)})
		}
	}
	return out
}()

// dnMarkerNext is, by the markers' indices, the second byte of their
// first word, or dnNextNonWord or dnNextAny when it has one byte: what the
// byte after a word's first must be for the marker to match there.
var dnMarkerNext = func() []int {
	out := make([]int, len(dnMarkers))
	for i, ws := range dnMarkerWords {
		switch w := ws[0]; {
		case len(w.text) >= 2:
			out[i] = int(w.text[1])
		case w.bounded && !w.stem: // "i"
			out[i] = dnNextNonWord
		default:
			out[i] = dnNextAny
		}
	}
	return out
}()

const (
	dnNextNonWord = -1 // the end, or a byte that starts no word rune
	dnNextAny     = -2
)

// dnNextFits reports whether next, a byte or -1 at the end of the text,
// is one that dnMarkerNext's want allows.
func dnNextFits(want, next int) bool {
	switch want {
	case dnNextAny:
		return true
	case dnNextNonWord:
		return next < 0 || next >= utf8.RuneSelf || !dnIsWordRune(rune(next))
	}
	return next == want
}

// dnMarkersByRune indexes dnMarkers by the first rune of their first word;
// dnMarkersByASCII holds the ASCII ones, spared a map lookup per word.
var dnMarkersByRune = func() map[rune][]int {
	m := map[rune][]int{}
	for i, mk := range dnMarkers {
		r, _ := utf8.DecodeRuneInString(mk.words[0])
		m[r] = append(m[r], i)
	}
	return m
}()

var dnMarkersByASCII = func() (t [utf8.RuneSelf][]int) {
	for r, ms := range dnMarkersByRune {
		if r < utf8.RuneSelf {
			t[r] = ms
		}
	}
	return t
}()

// dnFindMarker returns the earliest marker in lower (a lower-cased text);
// on a tie the longer match wins, then the earlier entry of dnMarkers.
func dnFindMarker(lower string, comment bool) (canon string, ok bool) {
	prevWord := false
	for pos := 0; pos < len(lower); {
		if c := lower[pos]; c < utf8.RuneSelf { // most text: no decoding, no call
			isWord := dnASCIIWord[c]
			if isWord && !prevWord && dnMarkersByASCII[c] != nil {
				if canon, ok := dnMarkerAt(lower, pos, rune(c), comment); ok {
					return canon, true
				}
			}
			prevWord = isWord
			pos++
			continue
		}
		r, n := utf8.DecodeRuneInString(lower[pos:])
		isWord := dnIsWordRune(r)
		if isWord && !prevWord {
			if canon, ok := dnMarkerAt(lower, pos, r, comment); ok {
				return canon, true
			}
		}
		prevWord = isWord
		pos += n
	}
	return "", false
}

// dnMarkerAt returns the marker starting at lower[pos:], whose first rune
// is r, as dnFindMarker chooses among them.
func dnMarkerAt(lower string, pos int, r rune, comment bool) (canon string, ok bool) {
	var cands []int
	if r < utf8.RuneSelf {
		cands = dnMarkersByASCII[r]
	} else {
		cands = dnMarkersByRune[r]
	}
	next := -1 // the byte after r, to rule out most candidates at once
	if pos+1 < len(lower) {
		next = int(lower[pos+1])
	}
	bestEnd := -1
	for _, mi := range cands {
		m := &dnMarkers[mi]
		if comment && m.msgOnly || !dnNextFits(dnMarkerNext[mi], next) {
			continue
		}
		end, matched := dnMatchWords(lower, pos, dnMarkerWords[mi], m.comma)
		if !matched || end <= bestEnd {
			continue
		}
		if m.reject != nil && m.reject(lower[:pos], lower[end:]) {
			continue
		}
		bestEnd, canon = end, m.canon
	}
	return canon, bestEnd >= 0
}

// dnMatchWords matches words at s[i:] and returns the end of the match.
func dnMatchWords(s string, i int, words []dnWord, comma bool) (int, bool) {
	for wi, w := range words {
		if wi > 0 {
			j := dnSkipSpace(s, i)
			if comma && j < len(s) && s[j] == ',' {
				j = dnSkipSpace(s, j+1)
			}
			if j == i {
				return 0, false
			}
			i = j
		}
		if !strings.HasPrefix(s[i:], w.text) {
			return 0, false
		}
		i += len(w.text)
		if w.stem {
			for i < len(s) {
				r, n := utf8.DecodeRuneInString(s[i:])
				if !unicode.IsLetter(r) {
					break
				}
				i += n
			}
			continue
		}
		if w.bounded && i < len(s) {
			if r, _ := utf8.DecodeRuneInString(s[i:]); dnIsWordRune(r) {
				return 0, false
			}
		}
	}
	return i, true
}

func dnIsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return dnASCIIWord[r]
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// dnASCIIWord holds the ASCII word runes: '_', letters and digits.
var dnASCIIWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c == '_' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))
	}
	return t
}()

func dnBoundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !dnIsWordRune(r)
}

func dnSkipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}

// dnNextWords returns the next two words after s's leading spaces; a word
// is a run of letters, digits and the punctuation of versions ("v1.2-rc1").
func dnNextWords(s string) (w1, w2 string) {
	word := func(s string) (string, string) {
		i := dnSkipSpace(s, 0)
		j := i
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !(dnIsWordRune(r) || r == '.' || r == '-' || r == '\'') {
				break
			}
			j += n
		}
		return strings.TrimRight(s[i:j], ".-'"), s[j:]
	}
	w1, rest := word(s)
	if w1 == "" {
		return "", ""
	}
	w2, _ = word(rest)
	return w1, w2
}

var dnTemporalAfterSince = dnSet(
	"then", "now", "when", "yesterday", "today", "tonight", "forever", "ever",
	"long", "ages", "last", "before", "early", "late", "recently", "inception",
	"version", "release", "commit", "revision", "rev", "tag", "beginning", "day", "days",
	"epoch", "unix", "initialization", "initialisation", "startup", "boot", "creation",
	"launch", "install", "installation",
	"january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december", "jan", "feb", "mar", "apr",
	"jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
)

var dnTemporalNouns = dnSet(
	"beginning", "start", "introduction", "inception", "creation", "release",
	"dawn", "days", "early", "first", "initial", "last", "previous", "original",
	"old", "addition", "rewrite", "migration", "upgrade", "update", "switch",
	"refactor", "refactoring", "merge", "commit", "version", "day", "week",
	"month", "year", "time", "launch", "epoch", "startup", "boot",
)

// dnSinceNotCausal rejects the temporal "since": "since v1.2", "since
// 2019", "since Go 1.21", "since then", "ever since", "since the rewrite".
func dnSinceNotCausal(before, after string) bool {
	if strings.HasSuffix(strings.TrimRightFunc(before, unicode.IsSpace), "ever") {
		return true
	}
	// A perfect tense just before is temporal: "it has changed since we
	// opened it", "has been broken since". "have to … since" is not perfect.
	tail := before
	if len(tail) > 80 {
		tail = tail[len(tail)-80:]
	}
	prev := strings.Fields(tail)
	if len(prev) > 5 {
		prev = prev[len(prev)-5:]
	}
	for i, w := range prev {
		w = strings.Trim(w, ",;:()\"")
		switch {
		case w == "been", strings.HasSuffix(w, "'ve"), strings.HasSuffix(w, "’ve"):
			return true
		case w == "has" || w == "have" || w == "had" || w == "hasn't" || w == "haven't" || w == "hadn't":
			if i+1 < len(prev) && prev[i+1] != "to" {
				return true
			}
		}
	}
	w1, w2 := dnNextWords(after)
	switch {
	case w1 == "":
		return true // "since:" or a sentence ending in "since"
	case dnStartsWithDigit(w1), dnStartsWithDigit(w2):
		return true // "since 2019", "since Go 1.21", "since commit 3f2a…"
	case len(w1) > 1 && w1[0] == 'v' && dnStartsWithDigit(w1[1:]):
		return true // "since v2.0"
	case dnLooksLikeHash(w1):
		return true
	case dnTemporalAfterSince[w1]:
		return true
	case w1 == "at" && w2 == "least":
		return true
	case (w1 == "the" || w1 == "its" || w1 == "their" || w1 == "our" || w1 == "this" || w1 == "that") && dnTemporalNouns[w2]:
		return true
	}
	return false
}

// dnInacheNotOtherwise rejects "иначе говоря" ("in other words").
func dnInacheNotOtherwise(_, after string) bool {
	w1, _ := dnNextWords(after)
	return w1 == "говоря"
}

func dnStartsWithDigit(s string) bool {
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

func dnLooksLikeHash(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f':
		default:
			return false
		}
	}
	return digit
}

func dnSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
