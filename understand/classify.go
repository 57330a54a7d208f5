package understand

import (
	"iter"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// Classification scoring
//
// Classify collects evidence as additive scores, one per change type, from
// independent sources. Every rule lives in a table below; the weights read
// as "how sure would a reviewer be from this clue alone":
//
//	source                                          weight
//	git's Revert "..." subject                      4
//	"This reverts commit <sha>" in the body          3
//	merge subject ("Merge branch ...")               2.5, +1.5 for a real merge
//	merge parents, subject not merge-shaped          1   (the subject decides)
//	conventional prefix, [TAG], gitmoji              3   (chore 1, build 2, release 2.5)
//	conventional scope (deps 3.5, others)            1.5
//	wording of the subject                           table weight, ≤ 3 per type
//	wording of the body (trailers removed)           0.4 × the above, ≤ 1.2 per type
//	trailers (Fixes: <sha>, Reported-by:, Cc: stable) 1–2, ≤ 2.5
//	a CVE, GHSA or CWE identifier in the message     security 3
//	a bot author (dependabot, renovate)              2
//	version transition "from 1.2 to 1.3"             1.5 ("to v1.3": 1)
//	all files docs, or all tests                     5
//	all files manifests, or all configuration        2.5
//	  (tests only, when the message says cleanup: 1.5)
//	some files manifests or configuration            1 × their share
//	"no functional change", "NFC", "just a refactoring" refactor 2
//	only deletions                                   cleanup 1.5, refactor 0.5
//	only renames                                     refactor 2
//	≥ 5 files, each a tiny symmetrical change        cleanup 1.5, refactor 0.5
//	a new source file                                feature 1
//	≥ 100 added code lines, 4× the deleted ones       feature 0.5
//	hunks that change comments only                  documentation 2
//	hunks that change whitespace only                cleanup 2.5
//
// File and diff evidence is ignored for merge commits: their changes are
// conflict resolutions, not the change the merge brings in. For a revert
// or merge subject the subject's wording is ignored too: it quotes the
// reverted commit or names a branch. Wording ignores `code spans` and
// identifiers; the verbs of repair count little before a non-bug object
// ("fix typo"); merge wording counts only in merge commits, configuration
// wording half when no configuration or manifest file changed, and
// documentation and test wording half when source files changed.
//
// With S the sum of all scores, a type's confidence is score/(S+1): the 1
// is a prior for "none of these", so a lone weak clue yields a low
// confidence and agreeing clues approach 1. Confidences are rounded to
// 0.001. The primary label is the type with the highest confidence; equal
// confidences go to the type that comes first in clsOrder. Secondary labels are the other types with confidence ≥
// clsMinSecondary, at most clsMaxSecondary of them, most confident first.
//
// When nothing scores at all (an empty or terse message on ordinary source
// files whose diff has no telling shape), the primary is a guess at
// clsGuessConfidence: feature when the commit adds more lines than it
// deletes, since growing code is most often new work, else refactor, the
// type that claims nothing about behaviour.

// clsOrder is the fixed order of the change types; it breaks ties. The
// more specific the type, the earlier it comes.
var clsOrder = [...]model.ChangeType{
	model.Revert, model.Merge, model.Security, model.Bugfix, model.Performance,
	model.Dependency, model.Test, model.Documentation, model.Configuration,
	model.Cleanup, model.Refactor, model.Feature,
}

const (
	clsPrior           = 1.0      // the "none of these" mass in the confidence denominator
	clsWordCap         = 3.0      // the most one part of a message gives one type
	clsBodyWeight      = 0.4      // body wording counts this much of subject wording
	clsMinSecondary    = 0.1      // weakest secondary label reported
	clsMaxSecondary    = 4        // most secondary labels reported
	clsGuessConfidence = 0.1      // confidence of the no-evidence fallback
	clsHunkLineLimit   = 4000     // comment/whitespace analysis reads at most this many diff lines
	clsMaxMessage      = 32 << 10 // wording is read from the message's first 32 KiB
)

// clsScores holds one score per type, indexed like clsOrder.
type clsScores [len(clsOrder)]float64

func (s *clsScores) add(t model.ChangeType, w float64) {
	s[clsIndex(t)] += w
}

func clsIndex(t model.ChangeType) int {
	for i, o := range clsOrder {
		if o == t {
			return i
		}
	}
	panic("understand: unknown change type " + string(t))
}

// Classify returns c's primary change type and secondary ones, from its
// message, files and diff shape. It is deterministic and needs no network.
func Classify(c *model.Commit) model.Classification {
	var s clsScores
	if c != nil {
		kinds := make([]clsKind, len(c.Changes))
		for i, fc := range c.Changes {
			kinds[i] = clsKindOf(fc)
		}
		clsScoreMessage(c, kinds, &s)
		if !c.IsMerge {
			clsScoreFiles(kinds, s[clsIndex(model.Cleanup)] >= clsCleanupSaid, &s)
			clsScoreShape(c.Changes, kinds, &s)
			clsScoreHunks(c.Changes, &s)
		}
	}
	return clsResult(c, &s)
}

// clsResult turns scores into labels (see the package's scoring comment).
func clsResult(c *model.Commit, s *clsScores) model.Classification {
	total := 0.0
	for _, v := range s {
		total += v
	}
	if total <= 0 {
		return model.Classification{Primary: model.Label{Type: clsFallback(c), Confidence: clsGuessConfidence}}
	}
	labels := make([]model.Label, 0, len(clsOrder))
	for i, v := range s {
		if v > 0 {
			conf := math.Round(v/(total+clsPrior)*1000) / 1000
			labels = append(labels, model.Label{Type: clsOrder[i], Confidence: conf})
		}
	}
	// Stable sort over clsOrder's order: equal confidences keep that order.
	slices.SortStableFunc(labels, func(a, b model.Label) int {
		switch {
		case a.Confidence > b.Confidence:
			return -1
		case a.Confidence < b.Confidence:
			return 1
		}
		return 0
	})
	out := model.Classification{Primary: labels[0]}
	for _, l := range labels[1:] {
		if l.Confidence < clsMinSecondary || len(out.Secondary) == clsMaxSecondary {
			break
		}
		out.Secondary = append(out.Secondary, l)
	}
	return out
}

// clsFallback is the type chosen when there is no evidence at all.
func clsFallback(c *model.Commit) model.ChangeType {
	if c == nil {
		return model.Refactor
	}
	_, ins, del := c.Totals()
	if ins > del {
		return model.Feature
	}
	return model.Refactor
}

// ---- message evidence ----

// clsHint is a type suggested by a prefix word, with its weight.
type clsHint struct {
	t model.ChangeType
	w float64
}

// clsPrefixTypes maps conventional-commit types, bracket tags ("[FIX]",
// Odoo's "[IMP]") and their scopes to change types.
var clsPrefixTypes = map[string]clsHint{
	"feat": {model.Feature, 3}, "feature": {model.Feature, 3}, "imp": {model.Feature, 3}, "add": {model.Feature, 3},
	"fix": {model.Bugfix, 3}, "bugfix": {model.Bugfix, 3}, "hotfix": {model.Bugfix, 3}, "bug": {model.Bugfix, 3},
	"perf": {model.Performance, 3}, "performance": {model.Performance, 3},
	"refactor": {model.Refactor, 3}, "ref": {model.Refactor, 3}, "mov": {model.Refactor, 3},
	"docs": {model.Documentation, 3}, "doc": {model.Documentation, 3},
	"test": {model.Test, 3}, "tests": {model.Test, 3},
	"deps": {model.Dependency, 3}, "dep": {model.Dependency, 3},
	"security": {model.Security, 3}, "sec": {model.Security, 3},
	"ci": {model.Configuration, 3}, "config": {model.Configuration, 3}, "conf": {model.Configuration, 3},
	"build": {model.Configuration, 2}, "release": {model.Configuration, 2.5},
	"style": {model.Cleanup, 3}, "cleanup": {model.Cleanup, 3}, "clean": {model.Cleanup, 3}, "rem": {model.Cleanup, 3},
	"nit": {model.Cleanup, 2.5}, "nits": {model.Cleanup, 2.5}, "lint": {model.Cleanup, 2.5},
	"fmt": {model.Cleanup, 2.5}, "format": {model.Cleanup, 2.5}, "typo": {model.Cleanup, 2.5},
	"workflow": {model.Configuration, 2.5}, "docker": {model.Configuration, 2.5},
	"chore":  {model.Cleanup, 1},
	"revert": {model.Revert, 4}, "rev": {model.Revert, 4},
}

// clsDepScopes are conventional scopes that make any type a dependency
// update, as Dependabot and Renovate write them.
var clsDepScopes = map[string]bool{"deps": true, "deps-dev": true, "dev-deps": true, "dependencies": true, "dependency": true}

const clsScopeWeight = 1.5

// clsGitmoji maps gitmoji (https://gitmoji.dev) to types, as emoji and as
// :shortcodes:.
var clsGitmoji = map[string]model.ChangeType{
	"✨": model.Feature, "🎉": model.Feature, "🐛": model.Bugfix, "🚑": model.Bugfix, "🩹": model.Bugfix,
	"♻": model.Refactor, "🚚": model.Refactor, "⚡": model.Performance, "🔒": model.Security, "🔐": model.Security,
	"📝": model.Documentation, "💡": model.Documentation, "✅": model.Test, "🧪": model.Test,
	"⬆": model.Dependency, "⬇": model.Dependency, "➕": model.Dependency, "➖": model.Dependency, "📌": model.Dependency,
	"🔧": model.Configuration, "👷": model.Configuration, "💚": model.Configuration, "🔨": model.Configuration,
	"🔥": model.Cleanup, "🎨": model.Cleanup, "🚨": model.Cleanup, "✏": model.Cleanup, "⚰": model.Cleanup,
	"⏪": model.Revert, "🔀": model.Merge,
	":sparkles:": model.Feature, ":tada:": model.Feature, ":bug:": model.Bugfix, ":ambulance:": model.Bugfix,
	":adhesive_bandage:": model.Bugfix, ":recycle:": model.Refactor, ":truck:": model.Refactor,
	":zap:": model.Performance, ":lock:": model.Security, ":closed_lock_with_key:": model.Security,
	":memo:": model.Documentation, ":bulb:": model.Documentation, ":white_check_mark:": model.Test,
	":test_tube:": model.Test, ":arrow_up:": model.Dependency, ":arrow_down:": model.Dependency,
	":heavy_plus_sign:": model.Dependency, ":heavy_minus_sign:": model.Dependency, ":pushpin:": model.Dependency,
	":wrench:": model.Configuration, ":construction_worker:": model.Configuration, ":green_heart:": model.Configuration,
	":hammer:": model.Configuration, ":fire:": model.Cleanup, ":art:": model.Cleanup, ":rotating_light:": model.Cleanup,
	":pencil2:": model.Cleanup, ":coffin:": model.Cleanup, ":rewind:": model.Revert,
	":twisted_rightwards_arrows:": model.Merge,
}

var (
	// clsConvRe matches a conventional-commit header: type(scope)!: .
	clsConvRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*)(?:\(([^()\n]{0,60})\))?(!)?:\s*`)
	// clsAreaRe matches a leading area: "net: ", "drm/i915: ", "t1, t2: ".
	clsAreaRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+/-]*(?:, ?[A-Za-z0-9][A-Za-z0-9_.+/-]*)*: `)
	// clsTagRe matches a leading bracket tag: [FIX], [WIP], [PROJ-12].
	clsTagRe = regexp.MustCompile(`^\[([^\[\]\n]{1,24})\]\s*`)
	// clsShortcodeRe matches a leading gitmoji shortcode.
	clsShortcodeRe = regexp.MustCompile(`^:[a-z0-9_+-]{1,30}:\s*`)
	// clsTicketRe matches a leading ticket key: "PROJ-123: ", "#12 ".
	clsTicketRe = regexp.MustCompile(`^(?:[A-Z][A-Z0-9_]+-[0-9]+|#[0-9]+)(?:\s*[:–]\s*|\s+-\s+|\s+)`)
	clsRevertRe = regexp.MustCompile(`(?i)\bthis reverts commit [0-9a-f]{4,40}`)
	// Version transitions as dependency bots write them.
	clsFromToRe = regexp.MustCompile(`(?i)\bfrom v?[0-9][0-9A-Za-z.+-]* to v?[0-9]`)
	clsToVerRe  = regexp.MustCompile(`(?i)\bto (?:v[0-9]+(?:\.[0-9]+)*|[0-9]+\.[0-9]+\.[0-9]+)\b`)
	// clsTrailerRe matches a trailer line ("Signed-off-by: ...").
	clsTrailerRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*):\s`)
)

// clsTrailerKeys are trailer keys without a dash that are still trailers.
var clsTrailerKeys = map[string]bool{
	"fixes": true, "closes": true, "cc": true, "link": true, "bug": true, "refs": true, "ref": true,
	"resolves": true, "issue": true, "see": true, "bisected": true,
}

// clsPrefix is what clsSplitPrefix found before a subject's description.
type clsPrefix struct {
	hints []clsHint
	// rest is the subject without the recognised prefixes.
	rest string
	// desc is rest without a leading area ("net: ", "builtin/log: ",
	// "t9210, t9211: "): what the subject says about the change. An area
	// names a part of the code, so it is no wording ("merge: use ...",
	// "config: refactor ...").
	desc string
}

// clsSplitPrefix strips gitmoji, bracket tags, ticket keys and a
// conventional-commit type from the start of subject, and returns the
// types they name. An area prefix that is no known type ("net: ") stays
// in rest and is left out of desc.
func clsSplitPrefix(subject string) clsPrefix {
	p := clsPrefix{rest: strings.TrimSpace(subject)}
	for range 4 {
		if !p.stripOne() {
			break
		}
	}
	p.desc = p.rest
	if i := strings.Index(p.rest, ": "); i < 0 || i > 80 {
		return p
	}
	if m := clsAreaRe.FindString(p.rest); m != "" && len(m) < len(p.rest) {
		p.desc = p.rest[len(m):]
	}
	return p
}

// stripOne removes one recognised prefix from p.rest. The first byte
// decides which patterns can apply, sparing the regexps most subjects.
func (p *clsPrefix) stripOne() bool {
	r := p.rest
	if r == "" {
		return false
	}
	if r[0] == ':' {
		return p.stripShortcode()
	}
	if r[0] == '[' {
		return p.stripTag()
	}
	if e, n := clsLeadingEmoji(r); n > 0 {
		if t, ok := clsGitmoji[e]; ok {
			p.hints = append(p.hints, clsHint{t, 3})
		}
		p.rest = strings.TrimSpace(r[n:])
		return true
	}
	if c := r[0]; c == '#' || c >= 'A' && c <= 'Z' {
		if m := clsTicketRe.FindString(r); m != "" && len(m) < len(r) {
			p.rest = r[len(m):]
			return true
		}
	}
	if i := strings.IndexByte(r, ':'); i < 0 || i > 80 {
		return false
	}
	return p.stripConventional()
}

// stripShortcode removes a leading gitmoji shortcode.
func (p *clsPrefix) stripShortcode() bool {
	r := p.rest
	if m := clsShortcodeRe.FindString(r); m != "" {
		if t, ok := clsGitmoji[strings.TrimSpace(m)]; ok {
			p.hints = append(p.hints, clsHint{t, 3})
		}
		p.rest = r[len(m):]
		return true
	}
	return false
}

// stripTag removes a leading bracket tag.
func (p *clsPrefix) stripTag() bool {
	r := p.rest
	if m := clsTagRe.FindStringSubmatch(r); m != nil {
		if h, ok := clsPrefixTypes[strings.ToLower(m[1])]; ok {
			p.hints = append(p.hints, clsHint{h.t, 3})
		}
		p.rest = r[len(m[0]):]
		return true
	}
	return false
}

// stripConventional removes a conventional-commit header "type(scope)!: ".
func (p *clsPrefix) stripConventional() bool {
	m := clsConvRe.FindStringSubmatch(p.rest)
	if m == nil || len(m[0]) == len(p.rest) {
		return false
	}
	h, ok := clsPrefixTypes[strings.ToLower(m[1])]
	if !ok {
		return false
	}
	scope := strings.ToLower(strings.TrimSpace(m[2]))
	switch {
	case clsDepScopes[scope]:
		p.hints = append(p.hints, clsHint{h.t, h.w}, clsHint{model.Dependency, 3.5})
	case scope != "":
		p.hints = append(p.hints, h)
		if sh, ok := clsPrefixTypes[scope]; ok {
			p.hints = append(p.hints, clsHint{sh.t, clsScopeWeight})
		}
	default:
		p.hints = append(p.hints, h)
	}
	p.rest = p.rest[len(m[0]):]
	return true
}

// clsLeadingEmoji returns the run of pictographs at the start of s, without
// variation selectors and joiners, and the bytes it takes with the blanks
// after it.
func clsLeadingEmoji(s string) (string, int) {
	var b strings.Builder
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if r != 0xFE0F && r != 0x200D && !unicode.Is(unicode.So, r) && (r < 0x1F000 || r > 0x1FAFF) {
			break
		}
		if r != 0xFE0F && r != 0x200D {
			b.WriteRune(r)
		}
		n += size
	}
	if b.Len() == 0 {
		return "", 0
	}
	return b.String(), len(s) - len(strings.TrimLeft(s[n:], " \t"))
}

// clsMergeSubjects are lower-cased beginnings of merge subjects written by
// git, GitHub, GitLab, Gerrit and Bitbucket, and their Russian renderings.
var clsMergeSubjects = []string{
	"merge branch ", "merge branches ", "merge remote-tracking branch ", "merge remote branch ",
	"merge pull request ", "merge tag ", "merge tags ", "merge commit ", "merge \"", "merge '",
	"merged in ", "merged pr ", "merge changes ", "merge !", "слияние ", "мерж ", "смержил ",
}

// clsIsMergeSubject reports whether subject is how tools word a merge.
func clsIsMergeSubject(subject string) bool {
	low := strings.ToLower(strings.TrimSpace(subject))
	for _, p := range clsMergeSubjects {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return strings.HasPrefix(low, "merge ") && strings.Contains(low, " into ")
}

// clsIsRevertSubject reports whether subject is git's revert subject.
func clsIsRevertSubject(subject string) bool {
	s := strings.TrimSpace(subject)
	return strings.HasPrefix(s, `Revert "`) || strings.HasPrefix(s, "Revert '") || strings.HasPrefix(s, "Revert “")
}

