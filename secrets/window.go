package secrets

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the regexp analysis that lets Scanner run most gitleaks
// rules on a few small regions of a text instead of on the whole text, with
// exactly the matches a whole-text scan finds.
//
// Why: gitleaks gates each rule by a keyword prefilter, but once one keyword
// of a rule occurs anywhere in a fragment, the rule's regexp runs over the
// whole fragment. Keywords such as "s.", "sk", "ey", "key" or "access" occur
// in almost every diff, and Go's regexp runs such patterns at 3-8 MB/s
// (gitleaks' generic-api-key compiles to 554 NFA instructions), so
// DetectString costs 6-9 ms per 20 KB of code.
//
// What the analysis derives for a rule, from its regexp's syntax tree:
//
//   - lits: a set of strings, one of which occurs (up to ASCII case) in every
//     match, each containing one of the rule's keywords. A literal may carry
//     \b marks at its ends (wordBoundary);
//   - for the occurrence of that literal, bounds on what a match may hold
//     before it (pre: bytes, newlines, byte set) and in total (maxW bytes,
//     maxNL newlines, chars: the bytes any match can contain);
//   - anchored: if the literal starts a run of the top-level concatenation,
//     the sub-expression matching the rest of the match from the literal on.
//
// How Scanner uses it, per windowed rule (Scanner.findings, scanRule):
//
//  1. Find every occurrence q of a literal whose \b marks hold in the text.
//     Every match contains such an occurrence (its designated one).
//  2. core(q): walk back from q over pre.chars (within pre's bounds) and
//     forward over chars (within maxW of q and maxNL newlines). A match
//     containing q as its designated occurrence lies inside core(q). tight(q)
//     is core(q) plus one byte each side; wide(q) is core(q) widened to
//     whole lines plus the '\n' on each side.
//  3. q is active if a relaxed form of the rule's regexp (counted
//     repetitions unbounded: a superset) matches text[q:tight end] anchored
//     at q, or, without an anchored form, anywhere in tight(q). An inactive q
//     is the designated occurrence of no match.
//  4. Merge the wide regions of all occurrences into disjoint regions; scan
//     each region holding an active occurrence with a detector holding only
//     that rule.
//
// Why the regions give exactly the whole-text matches: every whole-text match
// lies in wide(q) of its designated, active occurrence, inside one region.
// Conversely a match found inside a region contains an occurrence q' that is
// not at the region's edge (the edges are '\n' and literals hold no '\n'),
// so q' has the same \b context as in the whole text, its wide region is part
// of this region, and the match lies strictly inside core(q'): every
// assertion (\b, ^, $, \A, \z) sees the same neighbouring bytes as in the
// whole text, and leftmost-first matching makes the same choices, so it is a
// whole-text match. No whole-text match crosses a region boundary. Regions
// start at the '\n' before their first line, so gitleaks computes the same
// Finding.Line (used by "gitleaks:allow" and by allowlists that target the
// line), and the keyword gate passes since the literal is in the region.
//
// The literal search folds ASCII case only. Three non-ASCII runes fold or
// lower-case to ASCII letters (U+017F 'ſ', U+0130 'İ', U+212A KELVIN SIGN); a
// text containing one of them takes the plain whole-text path.
//
// Rules that do not qualify (no usable literal, unbounded extent, composite
// rules, path rules, rules without keywords) run on the whole text exactly as
// in gitleaks, gated by their keywords.

const (
	maxLitSet  = 64   // largest literal set tracked
	maxClass   = 16   // largest character class expanded into literals
	minLitLen  = 2    // shortest literal worth windowing on
	maxWindowW = 4096 // largest match width (bytes) worth windowing on
	maxWindowL = 32   // largest newline count worth windowing on
)

// litInfo describes a sub-expression for the required-literal analysis. All
// strings are ASCII-lower-cased.
type litInfo struct {
	exact  []string // every string the node can match; nil if unknown
	prefix []string // every match starts with one of these; nil if unknown
	req    []string // every match contains one of these; nil if none known
	// reqPre bounds how far a match extends before the occurrence of
	// the req literal it contains (zero for exact and prefix sets).
	reqPre extent
	// anchor, if not nil, is a sequence of sub-expressions whose
	// concatenation matches exactly the part of a match that starts at
	// that occurrence of the req literal.
	anchor []*syntax.Regexp
}

// extent bounds a stretch of matched text: at most w bytes and nl newlines
// (-1: unbounded), all of them in chars.
type extent struct {
	w, nl int
	chars charset
}

