package understand

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// Design notes from a commit message: its items (subject, paragraphs,
// bullets) without trailers, quoted mail or diff text, split into sentences.

func dnMessageNotes(hash, msg string) []model.DesignNote {
	if msg == "" {
		return nil
	}
	if !utf8.ValidString(msg) {
		msg = strings.ToValidUTF8(msg, "\uFFFD")
	}
	var notes []model.DesignNote
	for _, item := range dnMessageItems(msg) {
		// An ASCII item is lower-cased once: its offsets hold in the copy.
		lowItem := ""
		if dnIsASCII(item) {
			lowItem = strings.ToLower(item)
		}
		for _, span := range dnSentences(item) {
			s, low := item[span[0]:span[1]], ""
			if lowItem != "" {
				low = lowItem[span[0]:span[1]]
			} else {
				low = strings.ToLower(s)
			}
			canon, ok := dnFindMarker(low, false)
			if !ok {
				continue
			}
			notes = append(notes, model.DesignNote{
				Commit:   hash,
				Source:   dnSourceMessage,
				Marker:   canon,
				Text:     dnClip(s),
				Entities: dnEntities(s),
			})
		}
	}
	return notes
}

// Trailer keys that never introduce prose: lines with them are dropped
// wherever they are.
var dnTrailerKeys = dnSet(
	"signed-off-by", "co-authored-by", "co-developed-by", "change-id",
	"reviewed-by", "acked-by", "tested-by", "reported-by", "suggested-by",
	"helped-by", "requested-by", "approved-by", "reviewed-on", "cc",
	"git-svn-id", "original-commit-id", "cherry-picked-from",
)

// Trailer keys whose value is usually an ID or URL: dropped when it is.
var dnIDTrailerKeys = dnSet(
	"fixes", "closes", "resolves", "refs", "ref", "see-also", "link", "issue",
	"issues", "jira", "ticket", "bug", "pr", "pull-request", "pr-url",
	"differential revision", "related", "relates-to",
)

// dnTrailerKey returns the lower-cased key of a "Key: value" line.
func dnTrailerKey(line string) (key, value string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 0 || i > 40 {
		return "", "", false
	}
	key = line[:i]
	for j := 0; j < len(key); j++ {
		c := key[j]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == ' ' && key == "Differential Revision") {
			return "", "", false
		}
	}
	value = line[i+1:]
	if value != "" && value[0] != ' ' && value[0] != '\t' {
		return "", "", false
	}
	return strings.ToLower(key), strings.TrimSpace(value), true
}

func dnIsDroppedTrailer(line string) bool {
	key, value, ok := dnTrailerKey(line)
	if !ok {
		return false
	}
	if dnTrailerKeys[key] {
		return true
	}
	if dnIDTrailerKeys[key] {
		first, _, _ := strings.Cut(value, " ")
		return strings.ContainsAny(first, "0123456789#") || strings.Contains(first, "://")
	}
	return false
}

func dnIsDiffStart(t string) bool {
	return strings.HasPrefix(t, "diff --git ") || strings.HasPrefix(t, "--- a/") ||
		strings.HasPrefix(t, "+++ b/") || strings.HasPrefix(t, "--- /dev/null") ||
		strings.HasPrefix(t, "+++ /dev/null") || strings.HasPrefix(t, "@@ -")
}

func dnIsDiffLine(raw string) bool {
	if raw == "" {
		return true
	}
	switch raw[0] {
	case '+', '-', ' ', '\t', '@', '\\':
		return true
	}
	return strings.HasPrefix(raw, "diff ") || strings.HasPrefix(raw, "index ") ||
		strings.HasPrefix(raw, "new file mode") || strings.HasPrefix(raw, "deleted file mode") ||
		strings.HasPrefix(raw, "similarity ") || strings.HasPrefix(raw, "rename ")
}

