package retrieve

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/vectors"
)

// A key item's evidence says why its commit was chosen: the one sentence
// of its message (subject and body), design notes or added comments that
// is closest to the query under the local embedder, which is offline,
// deterministic and fast enough for the query path.
//
// The subject is usually what the item already shows, so a sentence of
// the body or a note wins when it scores at least evidenceSubjectRatio of
// the subject; the subject is the evidence only when nothing else comes
// close. Below evidenceFloor nothing matches, and the item has none. Of
// equal scores the earlier sentence wins (body, then notes, in order).

// evidenceEmbedder embeds the query and the candidate sentences; made on
// first use, as a program that builds no pack needs none.
var evidenceEmbedder = sync.OnceValue(func() *vectors.Local { return vectors.NewLocal(0) })

const (
	evidenceMinWords     = 4   // a shorter fragment says too little
	evidenceFloor        = 0.1 // cosine below which nothing matches
	evidenceSubjectRatio = 0.7
	// Bounds on the sentences scored per commit, so that a huge message
	// or a commit full of comments costs no more than a normal one.
	evidenceMaxMessage = 32
	evidenceMaxNotes   = 16
)

// Evidence sources.
const (
	evidenceFromMessage = "message"
	evidenceFromNote    = "design note"
)

// evidenceCand is a sentence evidence may be chosen from.
type evidenceCand struct {
	text    string // on one line, clipped to packMaxTextRunes
	source  string
	subject bool
}

// evidenceCands lists the candidate sentences of a commit, each once:
// the subject, the body's sentences, then those of its design notes. A
// sentence of the message that is also a message note is labelled a
// design note.
func evidenceCands(c *packCommit) []evidenceCand {
	rationale := map[string]bool{}
	for _, n := range c.notes {
		if n.Source == "message" {
			rationale[evidenceKey(n.Text)] = true
		}
	}
	var out []evidenceCand
	seen := map[string]bool{}
	add := func(s, source string, subject bool) {
		k := evidenceKey(s)
		if seen[k] {
			return
		}
		seen[k] = true
		if source == evidenceFromMessage && rationale[k] {
			source = evidenceFromNote
		}
		out = append(out, evidenceCand{text: packClip(s, packMaxTextRunes), source: source, subject: subject})
	}
	if s := strings.Join(strings.Fields(c.subject), " "); evidenceUsable(s) && !evidenceSkipLine(s) {
		add(s, evidenceFromMessage, true)
	}
	for _, s := range evidenceSentences(c.body, evidenceMaxMessage) {
		add(s, evidenceFromMessage, false)
	}
	notes := 0
	for _, n := range c.notes {
		for _, s := range evidenceSentences(n.Text, evidenceMaxNotes-notes) {
			add(s, evidenceNoteSource(n), false)
			notes++
		}
	}
	return out
}

func evidenceNoteSource(n model.DesignNote) string {
	switch {
	case n.Source != "comment":
		return evidenceFromNote
	case n.Path == "":
		return "comment"
	}
	return fmt.Sprintf("comment in %s:%d", n.Path, n.Line)
}

// evidenceKey is what makes two sentences the same: their words, lower
// case, without closing punctuation.
func evidenceKey(s string) string {
	return strings.TrimRight(strings.ToLower(strings.Join(strings.Fields(s), " ")), ".!?…:;, ")
}

// packEvidence sets each key item's evidence from its candidates, which it
// then drops. The query and every candidate are embedded in one call. An
// embedder that fails leaves every item without evidence, and the warning
// it returns says so: evidence is not worth failing a pack.
func packEvidence(ctx context.Context, query string, items []KeyItem) (warning string, err error) {
	defer func() {
		for i := range items {
			items[i].cands = nil
		}
	}()
	texts := []string{query}
	for _, it := range items {
		for _, c := range it.cands {
			texts = append(texts, c.text)
		}
	}
	if strings.TrimSpace(query) == "" || len(texts) == 1 {
		return "", nil
	}
	vs, err := evidenceEmbedder().Embed(ctx, texts)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "key commits shown without evidence: " + err.Error(), nil
	}
	q, vs := vs[0], vs[1:]
	for i := range items {
		n := len(items[i].cands)
		items[i].Evidence = bestEvidence(items[i].cands, q, vs[:n])
		vs = vs[n:]
	}
	return "", nil
}

// bestEvidence chooses among cands, whose vectors are vs, for the query
// vector q; nil when none matches.
func bestEvidence(cands []evidenceCand, q []float32, vs [][]float32) *Evidence {
	subj, other := -1, -1
	var subjScore, otherScore float64
	for i, c := range cands {
		s := evidenceCosine(q, vs[i])
		switch {
		case c.subject && (subj < 0 || s > subjScore):
			subj, subjScore = i, s
		case !c.subject && (other < 0 || s > otherScore):
			other, otherScore = i, s
		}
	}
	pick := -1
	switch {
	case other >= 0 && otherScore >= evidenceFloor && (subj < 0 || otherScore >= evidenceSubjectRatio*subjScore):
		pick = other
	case subj >= 0 && subjScore >= evidenceFloor:
		pick = subj
	default:
		return nil
	}
	return &Evidence{Text: cands[pick].text, Source: cands[pick].source}
}