// clsWordContext says how far wording is to be believed for one commit.
type clsWordContext struct {
	// merge: the commit has merge parents. Otherwise "merge" in a message
	// speaks of merge functionality, and merge wording counts nothing.
	merge bool
	// configFiles: the commit changes configuration or manifest files, or
	// no files at all. Otherwise configuration wording speaks of settings
	// in code ("config variables") and counts clsWordsBesideCode.
	configFiles bool
	// codeFiles: the commit changes source files. Then it is not "docs
	// only" or "tests only", and documentation and test wording speak of
	// what accompanies the change ("with tests"): clsWordsBesideCode.
	codeFiles bool
}

const clsWordsBesideCode = 0.5

// clsScoreMessage adds the evidence of c's message and author.
// kinds are the kinds of c's files, by clsKindOf.
func clsScoreMessage(c *model.Commit, kinds []clsKind, s *clsScores) {
	ctx := clsWordContext{merge: c.IsMerge, configFiles: len(kinds) == 0}
	for _, k := range kinds {
		switch k {
		case clsKindConfig, clsKindManifest:
			ctx.configFiles = true
		case clsKindCode:
			ctx.codeFiles = true
		}
	}
	msg := c.Message
	if len(msg) > clsMaxMessage {
		msg = msg[:clsMaxMessage]
	}
	msg = strings.ToValidUTF8(msg, "\uFFFD")
	subject, body, _ := strings.Cut(strings.TrimLeft(msg, " \t\r\n"), "\n")
	switch {
	case clsIsRevertSubject(subject):
		s.add(model.Revert, 4)
	case clsIsMergeSubject(subject):
		s.add(model.Merge, 2.5)
		if c.IsMerge {
			s.add(model.Merge, 1.5)
		}
	default:
		if c.IsMerge {
			s.add(model.Merge, 1)
		}
		p := clsSplitPrefix(subject)
		// The object of a "fix:" type is the description's first words.
		words := clsProseWords(p.desc)
		objects := clsObjectAt(words, clsPrefixObjectWindow)
		for _, h := range p.hints {
			if h.t == model.Bugfix && objects {
				h.w = clsFixObjectPrefixWeight // "fix: typo in README"
			}
			s.add(h.t, h.w)
		}
		clsScoreWordsOf(p.desc, words, 1, ctx, s)
		clsScoreVersions(subject, 1, s)
	}
	text, trailers := clsSplitTrailers(body)
	clsScoreWords(text, clsBodyWeight, ctx, s)
	clsScoreVersions(text, clsBodyWeight, s)
	clsScoreTrailers(trailers, s)
	// The literal checks spare most messages the case-folding regexps.
	low := strings.ToLower(msg)
	if strings.Contains(low, "reverts commit") && clsRevertRe.MatchString(body) {
		s.add(model.Revert, 3)
	}
	if (strings.Contains(low, "cve-") || strings.Contains(low, "ghsa-") || strings.Contains(low, "cwe-")) &&
		clsSecIDRe.MatchString(msg) {
		s.add(model.Security, 3)
	}
	if clsMayStateNoChange(low) && clsNoChangeRe.MatchString(msg) {
		s.add(model.Refactor, 2)
	}
	clsScoreAuthor(c.Author, s)
}

