package understand

// Design notes: the rationale a commit states in its message ("because …",
// "to avoid …", "потому что …") or in comments its diff adds ("NOTE: …").
//
// Decisions (see DesignNotes for the whole contract):
//   - TODO comments are work items about future code, not rationale: a
//     comment block that starts with TODO is never a note, whatever it says.
//   - FIXME is not a marker on its own either (it names a defect, not a
//     reason), but a FIXME block that says why ("FIXME: parsed twice because
//     the lexer is not reentrant") does document the code as it is, so it is
//     kept with the rationale phrase as its marker.
//   - "otherwise", "instead of", "rather than" (and their Russian forms
//     "иначе", "вместо", "в противном случае") mark rationale in a message but
//     in doc comments they mostly describe behaviour ("returns nil
//     otherwise"), so they only count in messages.
//   - Russian markers are matched on stems where the word inflects
//     ("компромисс*", "обходн* пут*", "костыл*"); conjunctions are matched as
//     whole words, "потому, что" and "для того, чтобы" also with the comma,
//     "так как" only without it ("так, как" means "the way"). "т.к." is
//     "так как".

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

const (
	dnSourceMessage = "message"
	dnSourceComment = "comment"
	// dnMaxRunes bounds a note's Text, the "…" included.
	dnMaxRunes = 500
	// dnMaxEntities bounds a note's Entities.
	dnMaxEntities = 10
)

// DesignNotes extracts the rationale of a commit: sentences of its message
// that carry a rationale marker, then comments its diff added that carry a
// NOTE/WHY/HACK/XXX/IMPORTANT tag or a rationale phrase. It is deterministic:
// message notes come first in message order, then comment notes in the order
// of c.Changes and, within a file, by line.
//
// Message: the subject line, each paragraph and each bullet item are split
// into sentences; trailers (Signed-off-by:, Change-Id: …), quoted e-mail
// ("> …", "On … wrote:"), fenced code and diff text are ignored. A sentence is
// a note when it contains a marker; Marker is the marker's canonical form
// ("because", "потому что", …), the earliest one when there are several.
//
// Comments: only lines the diff added ('+') count, never removed or context
// lines; consecutive added comment lines form one block and one note, whose
// Line is the block's first line in the new file. Files with Skipped set or
// Binary are not read. A block that starts with TODO is not a note; FIXME
// alone is not a marker (see the file comment).
//
// Text is the trimmed sentence or comment text, at most 500 runes (cut on a
// word boundary, ending in "…"); Entities are the code names and file paths
// it mentions, at most 10, in order of appearance.
func DesignNotes(c *model.Commit) []model.DesignNote {
	if c == nil {
		return nil
	}
	notes := dnMessageNotes(c.Hash, c.Message)
	for i := range c.Changes {
		fc := &c.Changes[i]
		if fc.Skipped != model.NotSkipped || fc.Binary || len(fc.Hunks) == 0 {
			continue
		}
		notes = append(notes, dnCommentNotes(c.Hash, fc)...)
	}
	return notes
}

// ---------------------------------------------------------------------------
// Markers

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

// ---------------------------------------------------------------------------
// Commit messages

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

// ---------------------------------------------------------------------------
// Comments added by the diff

// dnSyntax is a language's comment syntax.
type dnSyntax struct {
	line   []string    // line-comment tokens
	blocks [][2]string // block-comment delimiters
	// docstrings: Python's triple-quoted strings at the start of a line.
	docstrings bool
	// quotes are the string delimiters skipped when looking for a
	// trailing comment; '`' may span lines.
	quotes string
	// hashWord: a trailing '#' comment needs whitespace before it
	// (shell, YAML, TOML: "a#b" is not a comment).
	hashWord bool
	// starLines: a line starting with '*' continues a /* */ block whose
	// opening the hunk does not show.
	starLines bool

	// Byte tables derived from the above by index (init indexes every
	// syntax), so that a line is scanned token by token only where a token
	// can start.
	//
	// opens holds the bytes that can start what spans lines: a block
	// comment, a docstring, a '`' string. Without them a line outside a
	// comment or string leaves none open.
	opens [256]bool
	// starts adds the bytes that can start a line comment: without any of
	// them a line outside a comment or string has none.
	starts [256]bool
	// special adds the quotes: every other byte is code.
	special [256]bool
	quote   [256]bool // the bytes of quotes
}

