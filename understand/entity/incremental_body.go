package entity

import "bytes"

// Most changes edit lines inside a function's body and leave every
// definition where it was: tree-sitter would only move the entities after
// the edit and stretch the ones around it. bodyEdit finds such edits with
// a lexer, which is a hundred times cheaper than a reparse, and builds the
// new chunk without parsing. It is sure of the syntax around an edit when
// the edited lines keep the bracket structure (the same unmatched brackets
// before and after, never closing the braces they are in), are code at
// both ends (not inside a comment or a string), and hold no word that
// could define an entity inside braces (struct in C, type in Go). Anything
// the lexer does not model (preprocessor conditionals, raw strings) sends
// the edit to the parser.

// bodyRule says how to lex a language for bodyEdit.
type bodyRule struct {
	// keywords may start a definition that the entity query finds inside
	// braces.
	keywords []string
	// inFunction: edits must lie in a function's body. Other braces (a
	// class's) hold entities that no keyword announces.
	inFunction bool
	preproc    bool // # lines; conditionals are not modelled
	rawQuote   byte // Go's raw strings
	// rawString reports a string literal the lexer does not model at the
	// quote text[i].
	rawString func(text []byte, i int) bool
	// anonymousClass: an edit with both "new" and a brace may define a
	// class with methods (Java).
	anonymousClass bool
	// declBrace: a keyword declares an entity only when a brace follows
	// (C's struct foo { against struct foo *p); else when a name follows.
	declBrace bool
}

var bodyRules = func() map[*language]bodyRule {
	tripleQuote := func(text []byte, i int) bool { return bytes.HasPrefix(text[i:], []byte(`"""`)) }
	rules := map[string]bodyRule{
		"C": {keywords: []string{"struct", "union", "enum"}, preproc: true, declBrace: true},
		"C++": {keywords: []string{"struct", "union", "enum", "class", "namespace"}, inFunction: true, preproc: true, declBrace: true,
			rawString: func(text []byte, i int) bool { return i > 0 && text[i-1] == 'R' }},
		"Go": {keywords: []string{"type"}, rawQuote: '`'},
		"Java": {keywords: []string{"class", "interface", "enum", "record"}, inFunction: true,
			rawString: tripleQuote, anonymousClass: true},
		"C#": {keywords: []string{"class", "struct", "interface", "enum", "record", "namespace"}, inFunction: true, preproc: true,
			rawString: func(text []byte, i int) bool {
				return i > 0 && (text[i-1] == '@' || text[i-1] == '$') || tripleQuote(text, i)
			}},
	}
	m := make(map[*language]bodyRule, len(rules))
	for name, r := range rules {
		m[languages[name]] = r
	}
	return m
}()

// region is a run of whole edited lines: old bytes [start, end) became
// new bytes [newStart, newEnd).
type region struct {
	start, end, newStart, newEnd int
}

// editRegions returns the lines the edits touch, whole lines in both
// texts (an edit may join lines), in old and new bytes, merged where they
// meet.
func editRegions(oldText, newText []byte, edits []fileEdit) []region {
	var out []region
	for _, e := range edits {
		start := lineStart(oldText, e.start)
		end := lineEnd(oldText, e.oldEnd, start)
		growth := e.newLen - (e.oldEnd - e.start)
		newEnd := end + e.delta + growth
		if more := lineEnd(newText, newEnd, start+e.delta) - newEnd; more > 0 {
			// The text after the edit is the same in both.
			end, newEnd = end+more, newEnd+more
		}
		r := region{start: start, end: end, newStart: start + e.delta, newEnd: newEnd}
		if n := len(out); n > 0 && out[n-1].end >= r.start {
			out[n-1].end, out[n-1].newEnd = r.end, r.newEnd
			continue
		}
		out = append(out, r)
	}
	return out
}

// lineEnd returns the end of the line that holds byte end-1 (after its
// newline), or end if it is a line start after start.
func lineEnd(text []byte, end, start int) int {
	if end > start && text[end-1] == '\n' {
		return end
	}
	if i := bytes.IndexByte(text[end:], '\n'); i >= 0 {
		return end + i + 1
	}
	return len(text)
}