// clsScoreVersions adds dependency evidence for version transitions.
func clsScoreVersions(text string, weight float64, s *clsScores) {
	if !strings.ContainsAny(text, "0123456789") || !strings.Contains(text, "to ") && !strings.Contains(text, "TO ") {
		return
	}
	fromTo, toVer := clsMayNameVersions(text)
	switch {
	case fromTo && clsFromToRe.MatchString(text):
		s.add(model.Dependency, 1.5*weight)
	case toVer && clsToVerRe.MatchString(text):
		s.add(model.Dependency, 1*weight)
	}
}

// clsScoreAuthor adds dependency evidence for dependency bots.
func clsScoreAuthor(a model.Signature, s *clsScores) {
	who := strings.ToLower(a.Name + " " + a.Email)
	for _, bot := range []string{"dependabot", "renovate", "greenkeeper", "pyup-bot", "depfu"} {
		if strings.Contains(who, bot) {
			s.add(model.Dependency, 2)
			return
		}
	}
}

// clsSplitTrailers separates trailer lines ("Signed-off-by: ...") from the
// prose of a body. Names in trailers say nothing about the change.
func clsSplitTrailers(body string) (text string, trailers []string) {
	if !strings.Contains(body, ":") {
		return body, nil
	}
	// The prose is body less the trailer lines: the runs of lines between
	// them are copied only when there is more than one.
	var b strings.Builder
	first, runs := "", 0
	keep := func(run string) {
		if run == "" {
			return
		}
		switch runs++; runs {
		case 1:
			first = run
		case 2:
			b.WriteString(first)
			fallthrough
		default:
			b.WriteString(run)
		}
	}
	start := 0 // where the current run began
	for pos := 0; pos < len(body); {
		end := len(body)
		if k := strings.IndexByte(body[pos:], '\n'); k >= 0 {
			end = pos + k + 1
		}
		if t := strings.TrimSpace(body[pos:end]); clsIsTrailer(t) {
			keep(body[start:pos])
			trailers = append(trailers, t)
			start = end
		}
		pos = end
	}
	keep(body[start:])
	if runs > 1 {
		return b.String(), trailers
	}
	return first, trailers
}