// dnMessageItems returns the message's subject, paragraphs and bullet
// items as single-spaced texts, without trailers, quotes, code and diffs.
func dnMessageItems(msg string) []string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	skip := make([]bool, len(lines))

	// Fenced code, quoted e-mail, diffs, trailers anywhere.
	fence := ""
	inDiff := false
	for i, raw := range lines {
		t := strings.TrimSpace(raw)
		if fence != "" {
			skip[i] = true
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			skip[i] = true
			continue
		}
		if inDiff {
			if dnIsDiffLine(raw) {
				skip[i] = true
				continue
			}
			inDiff = false
		}
		if dnIsDiffStart(t) {
			inDiff = true
			skip[i] = true
			continue
		}
		switch {
		case strings.HasPrefix(t, ">"),
			strings.HasPrefix(t, "On ") && strings.HasSuffix(t, "wrote:"),
			strings.HasSuffix(t, "пишет:"), strings.HasSuffix(t, "написал:"), strings.HasSuffix(t, "написала:"),
			strings.HasPrefix(t, "(cherry picked from commit"),
			strings.HasPrefix(t, "This reverts commit "),
			dnIsDroppedTrailer(t):
			skip[i] = true
		}
	}

	// The trailer block: the last paragraph, when all of its lines are
	// "Key: value" (or folded continuations) and one key is a known one.
	// Of its lines with unknown keys only those whose value is a single
	// token ("Message-Id: <…>") are dropped: "Note: …" may be prose.
	end := len(lines)
	for end > 0 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	start := end
	for start > 1 && strings.TrimSpace(lines[start-1]) != "" {
		start--
	}
	if start > 0 && start < end { // never the subject line
		known, all := false, true
		for i := start; i < end && all; i++ {
			if skip[i] {
				known = known || dnIsDroppedTrailer(strings.TrimSpace(lines[i]))
				continue
			}
			l := lines[i]
			if l[0] == ' ' || l[0] == '\t' {
				continue
			}
			key, _, ok := dnTrailerKey(strings.TrimSpace(l))
			if !ok {
				all = false
				break
			}
			if dnTrailerKeys[key] || dnIDTrailerKeys[key] {
				known = true
			}
		}
		if all && known {
			for i := start; i < end; i++ {
				if _, value, ok := dnTrailerKey(strings.TrimSpace(lines[i])); ok && !strings.ContainsAny(value, " \t") {
					skip[i] = true
				}
			}
		}
	}

	var items []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			if s := dnSingleSpace(strings.Join(cur, " ")); s != "" {
				items = append(items, s)
			}
			cur = cur[:0]
		}
	}
	for i, raw := range lines {
		t := strings.TrimSpace(raw)
		if skip[i] || t == "" {
			flush()
			continue
		}
		if body, ok := dnBullet(t); ok {
			flush()
			cur = append(cur, body)
			continue
		}
		if h := strings.TrimLeft(t, "#"); len(h) < len(t) && strings.HasPrefix(h, " ") {
			flush() // a Markdown heading stands alone
			cur = append(cur, h)
			flush()
			continue
		}
		cur = append(cur, t)
		if i == 0 {
			flush() // the subject line stands alone
		}
	}
	flush()
	return items
}

// dnSingleSpace is strings.Join(strings.Fields(s), " "), and s itself
// when that is s already, as most lines are.
func dnSingleSpace(s string) string {
	space := true // at the start, or after a space
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' && !space:
			space = true
			continue
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				return strings.Join(strings.Fields(s), " ")
			}
			i += n - 1
		case c <= ' ': // a second space, or a control character
			return strings.Join(strings.Fields(s), " ")
		}
		space = false
	}
	if space && s != "" { // a trailing space
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}

// dnBullet strips a list marker ("- ", "* ", "• ", "1. ", "2) ").
func dnBullet(t string) (string, bool) {
	for _, p := range []string{"- ", "* ", "+ ", "• ", "– ", "— "} {
		if strings.HasPrefix(t, p) {
			return strings.TrimSpace(t[len(p):]), true
		}
	}
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return strings.TrimSpace(t[i+2:]), true
	}
	return "", false
}

// Abbreviations after which a full stop does not end a sentence.
var dnAbbrev = dnSet("e.g", "i.e", "vs", "cf", "approx", "incl", "resp", "viz",
	"al", "fig", "mr", "mrs", "dr", "т.е", "т.к", "т", "т.н", "напр", "см", "ср", "англ")

// dnSentences splits a single-spaced text after '.', '!', '?' or '…' when
// whitespace and a character that is not a lower-case letter follow. It
// returns the sentences' spans in s, trimmed.
func dnSentences(s string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != '.' && r != '!' && r != '?' && r != '…' && r != '。' {
			i += n
			continue
		}
		j := i + n
		for j < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[j:])
			if !strings.ContainsRune(".!?…\"')]»”’", r2) {
				break
			}
			j += n2
		}
		if j < len(s) && s[j] == ' ' {
			k := j + 1
			next, _ := utf8.DecodeRuneInString(s[k:])
			if k < len(s) && !unicode.IsLower(next) && !(r == '.' && dnAbbrevBefore(s[start:i])) {
				if span, ok := dnTrimSpan(s, start, j); ok {
					out = append(out, span)
				}
				start = k
			}
		}
		i = j
	}
	if span, ok := dnTrimSpan(s, start, len(s)); ok {
		out = append(out, span)
	}
	return out
}

// dnTrimSpan returns the span of strings.TrimSpace(s[start:end]) in s, and
// whether it is not empty.
func dnTrimSpan(s string, start, end int) ([2]int, bool) {
	t := strings.TrimSpace(s[start:end])
	start += len(s[start:end]) - len(strings.TrimLeftFunc(s[start:end], unicode.IsSpace))
	return [2]int{start, start + len(t)}, t != ""
}

func dnIsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func dnAbbrevBefore(s string) bool {
	w := s[strings.LastIndexByte(s, ' ')+1:]
	w = strings.TrimLeft(w, "(\"'«“")
	return dnAbbrev[strings.ToLower(w)]
}

// dnClip trims s and cuts it to dnMaxRunes runes on a word boundary.
func dnClip(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= dnMaxRunes {
		return s
	}
	cut, n := len(s), 0
	for i := range s {
		if n == dnMaxRunes-1 {
			cut = i
			break
		}
		n++
	}
	head := s[:cut]
	if k := strings.LastIndexFunc(head, unicode.IsSpace); k > len(head)/2 {
		head = head[:k]
	}
	head = strings.TrimRightFunc(head, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:-–—", r)
	})
	if head == "" {
		head = s[:cut]
	}
	return head + "…"
}