// index fills sx's byte tables.
func (sx *dnSyntax) index() {
	mark := func(t *[256]bool, bytes string) {
		for i := 0; i < len(bytes); i++ {
			t[bytes[i]] = true
		}
	}
	for _, b := range sx.blocks {
		mark(&sx.opens, b[0][:1])
	}
	if sx.docstrings {
		mark(&sx.opens, `"'`)
	}
	if strings.IndexByte(sx.quotes, '`') >= 0 {
		mark(&sx.opens, "`")
	}
	sx.starts = sx.opens
	for _, tok := range sx.line {
		mark(&sx.starts, tok[:1])
	}
	sx.special = sx.starts
	mark(&sx.special, sx.quotes)
	mark(&sx.quote, sx.quotes)
}

// dnHasAny reports whether s holds a byte of table t.
func dnHasAny(s string, t *[256]bool) bool {
	for i := 0; i < len(s); i++ {
		if t[s[i]] {
			return true
		}
	}
	return false
}

var (
	dnSyntaxC      = &dnSyntax{line: []string{"//"}, blocks: [][2]string{{"/*", "*/"}}, quotes: "\"'`", starLines: true}
	dnSyntaxPHP    = &dnSyntax{line: []string{"//", "#"}, blocks: [][2]string{{"/*", "*/"}}, quotes: "\"'`", starLines: true}
	dnSyntaxHash   = &dnSyntax{line: []string{"#"}, quotes: "\"'", hashWord: true}
	dnSyntaxPython = &dnSyntax{line: []string{"#"}, docstrings: true, quotes: "\"'"}
	dnSyntaxRuby   = &dnSyntax{line: []string{"#"}, blocks: [][2]string{{"=begin", "=end"}}, quotes: "\"'"}
	dnSyntaxSQL    = &dnSyntax{line: []string{"--"}, blocks: [][2]string{{"/*", "*/"}}, quotes: "\"'", starLines: true}
	dnSyntaxLua    = &dnSyntax{line: []string{"--"}, blocks: [][2]string{{"--[[", "]]"}}, quotes: "\"'"}
	dnSyntaxHs     = &dnSyntax{line: []string{"--"}, blocks: [][2]string{{"{-", "-}"}}, quotes: "\""}
	dnSyntaxLisp   = &dnSyntax{line: []string{";"}, blocks: [][2]string{{"#|", "|#"}}, quotes: "\""}
	dnSyntaxHTML   = &dnSyntax{blocks: [][2]string{{"<!--", "-->"}}}
	dnSyntaxCSS    = &dnSyntax{blocks: [][2]string{{"/*", "*/"}}, quotes: "\"'", starLines: true}
	dnSyntaxHCL    = &dnSyntax{line: []string{"#", "//"}, blocks: [][2]string{{"/*", "*/"}}, quotes: "\"", hashWord: true, starLines: true}
	dnSyntaxTeX    = &dnSyntax{line: []string{"%"}}
	dnSyntaxINI    = &dnSyntax{line: []string{";", "#"}, hashWord: true}
	dnSyntaxVue    = &dnSyntax{line: []string{"//"}, blocks: [][2]string{{"<!--", "-->"}, {"/*", "*/"}}, quotes: "\"'`"}
	// dnSyntaxAny is used for files of unknown language.
	dnSyntaxAny = &dnSyntax{line: []string{"//", "#"}, blocks: [][2]string{{"/*", "*/"}}, quotes: "\"'", hashWord: true, starLines: true}
)

var dnSyntaxByExt = map[string]*dnSyntax{}

