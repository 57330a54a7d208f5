package secrets

import (
	"slices"
	"strings"
)

// triggerFull marks a literal that is a keyword of a rule scanned on the
// whole text rather than on windows.
const triggerFull int32 = -1

// litMatcher finds occurrences of a fixed set of lower-case literals (each at
// least two bytes long) in ASCII-lower-cased text. It indexes the literals
// by their first two bytes: a 8 KiB bitset rejects almost every position
// without touching anything else.
type litMatcher struct {
	bits   [1 << 16 / 64]uint64
	index  map[uint16][]litEntry
	maxLen int
}

type litEntry struct {
	lit   string
	rules []int32 // indices into Scanner.win, or triggerFull
}

type litMatcherBuilder struct {
	rules map[string][]int32
}

func newLitMatcherBuilder() *litMatcherBuilder {
	return &litMatcherBuilder{rules: map[string][]int32{}}
}

func (b *litMatcherBuilder) add(lit string, rule int32) {
	if len(lit) < 2 {
		panic("secrets: literal shorter than two bytes: " + lit)
	}
	if !slices.Contains(b.rules[lit], rule) {
		b.rules[lit] = append(b.rules[lit], rule)
	}
}

func (b *litMatcherBuilder) build() *litMatcher {
	m := &litMatcher{index: map[uint16][]litEntry{}}
	lits := make([]string, 0, len(b.rules))
	for l := range b.rules {
		lits = append(lits, l)
	}
	slices.Sort(lits)
	for _, l := range lits {
		k := uint16(l[0])<<8 | uint16(l[1])
		m.bits[k>>6] |= 1 << (k & 63)
		m.index[k] = append(m.index[k], litEntry{lit: l, rules: b.rules[l]})
		m.maxLen = max(m.maxLen, len(l))
	}
	return m
}

// find calls fn for every occurrence of every literal in lower.
func (m *litMatcher) find(lower []byte, fn func(pos, n int, rules []int32)) {
	for i := 0; i+1 < len(lower); i++ {
		k := uint16(lower[i])<<8 | uint16(lower[i+1])
		if m.bits[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		rest := lower[i:]
		for _, e := range m.index[k] {
			if len(rest) >= len(e.lit) && string(rest[:len(e.lit)]) == e.lit {
				fn(i, len(e.lit), e.rules)
			}
		}
	}
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

// window is a region of the text to scan with one windowed rule.
type window struct {
	rule       int32
	start, end int
}

// window returns the region to scan with rule w for a literal occurrence at
// text[pos:pos+n]: every match containing that occurrence lies strictly
// inside it (see window.go). The region is whole lines plus the '\n' before
// and after them.
func (w *winRule) window(li lineIndex, pos, n int) (int, int) {
	a, b := 0, li.len
	if w.maxNL >= 0 && w.maxNL <= maxWindowL {
		a = li.start(li.line(pos) - w.maxNL)
		b = li.end(li.line(pos+n-1) + w.maxNL)
	}
	if w.maxW >= 0 && w.maxW <= maxWindowW {
		a = max(a, li.start(li.line(pos+n-w.maxW)))
		b = min(b, li.end(li.line(pos+w.maxW)))
	}
	if a > 0 {
		a-- // the '\n' before the first line
	}
	if b < li.len {
		b++ // the '\n' after the last line
	}
	return a, b
}