// bodyEdit returns the chunk that the edits (in chunk bytes) make of old
// when they provably leave its syntax outside the edited lines as it was,
// or nil. oldText and newText are the chunk's old and new text.
func bodyEdit(l *language, old *chunk, edits []fileEdit, oldText, newText []byte) *chunk {
	rule, ok := bodyRules[l]
	if !ok || len(edits) == 0 {
		return nil
	}
	if old.tainted {
		// Lexing from the chunk's start would meet the syntax error.
		rule.inFunction = true
	}
	regions := editRegions(oldText, newText, edits)
	// Edits in one definition are checked together: one may open a
	// brace that the next closes.
	merged := regions[:1]
	for _, r := range regions[1:] {
		last := &merged[len(merged)-1]
		if in := holder(old.items, *last); in >= 0 && in == holder(old.items, r) {
			last.end, last.newEnd = r.end, r.newEnd
			continue
		}
		merged = append(merged, r)
	}
	for _, r := range merged {
		if !bodyRegion(rule, old.items, r, oldText, newText) {
			return nil
		}
	}
	items := make([]citem, len(old.items))
	for i, it := range old.items {
		start, startLines := shiftAt(edits, int(it.ctxStart))
		end, endLines := shiftAt(edits, int(it.ctxEnd))
		defStart, _ := shiftAt(edits, int(it.start))
		defEnd, _ := shiftAt(edits, int(it.end))
		if it.role == roleEntity {
			it.startLine += startLines
			it.endLine += endLines
			if editsWithin(edits, int(it.start), int(it.end)) {
				it.hash = bodyHash(newText[defStart:defEnd], it.name)
			}
		}
		it.start, it.end, it.ctxStart, it.ctxEnd = uint32(defStart), uint32(defEnd), uint32(start), uint32(end)
		items[i] = it
	}
	// The old tree, edited but not reparsed, stays the base of the
	// chunk's next reparse.
	if old.tree == nil {
		return newChunk(l, len(newText), linesAfter(old, edits), nil, items)
	}
	tree, lines := editedCopy(old, edits)
	return newChunk(l, len(newText), lines, tree, items)
}

// shiftAt returns where old byte x, which no edit spans, moved, and by
// how many lines: an edit starting at x is after it.
func shiftAt(edits []fileEdit, x int) (int, int) {
	shift, lines := 0, 0
	for _, e := range edits {
		if e.start >= x {
			break
		}
		shift += e.newLen - (e.oldEnd - e.start)
		lines += int(e.newEndPt.Row) - int(e.oldEndPt.Row)
	}
	return x + shift, lines
}

// isFunction reports whether items[i] is a function or method.
func isFunction(items []citem, i int) bool {
	return i >= 0 && items[i].role == roleEntity && (items[i].kind == KindFunction || items[i].kind == KindMethod)
}

// holder returns the index of the innermost item whose definition holds
// a region, or -1.
func holder(items []citem, r region) int {
	in := -1
	for i, it := range items {
		if int(it.start) < r.start && int(it.end) > r.end && (in < 0 || it.start >= items[in].start) {
			in = i
		}
	}
	return in
}

// editsWithin reports whether an edit starts within [start, end).
func editsWithin(edits []fileEdit, start, end int) bool {
	for _, e := range edits {
		if e.start >= start && e.start < end {
			return true
		}
	}
	return false
}

