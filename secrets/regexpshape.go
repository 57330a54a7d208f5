package secrets

import (
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// Bounds on a regexp's matches (newlines, width) and the relaxed and
// anchored variants of a rule's regexp that the windowed scan runs
// (window.go explains why).

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
	return combine(re, maxNL)
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
		// Ranges are sorted: the last bound is the largest rune.
		switch hi := re.Rune[len(re.Rune)-1]; {
		case hi >= 0x10000:
			return 4
		case hi >= 0x800:
			return 3
		case hi >= utf8.RuneSelf:
			return 2
		}
		return 1
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax
	}
	return combine(re, maxWidth)
}

// combine combines a per-leaf measure over the structure of re.
func combine(re *syntax.Regexp, leaf func(*syntax.Regexp) int) int {
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

// relaxedRegexp returns a regexp that matches somewhere in every string in
// which expr matches somewhere, and is cheap to run: counted repetitions with
// a wide range lose their upper bound (x{10,150} becomes x{10,}), which
// removes most states
// of patterns like gitleaks' generic rule (554 instructions: the NFA tracks
// hundreds of threads per byte), and nullable assertion-free parts at the
// ends of the top-level concatenation are dropped, since an unanchored
// search finds the rest anyway. It may match where expr does not; it is
// only used to rule regions out.
func relaxedRegexp(expr string) (*regexp.Regexp, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	re = relax(re)
	top := re
	for top.Op == syntax.OpCapture {
		top = top.Sub[0]
	}
	if top.Op == syntax.OpConcat {
		parts := top.Sub
		for len(parts) > 1 && droppable(parts[0]) {
			parts = parts[1:]
		}
		for len(parts) > 1 && droppable(parts[len(parts)-1]) {
			parts = parts[:len(parts)-1]
		}
		top.Sub = parts
	}
	return regexp.Compile(re.String())
}

// anchoredRegexp returns a relaxed (see relaxedRegexp) regexp anchored at
// the start of the text for ruleShape.anchored, or nil if there is none or
// if the anchoring could hide a match.
//
// It runs on text[q:] for a literal occurrence q whose word-boundary
// conditions were checked on the whole text, so leading \b assertions are
// dropped. Assertions at the start of text[q:] are otherwise evaluated
// without the byte before q: ^, \A and \b can then only hold more often
// than in the whole text (harmless: the result is a superset), but \B could
// hold less often, so expressions containing \B are not anchored.
func anchoredRegexp(anchored string) *regexp.Regexp {
	if anchored == "" {
		return nil
	}
	re, err := syntax.Parse(anchored, syntax.Perl)
	if err != nil || hasOp(re, syntax.OpNoWordBoundary) {
		return nil
	}
	re = relax(re)
	if re.Op == syntax.OpConcat {
		for len(re.Sub) > 1 && re.Sub[0].Op == syntax.OpWordBoundary {
			re.Sub = re.Sub[1:]
		}
	}
	out, err := regexp.Compile(`\A(?:` + re.String() + `)`)
	if err != nil {
		return nil
	}
	return out
}

func hasOp(re *syntax.Regexp, op syntax.Op) bool {
	if re.Op == op {
		return true
	}
	for _, s := range re.Sub {
		if hasOp(s, op) {
			return true
		}
	}
	return false
}

// maxKeptRepeat is the largest spread of a counted repetition that
// relaxedRegexp keeps: small bounds cost few states and keep the relaxed
// regexp close to the original (fewer regions to hand to gitleaks).
const maxKeptRepeat = 32

func relax(re *syntax.Regexp) *syntax.Regexp {
	for i, s := range re.Sub {
		re.Sub[i] = relax(s)
	}
	if re.Op == syntax.OpRepeat && re.Max-re.Min > maxKeptRepeat {
		re.Max = -1
	}
	return re
}

// droppable reports whether re can match the empty string and contains no
// zero-width assertion.
func droppable(re *syntax.Regexp) bool {
	return minWidth(re) == 0 && !hasAssertion(re)
}

func hasAssertion(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, s := range re.Sub {
		if hasAssertion(s) {
			return true
		}
	}
	return false
}

func minWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minWidth(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minWidth(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += minWidth(s)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, s := range re.Sub {
			if w := minWidth(s); n < 0 || w < n {
				n = w
			}
		}
		return max(n, 0)
	}
	return 0 // empty, assertions, star, quest, no-match
}