func init() {
	add := func(s *dnSyntax, exts ...string) {
		for _, e := range exts {
			dnSyntaxByExt[e] = s
		}
	}
	add(dnSyntaxC, "go", "c", "h", "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "m", "mm",
		"java", "kt", "kts", "scala", "sc", "groovy", "gradle", "js", "jsx", "mjs", "cjs",
		"ts", "tsx", "mts", "cts", "cs", "fs", "rs", "swift", "dart", "proto", "zig", "v",
		"sol", "jsonc", "json5", "less", "scss", "cu", "glsl", "hlsl", "d", "ino")
	add(dnSyntaxPHP, "php", "phpt")
	add(dnSyntaxPython, "py", "pyi", "pyx", "pxd")
	add(dnSyntaxRuby, "rb", "rake", "gemspec")
	add(dnSyntaxHash, "sh", "bash", "zsh", "fish", "ksh", "yaml", "yml", "toml", "pl", "pm",
		"r", "ex", "exs", "cmake", "mk", "make", "nix", "jl", "cr", "nim", "ps1", "psm1",
		"tcl", "awk", "sed", "conf", "cfg", "properties", "dockerfile", "containerfile",
		"graphql", "gql", "bzl", "star", "bats", "gitignore", "dockerignore", "editorconfig",
		"env", "service", "coffee", "gd", "mojo")
	add(dnSyntaxSQL, "sql", "psql", "pgsql", "mysql", "plsql", "ada", "adb", "ads", "vhd", "vhdl")
	add(dnSyntaxLua, "lua")
	add(dnSyntaxHs, "hs", "lhs", "elm", "purs", "agda", "idr")
	add(dnSyntaxLisp, "lisp", "lsp", "cl", "el", "scm", "ss", "rkt", "clj", "cljs", "cljc", "edn", "fnl", "asm")
	add(dnSyntaxHTML, "html", "htm", "xhtml", "xml", "xsd", "xsl", "xslt", "svg", "md",
		"markdown", "mdx", "plist", "csproj", "fsproj", "vbproj", "props", "targets", "pom", "wsdl", "jsp", "erb", "cshtml", "razor", "hbs", "handlebars")
	add(dnSyntaxCSS, "css")
	add(dnSyntaxHCL, "tf", "tfvars", "hcl", "nomad")
	add(dnSyntaxTeX, "tex", "sty", "cls", "bib", "erl", "hrl", "matlab", "pro", "ml", "mli")
	add(dnSyntaxINI, "ini", "reg", "inf")
	add(dnSyntaxVue, "vue", "svelte", "astro")
	// OCaml comments are (* *), not '%'.
	dnSyntaxByExt["ml"] = &dnSyntax{blocks: [][2]string{{"(*", "*)"}}, quotes: "\""}
	dnSyntaxByExt["mli"] = dnSyntaxByExt["ml"]
	for _, m := range []map[string]*dnSyntax{dnSyntaxByExt, dnSyntaxByName, dnSyntaxByLang} {
		for _, sx := range m {
			sx.index()
		}
	}
	dnSyntaxAny.index()
}

var dnSyntaxByName = map[string]*dnSyntax{
	"makefile": dnSyntaxHash, "gnumakefile": dnSyntaxHash, "dockerfile": dnSyntaxHash,
	"containerfile": dnSyntaxHash, "rakefile": dnSyntaxRuby, "gemfile": dnSyntaxRuby,
	"podfile": dnSyntaxRuby, "vagrantfile": dnSyntaxRuby, "brewfile": dnSyntaxRuby,
	"jenkinsfile": dnSyntaxC, "procfile": dnSyntaxHash, "cmakelists.txt": dnSyntaxHash,
	"build": dnSyntaxHash, "workspace": dnSyntaxHash, "justfile": dnSyntaxHash,
	".bashrc": dnSyntaxHash, ".zshrc": dnSyntaxHash, ".profile": dnSyntaxHash,
}

// dnSyntaxByLang maps go-enry language names (lower-cased) for files whose
// name says nothing.
var dnSyntaxByLang = map[string]*dnSyntax{
	"go": dnSyntaxC, "c": dnSyntaxC, "c++": dnSyntaxC, "java": dnSyntaxC, "javascript": dnSyntaxC,
	"typescript": dnSyntaxC, "rust": dnSyntaxC, "c#": dnSyntaxC, "kotlin": dnSyntaxC,
	"swift": dnSyntaxC, "scala": dnSyntaxC, "groovy": dnSyntaxC, "php": dnSyntaxPHP,
	"python": dnSyntaxPython, "ruby": dnSyntaxRuby, "shell": dnSyntaxHash, "perl": dnSyntaxHash,
	"yaml": dnSyntaxHash, "toml": dnSyntaxHash, "makefile": dnSyntaxHash, "dockerfile": dnSyntaxHash,
	"r": dnSyntaxHash, "elixir": dnSyntaxHash, "sql": dnSyntaxSQL, "plsql": dnSyntaxSQL,
	"lua": dnSyntaxLua, "haskell": dnSyntaxHs, "emacs lisp": dnSyntaxLisp, "common lisp": dnSyntaxLisp,
	"clojure": dnSyntaxLisp, "scheme": dnSyntaxLisp, "html": dnSyntaxHTML, "xml": dnSyntaxHTML,
	"markdown": dnSyntaxHTML, "css": dnSyntaxCSS, "hcl": dnSyntaxHCL, "tex": dnSyntaxTeX,
	"erlang": dnSyntaxTeX, "ini": dnSyntaxINI, "vue": dnSyntaxVue,
}