// bodyRegion reports whether replacing a region's old lines by its new
// ones provably keeps the syntax around them and the items of the chunk.
func bodyRegion(rule bodyRule, items []citem, r region, oldText, newText []byte) bool {
	// Items must hold the region or lie apart from it.
	for _, it := range items {
		apart := int(it.ctxEnd) <= r.start || int(it.ctxStart) >= r.end
		if !apart && (int(it.start) >= r.start || int(it.end) <= r.end) {
			return false
		}
	}
	inner := holder(items, r)
	x := newLexer(rule)
	switch {
	case !rule.inFunction && x.scan(oldText, 0, r.start):
		// Lexed from the chunk's start, in code at the top level.
	case isFunction(items, inner):
		// Lexed from the start of the function that holds the region,
		// where the chunk has what the lexer does not model before it (a
		// conditional around the function) or other braces hold entities.
		body, ok := functionBody(rule, oldText, items[inner])
		if !ok || body >= r.start {
			return false
		}
		x = newLexer(rule)
		if !x.scan(oldText, int(items[inner].start), r.start) {
			return false
		}
	default:
		return false
	}
	if x.state != inCode {
		return false
	}
	oldRes, ok := residue(rule, oldText, r.start, r.end)
	if !ok {
		return false
	}
	newRes, ok := residue(rule, newText, r.newStart, r.newEnd)
	if !ok {
		return false
	}
	if x.depth == 0 {
		// Between top-level definitions, comments and directives other
		// than conditionals are nodes of their own.
		if x.last != 0 && x.last != ';' && x.last != '}' && x.last != '#' || oldRes.code > 0 || newRes.code > 0 {
			return false
		}
		return true
	}
	// Statements must not run into the region or out of it: "A" on a line
	// of its own joins the next line's "if (s) {" into a function A.
	if !x.clean(rule, oldText) || !x.endsClean(rule, oldRes, oldText) || !x.endsClean(rule, newRes, newText) {
		return false
	}
	if !bytes.Equal(oldRes.unmatched, newRes.unmatched) || !bytes.Equal(oldRes.stack, newRes.stack) ||
		x.depth+oldRes.minDepth < 1 || x.depth+newRes.minDepth < 1 || oldRes.directives > 0 || newRes.directives > 0 {
		return false
	}
	if declares(rule, oldText, r.start, r.end) || declares(rule, newText, r.newStart, r.newEnd) ||
		definesFunction(oldText, r.start, r.end) || definesFunction(newText, r.newStart, r.newEnd) {
		return false
	}
	for _, text := range [][]byte{oldText[r.start:r.end], newText[r.newStart:r.newEnd]} {
		if rule.anonymousClass && hasWord(text, "new") && bytes.IndexByte(text, '{') >= 0 {
			return false
		}
	}
	return true
}

// residue lexes text[from:to] from code at a line start: its unmatched
// brackets, and its fewest open braces relative to its start. It must end
// in code.
func residue(rule bodyRule, text []byte, from, to int) (lexer, bool) {
	x := newLexer(rule)
	if !x.scan(text, from, to) || x.state != inCode {
		return x, false
	}
	return x, true
}

// functionBody returns the offset of the brace that opens a function
// item's body: the first brace outside parentheses and brackets, which
// must close at the item's end.
func functionBody(rule bodyRule, text []byte, it citem) (int, bool) {
	x := newLexer(rule)
	if !x.scan(text, int(it.start), int(it.end)) || x.state != inCode || len(x.stack) != 0 || len(x.unmatched) != 0 {
		return 0, false
	}
	return x.first, x.first >= 0 && x.firstClose == int(it.end)-1
}

// declares reports whether text[from:to] may hold a definition that the
// entity query finds: one of the rule's keywords, not after a dot (Java's
// Foo.class), followed by a name (class Foo, type T) or, where declBrace,
// by names and parenthesised attributes up to a brace (struct foo {, but
// not struct foo *p). The text after to is read as far as it takes.
func declares(rule bodyRule, text []byte, from, to int) bool {
	for _, w := range rule.keywords {
		for i := from; i < to; {
			k := bytes.Index(text[i:to], []byte(w))
			if k < 0 {
				break
			}
			k += i
			end := k + len(w)
			i = end
			if nameAt(text, k, w) == 0 || k > 0 && text[k-1] == '.' {
				continue
			}
			if rule.declBrace {
				if braceFollows(text, end) {
					return true
				}
				continue
			}
			if j := skipSpace(text, end); j < len(text) && (j > end && isIdent(text[j]) || text[j] == '(') {
				return true
			}
		}
	}
	return false
}

