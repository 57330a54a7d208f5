package secrets

import (
	"math"
	"strings"
)

// The high-entropy check catches generic random tokens (API keys, passwords,
// session secrets) that no gitleaks rule names: a bare 40-character random
// string has no keyword for gitleaks to anchor on.
//
// A candidate token is a maximal run of [A-Za-z0-9+/=_-] (so '.', ':', '@',
// quotes and spaces separate tokens), further split at '=' unless the '='
// run is trailing base64 padding, so "KEY=value" yields "KEY" and "value".
// Before measuring, '/', '-' and '_' separated atoms that are pure hex of 8+
// characters or pure digits are removed (git shas inside URLs, UUIDs,
// timestamps), giving the token's residue. A token is redacted when its
// residue
//
//   - is at least minEntropyLen bytes long (not counting '=' padding),
//   - contains an upper-case letter, a lower-case letter and a digit,
//   - has Shannon entropy of at least entropyThreshold(len) bits per byte:
//     4.5 for 48+ bytes, lower for shorter tokens because a random string
//     cannot reach 4.5 bits when it is short (a random 30-character
//     alphanumeric string has a median entropy of 4.48 bits, so a flat 4.5
//     would miss half of them), and
//   - does not read like words: the mean cost of its letter bigrams under a
//     model of identifier spelling (bigramCost) is at least minBigramCost
//     bits. Identifiers such as TestReadFromRepositoryWithoutWorktree2 or
//     src/main/java/org/apache/Foo2 score about 3.0-4.2 bits; random
//     strings score 5.2-8 bits. Tokens with fewer than minBigrams letter
//     bigrams skip this test.
//
// Pure hex strings (git shas, digests, test vectors) never qualify: they have
// no letters beyond a-f, and all-hex atoms are removed anyway. Nor do tokens
// following "h1:" (go.sum hashes) or starting with "sha1-", "sha256-",
// "sha384-" or "sha512-" (npm/yarn subresource-integrity hashes); those are
// hashes of public artifacts.

const (
	minEntropyLen = 30
	minBigrams    = 10
	minBigramCost = 4.6 // bits per letter bigram
	highEntropyID = "high-entropy"
)

// entropyThreshold is the minimum Shannon entropy (bits per byte) for a
// token of n bytes. It follows the 0.5th percentile of random alphanumeric
// strings of that length, capped at 4.5.
func entropyThreshold(n int) float64 {
	t := 4.0 + 0.03*float64(n-minEntropyLen)
	return min(t, 4.5)
}

func isTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '+' || c == '/' || c == '=' || c == '_' || c == '-'
}