// clsIsTrailer reports whether a trimmed line is a trailer.
func clsIsTrailer(t string) bool {
	if i := strings.Index(t, ": "); i < 1 || i > 40 {
		return false
	}
	m := clsTrailerRe.FindStringSubmatch(t)
	if m == nil {
		return false
	}
	key := strings.ToLower(m[1])
	return strings.Contains(key, "-") || clsTrailerKeys[key]
}

// clsScoreTrailers adds bugfix evidence from kernel-style trailers.
func clsScoreTrailers(trailers []string, s *clsScores) {
	w := 0.0
	for _, t := range trailers {
		key, val, _ := strings.Cut(strings.ToLower(t), ":")
		val = strings.TrimSpace(val)
		switch {
		case key == "fixes" && clsIsHexPrefix(val):
			w += 2
		case key == "reported-by" || key == "bisected-by" || key == "reported-and-tested-by":
			w += 1
		case key == "cc" && strings.Contains(val, "stable@"):
			w += 1
		}
	}
	s.add(model.Bugfix, min(w, 2.5))
}

// clsIsHexPrefix reports whether s starts with an abbreviated commit hash.
func clsIsHexPrefix(s string) bool {
	n := 0
	for n < len(s) && strings.IndexByte("0123456789abcdef", s[n]) >= 0 {
		n++
	}
	return n >= 7 && (n == len(s) || s[n] == ' ')
}

// ---- wording ----

// clsWordRow is one row of wording rules: patterns of one type and weight.
type clsWordRow struct {
	t    model.ChangeType
	w    float64
	pats string
}

// clsWordTable lists the wording rules: per type and weight, patterns
// separated by "|". A pattern is one or more words matched on word
// boundaries of the lower-cased text, where punctuation counts as a space
// ("use-after-free" matches "use after free"); a trailing "*" makes the
// last word a prefix ("optimiz*" matches "optimize", "optimization"). A
// pattern starting with "=" is a raw substring that must start a word
// ("=o(n" for complexity notation).
var clsWordTable = []clsWordRow{
	{model.Bugfix, 2, "hotfix*|bugfix*|bug|bugs|buggy|crash*|regression*|segfault*|" +
		"deadlock*|use after free|null pointer|nil pointer|null deref*|nil deref*|null dereference|off by one|" +
		"broken|incorrect*|wrong*|panic*|memory leak*|race condition*|data race*|infinite loop|" +
		"ошибк*|баг|баги|багов|багфикс*|падени*|падает|падал*|хотфикс*|неверн*|неправильн*|" +
		"некорректн*|починил*|починка|не работа*"},
	{model.Bugfix, 1, "resolve*|correct|corrects|corrected|correctly|correction|prevent*|repair*|workaround*|" +
		"failure*|fail|fails|failed|failing|mistake*|unbreak*|restore*|hang|hangs|hung|stuck|leak|leaks|leaking|" +
		"edge case*|error|errors|erroneous|missing|правильн*|сбой|сбоя|сбои|сбоев|утечк*|зависани*|сломан*|сломал*"},
	{model.Bugfix, 0.5, "handle|handles|handling|issue|issues|problem*|properly|ensure*|invalid|instead"},

	{model.Feature, 2, "implement*|реализ*|внедр*"},
	{model.Feature, 1.5, "introduc*|initial|feature|features"},
	{model.Feature, 1, "add|adds|added|adding|support|supports|new|allow*|enable*|expose*|teach*|" +
		"добав*|поддержк*|нов*|возможност*|появил*"},
	{model.Feature, 0.5, "create|creates|provide*|option|options|command|endpoint*|эндпоинт*"},

	{model.Refactor, 2, "refactor*|restructur*|reorganiz*|reorganis*|rework*|rewrit*|rewrote|рефактор*|" +
		"переимен*|переработ*|переделк*|переделан*|переделал*|абстрагир*|распил*|реорганиз*|реструктур*"},
	{model.Refactor, 1.5, "rename*|simplif*|consolidat*|decoupl*|вынес*|вынос*|упрощ*|упрост*"},
	{model.Refactor, 1, "move|moves|moved|moving|extract|extracts|extracted|extracting|split*|dedup*|" +
		"unify|unifies|unified|generaliz*|generalis*|inline|inlines|inlined|abstract*|replace|replaces|replaced|" +
		"replacing|convert|converts|converted|converting|" +
		"перенес*|перенос*|разбит*|разделил*"},
	{model.Refactor, 0.5, "helper*|internal|internals|reuse*"},

	{model.Performance, 2, "perf|performance|faster|speed up|speeds up|speedup*|sped up|optimiz*|optimis*|" +
		"fast path|hot path|latency|throughput|quadratic*|memoiz*|prealloc*|ускор*|оптимиз*|производительн*|" +
		"=o(1)|=o(n)|=o(n log|=o(log|=o(n^2)|=o(n²)"},
	{model.Performance, 1.5, "cache|caches|cached|caching|alloc|allocs|allocation*|allocate|allocates|" +
		"allocating|memory usage|reduce memory|less memory|memory footprint|efficien*|lazy|lazily|" +
		"slow|slower|slowdown|быстр*|медленн*|тормоз*|кэш*|кеш*|=n+1"},
	{model.Performance, 1, "speed|benchmark*|pool|pooled|pooling|batch|batched|batching|parallel*|fewer|cheaper|" +
		"expensive|overhead|" +
		"avoid copy*|zero copy"},

	// Security words are only those that mean an attack or its fix.
	// Escaping, validation, bypassing an alias, directory traversal (a
	// file walker's job), injection (of dependencies), overflow (of a
	// layout), secrets (a feature of the tool), a sanitizer (a build
	// option) and "code injection" (of ANSI codes) are everyday words of
	// other changes.
	{model.Security, 3, "security|cve|ghsa|cwe|xss|csrf|xsrf|ssrf|xxe|rce|redos|vulnerab*|" +
		"path traversal|zip slip|remote code execution|arbitrary code execution|privilege escalation|" +
		"denial of service|dos attack*|timing attack*|open redirect|clickjack*|sql injection|command injection|" +
		"shell injection|header injection|template injection|prototype pollution|уязвим*|инъекц*"},
	{model.Security, 2, "exploit*|insecure|harden*|buffer overflow|heap overflow|use after free|" +
		"use-after-free|double free|out of bounds read|out of bounds write|attack|attacks|attacker*|malicious|" +
		"content security policy|безопасн*"},
	{model.Security, 1, "sanitize|sanitizes|sanitized|sanitizing|sanitise|sanitises|sanitised|untrusted"},

	{model.Documentation, 2, "doc|docs|documentation|readme|changelog|godoc|javadoc|jsdoc|rustdoc|" +
		"docstring*|manpage*|man page*|документаци*|ридми"},
	{model.Documentation, 1.5, "document|documents|documented|documenting|tutorial*|faq|contributing|howto|" +
		"описани*|документир*"},
	{model.Documentation, 1, "comment|comments|commented|commenting|guide|guides|clarif*|wording|explain*|" +
		"describe*|example|examples|инструкци*|коммент*|пояснени*"},

	{model.Test, 2, "test|tests|unit test*|unittest*|test case*|testcase*|тест*"},
	{model.Test, 1.5, "testing|coverage|flaky|flake|flakes|flakiness|fixture*|e2e|testdata|integration test*|" +
		"покрыти*"},
	{model.Test, 1, "mock*|stub|stubs|assert*|spec|specs|snapshot*|tested|cover|covers"},

	{model.Dependency, 2, "bump|bumps|bumped|bumping|dependency|dependencies|deps|dep|renovate|dependabot|" +
		"go mod|update module|зависимост*"},
	{model.Dependency, 1.5, "upgrade*|lockfile*|lock file*|vendor|vendored|vendoring|revendor*|third party|" +
		"submodule|submodules"},
	{model.Dependency, 1, "crate|crates|pin|pinned|pins|unpin*|npm|yarn|pnpm|pip|gem|gems|library|libraries|" +
		"библиотек*"},

	{model.Configuration, 2, "config|configs|configuration|configurations|dockerfile|docker compose|gitignore|" +
		"gitattributes|editorconfig|github actions|конфиг*|конфигурац*"},
	{model.Configuration, 1.5, "ci|cd|workflow|workflows|docker|makefile|kubernetes|k8s|helm|terraform|" +
		"goreleaser|jenkins*|travis|circleci|pipeline|pipelines|настро*|деплой*"},
	{model.Configuration, 1, "deploy*|env|environment|yaml|yml|toml|build|builds|release|сборк*"},
	{model.Configuration, 0.5, "settings|setting"},

	{model.Cleanup, 2.5, "dead code|unused|неиспользуем*"},
	{model.Cleanup, 2, "cleanup|cleanups|clean up|cleans up|cleaned up|typo|typos|whitespace*|formatting|" +
		"reformat*|gofmt|goimports|gofumpt|prettier|rustfmt|clang format|lint|lints|linter|linters|linting|" +
		"cosmetic*|grammatical|shellcheck|staticcheck|go vet|clippy|опечатк*|форматир*|чистк*|почистил*|вычищ*"},
	{model.Cleanup, 1.5, "nit|nits|nitpick*|spelling|misspel*|indent*|leftover*|obsolete|unnecessary|unneeded|" +
		"redundant|superfluous|лишн*|ненужн*|устаревш*|стиль|code style"},
	{model.Cleanup, 1, "format|formatted|style|styling|trailing|tidy|stale|deprecated|clean|cleaned|remove|" +
		"removes|removed|removing|delete|deletes|deleted|deleting|drop|drops|dropped|dropping|удал*|убра*"},
	{model.Cleanup, 0.5, "minor|cruft"},

	{model.Revert, 2.5, "revert|reverts|reverted|reverting|back out|backs out|backed out|backout|откат*"},
	{model.Revert, 1, "roll back|rollback|rolled back|undo"},

	{model.Merge, 1, "merge|merges|merged|merging|conflict|conflicts|слияни*|мерж*|смерж*|конфликт*"},
}

