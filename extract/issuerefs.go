package extract

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// The IssueRef kinds. model documents github, jira and url; gitlab and cve
// are added here (see ParseIssueRefs).
const (
	kindGitHub = "github"
	kindGitLab = "gitlab" // group/project!12, GitLab's merge-request shorthand
	kindJira   = "jira"
	kindURL    = "url"
	kindCVE    = "cve"
)

// The patterns only find candidates. Go's regexp has no look-around, so the
// characters either side of a match are checked in code (see accept), and
// so are number ranges, which keeps the compiled programs small. Patterns
// start with a literal where they can, which the regexp package skips to
// with a string search instead of running its matcher at every byte: URL
// schemes are matched in lower case only, and shorthands and Jira keys are
// found by their "#", "!" or "-" and then read backwards (see runStart);
// the CVE and GH patterns run only when their literal occurs. seg is one
// path segment of a URL or shorthand; it may not start with "-" or ".", so
// "/-/" and ".." are never mistaken for one.
const (
	seg     = `[A-Za-z0-9_][A-Za-z0-9_.-]*`
	urlHost = `https?://[A-Za-z0-9.-]+(?::[0-9]+)?`
)

var (
	// GitLab's /-/ form allows nested groups; without it (GitHub, Gitea,
	// old GitLab) the path must be exactly owner/repo, so arbitrary sites
	// with an /issues/ directory are not taken for forges.
	forgeURLRe = regexp.MustCompile(urlHost + `/(?:(` + seg + `(?:/` + seg + `)+)/-/(issues|merge_requests)|(` +
		seg + `/` + seg + `)/(issues|pulls?|merge_requests))/([0-9]+)`)
	jiraURLRe = regexp.MustCompile(urlHost + `(?:/` + seg + `)*/browse/([A-Z][A-Z0-9_]+-[0-9]+)`)
	cveRe     = regexp.MustCompile(`(?:CVE|cve)-([0-9]{4})-([0-9]+)`)
	ghDashRe  = regexp.MustCompile(`(?:GH|gh)-([0-9]+)`)
	hashRe    = regexp.MustCompile(`#([0-9]+)`)
	bangRe    = regexp.MustCompile(`!([0-9]+)`)
	dashRe    = regexp.MustCompile(`-([0-9]+)`)
	// shorthandPathRe vets the owner/repo before a "#" or "!". The first
	// segment has no dots (GitHub owners cannot), so a host without a
	// scheme, as in example.com/page#1, is not taken for an owner.
	shorthandPathRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*(?:/` + seg + `)+$`)
)

// notJira holds uppercase words that precede "-<digits>" in encodings,
// algorithms and standards (UTF-8, SHA-256, ISO-8859, RFC-2616), which
// would otherwise read as Jira keys. CVE and GH have patterns of their own.
var notJira = map[string]bool{
	"AES": true, "ANSI": true, "CAPEC": true, "COVID": true, "CP": true,
	"CRC": true, "CVE": true, "CWE": true, "DDR": true, "DES": true,
	"DSA": true, "ECDSA": true, "ECMA": true, "GH": true, "GHSA": true,
	"HMAC": true, "HTTP": true, "IEC": true, "IEEE": true, "IPV": true,
	"ISO": true, "ISO8859": true, "LATIN": true, "MD": true, "MPEG": true,
	"PBKDF": true, "PEP": true, "POSIX": true, "RFC": true, "RSA": true,
	"SHA": true, "SHA2": true, "SHA3": true, "SSL": true, "TLS": true,
	"UCS": true, "USB": true, "UTF": true, "X86": true,
}

// Issue numbers have at most 9 digits and CVE sequence numbers at most 12.
// maxRefPath bounds shorthand paths and Jira project keys: forges allow far
// less, and the bound keeps runs of path characters from becoming keys.
const (
	maxIssueDigits = 9
	maxCVEDigits   = 12
	maxRefPath     = 255
)

// refPattern pairs a pattern with the function that vets one of its matches
// and builds the reference. Patterns are listed longest-form first: when
// matches overlap, the earliest, then longest, then first-listed wins.
// needs lists strings of which a message must contain one for the pattern
// to match at all; checking them first spares most messages most scans.
type refPattern struct {
	re    *regexp.Regexp
	needs []string
	build func(s string, m []int) (refSpan, bool)
}

var refPatterns = []refPattern{
	{forgeURLRe, []string{"://"}, buildForgeURL},
	{jiraURLRe, []string{"/browse/"}, buildJiraURL},
	{cveRe, []string{"CVE-", "cve-"}, buildCVE},
	{ghDashRe, []string{"GH-", "gh-"}, buildGHDash},
	{hashRe, []string{"#"}, buildHash},
	{bangRe, []string{"!"}, buildBang},
	{dashRe, []string{"-"}, buildJira},
}

// mayMatch reports whether s contains one of p.needs.
func (p refPattern) mayMatch(s string) bool {
	return slices.ContainsFunc(p.needs, func(n string) bool { return strings.Contains(s, n) })
}

// refSpan is a vetted reference and where it sits in the message.
type refSpan struct {
	start, end int
	ref        model.IssueRef
}

// ParseIssueRefs finds the issues, pull requests, merge requests and CVEs
// a commit message mentions, in order of first appearance and once per
// Key. Kind is "github" for #12, GH-12 and owner/repo#12, "gitlab" for
// group/project!12, "jira" for PROJ-12, "cve" for CVE-2021-44228 and "url"
// for issue, pull and merge request URLs of GitHub, GitLab, Gitea and Jira,
// whose Key is the shorthand (owner/repo#12, group/project!12, PROJ-12). A reference is FIXES when a closing verb (fix, close, resolve and
// their -es, -ed, -ing forms, any case, optionally followed by a colon)
// stands right before it or before the list it is part of ("Fixes #1, #2
// and #3"); if a key is mentioned both ways, FIXES wins. Everything else is
// REFERENCES. Hex commit ids, as in git.git's `Fixes: 1234abcd ("subject")`
// trailers, are never references. It returns nil when there are none.
func ParseIssueRefs(message string) []model.IssueRef {
	spans := findRefs(message)
	if len(spans) == 0 {
		return nil
	}
	markFixes(message, spans)
	return dedupeRefs(spans)
}

// findRefs runs every pattern and keeps the non-overlapping matches, so a
// Jira key inside a Jira URL or "CVE-2021" inside a CVE id counts once.
func findRefs(s string) []refSpan {
	var all []refSpan
	for _, p := range refPatterns {
		if !p.mayMatch(s) {
			continue
		}
		for _, m := range p.re.FindAllStringSubmatchIndex(s, -1) {
			if sp, ok := p.build(s, m); ok {
				all = append(all, sp)
			}
		}
	}
	slices.SortStableFunc(all, func(a, b refSpan) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	kept := all[:0]
	for _, sp := range all {
		if len(kept) == 0 || sp.start >= kept[len(kept)-1].end {
			kept = append(kept, sp)
		}
	}
	return kept
}

// markFixes sets each span's Action: FIXES after a closing verb, or after
// a FIXES span when only a list separator lies between them.
func markFixes(s string, spans []refSpan) {
	for i := range spans {
		action := model.References
		switch {
		case endsWithClosingVerb(s[:spans[i].start]):
			action = model.Fixes
		case i > 0 && spans[i-1].ref.Action == model.Fixes &&
			isListSeparator(s[spans[i-1].end:spans[i].start]):
			action = model.Fixes
		}
		spans[i].ref.Action = action
	}
}

// dedupeRefs keeps the first span per Key, upgraded to FIXES if any later
// mention of the key is FIXES.
func dedupeRefs(spans []refSpan) []model.IssueRef {
	var out []model.IssueRef
	seen := make(map[string]int, len(spans))
	for _, sp := range spans {
		if i, ok := seen[sp.ref.Key]; ok {
			if sp.ref.Action == model.Fixes {
				out[i].Action = model.Fixes
			}
			continue
		}
		seen[sp.ref.Key] = len(out)
		out = append(out, sp.ref)
	}
	return out
}

var closingVerbs = map[string]bool{
	"fix": true, "fixes": true, "fixed": true, "fixing": true,
	"close": true, "closes": true, "closed": true, "closing": true,
	"resolve": true, "resolves": true, "resolved": true, "resolving": true,
}

// endsWithClosingVerb reports whether before, the text preceding a
// reference, ends with a closing verb, allowing a colon and whitespace in
// between but not a blank line, which would put them in separate
// paragraphs. It only looks back over whitespace, which ends at the digits
// of the previous reference, and one short word, so the scans over all
// references of a message stay linear in its length.
func endsWithClosingVerb(before string) bool {
	t := strings.TrimRight(before, " \t\r\n")
	if rest, ok := strings.CutSuffix(t, ":"); ok {
		t = strings.TrimRight(rest, " \t\r\n")
	}
	if strings.Count(before[len(t):], "\n") > 1 {
		return false
	}
	i := len(t)
	for i > 0 && len(t)-i <= len("resolving") && isASCIILetter(t[i-1]) {
		i--
	}
	if len(t)-i > len("resolving") || !okBefore(t, i, "") {
		return false
	}
	return closingVerbs[strings.ToLower(t[i:])]
}

// isListSeparator reports whether gap, the text between two references,
// only joins them into a list: whitespace with a comma, "&" or "and", all
// on one line.
func isListSeparator(gap string) bool {
	if len(gap) > 16 || strings.ContainsAny(gap, "\n\r") {
		return false
	}
	switch strings.ToLower(strings.Join(strings.Fields(gap), "")) {
	case "", ",", "&", ",&", "and", ",and":
		return true
	}
	return false
}

// group returns submatch n of m in s, or "" when it did not take part.
func group(s string, m []int, n int) string {
	if m[2*n] < 0 {
		return ""
	}
	return s[m[2*n]:m[2*n+1]]
}

// accept checks a match's surroundings: it must not continue a word on
// either side, nor be preceded by one of badPrev, nor be followed by one of
// badNext and then a digit (a version like "#5.10" or an id like
// "ISO-8859-1" is not an issue).
func accept(s string, m []int, badPrev, badNext string) bool {
	return okBefore(s, m[0], badPrev) && okAfter(s, m[1], badNext)
}

func okBefore(s string, i int, bad string) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !isWordRune(r) && !strings.ContainsRune(bad, r)
}

func okAfter(s string, i int, bad string) bool {
	if i == len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	if isWordRune(r) {
		return false
	}
	followedByDigit := i+1 < len(s) && isASCIIDigit(s[i+1])
	return !(followedByDigit && strings.ContainsRune(bad, r))
}

// validIssueNumber accepts 1 to 9 digits without a leading zero.
func validIssueNumber(d string) bool {
	return len(d) >= 1 && len(d) <= maxIssueDigits && d[0] != '0'
}

// span makes the refSpan for ref found at s[start:end].
func span(s string, start, end int, ref model.IssueRef) (refSpan, bool) {
	ref.Raw = s[start:end]
	return refSpan{start: start, end: end, ref: ref}, true
}

// runStart returns where the run of bytes satisfying in that ends at i
// begins, and false if it is longer than limit. Runs ending at distinct
// anchors ("#", "!", "-") never overlap, so all the scans together are
// linear in the message.
func runStart(s string, i, limit int, in func(byte) bool) (int, bool) {
	j := i
	for j > 0 && in(s[j-1]) {
		if i-j >= limit {
			return j, false
		}
		j--
	}
	return j, true
}

func buildForgeURL(s string, m []int) (refSpan, bool) {
	path, kind := group(s, m, 1), group(s, m, 2)
	if path == "" {
		path, kind = group(s, m, 3), group(s, m, 4)
	}
	num := group(s, m, 5)
	if !validIssueNumber(num) || !accept(s, m, "", ".") {
		return refSpan{}, false
	}
	sep := "#"
	if kind == "merge_requests" {
		sep = "!"
	}
	ref := model.IssueRef{Key: path + sep + num, Kind: kindURL, URL: s[m[0]:m[1]]}
	return span(s, m[0], m[1], ref)
}

func buildJiraURL(s string, m []int) (refSpan, bool) {
	key := group(s, m, 1)
	_, num, _ := strings.Cut(key, "-")
	if !validIssueNumber(num) || !accept(s, m, "", ".") {
		return refSpan{}, false
	}
	return span(s, m[0], m[1], model.IssueRef{Key: key, Kind: kindURL, URL: s[m[0]:m[1]]})
}

func buildCVE(s string, m []int) (refSpan, bool) {
	year, num := group(s, m, 1), group(s, m, 2)
	if len(num) < 4 || len(num) > maxCVEDigits || !accept(s, m, "", ".") {
		return refSpan{}, false
	}
	return span(s, m[0], m[1], model.IssueRef{Key: "CVE-" + year + "-" + num, Kind: kindCVE})
}

func buildGHDash(s string, m []int) (refSpan, bool) {
	num := group(s, m, 1)
	if !validIssueNumber(num) || !accept(s, m, "/", ".") {
		return refSpan{}, false
	}
	return span(s, m[0], m[1], model.IssueRef{Key: "#" + num, Kind: kindGitHub})
}

// buildHash takes owner/repo#12 (GitHub, also GitLab issues) or, failing
// that, a bare #12 unless it follows "&" (an HTML entity such as "&#123;")
// or "/" (a URL fragment).
func buildHash(s string, m []int) (refSpan, bool) {
	num := group(s, m, 1)
	if !validIssueNumber(num) || !okAfter(s, m[1], ".") {
		return refSpan{}, false
	}
	if start, ok := shorthandStart(s, m[0]); ok {
		return span(s, start, m[1], model.IssueRef{Key: s[start:m[0]] + "#" + num, Kind: kindGitHub})
	}
	if !okBefore(s, m[0], "&/") {
		return refSpan{}, false
	}
	return span(s, m[0], m[1], model.IssueRef{Key: "#" + num, Kind: kindGitHub})
}

// buildBang takes group/project!12, GitLab's merge-request shorthand. A
// bare !12 is too common outside issue references to count.
func buildBang(s string, m []int) (refSpan, bool) {
	num := group(s, m, 1)
	start, ok := shorthandStart(s, m[0])
	if !ok || !validIssueNumber(num) || !okAfter(s, m[1], ".") {
		return refSpan{}, false
	}
	return span(s, start, m[1], model.IssueRef{Key: s[start:m[0]] + "!" + num, Kind: kindGitLab})
}

// shorthandStart finds the owner/repo path ending at i. The whole run of
// path characters must be the path: one that merely ends a longer run
// would continue a URL, a file path or an e-mail address.
func shorthandStart(s string, i int) (int, bool) {
	j, ok := runStart(s, i, maxRefPath, isPathByte)
	if !ok || !shorthandPathRe.MatchString(s[j:i]) || !okBefore(s, j, ":@") {
		return 0, false
	}
	return j, true
}

// buildJira takes PROJ-12, found by its "-<digits>". A following "-" or
// ":" and digit marks a multi-part id (ISO-8859-1, RUSTSEC-2021-0001,
// RHSA-2021:1234) that is not a Jira issue. "/" may precede the key, as in
// branch names like feature/PROJ-12-login, which Jira itself links.
func buildJira(s string, m []int) (refSpan, bool) {
	num := group(s, m, 1)
	start, ok := runStart(s, m[0], maxRefPath, isJiraKeyByte)
	project := s[start:m[0]]
	if !ok || len(project) < 2 || !isASCIIUpper(project[0]) || notJira[project] ||
		!validIssueNumber(num) || !okBefore(s, start, "") || !okAfter(s, m[1], ".-:") {
		return refSpan{}, false
	}
	return span(s, start, m[1], model.IssueRef{Key: project + "-" + num, Kind: kindJira})
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isASCIILetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

func isASCIIDigit(b byte) bool { return '0' <= b && b <= '9' }

func isASCIIUpper(b byte) bool { return 'A' <= b && b <= 'Z' }

func isJiraKeyByte(b byte) bool { return isASCIIUpper(b) || isASCIIDigit(b) || b == '_' }

// isPathByte reports whether b may appear in a shorthand's owner/repo path.
func isPathByte(b byte) bool {
	return isASCIILetter(b) || isASCIIDigit(b) || strings.IndexByte("_.-/", b) >= 0
}
