package entity

import "bytes"

// The lexer bodyEdit trusts: brackets, comments, strings and directives,
// enough to tell that an edit keeps the syntax around it (see
// incremental_body.go).

// lexState is where a lexer is: in code, or in a comment or a string
// that goes on at the next byte.
type lexState uint8

const (
	inCode lexState = iota
	inBlockComment
	inRawString
)

// lexer scans text for brackets outside comments and strings.
type lexer struct {
	rule  bodyRule
	state lexState
	// depth counts the open braces; stack holds the open brackets of
	// any kind since the scan started, unmatched holds the closing
	// brackets that met none.
	depth     int
	stack     []byte
	unmatched []byte
	// minDepth is the fewest open braces at any point.
	minDepth int
	// first and firstClose are the offsets of the first brace opened
	// outside any bracket and of the brace that closes it (-1 for none).
	first, firstClose int
	// code counts the bytes of code outside directives, directives the
	// preprocessor lines; last is the last byte of code ('#' for a
	// directive, 0 for none).
	code, directives int
	last             byte
	lastAt           int // the offset of last
}

func newLexer(rule bodyRule) lexer { return lexer{rule: rule, first: -1, firstClose: -1} }

var closes = map[byte]byte{'}': '{', ')': '(', ']': '['}

// scan lexes text[from:to], which starts at a line start; false means
// the text holds something the lexer does not model.
func (x *lexer) scan(text []byte, from, to int) bool {
	lineStart := true
	for i := from; i < to; i++ {
		c := text[i]
		switch x.state {
		case inBlockComment:
			if c == '*' && i+1 < to && text[i+1] == '/' {
				x.state, i, lineStart = inCode, i+1, false
			} else if c == '\n' {
				lineStart = true
			}
			continue
		case inRawString:
			if c == x.rule.rawQuote {
				x.state = inCode
			}
			lineStart = c == '\n'
			continue
		}
		switch {
		case c == '\n':
			lineStart = true
			continue
		case isSpace(c):
			continue
		case c == '#' && lineStart && x.rule.preproc:
			end, ok := directive(text, i, to)
			if !ok {
				return false
			}
			i = end - 1
			x.directives++
			x.last = '#'
			continue
		}
		lineStart = false
		if c != '/' || i+1 >= to || text[i+1] != '/' && text[i+1] != '*' {
			x.code++
			x.last, x.lastAt = c, i
		}
		switch c {
		case '/':
			if i+1 < to && text[i+1] == '/' {
				end := bytes.IndexByte(text[i:to], '\n')
				if end < 0 {
					i = to
					continue
				}
				if i+end > 0 && text[i+end-1] == '\\' {
					return false // continued on the next line
				}
				i += end - 1
			} else if i+1 < to && text[i+1] == '*' {
				x.state, i = inBlockComment, i+1
			}
		case '"', '\'':
			if c == '\'' && i > 0 && isDigit(text[i-1]) {
				continue // a C++ digit separator
			}
			if c == '"' && x.rule.rawString != nil && x.rule.rawString(text, i) {
				return false
			}
			end := quoted(text, i, to)
			if end < 0 {
				return false
			}
			i = end
		case '{', '(', '[':
			if c == '{' && len(x.stack) == 0 && x.first < 0 {
				x.first = i
			}
			x.stack = append(x.stack, c)
			if c == '{' {
				x.depth++
			}
		case '}', ')', ']':
			if n := len(x.stack); n > 0 {
				if x.stack[n-1] != closes[c] {
					return false
				}
				x.stack = x.stack[:n-1]
				if n == 1 && x.first >= 0 && x.firstClose < 0 {
					x.firstClose = i
				}
			} else {
				x.unmatched = append(x.unmatched, c)
			}
			if c == '}' {
				x.depth--
				x.minDepth = min(x.minDepth, x.depth)
			}
		default:
			if x.rule.rawQuote != 0 && c == x.rule.rawQuote {
				x.state = inRawString
			}
		}
	}
	return true
}