// clsPattern is one compiled wording pattern.
type clsPattern struct {
	words []string // normalised words; with stem, the last one is a prefix
	stem  bool
	raw   string // a raw pattern's substring ("o(n"), else ""
	t     int    // index into clsOrder
	w     float64
}

// clsWordIndex finds the patterns that occur in a text by its words, not
// by scanning the text once per pattern: exact first words through a map,
// one-word stems through buckets keyed by their first two bytes. Most
// words are in neither map; a bit per hashed key tells them before the
// map lookups.
type clsWordIndex struct {
	pats      []clsPattern
	exact     map[string][]int
	stems     map[string][]int
	raw       []int
	exactBits clsBits // by clsWordHash of exact's keys
	stemBits  clsBits // by clsStemKey of stems' keys
}

// clsBits is a set of uint16.
type clsBits [1 << 16 / 64]uint64

func (b *clsBits) add(k uint16)      { b[k/64] |= 1 << (k % 64) }
func (b *clsBits) has(k uint16) bool { return b[k/64]&(1<<(k%64)) != 0 }

// clsWordHash is the FNV-1a hash of w, folded to 16 bits.
func clsWordHash(w string) uint16 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint32(w[i])) * 16777619
	}
	return uint16(h ^ h>>16)
}

// clsStemKey is a word's first two bytes, the stems map's key.
func clsStemKey(w string) uint16 { return uint16(w[0])<<8 | uint16(w[1]) }

// clsMaxPatterns bounds an index, so that matched patterns fit a bitset.
const clsMaxPatterns = 1024

// clsNewIndex compiles "|"-separated patterns (see clsWordTable), each
// row's with its type and weight.
func clsNewIndex(rows ...clsWordRow) *clsWordIndex {
	ix := &clsWordIndex{exact: map[string][]int{}, stems: map[string][]int{}}
	for _, row := range rows {
		for _, p := range strings.Split(row.pats, "|") {
			pat := clsPattern{t: clsIndex(row.t), w: row.w}
			i := len(ix.pats)
			switch {
			case strings.HasPrefix(p, "="):
				pat.raw = p[1:]
				ix.raw = append(ix.raw, i)
			default:
				pat.stem = strings.HasSuffix(p, "*")
				pat.words = strings.Fields(clsNormalize(strings.TrimSuffix(p, "*")))
				if len(pat.words) == 1 && pat.stem {
					if len(pat.words[0]) < 2 {
						panic("understand: stem too short: " + p)
					}
					ix.stems[pat.words[0][:2]] = append(ix.stems[pat.words[0][:2]], i)
					ix.stemBits.add(clsStemKey(pat.words[0]))
				} else {
					ix.exact[pat.words[0]] = append(ix.exact[pat.words[0]], i)
					ix.exactBits.add(clsWordHash(pat.words[0]))
				}
			}
			ix.pats = append(ix.pats, pat)
		}
	}
	if len(ix.pats) > clsMaxPatterns {
		panic("understand: too many wording patterns")
	}
	return ix
}

// each calls fn once for every pattern that occurs in words (normalised)
// or, for raw patterns, in low (the lower-cased text; may be "").
func (ix *clsWordIndex) each(words []string, low string, fn func(p *clsPattern)) {
	var seen [clsMaxPatterns / 64]uint64
	hit := func(i int) {
		if seen[i/64]&(1<<(i%64)) == 0 {
			seen[i/64] |= 1 << (i % 64)
			fn(&ix.pats[i])
		}
	}
	for k, w := range words {
		if ix.exactBits.has(clsWordHash(w)) {
			for _, i := range ix.exact[w] {
				if ix.pats[i].phraseAt(words[k:]) {
					hit(i)
				}
			}
		}
		if len(w) >= 2 && ix.stemBits.has(clsStemKey(w)) {
			for _, i := range ix.stems[w[:2]] {
				if strings.HasPrefix(w, ix.pats[i].words[0]) {
					hit(i)
				}
			}
		}
	}
	for _, i := range ix.raw {
		if low != "" && clsContainsAtWord(low, ix.pats[i].raw) {
			hit(i)
		}
	}
}

