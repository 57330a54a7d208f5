package secrets

import "strings"

// awsKeyIDSpans appends a span for every AWS access key id shaped like
// gitleaks' aws-access-token rule but with any upper-case letter or digit
// after the prefix. Real key ids use the base32 alphabet A-Z2-7, which is
// all gitleaks accepts; test and example data often do not, and a 20-byte
// key id is too short for the entropy check. Ids ending in "EXAMPLE"
// (AWS's documented examples) are left alone, as gitleaks does.
func awsKeyIDSpans(text string, out []span) []span {
	for off := 0; ; {
		i := strings.IndexByte(text[off:], 'A')
		if i < 0 {
			return out
		}
		p := off + i
		off = p + 1
		if p > 0 && isWordByte(text[p-1]) || len(text)-p < 20 {
			continue
		}
		switch text[p : p+4] {
		case "AKIA", "ASIA", "ABIA", "ACCA":
		default:
			if text[p:p+3] != "A3T" || !isUpperOrDigit(text[p+3]) {
				continue
			}
		}
		e := p + 20
		ok := e == len(text) || !isWordByte(text[e])
		for k := p + 4; ok && k < e; k++ {
			ok = isUpperOrDigit(text[k])
		}
		if ok && !strings.HasSuffix(text[p:e], "EXAMPLE") {
			out = append(out, span{start: p, end: e, rule: "aws-access-token"})
			off = e
		}
	}
}

func isUpperOrDigit(c byte) bool { return 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }
