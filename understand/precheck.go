package understand

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Prechecks: cheap necessary conditions for the regular expressions and
// raw patterns of classification. Each returns false only when its
// pattern provably cannot match, so that most messages skip the regexp;
// when it returns true the regexp still decides. They rely on two facts
// of Go's case folding: of the ASCII letters only k and s fold to other
// runes ('K' Kelvin sign, 'ſ' long s), and strings.ToLower maps only 'İ'
// and 'K' from outside ASCII into it (to 'i' and 'k').

// clsMayStateNoChange reports whether clsNoChangeRe can match the text
// whose strings.ToLower is low. Its alternatives need "nfc", "refactor",
// or "no " before the f, b, u or s (or 'ſ') of "functional",
// "behavio(u)ral", "user-visible" and "semantic".
func clsMayStateNoChange(low string) bool {
	if strings.Contains(low, "nfc") || strings.Contains(low, "refactor") {
		return true
	}
	for off := 0; ; {
		i := strings.Index(low[off:], "no ")
		if i < 0 {
			return false
		}
		off += i + len("no ")
		if rest := low[off:]; rest != "" {
			switch rest[0] {
			case 'f', 'b', 'u', 's':
				return true
			}
			if strings.HasPrefix(rest, "ſ") {
				return true
			}
		}
	}
}

// clsMayNameVersions reports whether clsFromToRe (fromTo) and clsToVerRe
// (toVer) can match text: both need a digit, or a 'v' and a digit, right
// after "from " or "to " in any case.
func clsMayNameVersions(text string) (fromTo, toVer bool) {
	for i := 0; i < len(text) && !(fromTo && toVer); i++ {
		if c := text[i]; c < '0' || c > '9' {
			continue
		}
		head := text[:i]
		if n := len(head); n > 0 && head[n-1]|0x20 == 'v' {
			head = head[:n-1]
		}
		fromTo = fromTo || clsHasSuffixASCIIFold(head, "from ")
		toVer = toVer || clsHasSuffixASCIIFold(head, "to ")
	}
	return fromTo, toVer
}

// clsHasSuffixASCIIFold reports whether s ends with suffix (lower-case
// letters and spaces) in any ASCII case.
func clsHasSuffixASCIIFold(s, suffix string) bool {
	if len(s) < len(suffix) {
		return false
	}
	s = s[len(s)-len(suffix):]
	for i := 0; i < len(suffix); i++ {
		c := s[i]
		if suffix[i] != ' ' {
			c |= 0x20
		}
		if c != suffix[i] {
			return false
		}
	}
	return true
}

// clsRawHeads are the first two bytes of the raw wording patterns in both
// cases ("o(", "O(", "n+", "N+"). A raw pattern found in the lower-cased
// text needs its head, in one case or the other, in the text itself.
var clsRawHeads = func() []string {
	var heads []string
	for _, p := range clsWords.pats {
		if p.raw == "" {
			continue
		}
		h := p.raw[:2]
		if h[0] < 'a' || h[0] > 'z' || h[0] == 'i' || h[0] == 'k' || h[1] >= utf8.RuneSelf ||
			'a' <= h[1] && h[1] <= 'z' {
			panic("understand: raw pattern needs a letter (not i or k) and punctuation first: " + p.raw)
		}
		for _, v := range []string{h, strings.ToUpper(h[:1]) + h[1:]} {
			if !slices.Contains(heads, v) {
				heads = append(heads, v)
			}
		}
	}
	return heads
}()

// clsMayHaveRaw reports whether a raw wording pattern can occur in
// strings.ToLower(clsProse(text)).
func clsMayHaveRaw(text string) bool {
	for _, h := range clsRawHeads {
		if strings.Contains(text, h) {
			return true
		}
	}
	return false
}
