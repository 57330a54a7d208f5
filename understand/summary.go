package understand

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// MaxSummaryRunes bounds the length of Summarize's result.
const MaxSummaryRunes = 160

// Summarize returns a one-line summary of c, extracted from what c already
// says; it is deterministic and needs no network. In order of preference:
//
//   - for a merge, "Merge <branch>[: <title>] (N files resolved)": the
//     branch, PR or tag from the subject (else the subject), the title
//     from the body's first informative sentence, and N the files the
//     merge itself changed (the count only for a commit with merge
//     parents; a single-parent commit with a merge subject has none);
//   - the subject without conventional-commit type, gitmoji, bracket tags,
//     ticket keys, PR numbers and "[skip ci]", when it says more than
//     "wip", "fix", "update", "misc" or "." (a lone token after the type,
//     as in "release: v3.4.3", keeps the type);
//   - else the body's first informative sentence, followed by the files
//     touched when they fit;
//   - else a sentence built from the files: "Update 3 files in extract/:
//     repo.go, walk.go, pack.go", its verb taken from a confident
//     classification cl ("Fix", "Clean up", ...) or from the statuses;
//   - else the subject as written, else "Empty commit".
//
// The result is at most MaxSummaryRunes runes of valid UTF-8 on one line,
// and empty only for a nil commit.
func Summarize(c *model.Commit, cl model.Classification) string {
	if c == nil {
		return ""
	}
	return smTruncate(smOneLine(smSummary(c, cl)), MaxSummaryRunes)
}

// smSummary chooses the summary's source (see Summarize).
func smSummary(c *model.Commit, cl model.Classification) string {
	subject, body := smSplitMessage(c.Message)
	if c.IsMerge || cl.Primary.Type == model.Merge && clsIsMergeSubject(subject) {
		return smMerge(c, subject, body)
	}
	if s := smSubject(subject); smInformative(s) && !model.Placeholder(subject) {
		return s
	}
	if s := smBodySentence(body); s != "" {
		return smWithFiles(s, c.Changes)
	}
	if len(c.Changes) > 0 {
		return smVerb(c.Changes, cl) + " " + smFilesPhrase(c.Changes)
	}
	return smFallback(subject, body)
}

// smOneLine makes s valid UTF-8 on one line: control characters (file
// names may hold newlines) become spaces, runs of spaces one.
func smOneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if s = smCollapse(s); s == "" {
		return "Empty commit"
	}
	return s
}

// smSplitMessage splits msg into its first non-blank line, repaired
// (valid UTF-8, control characters as spaces, spaces collapsed), and the
// rest as it is: the body is read only when the subject says too little,
// and Summarize repairs its result.
func smSplitMessage(msg string) (subject, body string) {
	msg = strings.TrimLeft(msg, " \t\r\n")
	subject, body, _ = strings.Cut(msg, "\n")
	subject = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(subject, " "))
	return smCollapse(subject), body
}

// smCollapse turns runs of white space into single spaces and trims.
func smCollapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

var (
	smWIPPrefix = regexp.MustCompile(`(?i)^(?:wip|draft)\b\s*[:\-–]?\s*`)
	smJiraKeyRe = regexp.MustCompile(`^[A-Z][A-Z0-9_]+-[0-9]+$`)
	// smCISkips are the tags that tell CI to skip a commit.
	smCISkips = clsSet("skip_ci ci_skip skip-ci no_ci skip_actions wip")
	// smCloseWords precede an issue a subject closes: "closes #12".
	smCloseWords = clsSet("close closes closed fix fixes fixed resolve resolves resolved ref refs")
)

// smSubject cleans a subject of its conventional prefix and ticket noise.
// A description of one token ("release: v3.4.3", "chore: crlf") keeps its
// prefix, which says more than the token alone.
func smSubject(subject string) string {
	s := smTrimNoise(clsSplitPrefix(subject).rest)
	if m := smWIPPrefix.FindString(s); m != "" && len(m) < len(s) {
		s = s[len(m):]
	}
	if !strings.Contains(s, " ") {
		if full := smTrimNoise(subject); strings.HasSuffix(full, s) {
			return full
		}
	}
	if s != strings.TrimSpace(subject) {
		s = smCapitalize(s)
	}
	return s
}