// dnProse files have no comment syntax: nothing in them is a comment.
var dnProse = dnSet("txt", "text", "rst", "adoc", "asciidoc", "org", "json", "csv", "tsv", "lock", "sum", "mod", "patch", "diff", "log")

func dnSyntaxFor(fc *model.FileChange) *dnSyntax {
	p := strings.ReplaceAll(fc.Path, "\\", "/")
	base := strings.ToLower(p[strings.LastIndexByte(p, '/')+1:])
	if s, ok := dnSyntaxByName[base]; ok {
		return s
	}
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		ext := base[i+1:]
		if s, ok := dnSyntaxByExt[ext]; ok {
			return s
		}
		if dnProse[ext] {
			return nil
		}
	}
	if s, ok := dnSyntaxByLang[strings.ToLower(fc.Language)]; ok {
		return s
	}
	return dnSyntaxAny
}

// dnStarLine reports whether line continues a block comment by the
// starLines rule of dnScanLine.
func dnStarLine(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return t == "*" || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "*/")
}

// dnScanState is what a line leaves open for the next one.
type dnScanState struct {
	blockEnd string // inside a block comment or docstring ending with this
	strEnd   string // inside a multi-line string ending with this
}

// Kinds of line, for comment blocks.
const (
	dnLineCode     = iota // code, or blank outside a comment: ends a block
	dnLineComment         // comment only: continues a block
	dnLineTrailing        // a comment next to code: a block of its own
)

// dnScanLine scans one line of the new file and returns its comment text.
func dnScanLine(sx *dnSyntax, st *dnScanState, line string) (text string, kind int) {
	if *st == (dnScanState{}) && !dnHasAny(line, &sx.starts) && !(sx.starLines && dnStarLine(line)) {
		return "", dnLineCode // no comment can start: most lines of code
	}
	var parts []string
	code := false
	commentSeen := false
	i := 0
	if st.strEnd != "" {
		k := strings.Index(line, st.strEnd)
		if k < 0 {
			return "", dnLineCode
		}
		i = k + len(st.strEnd)
		st.strEnd = ""
		code = true
	}
	if st.blockEnd != "" {
		commentSeen = true
		k := strings.Index(line, st.blockEnd)
		if k < 0 {
			return dnCleanCommentLine(line, true), dnLineComment
		}
		parts = append(parts, dnCleanCommentLine(line[:k], true))
		i = k + len(st.blockEnd)
		st.blockEnd = ""
	} else if sx.starLines && dnStarLine(line) {
		t := strings.TrimLeft(line, " \t")
		if k := strings.Index(t, "*/"); k >= 0 {
			rest := strings.TrimSpace(t[k+2:])
			return dnCleanCommentLine(t[:k], true), dnKind(rest != "" && !strings.HasPrefix(rest, "//"), true)
		}
		return dnCleanCommentLine(t, true), dnLineComment
	}
scan:
	for i < len(line) {
		c := line[i]
		if c == ' ' || c == '\t' || c == '\r' {
			i++
			continue
		}
		if !sx.special[c] { // no token starts here: skip the checks below
			code = true
			if c < utf8.RuneSelf {
				i++
			} else {
				_, n := utf8.DecodeRuneInString(line[i:])
				i += n
			}
			continue
		}
		// Python docstrings (and other triple-quoted strings).
		if sx.docstrings && (strings.HasPrefix(line[i:], `"""`) || strings.HasPrefix(line[i:], `'''`)) {
			q := line[i : i+3]
			k := strings.Index(line[i+3:], q)
			if !code {
				commentSeen = true
				if k < 0 {
					parts = append(parts, dnCleanCommentLine(line[i+3:], false))
					st.blockEnd = q
					break scan
				}
				parts = append(parts, dnCleanCommentLine(line[i+3:i+3+k], false))
				i += 6 + k
				continue
			}
			if k < 0 {
				st.strEnd = q
				break scan
			}
			i += 6 + k
			continue
		}
		for _, b := range sx.blocks {
			if strings.HasPrefix(line[i:], b[0]) && (b[0] != "=begin" || i == 0) {
				commentSeen = true
				rest := line[i+len(b[0]):]
				k := strings.Index(rest, b[1])
				if k < 0 {
					parts = append(parts, dnCleanCommentLine(rest, false))
					st.blockEnd = b[1]
					break scan
				}
				parts = append(parts, dnCleanCommentLine(rest[:k], false))
				i += len(b[0]) + k + len(b[1])
				continue scan
			}
		}
		for _, tok := range sx.line {
			if !strings.HasPrefix(line[i:], tok) {
				continue
			}
			if tok == "#" && sx.hashWord && i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
				continue
			}
			commentSeen = true
			parts = append(parts, dnCleanCommentLine(line[i+len(tok):], false))
			break scan
		}
		if sx.quote[c] {
			code = true
			k := dnStringEnd(line, i)
			if k < 0 {
				if c == '`' {
					st.strEnd = "`"
					break scan
				}
				i++ // an apostrophe or an unclosed quote: just a character
				continue
			}
			i = k
			continue
		}
		code = true
		_, n := utf8.DecodeRuneInString(line[i:])
		i += n
	}
	if !commentSeen {
		return "", dnLineCode
	}
	return strings.Join(dnNonEmpty(parts), " "), dnKind(code, true)
}