func (e extent) plus(f extent) extent {
	add := func(a, b int) int {
		if a < 0 || b < 0 {
			return -1
		}
		return a + b
	}
	return extent{add(e.w, f.w), add(e.nl, f.nl), e.chars.union(f.chars)}
}

func (e extent) union(f extent) extent {
	m := func(a, b int) int {
		if a < 0 || b < 0 {
			return -1
		}
		return max(a, b)
	}
	return extent{m(e.w, f.w), m(e.nl, f.nl), e.chars.union(f.chars)}
}

func extentOf(re *syntax.Regexp) extent {
	return extent{maxWidth(re), maxNL(re), charsOf(re)}
}

// charset is a set of bytes that may occur in a match. Bytes of multi-byte
// runes (and invalid UTF-8) are tracked together: high says whether any
// byte >= 0x80 may occur.
type charset struct {
	ascii [2]uint64
	high  bool
}

func (c charset) union(d charset) charset {
	return charset{[2]uint64{c.ascii[0] | d.ascii[0], c.ascii[1] | d.ascii[1]}, c.high || d.high}
}

func (c *charset) addRange(lo, hi rune) {
	for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
		c.ascii[r>>6] |= 1 << (r & 63)
	}
	if hi >= utf8.RuneSelf {
		c.high = true
	}
}

func (c *charset) has(b byte) bool {
	if b >= utf8.RuneSelf {
		return c.high
	}
	return c.ascii[b>>6]&(1<<(b&63)) != 0
}

// charsOf returns the bytes that may occur in a match of re.
func charsOf(re *syntax.Regexp) charset {
	var c charset
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			c.addRange(r, r)
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					c.addRange(f, f)
				}
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			c.addRange(re.Rune[i], re.Rune[i+1])
		}
	case syntax.OpAnyChar:
		c.addRange(0, unicode.MaxRune)
	case syntax.OpAnyCharNotNL:
		c.addRange(0, '\n'-1)
		c.addRange('\n'+1, unicode.MaxRune)
	default:
		for _, s := range re.Sub {
			c = c.union(charsOf(s))
		}
	}
	return c
}

// requirementPre is the extent before the literal of li.requirement().
func (li litInfo) requirementPre() extent {
	if li.exact != nil {
		return extent{}
	}
	return li.reqPre
}

// pre returns the set of strings every match starts with, or nil.
func (li litInfo) pre() []string {
	if li.exact != nil {
		return li.exact
	}
	return li.prefix
}

// requirement returns a set one of which every match contains, or nil.
func (li litInfo) requirement() []string {
	set := li.req
	if li.exact != nil {
		set = li.exact
	}
	if len(set) == 0 || slices.ContainsFunc(set, func(s string) bool { return litLen(s) == 0 }) {
		return nil
	}
	return set
}

// wordBoundary stands for a \b assertion inside a literal string. The
// analysis keeps it where it borders a literal: an occurrence of the literal
// where the assertion fails cannot be the one a match requires, so the
// matcher skips it. Interior ones are dropped.
const wordBoundary = "\x00"

// litLen is the length of a literal string without wordBoundary marks.
func litLen(s string) int { return len(s) - strings.Count(s, wordBoundary) }

// splitLit turns an analysed literal into the bytes to search for and
// whether a word boundary must hold before and after it.
func splitLit(s string) (lit string, before, after bool) {
	before = strings.HasPrefix(s, wordBoundary)
	after = strings.HasSuffix(s, wordBoundary) && litLen(s) > 0
	return strings.ReplaceAll(s, wordBoundary, ""), before, after
}

// ruleShape is the result of analysing one rule's regexp.
type ruleShape struct {
	lits  []string // required literals, lower-cased, with wordBoundary marks; nil if none usable
	maxNL int      // max number of '\n' in a match; -1 if unbounded
	maxW  int      // max match width in bytes; -1 if unbounded
	pre   extent   // how far a match extends before its literal
	chars charset  // bytes that may occur in a match
	// anchor, if not nil, matches exactly the part of a match that
	// starts at its literal (see litInfo.anchor); anchoredExpr spells it.
	anchor *syntax.Regexp
}

// anchoredExpr is the expression of sh.anchor, "" if there is none. It is
// spelt only when a rule's literal is first found: printing a parsed
// regexp computes its case-folding flags, which for gitleaks' rules took
// about 20 ms of the scanner's 80 ms of preparation, paid by every sync.
func (sh ruleShape) anchoredExpr() string {
	if sh.anchor == nil {
		return ""
	}
	return sh.anchor.String()
}

