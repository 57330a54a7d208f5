package secrets

import (
	"math"
	"strings"
)

// The high-entropy check catches generic random tokens (API keys, passwords,
// session secrets) that no gitleaks rule names: a bare 40-character random
// string has no keyword for gitleaks to anchor on.
//
// A candidate token is a maximal run of [A-Za-z0-9+/=_-] ('.', ':', '@',
// quotes, brackets and spaces separate tokens; a '+' or '-' at the start of
// a line is a diff marker, not part of the token), split at '=' unless the
// '=' run is trailing base64 padding, so "KEY=value" yields "KEY" and
// "value". In a URL (the text before the token reaches "://"), each '/'
// segment is a token of its own. Before measuring, atoms (separated by '/',
// '-', '_') that are all digits, or all hex and 8+ long, are removed: git
// shas in URLs, UUIDs, dates. What remains, the residue, is redacted when it
//
//   - is at least minEntropyLen (30) bytes long, '=' padding not counted;
//   - contains an upper-case letter, a lower-case letter and a digit;
//   - has a Shannon entropy of at least entropyThreshold(n) bits per byte:
//     4.5 from 47 bytes on, less for shorter tokens, since short random
//     strings cannot reach 4.5 bits (a random 30-character alphanumeric
//     string has a median of 4.48 bits: a flat 4.5 would miss half of
//     them); the threshold stays below the 1st percentile of random
//     alphanumeric strings of each length;
//   - does not read like words: the mean cost of its letter bigrams under a
//     model of identifier spelling (bigramCost) is at least minBigramCost
//     (4.6) bits, or it has fewer than minBigrams letter bigrams.
//     Identifiers and paths score 3.0-4.5 bits (99th percentile 4.5;
//     TestReadFromRepositoryWithoutWorktree2 3.9), random strings 5.2-8
//     bits (1st percentile 5.2 at 30 characters);
//   - and is not an alphabet ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef...": a
//     third or more of adjacent bytes consecutive).
//
// Pure hex strings (git shas, digests, test vectors) never qualify: they lack
// upper- or lower-case letters, or are removed as hex atoms. Nor do tokens
// right after "h1:" (go.sum) or "SHA256:" (an SSH or npm signing key's
// fingerprint), or starting with "sha1-", "sha256-", "sha384-" or
// "sha512-" (npm and yarn integrity hashes): hashes of public artifacts.
// Nor does an ECDSA signature in base64 (DER: "MEQCI...", "MEUCI..."),
// such as npm's registry documents carry for every version, and nothing in
// an encoded payload (payloadLines): three or more lines of 60 bytes or
// more without a space, of one length, are a wrapped base64 or base85
// blob (get-pip.py's zip, an embedded image), not a credential. pip's
// history reported 44,420 "secrets", deno's 59,745, nearly all of these.
//
// Measured on Go identifiers of 20+ characters from this module's dependency
// cache (54k), file paths (29k) and URLs from comments (3.5k): 1, 0 and 1
// tokens reported (sizeofIfAnnouncemsghdrFreeBSD10Emu and a Google Docs
// document id). Random tokens missed: under 2% at 30 characters, under 0.4%
// at 32, under 0.1% from 36 on (alphanumeric, base64 and base64url).

const (
	minEntropyLen = 30
	minBigrams    = 10
	minBigramCost = 4.6 // bits per letter bigram
	highEntropyID = "high-entropy"
)

// entropyThreshold is the minimum Shannon entropy (bits per byte) for a
// token of n bytes: 4.0 at 30 bytes, rising to 4.5 at 47.
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
	payload := payloadLines(text)
	for i := 0; i < len(text); {
		if len(payload) > 0 && i >= payload[0][1] {
			payload = payload[1:]
			continue
		}
		if len(payload) > 0 && i >= payload[0][0] {
			i = payload[0][1] // an encoded payload's lines (payloadLines)
			continue
		}
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
	if strings.HasSuffix(text[:start], "h1:") || strings.HasSuffix(text[:start], "SHA256:") {
		return false
	}
	if hasSRIPrefix(tok) || isSignature(tok) || isSequence(tok) {
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

// isSignature reports a base64 ECDSA P-256 signature: a DER sequence of
// 67 to 70 bytes opening with an integer ("MEMC", "MEQC", "MEUC", "MEYC"),
// 92 or 96 characters.
func isSignature(tok string) bool {
	return (len(tok) == 92 || len(tok) == 96) && strings.HasPrefix(tok, "ME") &&
		strings.IndexByte("MQUY", tok[2]) >= 0 && tok[3] == 'C'
}

// Encoded payloads: payloadRun or more consecutive lines of one length, at
// least payloadWidth bytes each and without a space or tab after a diff
// marker; the shorter line that ends such a run belongs to it.
const (
	payloadRun   = 3
	payloadWidth = 60
)

// payloadLines returns the byte ranges of text's encoded payloads, in
// order.
func payloadLines(text string) [][2]int {
	var out [][2]int
	runStart, runLen, width := 0, 0, 0
	flush := func(end int) { // the run so far, up to end, if long enough
		if runLen >= payloadRun {
			out = append(out, [2]int{runStart, end})
		}
		runLen = 0
	}
	for off := 0; off <= len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		body := text[off:end]
		if len(body) > 0 && strings.IndexByte("+- ", body[0]) >= 0 {
			body = body[1:]
		}
		dense := len(body) > 0 && strings.IndexAny(body, " \t") < 0
		switch {
		case dense && len(body) >= payloadWidth && runLen > 0 && len(body) == width:
			runLen++
		case dense && runLen >= payloadRun && len(body) < width:
			flush(end) // the last, shorter line of the payload
		default:
			flush(off)
			if dense && len(body) >= payloadWidth {
				runStart, runLen, width = off, 1, len(body)
			}
		}
		off = end + 1
	}
	flush(len(text))
	return out
}