// hasWord reports whether a pattern occurs in the one word w: any of
// words[i:i+1] without its closure and bitset.
func (ix *clsWordIndex) hasWord(w string) bool {
	if ix.exactBits.has(clsWordHash(w)) {
		for _, i := range ix.exact[w] {
			if len(ix.pats[i].words) == 1 {
				return true // one word, no stem: w is it
			}
		}
	}
	if len(w) >= 2 && ix.stemBits.has(clsStemKey(w)) {
		for _, i := range ix.stems[w[:2]] {
			if strings.HasPrefix(w, ix.pats[i].words[0]) {
				return true
			}
		}
	}
	return false
}

// any reports whether a pattern occurs in words.
func (ix *clsWordIndex) any(words []string) bool {
	found := false
	ix.each(words, "", func(*clsPattern) { found = true })
	return found
}

// phraseAt reports whether p's words start words.
func (p *clsPattern) phraseAt(words []string) bool {
	if len(words) < len(p.words) {
		return false
	}
	last := len(p.words) - 1
	for j, pw := range p.words {
		if j == last && p.stem {
			return strings.HasPrefix(words[j], pw)
		}
		if words[j] != pw {
			return false
		}
	}
	return true
}

// The verbs of repair are bugfix evidence unless their object, within the
// next clsObjectWindow words, is no bug: "fix typo", "fix lint warnings",
// "fix tests", "исправлена опечатка в README". Then the object's own type
// speaks and the verb counts little.
const (
	clsFixVerbs      = "fix|fixes|fixed|fixing|fixup|исправ*|фикс*|поправ*"
	clsNonBugObjects = "typo*|lint*|spelling|misspel*|grammatical|whitespace|format|formatting|indent*|warning*|" +
		"shellcheck|staticcheck|vet|clippy|test|tests|" +
		"doc|docs|documentation|readme|changelog|comment|comments|опечатк*|форматир*|тест*|документаци*|коммент*"
	clsObjectWindow       = 3 // the words after a verb that name its object
	clsPrefixObjectWindow = 2 // the words after "fix:" that name its object
	clsFixWeight          = 2.0
	clsFixObjectWeight    = 0.5
	// A conventional "fix:" type before such an object counts this much.
	clsFixObjectPrefixWeight = 1.0
)

var (
	clsWords   = clsNewIndex(clsWordTable...)
	clsFixVerb = clsNewIndex(clsWordRow{model.Bugfix, clsFixWeight, clsFixVerbs})
	clsNonBug  = clsNewIndex(clsWordRow{model.Bugfix, 0, clsNonBugObjects})
	// clsNoChangeRe finds the statement that behaviour does not change.
	clsNoChangeRe = regexp.MustCompile(`(?i)\b(?:no (?:functional|behaviou?ral|behaviou?r|semantic|user[- ]visible) changes?|nfci?|(?:just|purely|pure) (?:a )?refactor(?:ing)?)\b`)
	// clsSecIDRe finds security advisory identifiers, the surest sign of a
	// security change: they count on top of the wording.
	clsSecIDRe = regexp.MustCompile(`(?i)\b(?:cve-[0-9]{4}-[0-9]{4,}|ghsa(?:-[0-9a-z]{4}){3}|cwe-[0-9]+)\b`)
)

// clsNormalize lower-cases s and turns every run of characters other than
// letters and digits into one space, with a space at both ends, so that
// " word " matches on word boundaries.
func clsNormalize(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	space := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// clsScoreWords adds the wording evidence of text, each type's sum capped
// at clsWordCap, times weight.
func clsScoreWords(text string, weight float64, ctx clsWordContext, s *clsScores) {
	clsScoreWordsOf(text, clsProseWords(text), weight, ctx, s)
}

// clsScoreWordsOf is clsScoreWords with text's words already split by
// clsProseWords.
func clsScoreWordsOf(text string, words []string, weight float64, ctx clsWordContext, s *clsScores) {
	// Without words there is no evidence: every raw pattern has a letter.
	if len(words) == 0 {
		return
	}
	low := ""
	if clsMayHaveRaw(text) { // only raw patterns need it
		low = strings.ToLower(clsProse(text))
	}
	var part clsScores
	clsWords.each(words, low, func(p *clsPattern) { part[p.t] += p.w })
	part[clsIndex(model.Bugfix)] += clsFixVerbWeight(words)
	if !ctx.merge {
		part[clsIndex(model.Merge)] = 0
	}
	if !ctx.configFiles {
		part[clsIndex(model.Configuration)] *= clsWordsBesideCode
	}
	if ctx.codeFiles {
		part[clsIndex(model.Documentation)] *= clsWordsBesideCode
		part[clsIndex(model.Test)] *= clsWordsBesideCode
	}
	for i, v := range part {
		s[i] += min(v, clsWordCap) * weight
	}
}

// clsFixVerbWeight is the bugfix weight of the verbs of repair in
// normalised words: clsFixWeight if one of them is not followed by a
// non-bug object, clsFixObjectWeight if each is, 0 without any.
func clsFixVerbWeight(words []string) float64 {
	w := 0.0
	for i, word := range words {
		if !clsFixVerb.hasWord(word) {
			continue
		}
		if !clsObjectAt(words[i+1:], clsObjectWindow) {
			return clsFixWeight
		}
		w = clsFixObjectWeight
	}
	return w
}

// clsObjectAt reports whether the first n words name an object of repair
// that is no bug (see clsNonBugObjects).
func clsObjectAt(words []string, n int) bool {
	return clsNonBug.any(words[:min(len(words), n)])
}

// clsProse removes what names code rather than describes a change:
// `code spans` and identifiers (tokens with "_", "()", "::" or "->"), so
// that "hook_config_cache_entry" or "`pseudo_merge`" are not wording.
func clsProse(text string) string {
	if !strings.ContainsAny(text, "`_():->") {
		return text
	}
	var b strings.Builder
	for i, part := range strings.Split(text, "`") {
		if i%2 == 1 {
			b.WriteByte(' ')
			continue
		}
		for j, tok := range strings.Split(part, " ") {
			if j > 0 {
				b.WriteByte(' ')
			}
			if !clsIsIdentifier(tok) {
				b.WriteString(tok)
			}
		}
	}
	return b.String()
}

// clsProseWords returns strings.Fields(clsNormalize(clsProse(text)))
// in one pass, without building either string: the words of the tokens
// clsProse keeps. Tokens end at spaces and backticks, so no word spans
// two of them; an identifier's words are dropped once it is recognised.
// The words share one string.
func clsProseWords(text string) []string {
	buf := make([]byte, 0, len(text))
	var ends []int // where each word ends in buf
	code, inWord := false, false
	tokBuf, tokEnds := 0, 0 // len(buf) and len(ends) where the token began
	var prev byte           // the byte before c in the token, if ASCII
	for i := 0; i < len(text); {
		c := text[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(text[i:])
			i, prev = i+n, 0
			switch {
			case code:
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				buf, inWord = utf8.AppendRune(buf, unicode.ToLower(r)), true
			case inWord:
				ends, inWord = append(ends, len(buf)), false
			}
			continue
		}
		i++
		switch {
		case c == ' ' || c == '`':
			if inWord {
				ends, inWord = append(ends, len(buf)), false
			}
			code = code != (c == '`')
			tokBuf, tokEnds, prev = len(buf), len(ends), 0
			continue
		case code:
			continue
		case c == '_' || c == ')' && prev == '(' || c == ':' && prev == ':' || c == '>' && prev == '-':
			// An identifier (see clsIsIdentifier): drop it.
			buf, ends, inWord = buf[:tokBuf], ends[:tokEnds], false
			if k := strings.IndexAny(text[i:], " `"); k >= 0 {
				i += k
			} else {
				i = len(text)
			}
			continue
		}
		prev = c
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			buf, inWord = append(buf, c), true
		case 'A' <= c && c <= 'Z':
			buf, inWord = append(buf, c+'a'-'A'), true
		case inWord:
			ends, inWord = append(ends, len(buf)), false
		}
	}
	if inWord {
		ends = append(ends, len(buf))
	}
	all := string(buf)
	words := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		words[i] = all[start:end]
		start = end
	}
	return words
}