// evidenceCosine is the cosine of two vectors, 0 when one is zero. The
// products are exact in float64, so no fused multiply-add can change the
// sums: the same on every platform.
func evidenceCosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range min(len(a), len(b)) {
		x, y := float64(a[i]), float64(b[i])
		ab, aa, bb = ab+x*y, aa+x*x, bb+y*y
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

var (
	// evidenceTrailer matches a trailer line: "Signed-off-by:", "Change-Id:" ….
	evidenceTrailer = regexp.MustCompile(`(?i)^(?:[a-z]+(?:-[a-z]+)*-by|change-id|cc|reviewed-on|git-svn-id|pr-url|link)\s*:`)
	// evidenceIssueLine matches a line that only references issues:
	// "#12", "Fixes #12, #13", "Closes: org/repo#4", "PROJ-123", "(GH-7)".
	evidenceIssueLine = regexp.MustCompile(`^(?i:(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|refs?|references|see(?:\s+also)?|related(?:\s+to)?|part\s+of|issue|bug)\s*:?\s*)?` +
		evidenceRef + `(?:\s*(?:,|&|(?i:and))?\s*` + evidenceRef + `)*\.?$`)
	// evidenceURLLine matches a line that is only a URL.
	evidenceURLLine = regexp.MustCompile(`^<?[a-zA-Z][a-zA-Z0-9+.-]*://\S+?>?\.?$`)
)

const evidenceRef = `\(?(?:[\w.-]+/[\w.-]+)?(?:#|(?i:gh-)|[A-Z][A-Z0-9_]+-)\d+\)?`

// evidenceSkipLine reports whether a trimmed line is a trailer, or only a
// URL or an issue reference.
func evidenceSkipLine(line string) bool {
	if !strings.ContainsAny(line, ":0123456789") { // each pattern needs one
		return false
	}
	line, _ = evidenceCutBullet(line)
	return evidenceTrailer.MatchString(line) || evidenceURLLine.MatchString(line) || evidenceIssueLine.MatchString(line)
}

// evidenceCutBullet cuts the marker off a list item's first line: "- ",
// "* ", "+ ", "• ", "1. " or "1) ".
func evidenceCutBullet(line string) (string, bool) {
	i := 0
	switch {
	case strings.HasPrefix(line, "•"):
		i = len("•")
	case line != "" && strings.IndexByte("-*+", line[0]) >= 0:
		i = 1
	default:
		for i < len(line) && i < 3 && '0' <= line[i] && line[i] <= '9' {
			i++
		}
		if i == 0 || i == len(line) || line[i] != '.' && line[i] != ')' {
			return line, false
		}
		i++
	}
	if i == len(line) || line[i] != ' ' && line[i] != '\t' {
		return line, false
	}
	return strings.TrimLeft(line[i:], " \t"), true
}

// evidenceSentences splits a message or note into at most limit
// sentences of evidenceMinWords words or more. Paragraphs and list items
// are split apart, the lines of each joined, and each cut into sentences;
// trailers, lines that are only a URL or an issue reference, and fenced
// code are skipped.
func evidenceSentences(text string, limit int) []string {
	var out []string
	var item []string // the lines of the current paragraph or list item
	flush := func() {
		for _, s := range evidenceSplit(strings.Join(item, " ")) {
			if evidenceUsable(s) && len(out) < limit {
				out = append(out, s)
			}
		}
		item = item[:0]
	}
	fenced := false
	for line := range strings.Lines(text) {
		if len(out) >= limit {
			return out
		}
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
			flush()
		case fenced:
		case line == "" || evidenceSkipLine(line):
			flush()
		default:
			if rest, ok := evidenceCutBullet(line); ok {
				flush()
				line = rest
			}
			item = append(item, line)
		}
	}
	flush()
	return out
}

func evidenceUsable(s string) bool { return len(strings.Fields(s)) >= evidenceMinWords }

// evidenceAbbrevs end in a full stop that ends no sentence.
var evidenceAbbrevs = map[string]bool{"e.g": true, "i.e": true, "vs": true, "cf": true, "approx": true,
	"incl": true, "resp": true, "viz": true, "al": true, "fig": true}

// evidenceSplit cuts prose into sentences after '.', '!', '?' or '…', and
// the closing quotes or brackets that follow, where a space and then no
// lower-case letter follow; not after an abbreviation ("e.g."). It cuts
// as understand's design notes do, so that a sentence that is a note is
// found again.
func evidenceSplit(s string) []string {
	s = strings.Join(strings.Fields(s), " ")
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if !strings.ContainsRune(".!?…", r) {
			continue
		}
		j := i
		for j < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[j:])
			if !strings.ContainsRune(".!?…\"')]»”’", r2) {
				break
			}
			j += n2
		}
		if j+1 >= len(s) || s[j] != ' ' {
			continue
		}
		if next, _ := utf8.DecodeRuneInString(s[j+1:]); unicode.IsLower(next) ||
			r == '.' && evidenceAbbrevs[evidenceLastWord(s[start:i-n])] {
			continue
		}
		out = append(out, s[start:j])
		start, i = j+1, j+1
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// evidenceLastWord is the last word of s, lower case, without opening
// brackets or quotes.
func evidenceLastWord(s string) string {
	w := s[strings.LastIndexByte(s, ' ')+1:]
	return strings.ToLower(strings.TrimLeft(w, `("'«“[`))
}
