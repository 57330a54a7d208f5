package vectors

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// terms is what the local embedder reads from a text: the stems of its
// words in order (identifiers split into their parts) and the compound
// identifiers whole.
type terms struct {
	stems  []string
	idents []string
}

// analyze appends the terms of text to t. A word is a run of letters,
// digits and underscores; camelCase, snake_case and letter/digit
// boundaries split it, and a word that splits is kept whole as well, so
// "parseConfig" gives "pars", "config" and the identifier "parseconfig".
func analyze(text string, t *terms) {
	start := -1
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			addWord(text[start:i], t)
			start = -1
		}
	}
	if start >= 0 {
		addWord(text[start:], t)
	}
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func addWord(w string, t *terms) {
	if noise(w) {
		return
	}
	parts := splitIdent(w)
	if len(parts) > 1 {
		whole := strings.ToLower(strings.Trim(w, "_"))
		if utf8.RuneCountInString(whole) > 2 {
			t.idents = append(t.idents, whole)
		}
	}
	for _, p := range parts {
		p = strings.ToLower(p)
		if utf8.RuneCountInString(p) < 2 || stopword[p] || noise(p) {
			continue
		}
		t.stems = append(t.stems, stem(p))
	}
}

// noise is a word that carries no meaning across commits: a long number
// (an issue number, a date) or a hexadecimal object name.
func noise(w string) bool {
	digits, hex := 0, true
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			hex = false
		}
	}
	if digits == len(w) {
		return len(w) > 4
	}
	return hex && digits > 0 && len(w) >= 7
}

// splitIdent splits an identifier at underscores, lower-to-upper case
// changes ("parseConfig"), the end of an acronym ("HTTPServer") and
// letter/digit boundaries ("sha256").
func splitIdent(w string) []string {
	var parts []string
	start := 0 // where the current part starts, in bytes
	prev := rune(-1)
	for i := 0; i < len(w); {
		r, n := utf8.DecodeRuneInString(w[i:])
		switch {
		case r == '_':
			parts = appendPart(parts, w[start:i])
			start = i + n
		case i == start:
		case unicode.IsUpper(r) && unicode.IsLower(prev),
			unicode.IsDigit(r) != unicode.IsDigit(prev),
			unicode.IsUpper(r) && unicode.IsUpper(prev) && lowerAt(w, i+n):
			parts = appendPart(parts, w[start:i])
			start = i
		}
		prev = r
		i += n
	}
	return appendPart(parts, w[start:])
}

// appendPart appends a non-empty part of an identifier.
func appendPart(parts []string, p string) []string {
	if p == "" {
		return parts
	}
	return append(parts, p)
}

// lowerAt reports whether the rune at w[i:] is lower case.
func lowerAt(w string, i int) bool {
	r, _ := utf8.DecodeRuneInString(w[i:])
	return i < len(w) && unicode.IsLower(r)
}

// stem reduces an English word with a few suffix rules (a light Porter
// step 1 and the final e/y), a Cyrillic word by its inflection endings.
// It only needs to map a word's common forms to one key:
// retry/retries/retried/retrying → "retri", cache/caches/caching → "cach".
func stem(w string) string {
	if !isASCIILetters(w) {
		if hasCyrillic(w) {
			return stemRU(w)
		}
		return w
	}
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "i"
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "eed"):
	case strings.HasSuffix(w, "ied"):
		w = w[:len(w)-3] + "i"
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = undouble(w[:len(w)-3])
	}
	for _, suf := range [...]string{"ization", "isation", "ation", "ition", "ly", "er", "or", "ate", "ize", "ise", "iz"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 4 {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	if len(w) >= 4 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	if len(w) >= 4 && w[len(w)-1] == 'y' {
		w = w[:len(w)-1] + "i"
	}
	return w
}

func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouslz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func hasCyrillic(w string) bool {
	for _, r := range w {
		if unicode.Is(unicode.Cyrillic, r) {
			return true
		}
	}
	return false
}

// ruEndings are Russian inflection endings, longest first.
var ruEndings = []string{
	"иями", "ями", "ами", "ения", "ение", "ании", "ание", "ться", "ость",
	"ого", "его", "ому", "ему", "ыми", "ими", "ией", "иях", "ах", "ях",
	"ов", "ев", "ей", "ой", "ий", "ый", "ая", "яя", "ое", "ее", "ые", "ие",
	"ом", "ем", "ам", "ям", "ть", "ет", "ит", "ут", "ют", "ат", "ят",
	"ию", "ия", "ии", "а", "я", "ы", "и", "у", "ю", "е", "о", "ь",
}

func stemRU(w string) string {
	for _, e := range ruEndings {
		if strings.HasSuffix(w, e) && utf8.RuneCountInString(w)-utf8.RuneCountInString(e) >= 3 {
			return w[:len(w)-len(e)]
		}
	}
	return w
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// stopword holds English and Russian function words, and the question
// words a query starts with.
var stopword = set(
	"a", "an", "and", "are", "as", "at", "be", "been", "being", "but", "by",
	"can", "could", "did", "do", "does", "doing", "for", "from", "had", "has",
	"have", "he", "her", "his", "how", "if", "in", "into", "is", "it", "its",
	"me", "my", "no", "not", "of", "on", "onto", "or", "our", "so", "such",
	"than", "that", "the", "their", "them", "then", "there", "these", "they",
	"this", "those", "to", "too", "us", "was", "we", "were", "what", "when",
	"where", "which", "while", "who", "whom", "why", "will", "with", "would",
	"you", "your", "also", "just", "only", "via", "vs", "etc", "now", "yet",
	"should", "shall", "may", "might", "must", "some", "any", "all", "each",
	"other", "own", "same", "very", "about", "after", "before", "again",
	"there", "here", "both", "more", "most", "own", "i", "ve", "ll", "re",
	"и", "в", "во", "не", "что", "на", "с", "со", "как", "а", "то", "все",
	"так", "его", "но", "да", "к", "у", "же", "за", "бы", "по", "только",
	"от", "о", "об", "из", "ли", "если", "уже", "или", "ни", "быть", "был",
	"была", "было", "были", "до", "для", "мы", "чем", "без", "под", "при",
	"это", "этот", "эта", "эти", "этого", "этой", "того", "тот", "там",
	"где", "когда", "почему", "зачем", "как", "какой", "кто", "чтобы",
	"после", "перед", "через", "над", "между", "так", "также", "еще", "ещё",
)