// analyzer derives a ruleShape; keywords steer the choice of literals
// towards sets whose members all contain a keyword.
type analyzer struct {
	keywords []string
}

func analyzeRegexp(expr string, keywords []string) (ruleShape, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ruleShape{}, false
	}
	a := analyzer{keywords: keywords}
	info := a.literals(re)
	lits := info.requirement()
	for _, l := range lits {
		if litLen(l) < minLitLen {
			lits = nil
			break
		}
	}
	sh := ruleShape{
		lits:  dedup(lits),
		maxNL: maxNL(re),
		maxW:  maxWidth(re),
		pre:   info.requirementPre(),
		chars: charsOf(re),
	}
	anchor := info.anchor
	if info.exact != nil {
		anchor = []*syntax.Regexp{re}
	}
	if anchor != nil {
		sh.anchor = &syntax.Regexp{Op: syntax.OpConcat, Sub: anchor}
	}
	return sh, true
}

// windowable reports whether the rule can be scanned on windows: it has
// literals that each contain one of the keywords (so the keyword gate of a
// single-rule detector passes in every region) and a bounded extent.
func (sh ruleShape) windowable(keywords []string) bool {
	if len(sh.lits) == 0 || !allHaveKeyword(sh.lits, keywords) {
		return false
	}
	for _, l := range sh.lits {
		if strings.Contains(l, "\n") {
			return false // see window.go: literals must not span lines
		}
	}
	lineOK := sh.maxNL >= 0 && sh.maxNL <= maxWindowL
	byteOK := sh.maxW >= 0 && sh.maxW <= maxWindowW
	return lineOK || byteOK
}