// clsIsIdentifier reports whether clsProse drops tok as naming code.
func clsIsIdentifier(tok string) bool {
	return strings.Contains(tok, "_") || strings.Contains(tok, "()") ||
		strings.Contains(tok, "::") || strings.Contains(tok, "->")
}

// clsContainsAtWord reports whether needle occurs in s not preceded by a
// letter or digit.
func clsContainsAtWord(s, needle string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], needle)
		if i < 0 {
			return false
		}
		i += off
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if i == 0 || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return true
		}
		off = i + 1
	}
}

// ---- file kinds ----

// clsKind is what a file is for, as far as classification cares.
type clsKind int

// The file kinds.
const (
	clsKindCode clsKind = iota
	clsKindDoc
	clsKindTest
	clsKindManifest
	clsKindConfig
)

// clsKindTypes is the change type a commit touching only one kind has.
var clsKindTypes = [...]model.ChangeType{
	clsKindDoc: model.Documentation, clsKindTest: model.Test,
	clsKindManifest: model.Dependency, clsKindConfig: model.Configuration,
}

// clsManifests are dependency manifests and lockfiles, by lower-case name.
var clsManifests = clsSet("go.mod go.sum go.work go.work.sum package.json package-lock.json npm-shrinkwrap.json " +
	"yarn.lock pnpm-lock.yaml bun.lockb bun.lock deno.lock cargo.toml cargo.lock pipfile pipfile.lock " +
	"poetry.lock pyproject.toml uv.lock pdm.lock constraints.txt gemfile gemfile.lock pom.xml build.gradle " +
	"build.gradle.kts gradle.lockfile libs.versions.toml composer.json composer.lock mix.exs mix.lock " +
	"podfile podfile.lock package.swift package.resolved pubspec.yaml pubspec.lock packages.config " +
	"packages.lock.json directory.packages.props gopkg.toml gopkg.lock glide.yaml glide.lock flake.lock " +
	"conanfile.txt vcpkg.json cartfile cartfile.resolved")

// clsManifestDirs hold vendored or installed dependencies.
var clsManifestDirs = clsSet("vendor node_modules third_party bower_components")

// clsTestDirs are directories that hold tests; "t" only at the top (git).
var clsTestDirs = clsSet("test tests __tests__ __mocks__ __snapshots__ spec specs testdata testing e2e cypress " +
	"androidtest")

// clsTestSuffixes end test file names (lower-cased).
var clsTestSuffixes = []string{
	"_test.go", "_test.py", "_test.rb", "_spec.rb", "_test.c", "_test.cc", "_test.cpp", "_unittest.cc",
	"_test.rs", "_test.exs", "_spec.js", "_spec.ts", ".snap",
	"test.java", "tests.java", "test.kt", "tests.kt", "test.scala", "spec.scala", "tests.cs", "test.cs",
	"test.php", "tests.swift", "test.swift",
}

// clsTestInfixes mark JavaScript-style test files: app.test.ts, app.spec.js.
var clsTestInfixes = []string{".test.", ".spec.", ".e2e.", ".cy."}

var clsDocExts = clsSet(".md .markdown .mdx .rst .adoc .asciidoc .txt .rdoc .pod .texi .texinfo")
var clsDocDirs = clsSet("doc docs documentation man manual wiki")
var clsDocNames = clsSet("readme changelog changes news history authors contributors contributing license " +
	"licence copying notice code_of_conduct security maintainers")

var clsConfigExts = clsSet(".yml .yaml .toml .ini .cfg .conf .json .json5 .jsonc .properties .env .tf " +
	".tfvars .hcl .cmake .editorconfig .plist .sln .csproj .vbproj .fsproj .vcxproj .props .targets")

// clsSourceExts are programming-language sources: in a docs directory they
// are code all the same (Go's and cobra's doc packages).
var clsSourceExts = clsSet(".go .c .h .cc .cpp .hpp .rs .java .kt .scala .py .rb .js .mjs .ts .tsx .jsx .cs " +
	".swift .php .m .mm .ex .exs .erl .hs .ml .zig .lua .pl .dart")
var clsConfigNames = clsSet("dockerfile containerfile makefile gnumakefile cmakelists.txt jenkinsfile procfile " +
	"vagrantfile .gitignore .gitattributes .gitmodules .dockerignore .editorconfig .npmrc .nvmrc .yarnrc " +
	".babelrc .browserslistrc .mailmap codeowners .clang-format .clang-tidy .flake8 .pylintrc .rubocop.yml " +
	"kconfig meson.build meson_options.txt .env .envrc")
var clsConfigDirs = clsSet(".github .circleci .gitlab .buildkite .husky .devcontainer .vscode .idea")

func clsSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// clsKindOf classifies one changed file. Manifests win over tests, tests
// over documentation, documentation over configuration: a YAML file in
// docs/ is documentation, a JSON fixture in testdata/ a test.
func clsKindOf(fc model.FileChange) clsKind {
	p := strings.ToLower(fc.Path)
	base := path.Base(p)
	dirs := strings.Split(path.Dir(p), "/")
	switch {
	case fc.Skipped == model.SkipVendor || clsManifests[base] || clsAnyIn(dirs, clsManifestDirs) ||
		clsIsRequirements(base) || strings.HasSuffix(base, ".gemspec"):
		return clsKindManifest
	case clsConfigNames[base]:
		return clsKindConfig // a Makefile in t/ builds tests, it is no test
	case clsIsTestFile(base, dirs):
		return clsKindTest
	case clsAnyIn(dirs, clsDocDirs) && !clsSourceExts[path.Ext(base)] || clsIsDocFile(base):
		return clsKindDoc
	case clsIsConfigFile(base) || clsAnyIn(dirs, clsConfigDirs):
		return clsKindConfig
	}
	return clsKindCode
}

func clsAnyIn(dirs []string, set map[string]bool) bool {
	for _, d := range dirs {
		if set[d] {
			return true
		}
	}
	return false
}

func clsIsRequirements(base string) bool {
	return strings.HasPrefix(base, "requirements") && (strings.HasSuffix(base, ".txt") || strings.HasSuffix(base, ".in"))
}

func clsIsTestFile(base string, dirs []string) bool {
	if clsAnyIn(dirs, clsTestDirs) || dirs[0] == "t" ||
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py") {
		return true
	}
	for _, s := range clsTestSuffixes {
		if strings.HasSuffix(base, s) {
			return true
		}
	}
	for _, s := range clsTestInfixes {
		if strings.Contains(base, s) {
			return true
		}
	}
	return false
}

func clsIsDocFile(base string) bool {
	ext := path.Ext(base)
	if ext == "" {
		return clsDocNames[base] // LICENSE, AUTHORS
	}
	return clsDocExts[ext] && !clsConfigNames[base]
}