func dnKind(code, comment bool) int {
	switch {
	case !comment:
		return dnLineCode
	case code:
		return dnLineTrailing
	default:
		return dnLineComment
	}
}

// dnStringEnd returns the index after the string literal opening at i, or
// -1 when it is not closed on the line. A single quote must close within a
// few bytes (a character literal), or it is an apostrophe or a lifetime.
func dnStringEnd(line string, i int) int {
	q := line[i]
	for j := i + 1; j < len(line); j++ {
		if q == '\'' && j-i > 12 {
			return -1
		}
		switch line[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return -1
}

func dnNonEmpty(parts []string) []string {
	out := parts[:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// dnCleanCommentLine strips comment decoration: leading "*" of block
// comment lines, repeated comment characters ("///", "##", ";;"), doc
// markers ("//!", "-- |") and lines that are only decoration.
func dnCleanCommentLine(s string, inBlock bool) string {
	s = strings.TrimSpace(s)
	if inBlock {
		s = strings.TrimLeft(s, "*")
	}
	s = strings.TrimLeft(s, "/#;%*")
	if len(s) > 0 && strings.IndexByte("!<|^-", s[0]) >= 0 && (len(s) == 1 || s[1] == ' ') {
		s = s[1:] // "//! doc", "///< doc", "-- | doc", "--- doc"
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "*/")
	s = strings.TrimSpace(s)
	decoration := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			decoration = false
			break
		}
	}
	if decoration {
		return ""
	}
	return s
}

// dnBlock is a run of consecutive added comment lines.
type dnBlock struct {
	line  int
	parts []string
}

func dnCommentNotes(hash string, fc *model.FileChange) []model.DesignNote {
	sx := dnSyntaxFor(fc)
	if sx == nil {
		return nil
	}
	var notes []model.DesignNote
	var blk dnBlock
	flush := func() {
		if len(blk.parts) > 0 {
			if n, ok := dnCommentNote(hash, fc.Path, blk); ok {
				notes = append(notes, n)
			}
		}
		blk = dnBlock{}
	}
	for _, h := range fc.Hunks {
		text := h.Text
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		cur := h.NewStart
		if cur < 1 {
			cur = 1
		}
		var st dnScanState
		for len(text) > 0 {
			var ln string
			if k := strings.IndexByte(text, '\n'); k >= 0 {
				ln, text = text[:k], text[k+1:]
			} else {
				ln, text = text, ""
			}
			ln = strings.TrimSuffix(ln, "\r")
			var op byte = ' '
			body := ln
			if ln != "" {
				op, body = ln[0], ln[1:]
			}
			switch op {
			case '-', '\\':
				continue // not in the new file; "\ No newline at end of file"
			case '@':
				if ns, ok := dnHunkNewStart(ln); ok {
					flush()
					cur, st = ns, dnScanState{}
				}
				continue
			case '+':
				t, kind := dnScanLine(sx, &st, body)
				switch kind {
				case dnLineComment:
					if len(blk.parts) == 0 && blk.line == 0 {
						blk.line = cur
					}
					if t != "" {
						blk.parts = append(blk.parts, t)
					}
				case dnLineTrailing:
					flush()
					if t != "" {
						blk = dnBlock{line: cur, parts: []string{t}}
					}
					flush()
				default:
					flush()
				}
			default: // context; a line without prefix is a blank context line
				if op != ' ' {
					body = ln
				}
				flush()
				// Only the state it leaves matters, and a line without
				// an opening byte leaves none.
				if st != (dnScanState{}) || dnHasAny(body, &sx.opens) {
					dnScanLine(sx, &st, body)
				}
			}
			if cur < math.MaxInt {
				cur++
			}
		}
		flush()
	}
	sort.SliceStable(notes, func(i, j int) bool { return notes[i].Line < notes[j].Line })
	return notes
}

// dnHunkNewStart parses the new start of a "@@ -a,b +c,d @@" header.
func dnHunkNewStart(ln string) (int, bool) {
	if !strings.HasPrefix(ln, "@@ ") {
		return 0, false
	}
	k := strings.Index(ln, " +")
	if k < 0 {
		return 0, false
	}
	n := 0
	digits := 0
	for j := k + 2; j < len(ln) && ln[j] >= '0' && ln[j] <= '9' && digits < 9; j++ {
		n = n*10 + int(ln[j]-'0')
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	if n < 1 {
		n = 1
	}
	return n, true
}

// Tags that mark a comment as rationale, matched as upper-case words.
var dnTags = []string{"NOTE", "WHY", "HACK", "XXX", "IMPORTANT", "NB"}

// dnCommentNote turns a comment block into a note when it is rationale.
func dnCommentNote(hash, path string, blk dnBlock) (model.DesignNote, bool) {
	text := dnSingleSpace(strings.Join(blk.parts, " "))
	if text == "" || blk.line < 1 {
		return model.DesignNote{}, false
	}
	first := strings.TrimLeft(text, "@")
	if dnHasWordPrefixFold(first, "TODO") || dnIsLicense(text) {
		return model.DesignNote{}, false
	}
	marker := dnCommentTag(text)
	if marker == "" {
		canon, ok := dnFindMarker(strings.ToLower(text), true)
		if !ok {
			return model.DesignNote{}, false
		}
		marker = canon
	}
	return model.DesignNote{
		Commit:   hash,
		Source:   dnSourceComment,
		Path:     path,
		Line:     blk.line,
		Marker:   marker,
		Text:     dnClip(text),
		Entities: dnEntities(text),
	}, true
}

// dnCommentTag finds the earliest tag: an upper-case word anywhere
// ("NOTE(rsc):", "XXX"), or a capitalised one opening the comment with a
// colon ("Note:", "Why:", "Hack:", "Important:").
func dnCommentTag(text string) string {
	// One pass over the text, not one per tag: the first position where a
	// tag fits is the earliest, and no two tags fit at one position.
	for pos := 0; pos < len(text); pos++ {
		if !dnTagFirst[text[pos]] {
			continue
		}
		for _, tag := range dnTags {
			end := pos + len(tag)
			if !strings.HasPrefix(text[pos:], tag) || !dnBoundaryBefore(text, pos) {
				continue
			}
			if r, _ := utf8.DecodeRuneInString(text[end:]); end < len(text) && dnIsWordRune(r) {
				continue
			}
			switch {
			case tag != "NB":
				return tag
			case strings.HasPrefix(text[end:], ":"):
				return "NOTE" // "NB:" only; "NB" is also an abbreviation
			}
		}
	}
	for i, t := range dnTagsOpening {
		if strings.HasPrefix(text, t) {
			return dnTags[i]
		}
	}
	return ""
}

// dnTagFirst holds the first bytes of dnTags: a tag can start nowhere else.
var dnTagFirst = func() (t [256]bool) {
	for _, tag := range dnTags {
		t[tag[0]] = true
	}
	return t
}()

// dnTagsOpening are the capitalised tags that open a comment: "Note:", ...
var dnTagsOpening = func() (out []string) {
	for _, tag := range dnTags[:5] {
		out = append(out, tag[:1]+strings.ToLower(tag[1:])+":")
	}
	return out
}()

func dnHasWordPrefixFold(s, w string) bool {
	if len(s) < len(w) || !strings.EqualFold(s[:len(w)], w) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[len(w):])
	return len(s) == len(w) || !dnIsWordRune(r)
}

// dnIsLicense recognises a licence header, whose boilerplate is no rationale.
func dnIsLicense(text string) bool {
	return strings.Contains(text, "SPDX-License-Identifier") ||
		strings.Contains(text, "Licensed under the") ||
		strings.Contains(text, "Permission is hereby granted") ||
		strings.Contains(text, "Copyright (c)") || strings.Contains(text, "Copyright ©") ||
		strings.Contains(text, "GNU General Public License")
}

// ---------------------------------------------------------------------------
// Entities

// dnKnownExt are file extensions that make a word a file name.
var dnKnownExt = dnSet(
	"go", "py", "pyi", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "java", "kt", "kts",
	"scala", "groovy", "gradle", "rb", "rs", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx",
	"cs", "fs", "php", "swift", "m", "mm", "dart", "lua", "sql", "sh", "bash", "zsh", "ps1",
	"pl", "pm", "ex", "exs", "erl", "hrl", "hs", "elm", "clj", "cljs", "el", "lisp", "scm", "ml",
	"vue", "svelte", "html", "htm", "css", "scss", "sass", "less", "xml", "json", "yaml", "yml",
	"toml", "ini", "cfg", "conf", "proto", "graphql", "gql", "md", "rst", "txt", "mod", "sum",
	"tf", "hcl", "nix", "cmake", "mk", "bzl", "zig", "nim", "jl", "sol", "lock", "csproj", "sln",
	"properties", "env", "dockerfile", "tpl", "tmpl", "j2", "ipynb", "r", "tex",
)

var dnFileNames = dnSet("Makefile", "Dockerfile", "Gemfile", "Rakefile", "Jenkinsfile",
	"Procfile", "Vagrantfile", "Containerfile", "Justfile", "BUILD", "WORKSPACE")

// Words with a CamelCase bump that are product names, not code.
var dnNotCode = dnSet("github", "gitlab", "bitbucket", "javascript", "typescript",
	"coffeescript", "postgresql", "mysql", "nosql", "mongodb", "mariadb", "dynamodb",
	"couchdb", "influxdb", "cockroachdb", "macos", "ios", "ipados", "tvos", "watchos",
	"iphone", "ipad", "youtube", "linkedin", "powershell", "devops", "graphql", "openai",
	"chatgpt", "pypi", "webassembly", "wordpress", "jetbrains", "intellij", "pycharm",
	"openssl", "openssh", "freebsd", "openbsd", "netbsd", "sourceforge", "stackoverflow",
	"phd", "oauth", "devtools", "gitea", "sqlserver", "rabbitmq", "activemq", "zeromq", "nodejs",
	"vscode", "netlify", "circleci", "teamcity", "appveyor", "homebrew", "macbook", "airpods",
	"node.js", "vue.js", "next.js", "nuxt.js", "react.js", "express.js", "d3.js", "three.js", "chart.js")

// Slash-separated words that are prose.
var dnNotPath = dnSet("and/or", "either/or", "read/write", "input/output", "i/o", "tcp/ip",
	"client/server", "yes/no", "on/off", "true/false", "w/o", "w/", "n/a", "a/b", "b/c",
	"s/", "he/she", "his/her", "him/her", "get/set", "encode/decode", "encoding/decoding",
	"start/stop", "open/close", "load/store", "push/pull", "pros/cons", "ci/cd", "pr/mr", "en/ru")

// dnEntities returns the code names and file paths s mentions.
func dnEntities(s string) []string {
	var out []string
	add := func(e string) {
		if e == "" || len(out) >= dnMaxEntities {
			return
		}
		for _, o := range out {
			if o == e {
				return
			}
		}
		out = append(out, e)
	}
	for i := 0; i < len(s) && len(out) < dnMaxEntities; {
		c := s[i]
		if c == '`' {
			j := i
			for j < len(s) && s[j] == '`' {
				j++
			}
			if j-i == 1 {
				if k := strings.IndexByte(s[j:], '`'); k >= 0 {
					add(dnBacktickEntity(s[j : j+k]))
					i = j + k + 1
					continue
				}
			}
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		j := i
		for j < len(s) && s[j] != '`' {
			r, n := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += n
		}
		add(dnWordEntity(s[i:j]))
		i = j
	}
	return out
}

func dnIsIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func dnHasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// dnBacktickEntity accepts `name`, `pkg.Name`, `Foo()`, `path/to/file.go`.
func dnBacktickEntity(x string) string {
	x = strings.TrimSpace(x)
	if x == "" || len(x) > 120 || strings.ContainsAny(x, " \t\n") || !utf8.ValidString(x) {
		return ""
	}
	if k := strings.IndexByte(x, '('); k > 0 && strings.HasSuffix(x, ")") {
		x = x[:k]
	}
	x = strings.TrimLeft(x, "*&")
	if !dnHasLetter(x) || strings.Contains(x, "://") {
		return ""
	}
	return x
}

// dnWordEntity accepts a word that looks like code: a CamelCase bump, an
// underscore, a call "()", a qualified name, or a file path.
func dnWordEntity(tok string) string {
	// Fast path: a plain lower-case word, the common case.
	plain := true
	for i := 0; i < len(tok) && plain; i++ {
		c := tok[i]
		plain = c >= 'a' && c <= 'z' || c == ',' || c == ';' || c == '!' || c == '?' || c == '"' || c == '\'' || c == '.' && i == len(tok)-1
	}
	if plain {
		return ""
	}
	t := strings.TrimLeftFunc(tok, func(r rune) bool {
		switch r {
		case '(', '"', '\'', '[', '{', '<', '«', '“', '‘', '*', '&':
			return true
		}
		return false
	})
	t = strings.TrimRightFunc(t, func(r rune) bool {
		switch r {
		case '.', ',', ';', ':', '!', '?', '"', '\'', '»', '”', '’', ']', '}', '>':
			return true
		}
		return false
	})
	call := false
	if k := strings.IndexByte(t, '('); k >= 0 {
		if k == 0 {
			return ""
		}
		call = strings.HasSuffix(t, ")")
		t = t[:k]
	}
	t = strings.TrimRight(t, ").,;:")
	if t == "" || len(t) > 200 || !dnHasLetter(t) || strings.Contains(t, "://") {
		return ""
	}
	slash := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case dnIsIdentByte(c), c == '.', c == ':', c == '#':
		case c == '/':
			slash = true
		case c == '-', c == '+', c == '@', c == '~':
		default:
			return ""
		}
	}
	lower := strings.ToLower(t)
	if slash {
		// owner/repo#123 is an issue, not a file.
		if dnNotPath[lower] || strings.Contains(t, "//") || strings.HasPrefix(t, "@") || strings.Contains(t, "#") {
			return ""
		}
		return strings.TrimSuffix(t, "/")
	}
	if dnFileNames[t] {
		return t
	}
	if strings.ContainsAny(t, "@+~") {
		return "" // e-mail addresses, mentions, versions like "1.2+dev"
	}
	if k := strings.LastIndexByte(t, '.'); k > 0 && k < len(t)-1 && dnKnownExt[lower[k+1:]] {
		stem := t[:k]
		if !dnNotCode[lower] && dnHasLetter(stem) && !strings.Contains(stem, "..") {
			return t
		}
	}
	if strings.Contains(t, "-") {
		return ""
	}
	if dnNotCode[lower] {
		return ""
	}
	if call && dnIsIdentish(t) {
		return t
	}
	if strings.Contains(t, "_") && dnIsIdentish(t) && strings.Trim(t, "_") != "" {
		return t
	}
	if dnHasCamelBump(t) && dnIsIdentish(t) {
		return t
	}
	// Qualified names: pkg.Name, Foo::bar, Foo#bar.
	if strings.ContainsAny(t, ".:#") && dnIsIdentish(t) {
		segs := strings.FieldsFunc(t, func(r rune) bool { return r == '.' || r == ':' || r == '#' })
		if len(segs) >= 2 {
			for _, sg := range segs[1:] {
				if sg[0] >= 'A' && sg[0] <= 'Z' || strings.Contains(t, "::") || strings.Contains(t, "#") {
					return t
				}
			}
		}
	}
	return ""
}

// dnIsIdentish: identifier segments joined by '.', "::" or '#', nothing
// else, and no empty segment.
func dnIsIdentish(t string) bool {
	if t == "" {
		return false
	}
	prevSep := true
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case dnIsIdentByte(c):
			prevSep = false
		case c == '.' || c == '#':
			if prevSep {
				return false
			}
			prevSep = true
		case c == ':':
			if i+1 < len(t) && t[i+1] == ':' && !prevSep {
				i++
				prevSep = true
				continue
			}
			return false
		default:
			return false
		}
	}
	return !prevSep
}

// dnHasCamelBump: a lower-case letter followed by an upper-case one
// ("parseConfig", "NewReader"), or an acronym followed by a capitalised word
// ("RWMutex", "HTTPServer"; not "URLs", "IDs").
func dnHasCamelBump(t string) bool {
	up := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	lo := func(c byte) bool { return c >= 'a' && c <= 'z' }
	for i := 1; i < len(t); i++ {
		if up(t[i]) && lo(t[i-1]) {
			return true
		}
		if i >= 2 && i+2 < len(t) && up(t[i-2]) && up(t[i-1]) && lo(t[i]) && lo(t[i+1]) && lo(t[i+2]) {
			return true
		}
	}
	return false
}
