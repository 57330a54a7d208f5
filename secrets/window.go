package secrets

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the analysis that lets Scanner run most gitleaks rules on
// small windows of the text instead of on the whole text, with exactly the
// same matches.
//
// Why: gitleaks gates each rule by a keyword prefilter, but once one keyword
// of a rule occurs anywhere in a fragment the rule's regexp runs over the
// whole fragment. Keywords such as "s.", "sk", "ey", "key" or "access" occur
// in almost every diff, and Go's regexp runs patterns without a literal
// prefix at only ~8 MB/s, so DetectString on a 20 KB diff costs ~8 ms.
//
// How, and why it is exact. For a rule we derive from its regexp syntax tree
//
//   - lits: a set of strings, one of which occurs (up to ASCII case) in every
//     match of the regexp on any input, each containing one of the rule's
//     keywords; and
//   - maxNL, an upper bound on the number of '\n' in a match, and/or maxW, an
//     upper bound on the byte length of a match.
//
// Every match then contains an occurrence q of a literal and lies inside the
// lines line(q)-maxNL .. line(q)+maxNL, and inside the bytes
// [q+len-maxW, q+maxW]. For each occurrence we take that interval, widen it
// to whole lines plus the '\n' on either side, and merge overlapping
// intervals into regions; a detector holding only that rule scans each
// region. The matches of the regexp in a region are exactly the whole-text
// matches that lie in it: any match found in the region contains a literal
// occurrence whose interval is inside the region and never touches its
// edges, so every assertion (\b, ^, $, \A, \z) sees the same neighbouring
// characters as in the whole text and leftmost-first matching makes the same
// choices; no whole-text match crosses a region boundary. Regions start at
// the preceding '\n' so gitleaks computes the same Finding.Line (used by
// allowlists that target the line and by "gitleaks:allow"). The keyword gate
// passes in every region because the literal, hence a keyword, is in it.
//
// The literal search folds ASCII case only. Two non-ASCII runes fold to ASCII
// letters (U+017F 'ſ' to 's', U+212A KELVIN SIGN to 'k'); a text containing
// either takes the plain whole-text path.
//
// Rules that do not qualify (no usable literal, unbounded in both lines and
// bytes, composite rules, path rules, rules without keywords) run on the
// whole text exactly as in gitleaks.

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
	if len(set) == 0 || slices.Contains(set, "") {
		return nil
	}
	return set
}

// ruleShape is the result of analysing one rule's regexp.
type ruleShape struct {
	lits  []string // required literals, lower-cased; nil if none usable
	maxNL int      // max number of '\n' in a match; -1 if unbounded
	maxW  int      // max match width in bytes; -1 if unbounded
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
	lits := a.literals(re).requirement()
	for _, l := range lits {
		if len(l) < minLitLen {
			lits = nil
			break
		}
	}
	return ruleShape{lits: dedup(lits), maxNL: maxNL(re), maxW: maxWidth(re)}, true
}

// windowable reports whether the rule can be scanned on windows: it has
// literals that each contain one of the keywords (so the keyword gate of a
// single-rule detector passes in every region) and a bounded extent.
func (sh ruleShape) windowable(keywords []string) bool {
	if len(sh.lits) == 0 || !allHaveKeyword(sh.lits, keywords) {
		return false
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
			if k != "" && strings.Contains(l, strings.ToLower(k)) {
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
		if m < 0 || len(x) < m {
			m = len(x)
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
			out = append(out, x+y)
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
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary,
		syntax.OpNoWordBoundary:
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
		return a.literals(re.Sub[0])
	case syntax.OpQuest:
		sub := a.literals(re.Sub[0])
		if sub.exact != nil && len(sub.exact) < maxLitSet {
			return litInfo{exact: dedup(append(slices.Clone(sub.exact), ""))}
		}
		return litInfo{}
	case syntax.OpPlus:
		sub := a.literals(re.Sub[0])
		return litInfo{prefix: sub.pre(), req: sub.requirement()}
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
			return litInfo{prefix: sub.pre(), req: sub.requirement()}
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
	return litInfo{
		prefix: union(litInfo.pre),
		req:    union(litInfo.requirement),
	}
}

func (a *analyzer) concat(parts []*syntax.Regexp) litInfo {
	var (
		cur       = []string{""} // strings matched by the current run of exact parts
		exactAll  = true
		prefix    []string
		prefixSet bool
		best      []string
	)
	consider := func(set []string) {
		if len(set) == 0 || slices.Contains(set, "") {
			return
		}
		if a.better(set, best) {
			best = set
		}
	}
	endRun := func(ext []string) {
		if !prefixSet {
			prefix, prefixSet = ext, true
		}
		exactAll = false
		consider(ext)
	}
	for _, p := range parts {
		info := a.literals(p)
		if info.exact != nil {
			if c := cross(cur, info.exact); c != nil {
				cur = c
				continue
			}
			// Too many combinations: close the run, start a new one.
			endRun(cur)
			cur = info.exact
			continue
		}
		ext := cur
		if c := cross(cur, info.pre()); c != nil {
			ext = c
		}
		endRun(ext)
		consider(info.req)
		cur = []string{""}
	}
	if exactAll {
		return litInfo{exact: cur}
	}
	consider(cur)
	return litInfo{prefix: prefix, req: best}
}

// maxNL returns an upper bound on the number of '\n' in any match of re, or
// -1 if there is none.
func maxNL(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpAnyChar:
		return 1
	case syntax.OpAnyCharNotNL:
		return 0
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			if r == '\n' {
				n++
			}
		}
		return n
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return 1
			}
		}
		return 0
	}
	return extent(re, maxNL)
}

// maxWidth returns an upper bound on the byte length of any match of re,
// or -1 if there is none.
func maxWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += maxRuneLen(r, re.Flags&syntax.FoldCase != 0)
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0
		}
		return max(utf8.RuneLen(min(re.Rune[len(re.Rune)-1], unicode.MaxRune)), 1)
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax
	}
	return extent(re, maxWidth)
}

// extent combines a per-leaf measure over the structure of re.
func extent(re *syntax.Regexp, leaf func(*syntax.Regexp) int) int {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginLine,
		syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpCapture, syntax.OpQuest:
		return leaf(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if leaf(re.Sub[0]) == 0 {
			return 0
		}
		return -1
	case syntax.OpRepeat:
		w := leaf(re.Sub[0])
		if w == 0 {
			return 0
		}
		if w < 0 || re.Max < 0 {
			return -1
		}
		return w * re.Max
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			w := leaf(s)
			if w < 0 {
				return -1
			}
			n += w
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			w := leaf(s)
			if w < 0 {
				return -1
			}
			n = max(n, w)
		}
		return n
	}
	return -1
}

// maxRuneLen is the longest UTF-8 encoding of any rune the literal rune r
// may match.
func maxRuneLen(r rune, fold bool) int {
	n := utf8.RuneLen(r)
	if n < 0 {
		n = utf8.UTFMax
	}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			n = max(n, utf8.RuneLen(f))
		}
	}
	return n
}