// smTrimNoise removes ticket references ("(#123)", "(PROJ-9)", "closes
// #12") and "[skip ci]" from the end of s (a few: real subjects carry one
// or two), and a final period.
func smTrimNoise(s string) string {
	for range 4 {
		t, ok := smTrimNoiseOnce(s)
		if !ok {
			break
		}
		s = t
	}
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "..") {
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// smTrimNoiseOnce removes one piece of trailing noise from s, unless that
// would leave nothing.
func smTrimNoiseOnce(s string) (string, bool) {
	t := strings.TrimRight(s, " \t")
	if n := len(t); n > 0 && (t[n-1] == ')' || t[n-1] == ']') {
		open := byte('(')
		if t[n-1] == ']' {
			open = '['
		}
		if i := strings.LastIndexByte(t, open); i > 0 {
			inner := t[i+1 : n-1]
			if open == '(' && smIsRefList(inner) ||
				open == '[' && smCISkips[strings.ReplaceAll(strings.ToLower(inner), " ", "_")] {
				return strings.TrimRight(t[:i], " \t"), true
			}
		}
	}
	u := strings.TrimSuffix(t, ")") // "closes #12", "(fixes #12)"
	j := strings.LastIndexByte(u, ' ')
	if j < 0 || !smIsIssue(u[j+1:]) {
		return s, false
	}
	v := strings.TrimRight(u[:j], " \t")
	k := strings.LastIndexAny(v, " (")
	if !smCloseWords[strings.ToLower(v[k+1:])] {
		return s, false
	}
	if v = strings.TrimRight(v[:k+1], " \t(,;:"); v == "" {
		return s, false
	}
	return v, true
}

// smIsRefList reports whether s lists issue numbers or ticket keys:
// "#12", "#12, #13", "PROJ-9".
func smIsRefList(s string) bool {
	for ref := range strings.SplitSeq(s, ",") {
		ref = strings.TrimSpace(ref)
		if !smIsIssue(ref) && !smJiraKeyRe.MatchString(ref) {
			return false
		}
	}
	return true
}

// smIsIssue reports whether s is "#" and digits.
func smIsIssue(s string) bool {
	if len(s) < 2 || s[0] != '#' {
		return false
	}
	for _, c := range []byte(s[1:]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// smCapitalize upper-cases the first letter of s when its first word is
// made of lower-case letters only: "add x" becomes "Add x", but
// "checksums.split", "v3.4.3" and "doc: x" stay as they are.
func smCapitalize(s string) string {
	word, _, _ := strings.Cut(s, " ")
	for _, r := range word {
		if !unicode.IsLower(r) {
			return s
		}
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// smFiller are words that say nothing about a change on their own.
var smFiller = clsSet("wip fix fixes fixed fixing fixup update updates updated updating misc miscellaneous " +
	"minor small some more various stuff things thing changes change changed tmp temp commit commits save " +
	"saved work working progress in on of the a an and to it its this that again final finally done todo " +
	"try trying another one code file files edit edits tweak tweaks improvements improvement improve bug " +
	"bugs bugfix bugfixes typo typos cleanup clean up refactor refactoring test tests testing squash " +
	"squashed amend review feedback address comments pr asdf foo bar lint format formatting pending oops " +
	"ok conflicts for with from by at is was be as " +
	"ещё еще правки правка фикс фиксы исправления исправление изменения изменение обновление мелкие " +
	"мелочи вип тест тесты коммит доработки доработка рефакторинг и в по на с для")

// smInformative reports whether s has a word that is not filler.
func smInformative(s string) bool {
	for w := range strings.FieldsSeq(clsNormalize(s)) {
		if !smFiller[w] && utf8.RuneCountInString(w) >= 2 {
			return true
		}
	}
	return false
}

// smBodySentence returns the first informative sentence of a body's prose,
// skipping trailers, comments, code, quoted revert lines and shortlog
// headers ("* branch-name:"). A list item or an indented line (a shortlog
// entry) is a paragraph of its own.
func smBodySentence(body string) string {
	text, _ := clsSplitTrailers(body)
	var para []string
	fenced := false
	flush := func() string {
		s := smFirstSentence(strings.Join(para, " "))
		para = para[:0]
		if len(strings.Fields(s)) >= 2 && smInformative(s) {
			return smCapitalize(s)
		}
		return ""
	}
	for line := range strings.Lines(text + "\n") {
		raw := strings.TrimRight(line, "\r\n")
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "```") {
			fenced = !fenced
			continue
		}
		bullet, isBullet := smStripBullet(t)
		skip := fenced || strings.HasPrefix(raw, "\t") || strings.HasPrefix(raw, "    ") ||
			strings.HasPrefix(t, "#") || strings.HasPrefix(strings.ToLower(t), "this reverts commit") ||
			strings.HasSuffix(t, ":") && (isBullet || !strings.Contains(t, " "))
		if t == "---" {
			break
		}
		own := isBullet || strings.HasPrefix(raw, " ")
		if t == "" || skip || own {
			if s := flush(); s != "" {
				return s
			}
		}
		if t != "" && !skip {
			para = append(para, bullet)
		}
		if own {
			if s := flush(); s != "" {
				return s
			}
		}
	}
	return flush()
}

// smStripBullet removes a list marker from a trimmed line.
func smStripBullet(t string) (string, bool) {
	for _, b := range []string{"* ", "- ", "+ ", "• "} {
		if strings.HasPrefix(t, b) {
			return strings.TrimSpace(t[len(b):]), true
		}
	}
	return t, false
}

// smFirstSentence returns s up to its first sentence end, without the
// final punctuation.
func smFirstSentence(s string) string {
	s = smCollapse(s)
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') && !smAbbrevBefore(s[:i]) {
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimRight(s, ":;,. ")
}

// smAbbrevBefore reports whether s ends with an abbreviation ("e.g",
// "etc") or an initial ("J. Doe"): no sentence ends there.
func smAbbrevBefore(s string) bool {
	word := strings.ToLower(s[strings.LastIndexAny(s, " (")+1:])
	return len(word) == 1 || smAbbrevs[word]
}

var smAbbrevs = clsSet("e.g i.e etc vs cf approx incl resp viz")

// smWithFiles appends the files touched to a sentence when they fit.
func smWithFiles(s string, changes []model.FileChange) string {
	if len(changes) == 0 {
		return s
	}
	var files string
	if len(changes) == 1 {
		files = changes[0].Path
	} else if dir := smCommonDir(changes); dir != "" {
		files = fmt.Sprintf("%d files in %s/", len(changes), dir)
	} else {
		files = fmt.Sprintf("%d files", len(changes))
	}
	if out := s + " (" + files + ")"; utf8.RuneCountInString(out) <= MaxSummaryRunes {
		return out
	}
	return s
}

// smTypeVerbs are the verbs of a file-built summary for a confidently
// classified commit whose files were modified; other types, and files all
// added, removed or renamed, use the statuses' verb.
var smTypeVerbs = map[model.ChangeType]string{
	model.Bugfix: "Fix", model.Cleanup: "Clean up", model.Refactor: "Refactor",
	model.Performance: "Optimize", model.Revert: "Revert changes to",
}

// smVerb chooses the verb of a file-built summary.
func smVerb(changes []model.FileChange, cl model.Classification) string {
	if v := smStatusVerb(changes); v != "" {
		return v
	}
	if v, ok := smTypeVerbs[cl.Primary.Type]; ok && cl.Primary.Confidence >= 0.5 {
		return v
	}
	return "Update"
}

// smStatusVerb is "Add", "Remove", "Rename" or "Copy" when every file had
// that status, else "".
func smStatusVerb(changes []model.FileChange) string {
	verb := ""
	for _, fc := range changes {
		v := map[model.ChangeStatus]string{model.Added: "Add", model.Deleted: "Remove", model.Renamed: "Rename",
			model.Copied: "Copy"}[fc.Status]
		if v == "" || verb != "" && v != verb {
			return ""
		}
		verb = v
	}
	return verb
}

// smFilesPhrase names the files changed: "extract/repo.go", "a.go to b.go"
// for one rename, "3 files in extract/: repo.go, walk.go, pack.go" or
// "5 files: a.go, b/c.go, d.go, ...".
func smFilesPhrase(changes []model.FileChange) string {
	if len(changes) == 1 {
		fc := changes[0]
		if fc.Status == model.Renamed && fc.OldPath != "" {
			return fc.OldPath + " to " + fc.Path
		}
		return fc.Path
	}
	dir := smCommonDir(changes)
	var names []string
	for i, fc := range changes {
		if i == 3 {
			names = append(names, "...")
			break
		}
		name := fc.Path
		if dir != "" {
			name = strings.TrimPrefix(name, dir+"/")
		}
		names = append(names, name)
	}
	if dir == "" {
		return fmt.Sprintf("%d files: %s", len(changes), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%d files in %s/: %s", len(changes), dir, strings.Join(names, ", "))
}

// smCommonDir is the deepest directory holding every changed file, or "".
func smCommonDir(changes []model.FileChange) string {
	dir := ""
	for i, fc := range changes {
		d := path.Dir(fc.Path)
		if d == "." || d == "/" {
			return ""
		}
		if i == 0 {
			dir = d
			continue
		}
		for dir != "" && d != dir && !strings.HasPrefix(d, dir+"/") {
			if p := path.Dir(dir); p != "." && p != "/" && p != dir {
				dir = p
			} else {
				dir = ""
			}
		}
	}
	return dir
}

var (
	smMergePR     = regexp.MustCompile(`^Merge pull request (#[0-9]+) from (\S+)`)
	smMergeBranch = regexp.MustCompile(`^Merge (?:remote-tracking |remote )?branch(?:es)? '([^']+)'(?: of \S+)?(?: into '?([^'\s]+)'?)?`)
	smMergeTag    = regexp.MustCompile(`^Merge tags? '([^']+)'`)
	smMergedIn    = regexp.MustCompile(`^Merged in (\S+)`)
)

// smMerge summarises a merge: the branch or tag merged, the title its body
// gives, and how many files the merge itself changed.
func smMerge(c *model.Commit, subject, body string) string {
	head := ""
	switch {
	case smMergePR.MatchString(subject):
		m := smMergePR.FindStringSubmatch(subject)
		head = "Merge " + m[2] + " (" + m[1] + ")"
	case smMergeBranch.MatchString(subject):
		m := smMergeBranch.FindStringSubmatch(subject)
		head = "Merge " + m[1]
		if m[2] != "" {
			head += " into " + m[2]
		}
	case smMergeTag.MatchString(subject):
		head = "Merge tag " + smMergeTag.FindStringSubmatch(subject)[1]
	case smMergedIn.MatchString(subject):
		head = "Merge " + smMergedIn.FindStringSubmatch(subject)[1]
	default:
		head = smSubject(subject)
		if head == "" {
			head = "Merge"
		}
	}
	tail := ""
	if c.IsMerge {
		n := len(c.Changes)
		tail = fmt.Sprintf(" (%d file%s resolved)", n, map[bool]string{true: "", false: "s"}[n == 1])
	}
	room := MaxSummaryRunes - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	if title := smBodySentence(body); title != "" && room >= 12 {
		head += ": " + smTruncate(title, room-2)
	}
	return smTruncate(head, MaxSummaryRunes-utf8.RuneCountInString(tail)) + tail
}

// smFallback is the summary of a commit with nothing better to say.
func smFallback(subject, body string) string {
	if subject != "" {
		return subject
	}
	if s := smCollapse(body); s != "" {
		return s
	}
	return "Empty commit"
}

// smTruncate shortens s to at most max runes, at a word boundary when one
// is near, marking the cut with "…".
func smTruncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	if max <= 1 {
		return string([]rune(s)[:max])
	}
	r := []rune(s)[:max-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-") + "…"
}
