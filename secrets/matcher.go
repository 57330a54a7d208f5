package secrets

import (
	"slices"
	"strings"
)

// triggerFull marks a literal that is a keyword of a rule scanned on the
// whole text rather than on windows.
const triggerFull int32 = -1

// litMatcher finds occurrences of a fixed set of lower-case literals (each at
// least two bytes long) in ASCII-lower-cased text. Two 8 KiB bitsets over
// byte pairs reject almost every position: one holds the first two bytes of
// every literal of three or more bytes, and one their second and third
// bytes; a third holds the two-byte literals. Candidates are then looked up
// by their first two bytes.
type litMatcher struct {
	b12, b23, short bitset16
	index           [1 << 16]uint16 // first two bytes -> 1 + index into groups
	groups          [][]litEntry
}

type bitset16 [1 << 16 / 64]uint64

func (b *bitset16) set(k uint16)      { b[k>>6] |= 1 << (k & 63) }
func (b *bitset16) has(k uint16) bool { return b[k>>6]&(1<<(k&63)) != 0 }

func pair(a, b byte) uint16 { return uint16(a)<<8 | uint16(b) }

type litEntry struct {
	lit   string
	rules []litRule
}

// litRule is a rule that requires a literal: an index into Scanner.win (or
// triggerFull) and whether a word boundary (\b) must hold right before or
// right after the occurrence.
type litRule struct {
	rule          int32
	before, after bool
}

type litMatcherBuilder struct {
	rules map[string][]litRule
}

func newLitMatcherBuilder() *litMatcherBuilder {
	return &litMatcherBuilder{rules: map[string][]litRule{}}
}

// add registers an analysed literal (possibly carrying wordBoundary marks)
// for a rule.
func (b *litMatcherBuilder) add(analysed string, rule int32) {
	lit, before, after := splitLit(analysed)
	if len(lit) < 2 {
		panic("secrets: literal shorter than two bytes: " + lit)
	}
	lr := litRule{rule: rule, before: before, after: after}
	if !slices.Contains(b.rules[lit], lr) {
		b.rules[lit] = append(b.rules[lit], lr)
	}
}

func (b *litMatcherBuilder) build() *litMatcher {
	m := &litMatcher{}
	lits := make([]string, 0, len(b.rules))
	for l := range b.rules {
		lits = append(lits, l)
	}
	slices.Sort(lits)
	for _, l := range lits {
		k := pair(l[0], l[1])
		if len(l) == 2 {
			m.short.set(k)
		} else {
			m.b12.set(k)
			m.b23.set(pair(l[1], l[2]))
		}
		if m.index[k] == 0 {
			m.groups = append(m.groups, nil)
			m.index[k] = uint16(len(m.groups))
		}
		g := m.index[k] - 1
		m.groups[g] = append(m.groups[g], litEntry{lit: l, rules: b.rules[l]})
	}
	if len(m.groups) >= 1<<16-1 {
		panic("secrets: too many literal groups")
	}
	return m
}

// find calls fn for every occurrence of every literal in lower and every
// rule requiring it whose word-boundary conditions hold there.
func (m *litMatcher) find(lower []byte, fn func(pos, n int, rule int32)) {
	for i := 0; i+1 < len(lower); i++ {
		k := pair(lower[i], lower[i+1])
		if !m.short.has(k) && !(m.b12.has(k) && i+2 < len(lower) && m.b23.has(pair(lower[i+1], lower[i+2]))) {
			continue
		}
		rest := lower[i:]
		for _, e := range m.groups[m.index[k]-1] {
			n := len(e.lit)
			if len(rest) < n || string(rest[:n]) != e.lit {
				continue
			}
			for _, r := range e.rules {
				if r.before && !isBoundary(lower, i) || r.after && !isBoundary(lower, i+n) {
					continue
				}
				fn(i, n, r.rule)
			}
		}
	}
}

// isBoundary reports whether \b holds at offset i of s, as Go's regexp
// defines it (ASCII word characters; any byte of a multi-byte rune is a
// non-word character).
func isBoundary(s []byte, i int) bool {
	before := i > 0 && isWordByte(s[i-1])
	after := i < len(s) && isWordByte(s[i])
	return before != after
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// lineIndex locates lines in a text by the offsets of its '\n' bytes.
type lineIndex struct {
	nl  []int
	len int
}

func newLineIndex(text string, dst []int) lineIndex {
	for off := 0; ; {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			break
		}
		dst = append(dst, off+i)
		off += i + 1
	}
	return lineIndex{nl: dst, len: len(text)}
}

// line returns the 0-based line number of byte offset pos.
func (li lineIndex) line(pos int) int {
	n, _ := slices.BinarySearch(li.nl, pos)
	return n
}

// start returns the offset of the first byte of line l.
func (li lineIndex) start(l int) int {
	if l <= 0 {
		return 0
	}
	if l > len(li.nl) {
		return li.len
	}
	return li.nl[l-1] + 1
}

// end returns the offset of the '\n' ending line l, or the text length.
func (li lineIndex) end(l int) int {
	if l < 0 {
		return 0
	}
	if l >= len(li.nl) {
		return li.len
	}
	return li.nl[l]
}

// occurrence is a literal occurrence of one windowed rule with the two
// regions derived from it (see window.go):
//   - tight: the bytes any match containing the occurrence can span, plus
//     one byte of context on each side;
//   - wide: tight widened to whole lines plus the '\n' on either side.
type occurrence struct {
	rule           int32
	active         bool
	pos            int
	tightA, tightB int
	wideA, wideB   int
}

// occurrence computes the regions for a literal at text[pos:pos+n].
//
// A match containing the literal starts at most pre.w bytes and pre.nl
// newlines before it, and everything it has before the literal is in
// pre.chars; it ends at most maxW bytes after the literal's start and
// contains at most maxNL newlines, all its bytes being in chars.
func (w *winRule) occurrence(text string, li lineIndex, r int32, pos, n int) occurrence {
	// Walk back over bytes the match can have before the literal.
	a, nl := pos, 0
	for a > 0 && w.pre.chars.has(text[a-1]) && (w.pre.w < 0 || pos-a < w.pre.w) {
		if text[a-1] == '\n' {
			if w.pre.nl >= 0 && nl == w.pre.nl {
				break
			}
			nl++
		}
		a--
	}
	// Walk forward over bytes the match can have after the literal.
	limit := len(text)
	if w.maxW >= 0 {
		limit = min(limit, pos+w.maxW)
	}
	b, nl := pos+n, strings.Count(text[pos:pos+n], "\n")
	for b < limit && w.chars.has(text[b]) {
		if text[b] == '\n' {
			if w.maxNL >= 0 && nl == w.maxNL {
				break
			}
			nl++
		}
		b++
	}
	o := occurrence{rule: r, pos: pos, tightA: max(a-1, 0), tightB: min(b+1, len(text))}
	o.wideA = li.start(li.line(a))
	if o.wideA > 0 {
		o.wideA-- // the '\n' before the first line
	}
	o.wideB = li.end(li.line(b))
	if o.wideB < len(text) {
		o.wideB++ // the '\n' after the last line
	}
	return o
}