// highEntropySpans appends a span for every high-entropy token in text.
func highEntropySpans(text string, dst []span) []span {
	for i := 0; i < len(text); {
		if !isTokenByte(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && isTokenByte(text[j]) {
			j++
		}
		if (text[i] == '+' || text[i] == '-') && (i == 0 || text[i-1] == '\n') {
			i++ // a unified-diff line marker, not part of the token
		}
		if j-i >= minEntropyLen {
			if strings.IndexByte(text[i:j], '/') >= 0 && inURL(text, i) {
				// A URL path: judge each segment on its own, so
				// that paths of short public ids
				// (advisories/GHSA-fh74-hm69-rqjw) pass while a
				// long random segment (a webhook token) does not.
				for a := i; a < j; {
					b := a + strings.IndexByte(text[a:j]+"/", '/')
					if b-a >= minEntropyLen {
						dst = splitAtEquals(text, a, b, dst)
					}
					a = b + 1
				}
			} else {
				dst = splitAtEquals(text, i, j, dst)
			}
		}
		i = j
	}
	return dst
}

// splitAtEquals checks the pieces of text[start:end] separated by '=' runs
// that are not trailing padding.
func splitAtEquals(text string, start, end int, dst []span) []span {
	p := start
	for k := start; k < end; {
		if text[k] != '=' {
			k++
			continue
		}
		e := k
		for e < end && text[e] == '=' {
			e++
		}
		if e == end {
			break // trailing padding belongs to the piece
		}
		if k-p >= minEntropyLen && highEntropyToken(text, p, k) {
			dst = append(dst, span{start: p, end: k, rule: highEntropyID})
		}
		p = e
		k = e
	}
	if end-p >= minEntropyLen && highEntropyToken(text, p, end) {
		dst = append(dst, span{start: p, end: end, rule: highEntropyID})
	}
	return dst
}

// highEntropyToken reports whether text[start:end] is a high-entropy token.
func highEntropyToken(text string, start, end int) bool {
	tok := text[start:end]
	if start >= 3 && text[start-3:start] == "h1:" {
		return false
	}
	if hasSRIPrefix(tok) || isSequence(tok) {
		return false
	}
	var (
		counts         [256]uint32
		n              int // residue length without '=' padding
		up, low, digit bool
		cost, bigrams  int // letter bigram cost (tenths of bits) and count
	)
	// Walk the token atom by atom; atoms are separated by '/', '-', '_'.
	for a := 0; a <= len(tok); {
		b := a
		for b < len(tok) && !isAtomSep(tok[b]) {
			b++
		}
		if atom := tok[a:b]; !isHexOrDigitAtom(atom) {
			prev := -1
			for k := 0; k < len(atom); k++ {
				c := atom[k]
				if c == '=' {
					prev = -1
					continue
				}
				counts[c]++
				n++
				l := -1
				switch {
				case 'a' <= c && c <= 'z':
					low, l = true, int(c-'a')
				case 'A' <= c && c <= 'Z':
					up, l = true, int(c-'A')
				case '0' <= c && c <= '9':
					digit = true
				}
				if l >= 0 && prev >= 0 {
					cost += int(bigramCost[prev][l])
					bigrams++
				}
				prev = l
			}
			if b < len(tok) {
				// The separator is part of the token's alphabet
				// (base64 '/', base64url '-' and '_').
				counts[tok[b]]++
				n++
			}
		}
		a = b + 1
	}
	if n < minEntropyLen || !up || !low || !digit {
		return false
	}
	if shannon(&counts, n) < entropyThreshold(n) {
		return false
	}
	if bigrams >= minBigrams && float64(cost)/10/float64(bigrams) < minBigramCost {
		return false
	}
	return true
}

// inURL reports whether the token starting at start continues a URL: going
// back over bytes that can appear in a URL reaches "://".
func inURL(text string, start int) bool {
	for k := start - 1; k >= 2 && start-k < 512; k-- {
		c := text[k]
		if c == '/' && text[k-1] == '/' && text[k-2] == ':' {
			return true
		}
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"'<>()[]{}`|\\^", c) >= 0 {
			return false
		}
	}
	return false
}

// isSequence reports whether most adjacent bytes of s are consecutive
// (b == a+1): alphabets such as "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef...0123456789"
// are common in encoders and are not secrets.
func isSequence(s string) bool {
	n := 0
	for k := 1; k < len(s); k++ {
		if s[k] == s[k-1]+1 {
			n++
		}
	}
	return 3*n >= len(s)
}

func isAtomSep(c byte) bool { return c == '/' || c == '-' || c == '_' }

// isHexOrDigitAtom reports whether an atom is all digits, or all hex digits
// and at least 8 long (a sha, a UUID part, a hash).
func isHexOrDigitAtom(a string) bool {
	if a == "" {
		return false
	}
	digits := true
	for k := 0; k < len(a); k++ {
		c := a[k]
		if '0' <= c && c <= '9' {
			continue
		}
		digits = false
		if !('a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return digits || len(a) >= 8
}

func hasSRIPrefix(tok string) bool {
	if !strings.HasPrefix(tok, "sha") {
		return false
	}
	for _, p := range [...]string{"sha1-", "sha256-", "sha384-", "sha512-"} {
		if strings.HasPrefix(tok, p) {
			return true
		}
	}
	return false
}

// shannon returns the Shannon entropy in bits per byte of a byte histogram
// with n entries.
func shannon(counts *[256]uint32, n int) float64 {
	h := 0.0
	inv := 1 / float64(n)
	for _, c := range counts {
		if c != 0 {
			p := float64(c) * inv
			h -= p * math.Log2(p)
		}
	}
	return h
}

// shannonString is the Shannon entropy of s in bits per byte.
func shannonString(s string) float64 {
	var counts [256]uint32
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	if len(s) == 0 {
		return 0
	}
	return shannon(&counts, len(s))
}
