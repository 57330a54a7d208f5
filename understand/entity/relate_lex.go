package entity

import "bytes"

// The token scanner that relationship extraction reads definitions with:
// identifiers, punctuation and literals, with comments skipped and each
// language's strings, characters, raw strings and (C, C++, C#)
// preprocessor lines kept whole, so that a name in a comment or a string
// is never taken for a call. It is a scanner, not a parser: a few bytes of
// a definition cost a few nanoseconds each (tree-sitter parses a
// definition out of its file at ~2 MB/s; see docs/relationships.md).

// tokKind is what a token is.
type tokKind uint8

const (
	tIdent     tokKind = iota
	tPunct             // an operator or bracket; "->", "::", "=>" and "?." are one token
	tString            // a string literal; its content is text[start+q : end-q]
	tNumber            // a numeric literal
	tDirective         // a preprocessor line (C, C++, C#), continuation lines included
)

// text returns a token's bytes.
func (t token) text(src []byte) []byte { return src[t.start:t.end] }

// is reports whether a token is the punctuation or name s.
func (t token) is(src []byte, s string) bool {
	return int(t.end-t.start) == len(s) && string(src[t.start:t.end]) == s
}

// token is one token of a scanned text, by byte offsets into the text.
type token struct {
	kind       tokKind
	start, end int32
	line       int32 // 0-based, of the token's first byte
}

// lexSpec says how a language writes comments and literals.
type lexSpec struct {
	slash       bool // // and /* */ comments
	hash        bool // # comments
	nestedBlock bool // /* */ nests (Rust)
	preproc     bool // # starts a directive line (C, C++, C#)
	rawBack     bool // `...` is a raw string (Go) or a template (JS, TS)
	tripleQuote bool // """ and ''' strings (Python; Java's """ text blocks)
	strPrefix   bool // r"", b'', f"" and the like (Python, Rust)
	lifetime    bool // 'a is a lifetime, not a character (Rust)
	dollar      bool // $ is part of names (JS, TS, PHP)
	ruby        bool // =begin/=end comments; name? and name! methods
	regex       bool // /.../ literals where an operand may start (JS, TS, Ruby)
	verbatim    bool // @"..." strings with "" for a quote (C#)
	cppRaw      bool // R"delim(...)delim" (C++)
	multiline   bool // quoted strings may span lines (Ruby, PHP, Rust)
}

var lexSpecs = map[string]lexSpec{
	"Go":         {slash: true, rawBack: true},
	"Python":     {hash: true, tripleQuote: true, strPrefix: true},
	"JavaScript": {slash: true, rawBack: true, dollar: true, regex: true},
	"TypeScript": {slash: true, rawBack: true, dollar: true, regex: true},
	"TSX":        {slash: true, rawBack: true, dollar: true, regex: true},
	"Rust":       {slash: true, nestedBlock: true, strPrefix: true, lifetime: true, multiline: true},
	"Java":       {slash: true, tripleQuote: true},
	"C":          {slash: true, preproc: true},
	"C++":        {slash: true, preproc: true, cppRaw: true},
	"Ruby":       {hash: true, ruby: true, regex: true, multiline: true},
	"C#":         {slash: true, preproc: true, verbatim: true},
	"PHP":        {slash: true, hash: true, dollar: true, multiline: true},
}

// scanner tokenizes one text.
type scanner struct {
	spec lexSpec
	text []byte
	toks []token
	line int32 // the line of the byte being scanned
}

// tokenize returns the tokens of text in the language's lexical rules.
// A literal left open at the end of text ends there.
func tokenize(spec lexSpec, text []byte) []token {
	return tokenizeInto(spec, text, make([]token, 0, len(text)/4))
}

// tokenizeInto is tokenize appending to buf[:0].
func tokenizeInto(spec lexSpec, text []byte, buf []token) []token {
	s := scanner{spec: spec, text: text, toks: buf[:0]}
	s.run()
	return s.toks
}

// skip is the kind scan returns for comments.
const skip tokKind = 255

func (s *scanner) run() {
	t := s.text
	lineStart := true
	for i := 0; i < len(t); {
		c := t[i]
		switch c {
		case '\n':
			s.line++
			lineStart = true
			i++
			continue
		case ' ', '\t', '\r', '\f', '\v':
			i++
			continue
		}
		line := s.line
		end, kind := s.scan(i, lineStart)
		if kind != tIdent && kind != tPunct && kind != tNumber {
			s.line += int32(bytes.Count(t[i:end], newline))
		}
		if kind != skip {
			s.toks = append(s.toks, token{kind: kind, start: int32(i), end: int32(end), line: line})
		}
		i, lineStart = end, false
	}
}

