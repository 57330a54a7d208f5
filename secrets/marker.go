package secrets

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Markers: how findings become "[REDACTED:<rule-id>]" in the text, and how
// markers already there are recognised, so that redaction is idempotent.

// apply merges overlapping spans and replaces each merged span by a marker
// naming mark(rule, secret), or the rule when mark is nil. It returns the
// new text and one rule id per marker, in text order.
func apply(text string, spans []span, mark func(rule, secret string) string) (string, []string) {
	slices.SortFunc(spans, func(x, y span) int {
		if x.start != y.start {
			return x.start - y.start
		}
		return y.end - x.end
	})
	var (
		b    strings.Builder
		ids  []string
		last int
	)
	b.Grow(len(text))
	for i := 0; i < len(spans); {
		cur := spans[i]
		j := i + 1
		for j < len(spans) && spans[j].start < cur.end {
			if spans[j].end > cur.end {
				cur.end = spans[j].end
			}
			if rulePriority(spans[j].rule) > rulePriority(cur.rule) {
				cur.rule = spans[j].rule
			}
			j++
		}
		b.WriteString(text[last:cur.start])
		b.WriteString(markerPrefix)
		if mark != nil {
			b.WriteString(mark(cur.rule, text[cur.start:cur.end]))
		} else {
			b.WriteString(cur.rule)
		}
		b.WriteByte(']')
		ids = append(ids, cur.rule)
		last = cur.end
		i = j
	}
	b.WriteString(text[last:])
	return b.String(), ids
}

// rulePriority decides which rule names a merged span: a specific gitleaks
// rule over gitleaks' generic rule over the positional rules (assign.go)
// over the entropy check.
func rulePriority(rule string) int {
	switch {
	case rule == highEntropyID:
		return 0
	case rule == assignmentID || rule == urlPasswordID:
		return 1
	case strings.Contains(rule, "generic"):
		return 2
	}
	return 3
}

const markerPrefix = "[REDACTED:"

// hashedRule is the marker of RedactName: the rule and a short hash of the
// secret, unique and stable (see RedactName). The hash is domain-separated
// and cut to 32 bits: enough to keep a repository's redacted names apart,
// too little to confirm a guess of a long secret.
func hashedRule(rule, secret string) string {
	sum := sha256.Sum256([]byte("gitmemory redacted name\x00" + secret))
	return rule + "-" + hex.EncodeToString(sum[:4])
}

// markerRanges returns the byte ranges of "[REDACTED:<rule-id>]" markers in
// text.
func markerRanges(text string) [][2]int {
	var out [][2]int
	for off := 0; ; {
		i := strings.Index(text[off:], markerPrefix)
		if i < 0 {
			return out
		}
		start := off + i
		k := start + len(markerPrefix)
		for k < len(text) && isRuleIDByte(text[k]) {
			k++
		}
		if k < len(text) && text[k] == ']' && k > start+len(markerPrefix) {
			out = append(out, [2]int{start, k + 1})
			off = k + 1
		} else {
			off = start + 1
		}
	}
}

func isRuleIDByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.'
}

// dropMarkerOnly removes spans that cover nothing but existing markers, so
// that redacted text is left alone when scanned again, and widens spans
// that cut into a marker to the whole marker. Each pass of Redact therefore
// replaces at least one byte outside markers, and Redact terminates.
func dropMarkerOnly(text string, spans []span) []span {
	if len(spans) == 0 || !strings.Contains(text, markerPrefix) {
		return spans
	}
	markers := markerRanges(text)
	if len(markers) == 0 {
		return spans
	}
	out := spans[:0]
	for _, sp := range spans {
		if coveredByMarkers(sp, markers) {
			continue
		}
		for _, m := range markers {
			if m[0] < sp.end && sp.start < m[1] {
				sp.start = min(sp.start, m[0])
				sp.end = max(sp.end, m[1])
			}
		}
		out = append(out, sp)
	}
	return out
}

// coveredByMarkers reports whether every byte of sp lies in a marker.
func coveredByMarkers(sp span, markers [][2]int) bool {
	pos := sp.start
	i, _ := slices.BinarySearchFunc(markers, pos, func(m [2]int, p int) int {
		if m[1] <= p {
			return -1
		}
		if m[0] > p {
			return 1
		}
		return 0
	})
	for ; i < len(markers) && pos < sp.end; i++ {
		if markers[i][0] > pos {
			return false
		}
		pos = max(pos, markers[i][1])
	}
	return pos >= sp.end
}
