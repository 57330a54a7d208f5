package secrets

import (
	"slices"
	"strings"
)

// privateKeyID is the rule id of private key blocks; gitleaks uses the same.
const privateKeyID = "private-key"

// privateKeySpans appends a span for every PEM private key block in text:
// from "-----BEGIN <label> PRIVATE KEY-----" through the matching
// "-----END ...-----" line, or, when the footer is missing (a diff hunk cut
// the block), through the last line that still looks like key material.
// Lines may carry a unified-diff prefix ('+', '-' or ' ') or sit in a string
// literal; the body may also follow the header on the same line, as in JSON
// ("-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END PRIVATE KEY-----\n").
//
// gitleaks' private-key rule finds complete blocks with at least 64 bytes of
// body; this scan also covers truncated and short blocks, so that no line of
// a key body survives.
func privateKeySpans(text string, out []span) []span {
	return pemTails(text, isPrivateLabel, privateKeyID, pemBlocks(text, isPrivateLabel, privateKeyID, out))
}

func isPrivateLabel(label string) bool { return containsFold(label, "private key") }

// publicBlocks returns the extents of the PEM blocks that hold public
// material: public keys, certificates and PGP signatures. Their bodies are
// long base64 lines that look random, and a release that publishes a
// signing key or signatures would otherwise count hundreds of "secrets"
// and be ranked as a commit that leaked credentials.
func publicBlocks(text string) []span {
	if !strings.Contains(text, "-----") {
		return nil
	}
	return pemTails(text, isPublicLabel, "", pemBlocks(text, isPublicLabel, "", nil))
}

func isPublicLabel(label string) bool {
	return !isPrivateLabel(label) && (containsFold(label, "public key") || containsFold(label, "certificate") ||
		containsFold(label, "pgp signature") || containsFold(label, "signed message"))
}

// withoutPublic drops the spans that lie wholly inside a public block.
func withoutPublic(text string, spans []span) []span {
	pub := publicBlocks(text)
	if len(pub) == 0 {
		return spans
	}
	return slices.DeleteFunc(spans, func(sp span) bool {
		for _, p := range pub {
			if p.start <= sp.start && sp.end <= p.end {
				return true
			}
		}
		return false
	})
}

// pemBlocks appends a span, of the given rule, for every PEM block whose
// label (the words between "-----BEGIN" and "-----") satisfies want.
func pemBlocks(text string, want func(label string) bool, rule string, out []span) []span {
	for off := 0; off < len(text); {
		start := nextDashes(text, off)
		if start < 0 {
			break
		}
		off = start + 5
		if !hasPrefixFold(text[start+5:], "begin") {
			continue
		}
		lineEnd := indexByteFrom(text, start, '\n')
		labelStart := start + len("-----begin")
		close := strings.Index(text[labelStart:lineEnd], "-----")
		if close < 0 || !want(text[labelStart:labelStart+close]) {
			continue
		}
		end := pemBlockEnd(text, labelStart+close+5, lineEnd)
		out = append(out, span{start: start, end: end, rule: rule})
		off = end
	}
	return out
}

// nextDashes finds the next "-----" at or after off and returns the start
// of the last five dashes of that run ("------BEGIN" is a removed line in a
// diff), or -1.
func nextDashes(text string, off int) int {
	i := strings.Index(text[off:], "-----")
	if i < 0 {
		return -1
	}
	start := off + i
	for start+5 < len(text) && text[start+5] == '-' {
		start++
	}
	return start
}

// pemTails appends a span for every footer of a wanted block whose header
// is missing (a diff hunk starting inside the block): from the first of the
// key-material lines before the footer through the footer.
func pemTails(text string, want func(label string) bool, rule string, out []span) []span {
	for off := 0; off < len(text); {
		f := nextDashes(text, off)
		if f < 0 {
			break
		}
		off = f + 5
		if !hasPrefixFold(text[off:], "end") {
			continue
		}
		off += len("end")
		lineEnd := indexByteFrom(text, f, '\n')
		close := strings.Index(text[off:lineEnd], "-----")
		if close < 0 || !want(text[off:off+close]) {
			continue
		}
		end := off + close + 5
		if coveredBySpans(f, out) {
			continue
		}
		start := f
		// Walk back over the lines before the footer's line.
		ls := strings.LastIndexByte(text[:f], '\n') + 1
		for ls > 0 {
			prev := strings.LastIndexByte(text[:ls-1], '\n') + 1
			body := pemLineBody(text[prev : ls-1])
			if body != "" && !isBase64(body) && !isPEMHeader(body) {
				break
			}
			if body != "" {
				start = prev + strings.Index(text[prev:ls-1], body[:1])
			}
			ls = prev
		}
		out = append(out, span{start: start, end: end, rule: rule})
		off = end
	}
	return out
}

func coveredBySpans(pos int, spans []span) bool {
	for _, sp := range spans {
		if sp.start <= pos && pos < sp.end {
			return true
		}
	}
	return false
}

// pemBlockEnd returns the end offset of a PEM block whose header
// ends at p, on a line ending at lineEnd.
func pemBlockEnd(text string, p, lineEnd int) int {
	rest := text[p:lineEnd]
	if j := indexFold(rest, "-----end"); j >= 0 {
		return footerEnd(text, p+j, lineEnd)
	}
	end := p
	if strings.TrimSpace(rest) != "" {
		// Key material on the header line (escaped newlines).
		end = lineEnd
	}
	for q := lineEnd; q < len(text); {
		ls := q + 1
		le := indexByteFrom(text, ls, '\n')
		body := pemLineBody(text[ls:le])
		switch {
		case hasPrefixFold(body, "-----end"):
			return footerEnd(text, ls+strings.Index(text[ls:le], body[:5]), le)
		case body == "":
			// blank line inside the block: keep going
		case isBase64(body) || isPEMHeader(body):
			end = le
		default:
			return end
		}
		q = le
	}
	return end
}

// footerEnd returns the offset just past the "-----END ...-----" footer
// starting at f, on a line ending at lineEnd.
func footerEnd(text string, f, lineEnd int) int {
	k := f + len("-----end")
	if c := strings.Index(text[k:lineEnd], "-----"); c >= 0 {
		return k + c + 5
	}
	return lineEnd
}

// pemLineBody strips a diff prefix, indentation, string-literal quoting and
// escaped line ends from a line of a PEM block.
func pemLineBody(line string) string {
	s := strings.TrimLeft(line, " \t")
	switch {
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	case strings.HasPrefix(s, "-") && (!strings.HasPrefix(s, "-----") || strings.HasPrefix(s, "------")):
		s = s[1:]
	}
	s = strings.TrimLeft(s, " \t\"'`")
	for {
		t := strings.TrimRight(s, " \t\r\"'`,;+")
		t = strings.TrimSuffix(t, `\n`)
		t = strings.TrimSuffix(t, `\r`)
		if t == s {
			return s
		}
		s = t
	}
}

func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return s != ""
}

// isPEMHeader reports whether s is an RFC 1421 encapsulated header such as
// "Proc-Type: 4,ENCRYPTED" or "DEK-Info: AES-128-CBC,...".
func isPEMHeader(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return false
	}
	for k := 0; k < i; k++ {
		c := s[k]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func indexByteFrom(s string, from int, c byte) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return len(s)
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix,
// ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// indexFold returns the index of the lower-case ASCII needle in s, ignoring
// ASCII case, or -1.
func indexFold(s, needle string) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		if hasPrefixFold(s[i:], needle) {
			return i
		}
	}
	return -1
}

func containsFold(s, needle string) bool { return indexFold(s, needle) >= 0 }