// scan returns the end and kind of the token at t[i].
func (s *scanner) scan(i int, lineStart bool) (int, tokKind) {
	t := s.text
	c := t[i]
	next := byte(0)
	if i+1 < len(t) {
		next = t[i+1]
	}
	switch {
	case s.spec.preproc && c == '#' && lineStart:
		return s.directive(i), tDirective
	case s.spec.ruby && lineStart && bytes.HasPrefix(t[i:], []byte("=begin")):
		return s.past(i, "\n=end"), skip
	case s.spec.slash && c == '/' && next == '/', s.spec.hash && c == '#':
		return s.lineEnd(i), skip
	case s.spec.slash && c == '/' && next == '*':
		return s.blockComment(i), skip
	case isDigit(c) || c == '.' && isDigit(next):
		return s.number(i), tNumber
	case isNameStart(c, s.spec):
		return s.name(i)
	case c == '"' || c == '\'':
		return s.literal(i)
	case c == '`' && (s.spec.rawBack || s.spec.ruby):
		return s.quoted(i, '`', !s.spec.rawBack || s.spec.regex, true), tString
	case c == '@' && s.spec.verbatim && next == '"':
		return s.verbatimString(i + 1), tString
	case s.spec.regex && c == '/' && s.regexAllowed():
		if end, ok := s.regexLiteral(i); ok {
			return end, tString
		}
	}
	return s.punct(i), tPunct
}

func isNameStart(c byte, spec lexSpec) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80 || c == '$' && spec.dollar ||
		c == '@' && spec.ruby
}

func isNameByte(c byte, spec lexSpec) bool {
	return isIdent(c) && (c != '$' || spec.dollar)
}

// name scans an identifier, or a string literal with a prefix (r"...",
// b'...', R"(...)").
func (s *scanner) name(i int) (int, tokKind) {
	t, start := s.text, i
	i++
	for i < len(t) && isNameByte(t[i], s.spec) {
		i++
	}
	if i == len(t) {
		return i, tIdent
	}
	p, q := t[start:i], t[i]
	switch {
	case s.spec.lifetime: // Rust: b"", b'', r"", r#""#, br""
		switch string(p) {
		case "r", "br":
			if q == '"' || q == '#' {
				if end, ok := s.rustRaw(i); ok {
					return end, tString
				}
			}
		case "b":
			if q == '"' || q == '\'' {
				return s.quoted(i, q, true, true), tString
			}
		}
	case s.spec.strPrefix && (q == '"' || q == '\'') && stringPrefix(p): // Python
		return s.literal(i)
	case s.spec.cppRaw && q == '"' && p[len(p)-1] == 'R' && (len(p) == 1 || stringPrefix(p[:len(p)-1])):
		return s.cppRawString(i), tString
	case s.spec.ruby && (q == '?' || q == '!') && i+1 < len(t) && t[i+1] == '(':
		i++ // valid?(x), save!(x)
	}
	return i, tIdent
}

// stringPrefix reports whether p may prefix a string literal (Python's
// r, b, u, f and their pairs; C++'s u8, u, U, L before R).
func stringPrefix(p []byte) bool {
	if len(p) > 2 {
		return false
	}
	for _, c := range p {
		switch c | 0x20 {
		case 'r', 'b', 'u', 'f', 'l', '8':
		default:
			return false
		}
	}
	return true
}

// literal scans a literal that starts with a quote at t[i]: a string, a
// character, a triple-quoted string or a Rust lifetime.
func (s *scanner) literal(i int) (int, tokKind) {
	t := s.text
	q := t[i]
	switch {
	case q == '\'' && s.spec.lifetime && i+2 < len(t) && isNameByte(t[i+1], s.spec) && t[i+2] != '\'':
		j := i + 1 // a lifetime or a label: 'a, 'static
		for j < len(t) && isNameByte(t[j], s.spec) {
			j++
		}
		return j, tIdent
	case s.spec.tripleQuote && i+2 < len(t) && t[i+1] == q && t[i+2] == q:
		if end := bytes.Index(t[i+3:], []byte{q, q, q}); end >= 0 {
			return i + 6 + end, tString
		}
		return len(t), tString
	}
	return s.quoted(i, q, true, s.spec.multiline), tString
}

// quoted scans to the closing quote q; with escapes a backslash escapes
// the next byte. Unless multiline, an unclosed literal ends at its line's
// end.
func (s *scanner) quoted(i int, q byte, escapes, multiline bool) int {
	t := s.text
	for j := i + 1; j < len(t); j++ {
		switch t[j] {
		case '\\':
			if escapes {
				j++
			}
		case q:
			return j + 1
		case '\n':
			if !multiline {
				return j
			}
		}
	}
	return len(t)
}