// clean reports whether a statement may start after the text x lexed
// (from text): inside parentheses or brackets (an expression), or after a
// statement's end or a control statement's head.
func (x *lexer) clean(rule bodyRule, text []byte) bool {
	if n := len(x.stack); n > 0 && x.stack[n-1] != '{' {
		return true
	}
	return statementEnd(rule, text, x.last, x.lastAt)
}

// endsClean reports whether the region lexed by res (from text), after
// the text lexed by x, leaves no statement open.
func (x *lexer) endsClean(rule bodyRule, res lexer, text []byte) bool {
	stack := append([]byte(nil), x.stack...)
	stack = stack[:max(len(stack)-len(res.unmatched), 0)]
	stack = append(stack, res.stack...)
	if n := len(stack); n > 0 && stack[n-1] != '{' || res.code == 0 {
		return true
	}
	return statementEnd(rule, text, res.last, res.lastAt)
}

// statementEnd reports whether code whose last byte is text[at] = c ends
// a statement, or a control statement's head, at the end of its line: a
// semicolon, a brace, a label's colon, a directive, "if (…)", "else"; for
// Go, whose lines end statements, also a name, a literal or a closing
// bracket.
func statementEnd(rule bodyRule, text []byte, c byte, at int) bool {
	switch {
	case c == 0 || c == ';' || c == '{' || c == '}' || c == ':' || c == '#':
		return true
	case rule.rawQuote != 0:
		return isIdent(c) || c == '"' || c == '\'' || c == rule.rawQuote || c == ')' || c == ']'
	case c == ')':
		open := matchingParen(text, at)
		if open < 0 {
			return false
		}
		end, ok := tokenBefore(text, open)
		return ok && end >= 0 && controlWords[wordEndingAt(text, end)] && startsStatement(text, end)
	case isIdent(c):
		w := wordEndingAt(text, at)
		return (w == "else" || w == "do") && startsStatement(text, at)
	}
	return false
}

// controlWords are the keywords whose parenthesised head a statement follows.
var controlWords = map[string]bool{"if": true, "for": true, "while": true, "switch": true}

// wordStart returns where the word whose last byte is text[end] starts.
func wordStart(text []byte, end int) int {
	start := end
	for start > 0 && isIdent(text[start-1]) {
		start--
	}
	return start
}

// wordEndingAt returns the word whose last byte is text[end].
func wordEndingAt(text []byte, end int) string {
	return string(text[wordStart(text, end) : end+1])
}

// startsStatement reports whether the word ending at text[end] begins a
// statement: a statement's end, a brace or "else" is before it.
func startsStatement(text []byte, end int) bool {
	k, ok := tokenBefore(text, wordStart(text, end))
	if !ok {
		return false
	}
	if k < 0 || text[k] == ';' || text[k] == '{' || text[k] == '}' || text[k] == ':' {
		return true
	}
	return isIdent(text[k]) && wordEndingAt(text, k) == "else"
}

// directive returns the end of the preprocessor directive at text[i]
// (after its line and continuation lines), or false for a conditional.
func directive(text []byte, i, to int) (int, bool) {
	word := bytes.TrimLeft(text[i+1:min(i+16, to)], " \t")
	for _, w := range [...]string{"if", "el", "endif"} {
		if bytes.HasPrefix(word, []byte(w)) {
			return 0, false
		}
	}
	for {
		end := bytes.IndexByte(text[i:to], '\n')
		if end < 0 {
			return to, true
		}
		i += end + 1
		if end == 0 || text[i-2] != '\\' {
			return i, true
		}
	}
}

// quoted returns the index of the quote that closes the literal opened at
// text[i], or -1 if the line ends first.
func quoted(text []byte, i, to int) int {
	q := text[i]
	for j := i + 1; j < to; j++ {
		switch text[j] {
		case '\\':
			j++
		case q:
			return j
		case '\n':
			return -1
		}
	}
	return -1
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