func clsIsConfigFile(base string) bool {
	return clsConfigNames[base] || clsConfigExts[path.Ext(base)] ||
		strings.HasPrefix(base, "dockerfile") || strings.HasSuffix(base, ".dockerfile") ||
		strings.HasPrefix(base, "docker-compose") || strings.HasPrefix(base, ".env") ||
		strings.HasPrefix(base, ".eslintrc") || strings.HasPrefix(base, ".prettierrc") ||
		strings.HasPrefix(base, "tsconfig") || strings.HasPrefix(base, ".golangci")
}

// clsOnlyKind is the weight of a commit changing files of one kind only.
// Documentation and tests are defined as "docs only" and "tests only", so
// such a commit meets the definition; dependency and configuration changes
// are defined by purpose, so the files are a strong clue, not the answer.
var clsOnlyKind = [...]float64{
	clsKindDoc: 5, clsKindTest: 5, clsKindManifest: 2.5, clsKindConfig: 2.5,
}

// clsShareKind is the weight, times their share, of files of one kind in a
// commit that changes others too. Docs and tests accompany changes of any
// type, so their share says nothing.
var clsShareKind = [...]float64{clsKindManifest: 1, clsKindConfig: 1}

// When the message already says the change is a cleanup (cleanup evidence
// ≥ clsCleanupSaid: "typo", "chore: format", "fix lint"), the nature of the
// change outweighs its area for tests: a tests-only commit counts
// clsOnlyKindYield. Documentation keeps its weight (any edit of the docs
// is a documentation change), and so do configuration and manifests,
// where "lint" or "unused" name the linter configured or the dependency
// dropped.
const (
	clsCleanupSaid   = 2.0
	clsOnlyKindYield = 1.5
)

// clsScoreFiles adds the evidence of the kinds of files changed.
func clsScoreFiles(kinds []clsKind, cleanupSaid bool, s *clsScores) {
	if len(kinds) == 0 {
		return
	}
	var counts [len(clsKindTypes)]int
	for _, k := range kinds {
		counts[k]++
	}
	for k, n := range counts {
		if k == int(clsKindCode) || n == 0 {
			continue
		}
		switch {
		case n == len(kinds) && cleanupSaid && k == int(clsKindTest):
			s.add(clsKindTypes[k], clsOnlyKindYield)
		case n == len(kinds):
			s.add(clsKindTypes[k], clsOnlyKind[k])
		default:
			s.add(clsKindTypes[k], clsShareKind[k]*float64(n)/float64(len(kinds)))
		}
	}
}

// ---- diff shape ----

// clsScoreShape adds the evidence of the diff's shape: line counts and
// statuses.
func clsScoreShape(changes []model.FileChange, kinds []clsKind, s *clsScores) {
	if len(changes) == 0 {
		return
	}
	var ins, del, codeIns, codeDel int
	renames, tinySym, newCode := 0, 0, false
	for i, fc := range changes {
		ins += fc.Insertions
		del += fc.Deletions
		if fc.Status == model.Renamed {
			renames++
		}
		if fc.Insertions <= 3 && fc.Deletions <= 3 && fc.Insertions+fc.Deletions > 0 &&
			fc.Insertions-fc.Deletions <= 1 && fc.Deletions-fc.Insertions <= 1 {
			tinySym++
		}
		if kinds[i] == clsKindCode && !fc.Binary {
			codeIns += fc.Insertions
			codeDel += fc.Deletions
			newCode = newCode || fc.Status == model.Added
		}
	}
	switch {
	case renames == len(changes):
		s.add(model.Refactor, 2)
	case ins == 0 && del > 0:
		s.add(model.Cleanup, 1.5)
		s.add(model.Refactor, 0.5)
	case len(changes) >= 5 && tinySym == len(changes):
		s.add(model.Cleanup, 1.5)
		s.add(model.Refactor, 0.5)
	}
	if newCode {
		s.add(model.Feature, 1)
	}
	if codeIns >= 100 && codeIns >= 4*codeDel {
		s.add(model.Feature, 0.5)
	}
}

// clsScoreHunks adds the evidence of the changed lines themselves: only
// white space changed (formatting), or only comments (documentation).
func clsScoreHunks(changes []model.FileChange, s *clsScores) {
	comments, lines, code := 0, 0, false
	added, removed := 0, 0
	for line := range clsChangedLines(changes) {
		if lines++; lines > clsHunkLineLimit {
			return
		}
		body := strings.TrimSpace(line[1:])
		switch {
		case body == "":
		case clsIsComment(body):
			comments++
		default:
			code = true
		}
		if line[0] == '+' {
			added++
		} else {
			removed++
		}
	}
	switch {
	case lines == 0:
	case added == removed && clsOnlySpaceChanged(changes):
		s.add(model.Cleanup, 2.5)
	case !code && comments > 0:
		s.add(model.Documentation, 2)
	}
}

// clsChangedLines yields the added and removed lines of changes' hunks,
// with their '+' or '-' and without the newline.
func clsChangedLines(changes []model.FileChange) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, fc := range changes {
			for _, h := range fc.Hunks {
				for text := h.Text; text != ""; {
					line := text
					if k := strings.IndexByte(text, '\n'); k >= 0 {
						line, text = text[:k], text[k+1:]
					} else {
						text = ""
					}
					if line != "" && (line[0] == '+' || line[0] == '-') && !yield(line) {
						return
					}
				}
			}
		}
	}
}

// clsOnlySpaceChanged reports whether the added lines are the removed
// ones in some order once white space is removed. clsScoreHunks calls it
// only when there are at most clsHunkLineLimit changed lines.
//
// Equal multisets of lines have equal sums of hashes, so a difference of
// the sums rules most changes out before any line is built and sorted.
func clsOnlySpaceChanged(changes []model.FileChange) bool {
	var diff uint64 // the added lines' hashes less the removed ones'
	for line := range clsChangedLines(changes) {
		if line[0] == '+' {
			diff += clsSqueezeHash(line[1:])
		} else {
			diff -= clsSqueezeHash(line[1:])
		}
	}
	if diff != 0 {
		return false
	}
	var added, removed []string
	for line := range clsChangedLines(changes) {
		if line[0] == '+' {
			added = append(added, clsSqueeze(line[1:]))
		} else {
			removed = append(removed, clsSqueeze(line[1:]))
		}
	}
	return len(added) == len(removed) && clsSameLines(added, removed)
}

// clsSqueezeHash is the FNV-1a hash of the runes of clsSqueeze(s), without
// building it: like strings.Map, it reads an invalid byte as U+FFFD.
func clsSqueezeHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if !clsASCIISpace[c] {
				h = (h ^ uint64(c)) * 1099511628211
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if !unicode.IsSpace(r) {
			h = (h ^ uint64(r)) * 1099511628211
		}
	}
	return h
}

// clsASCIISpace holds the ASCII bytes unicode.IsSpace accepts.
var clsASCIISpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// clsIsComment reports whether a trimmed, non-empty source line is a
// comment.
func clsIsComment(line string) bool {
	if !clsCommentFirst[line[0]] { // most lines: spare the prefixes
		return false
	}
	for _, p := range clsCommentStarts {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return line == "#" || line == "*"
}

var clsCommentStarts = []string{"//", "/*", "* ", "*/", "# ", "-- ", "<!--", "\"\"\"", ";;"}

// clsCommentFirst holds the first bytes of clsCommentStarts, "#" and "*".
var clsCommentFirst = func() (first [256]bool) {
	for _, p := range slices.Concat(clsCommentStarts, []string{"#", "*"}) {
		first[p[0]] = true
	}
	return first
}()

// clsSqueeze removes all white space from s.
func clsSqueeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// clsSameLines reports whether a and b hold the same lines in any order.
// It sorts both.
func clsSameLines(a, b []string) bool {
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