// verbatimString scans C#'s @"..." from its quote: "" is a quote.
func (s *scanner) verbatimString(i int) int {
	t := s.text
	for j := i + 1; j < len(t); j++ {
		if t[j] == '"' {
			if j+1 < len(t) && t[j+1] == '"' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(t)
}

// rustRaw scans a Rust raw string (r#"..."#) from the byte after its r;
// false for a raw identifier (r#type).
func (s *scanner) rustRaw(i int) (int, bool) {
	t := s.text
	hashes := 0
	for i < len(t) && t[i] == '#' {
		hashes++
		i++
	}
	if i >= len(t) || t[i] != '"' {
		return 0, false
	}
	close := append([]byte{'"'}, bytes.Repeat([]byte{'#'}, hashes)...)
	if end := bytes.Index(t[i+1:], close); end >= 0 {
		return i + 1 + end + len(close), true
	}
	return len(t), true
}

// cppRawString scans C++'s R"delim(...)delim" from its quote.
func (s *scanner) cppRawString(i int) int {
	t := s.text
	open := bytes.IndexByte(t[i:], '(')
	if open < 0 || open > 17 {
		return s.quoted(i, '"', true, false)
	}
	close := append(append([]byte{')'}, t[i+1:i+open]...), '"')
	if end := bytes.Index(t[i+open:], close); end >= 0 {
		return i + open + end + len(close)
	}
	return len(t)
}

// number scans a numeric literal with its suffixes, exponents and digit
// separators.
func (s *scanner) number(i int) int {
	t := s.text
	for i < len(t) {
		c := t[i]
		switch {
		case c == '.' || c == '\'' && s.spec.cppRaw:
			if i+1 >= len(t) || !isDigit(t[i+1]) {
				return i
			}
		case (c == '+' || c == '-') && i > 0 && (t[i-1]|0x20 == 'e' || t[i-1]|0x20 == 'p'):
		case !isIdent(c) || c == '$':
			return i
		}
		i++
	}
	return i
}

// lineEnd returns the offset of the line break ending the line of i.
func (s *scanner) lineEnd(i int) int {
	if end := bytes.IndexByte(s.text[i:], '\n'); end >= 0 {
		return i + end
	}
	return len(s.text)
}

// past returns the end of the line holding the next sep.
func (s *scanner) past(i int, sep string) int {
	if end := bytes.Index(s.text[i:], []byte(sep)); end >= 0 {
		return s.lineEnd(i + end + len(sep))
	}
	return len(s.text)
}

func (s *scanner) blockComment(i int) int {
	t := s.text
	depth := 0
	for j := i; j+1 < len(t); j++ {
		switch {
		case t[j] == '/' && t[j+1] == '*':
			depth++
			j++
		case t[j] == '*' && t[j+1] == '/':
			depth--
			j++
			if depth == 0 || !s.spec.nestedBlock {
				return j + 1
			}
		}
	}
	return len(t)
}

// directive scans a preprocessor line and its continuation lines.
func (s *scanner) directive(i int) int {
	t := s.text
	for {
		end := s.lineEnd(i)
		if end == len(t) || end == i || t[end-1] != '\\' && !(t[end-1] == '\r' && end-2 >= i && t[end-2] == '\\') {
			return end
		}
		i = end + 1
	}
}

// regexAllowed reports whether a slash here starts a regular expression
// literal: where an operand may start.
func (s *scanner) regexAllowed() bool {
	if len(s.toks) == 0 {
		return true
	}
	prev := s.toks[len(s.toks)-1]
	p := s.text[prev.start:prev.end]
	switch prev.kind {
	case tIdent:
		switch string(p) {
		case "return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await",
			"when", "if", "unless", "and", "or", "not":
			return true
		}
	case tPunct:
		switch string(p) {
		case ")", "]", "}":
			return false
		}
		return true
	}
	return false
}

// regexLiteral scans /.../flags; false when no slash closes it on its
// line (a division after all).
func (s *scanner) regexLiteral(i int) (int, bool) {
	t := s.text
	inClass := false
	for j := i + 1; j < len(t); j++ {
		switch c := t[j]; {
		case c == '\\':
			j++
		case c == '\n':
			return 0, false
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			j++
			for j < len(t) && isNameByte(t[j], s.spec) {
				j++
			}
			return j, true
		}
	}
	return 0, false
}

// punct returns the end of one operator or bracket; the two-byte ones
// that relationship extraction reads ("->", "::", "=>", "?.", ":=") are
// one token.
func (s *scanner) punct(i int) int {
	t := s.text
	if i+1 < len(t) {
		switch string(t[i : i+2]) {
		case "->", "::", "=>", "?.", ":=":
			return i + 2
		}
	}
	return i + 1
}
