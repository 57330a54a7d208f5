package understand

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// Message evidence for Classify: conventional prefixes, tags and gitmoji,
// merge and revert subjects, the author, and trailers.

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