// definesFunction reports whether a brace in text[from:to] may open the
// body of a function defined there: it follows "type name(…)", as a GNU C
// nested function, a Java method in an invalid place or a C++ local
// function would, where tree-sitter finds a definition. A brace after a
// keyword's parentheses (if, while, for, switch, catch) or a macro's call
// (for_each_item(x) {) opens no function.
func definesFunction(text []byte, from, to int) bool {
	for i := from; i < to; i++ {
		if text[i] != '{' {
			continue
		}
		j, ok := tokenBefore(text, i)
		if !ok {
			return true // unsure
		}
		if j >= 0 && isIdent(text[j]) {
			// "type name {": a function without parameters to tree-sitter.
			if blockWords[wordEndingAt(text, j)] {
				continue
			}
			k, ok := tokenBefore(text, wordStart(text, j))
			if !ok || k >= 0 && (isIdent(text[k]) || text[k] == '*' || text[k] == '&') {
				return true
			}
			continue
		}
		if j < 0 || text[j] != ')' {
			continue
		}
		open := matchingParen(text, j)
		if open < 0 {
			return true
		}
		end, ok := tokenBefore(text, open)
		if !ok {
			return true
		}
		if end < 0 || !isIdent(text[end]) {
			continue
		}
		name := wordEndingAt(text, end)
		k, ok := tokenBefore(text, wordStart(text, end))
		if !ok {
			return true
		}
		if k < 0 || !isIdent(text[k]) && text[k] != '*' && text[k] != '&' && text[k] != '>' {
			continue
		}
		// A word before the name: a type, unless the name is a keyword
		// after else (a keyword after any other word reads as a name).
		if !notFunction[name] || !isIdent(text[k]) || wordEndingAt(text, k) != "else" {
			return true
		}
	}
	return false
}

// blockWords are words a block follows.
var blockWords = map[string]bool{"else": true, "do": true, "try": true, "finally": true, "unsafe": true, "checked": true, "unchecked": true}

// notFunction are words before parentheses and a brace that make no
// function definition.
var notFunction = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true,
	"foreach": true, "using": true, "lock": true, "fixed": true, "synchronized": true, "try": true, "return": true}

// tokenBefore returns the offset of the last byte before i that is no
// space, or -1, and false where a comment may lie between: the byte ends
// a block comment, or the spaces cross into a line with a line comment.
func tokenBefore(text []byte, i int) (int, bool) {
	i--
	newline := false
	for i >= 0 && isSpace(text[i]) {
		newline = newline || text[i] == '\n'
		i--
	}
	if i < 0 {
		return i, true
	}
	if text[i] == '/' || newline && bytes.Contains(text[lineStart(text, i):i+1], []byte("//")) {
		return i, false
	}
	return i, true
}

// matchingParen returns the offset of the parenthesis that the one at
// text[close] closes, or -1 within a few lines.
func matchingParen(text []byte, close int) int {
	depth := 0
	for i := close; i >= 0 && i > close-4096; i-- {
		switch text[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// braceFollows reports whether names, spaces and parenthesised
// attributes after text[i] lead to an opening brace.
func braceFollows(text []byte, i int) bool {
	for i < len(text) {
		switch c := text[i]; {
		case c == '{':
			return true
		case c == '(':
			depth := 0
			for ; i < len(text); i++ {
				if text[i] == '(' {
					depth++
				} else if text[i] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			i++
		case isIdent(c) || isSpace(c):
			i++
		default:
			return false
		}
	}
	return false
}

// skipSpace returns the offset of the first byte from i that is no space.
func skipSpace(text []byte, i int) int {
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	return i
}

// hasWord reports whether text holds w as a whole word.
func hasWord(text []byte, w string) bool {
	for i := 0; ; {
		k := bytes.Index(text[i:], []byte(w))
		if k < 0 {
			return false
		}
		if nameAt(text, i+k, w) > 0 {
			return true
		}
		i += k + 1
	}
}