func allHaveKeyword(lits, keywords []string) bool {
	if len(lits) == 0 || len(keywords) == 0 {
		return false
	}
	for _, l := range lits {
		ok := false
		for _, k := range keywords {
			if k != "" && strings.Contains(strings.ReplaceAll(l, wordBoundary, ""), strings.ToLower(k)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// better reports whether requirement set x is preferable to y: sets whose
// literals all contain a keyword first, then longer shortest literal, then
// fewer literals.
func (a *analyzer) better(x, y []string) bool {
	if x == nil {
		return false
	}
	if y == nil {
		return true
	}
	kx, ky := allHaveKeyword(x, a.keywords), allHaveKeyword(y, a.keywords)
	if kx != ky {
		return kx
	}
	mx, my := minLen(x), minLen(y)
	if mx != my {
		return mx > my
	}
	return len(x) < len(y)
}

func minLen(s []string) int {
	m := -1
	for _, x := range s {
		if n := litLen(x); m < 0 || n < m {
			m = n
		}
	}
	return m
}

func dedup(s []string) []string {
	if s == nil {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// cross returns {x+y} or nil if that set would be too large.
func cross(xs, ys []string) []string {
	if xs == nil || ys == nil || len(xs)*len(ys) > maxLitSet {
		return nil
	}
	out := make([]string, 0, len(xs)*len(ys))
	for _, x := range xs {
		for _, y := range ys {
			s := x + y
			for strings.Contains(s, wordBoundary+wordBoundary) {
				s = strings.ReplaceAll(s, wordBoundary+wordBoundary, wordBoundary)
			}
			out = append(out, s)
		}
	}
	return dedup(out)
}

// foldsToASCII reports whether r is a non-ASCII rune whose simple case
// folding orbit contains an ASCII letter. Only U+017F and U+212A do;
// TestFoldsToASCII checks that against the whole Unicode range.
func foldsToASCII(r rune) bool { return r == 0x017F || r == 0x212A }

// lowerASCII lower-cases ASCII letters only.
func lowerASCII(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// runeInfo is the literal info for one rune of a literal.
func runeInfo(r rune, fold bool) litInfo {
	if fold && r >= utf8.RuneSelf && unicode.SimpleFold(r) != r {
		// A non-ASCII rune under (?i) can match runes of other
		// encodings; do not enumerate them.
		return litInfo{}
	}
	s := []string{string(lowerASCII(r))}
	return litInfo{exact: s}
}

func (a *analyzer) literals(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpWordBoundary:
		return litInfo{exact: []string{wordBoundary}}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpNoWordBoundary:
		return litInfo{exact: []string{""}}
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		if len(re.Rune) == 1 {
			return runeInfo(re.Rune[0], fold)
		}
		parts := make([]*syntax.Regexp, 0, len(re.Rune))
		for _, r := range re.Rune {
			parts = append(parts, &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{r}, Flags: re.Flags})
		}
		return a.concat(parts)
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
			if n > 4*maxClass {
				return litInfo{}
			}
		}
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set = append(set, string(lowerASCII(r)))
			}
		}
		set = dedup(set)
		if len(set) == 0 || len(set) > maxClass {
			return litInfo{}
		}
		return litInfo{exact: set}
	case syntax.OpCapture:
		info := a.literals(re.Sub[0])
		if info.exact != nil {
			info.anchor = []*syntax.Regexp{re}
		}
		return info
	case syntax.OpQuest:
		sub := a.literals(re.Sub[0])
		if sub.exact != nil && len(sub.exact) < maxLitSet {
			return litInfo{exact: dedup(append(slices.Clone(sub.exact), ""))}
		}
		return litInfo{}
	case syntax.OpPlus:
		// The first repetition's literal is at its own offset.
		sub := a.literals(re.Sub[0])
		return litInfo{prefix: sub.pre(), req: sub.requirement(), reqPre: sub.requirementPre()}
	case syntax.OpRepeat:
		sub := a.literals(re.Sub[0])
		switch {
		case re.Min == 1 && re.Max == 1:
			return sub
		case re.Min == 0 && re.Max == 1:
			if sub.exact != nil && len(sub.exact) < maxLitSet {
				return litInfo{exact: dedup(append(slices.Clone(sub.exact), ""))}
			}
			return litInfo{}
		case re.Min >= 1:
			return litInfo{prefix: sub.pre(), req: sub.requirement(), reqPre: sub.requirementPre()}
		}
		return litInfo{}
	case syntax.OpConcat:
		return a.concat(re.Sub)
	case syntax.OpAlternate:
		infos := make([]litInfo, len(re.Sub))
		for i, s := range re.Sub {
			infos[i] = a.literals(s)
		}
		return a.alternate(infos)
	}
	// OpNoMatch, OpAnyChar, OpAnyCharNotNL, OpStar and anything else:
	// nothing known.
	return litInfo{}
}

func (a *analyzer) alternate(infos []litInfo) litInfo {
	union := func(get func(litInfo) []string) []string {
		var out []string
		for _, info := range infos {
			s := get(info)
			if s == nil {
				return nil
			}
			out = append(out, s...)
		}
		if len(out) > maxLitSet {
			return nil
		}
		return dedup(out)
	}
	if exact := union(func(li litInfo) []string { return li.exact }); exact != nil {
		return litInfo{exact: exact}
	}
	pre := extent{}
	for _, info := range infos {
		pre = pre.union(info.requirementPre())
	}
	return litInfo{
		prefix: union(litInfo.pre),
		req:    union(litInfo.requirement),
		reqPre: pre,
	}
}

func (a *analyzer) concat(parts []*syntax.Regexp) litInfo {
	var (
		cur        = []string{""} // strings matched by the current run of exact parts
		runStart   int            // index of the first part of the current run
		runPre     extent         // extent of the parts before the current run
		done       extent         // extent of the parts before the current part
		exactAll   = true
		prefix     []string
		prefixSet  bool
		best       []string
		bestPre    extent
		bestAnchor []*syntax.Regexp
	)
	consider := func(set []string, pre extent, anchor []*syntax.Regexp) {
		if len(set) == 0 || slices.ContainsFunc(set, func(s string) bool { return litLen(s) == 0 }) {
			return
		}
		if a.better(set, best) {
			best, bestPre, bestAnchor = set, pre, anchor
		}
	}
	endRun := func(ext []string) {
		if !prefixSet {
			prefix, prefixSet = ext, true
		}
		exactAll = false
		consider(ext, runPre, parts[runStart:])
	}
	for k, p := range parts {
		info := a.literals(p)
		if info.exact != nil {
			if c := cross(cur, info.exact); c == nil {
				// Too many combinations: close the run, start a
				// new one.
				endRun(cur)
				cur, runStart, runPre = info.exact, k, done
			} else {
				cur = c
			}
			done = done.plus(extentOf(p))
			continue
		}
		ext := cur
		if c := cross(cur, info.pre()); c != nil {
			ext = c
		}
		endRun(ext)
		var anchor []*syntax.Regexp
		if info.anchor != nil {
			anchor = append(slices.Clip(info.anchor), parts[k+1:]...)
		}
		consider(info.req, done.plus(info.reqPre), anchor)
		done = done.plus(extentOf(p))
		cur, runStart, runPre = []string{""}, k+1, done
	}
	if exactAll {
		return litInfo{exact: cur}
	}
	consider(cur, runPre, parts[runStart:])
	return litInfo{prefix: prefix, req: best, reqPre: bestPre, anchor: bestAnchor}
}
