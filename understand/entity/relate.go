package entity

import (
	"bytes"
	"slices"
)

// Relationship facts: what a file version's code says about calls,
// imports and inheritance, before any name is resolved. The entities are
// tree-sitter's (Entities, Changes); the facts are read from their text
// with a per-language token scanner (relate_lex.go), which is what makes
// them cheap enough to take at every commit. The indexer resolves the
// names against the repository's entities and files.

// Call is a call that a function or method makes.
type Call struct {
	// Name is the name called: "Open" in os.Open(f).
	Name string
	// Qual is the plain name written before the name and its separator
	// (".", "->", "::"): "os" in os.Open(f), "self" in self.run(),
	// "Foo" in Foo::new(), "$this" in $this->save(); "" for a call
	// without one.
	Qual string
	// Chained marks a qualifier that is itself a member or an
	// expression (a.b.run(), f().run()), whose type the scanner cannot
	// know; Qual is then the last name before the call, if any.
	Chained bool
	// Type is the declared type of the variable Qual names, when the
	// definition declares it: a Go receiver or parameter, a typed
	// parameter, or a local assigned a new instance (x = new Foo(),
	// x := &Foo{}). Its last name only: "Command" for *cobra.Command.
	Type string
	// New marks a constructor call: new Foo(), Foo.new (Ruby), or a
	// Python call of a capitalised name.
	New bool
	// Static marks a qualifier joined by "::" (Rust, C++, PHP, Ruby):
	// a type, module or namespace rather than a value.
	Static bool
	// Rooted marks a qualifier written from the top-level scope
	// (Ruby's ::Logger.new, C++'s ::ns::f()): never a nested one.
	Rooted bool
}

// Source is one file version, read for relationship facts.
type Source struct {
	lang  string
	spec  lexSpec
	src   []byte
	lines []int   // byte offset of each line's start, computed as far as needed
	toks  []token // reused by Calls, Imports and InterfaceSpec
}

// NewSource returns the file version src of language lang (a go-enry
// name) for reading facts; ok is false for a language without a scanner.
func NewSource(lang string, src []byte) (*Source, bool) {
	spec, ok := lexSpecs[lang]
	if !ok {
		return nil, false
	}
	return &Source{lang: lang, spec: spec, src: src, lines: []int{0}}, true
}

// Source is NewSource with the parser's buffers: the line index and
// tokens of the parser's previous source serve this one. A history's file
// versions are read one after another on each parser, and allocating
// their buffers anew was half of what reading git/git's relationship
// facts allocated (2.6 of 5.4 GB), which the collector paid for near the
// sync's memory limit. What a source returned stays valid (it holds
// strings, never the buffers); the previous source itself is emptied,
// so that a use of it fails at once instead of reading another file's
// tokens. Like the parser, its sources are for one goroutine.
func (p *Parser) Source(lang string, src []byte) (*Source, bool) {
	spec, ok := lexSpecs[lang]
	if !ok {
		return nil, false
	}
	var lines []int
	var toks []token
	if prev := p.source; prev != nil {
		lines, toks = prev.lines, prev.toks
		prev.lines, prev.toks, prev.src = nil, nil, nil
	}
	s := &Source{lang: lang, spec: spec, src: src, lines: append(lines[:0], 0), toks: toks[:0]}
	p.source = s
	return s, true
}

// usable panics for a source whose parser has handed its buffers to a
// later source (see Parser.Source).
func (s *Source) usable() {
	if s.lines == nil {
		panic("entity: a Source used after its parser's next Source")
	}
}

// offset returns the byte offset where 1-based line n starts (the
// source's length past its end).
func (s *Source) offset(n int) int {
	for len(s.lines) < n {
		last := s.lines[len(s.lines)-1]
		if last >= len(s.src) {
			return len(s.src)
		}
		i := bytes.IndexByte(s.src[last:], '\n')
		if i < 0 {
			s.lines = append(s.lines, len(s.src))
			continue
		}
		s.lines = append(s.lines, last+i+1)
	}
	return s.lines[n-1]
}

// lineText returns the bytes of 1-based lines [from, to].
func (s *Source) lineText(from, to int) []byte {
	if from < 1 {
		from = 1
	}
	return s.src[s.offset(from):s.offset(to+1)]
}

// isCallable reports whether an entity kind makes calls of its own.
func isCallable(k Kind) bool { return k == KindFunction || k == KindMethod }

// NeedsNesting reports whether a language's functions may hold other
// entities whose calls are theirs (Python's nested defs, a Java method's
// local class; in C, GNU nested functions and what tree-sitter's error
// recovery makes of a preprocessor tangle: a function parsed inside the
// one before it), so that Calls needs all the file's entities.
func NeedsNesting(lang string) bool {
	switch lang {
	case "Go", "C#":
		return false
	}
	return true
}

// Calls returns the calls that the function or method e of the source
// makes, each once, in order of first appearance. all are the lines of
// the version's entities (needed where NeedsNesting): the calls inside
// another definition within e, such as a nested function, are that one's. Calls
// of entities that are not functions or methods are none.
//
// A call is a name followed by an opening parenthesis in e's body
// (after its signature), outside comments and strings, that is not a
// keyword, a definition (def f(, int f(, f() { ... }), a macro (Rust's
// f!()), nor a C struct member (p->f(), a function pointer).
func (s *Source) Calls(e Entity, all []Span) []Call {
	s.usable()
	if !isCallable(e.Kind) {
		return nil
	}
	text := s.lineText(e.StartLine, e.EndLine)
	s.toks = tokenizeInto(s.spec, text, s.toks)
	r := &callReader{lang: s.lang, src: text, toks: s.toks, words: wordsOf(s.lang)}
	body := r.bodyStart()
	r.types = r.paramTypes(body)
	var skip [][2]int32 // nested definitions' lines, relative to e's first
	start, end := int32(e.StartLine), int32(e.EndLine)
	for _, n := range all {
		if n.StartLine >= start && n.EndLine <= end && (n.StartLine > start || n.EndLine < end) {
			skip = append(skip, [2]int32{n.StartLine - start, n.EndLine - start})
		}
	}
	return r.calls(body, skip)
}

// callReader reads the calls of one definition's tokens.
type callReader struct {
	lang  string
	src   []byte
	toks  []token
	words *langWords
	types map[string]string // variable → declared type
}

func (r *callReader) text(i int) string { return string(r.toks[i].text(r.src)) }

// raw returns token i's bytes, for a look that keeps nothing: text's
// string costs an allocation, and the scanner looks at every name of
// every changed definition.
func (r *callReader) raw(i int) []byte { return r.toks[i].text(r.src) }

func (r *callReader) is(i int, s string) bool {
	return i >= 0 && i < len(r.toks) && r.toks[i].is(r.src, s)
}

func (r *callReader) ident(i int) bool { return i >= 0 && i < len(r.toks) && r.toks[i].kind == tIdent }

// closing returns the index of the bracket closing the one at i, or
// len(toks).
func (r *callReader) closing(i int) int {
	depth := 0
	for j := i; j < len(r.toks); j++ {
		if r.toks[j].kind != tPunct || r.toks[j].end-r.toks[j].start != 1 {
			continue
		}
		switch r.src[r.toks[j].start] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(r.toks)
}

// bodyStart returns the index of the first token of the definition's
// body: past its signature, decorators and annotations.
func (r *callReader) bodyStart() int {
	switch r.lang {
	case "Python":
		// Past the colon that ends "def name(...) -> T:".
		for i, depth := 0, 0; i < len(r.toks); i++ {
			switch {
			case r.is(i, "def"):
				depth = 1
			case depth == 0:
			case r.is(i, "(") || r.is(i, "["):
				i = r.closing(i)
			case r.is(i, ":"):
				return i + 1
			}
		}
		return len(r.toks)
	case "Ruby":
		// Past "def name(params)" or "def name params" to the end of its line.
		for i := 0; i < len(r.toks); i++ {
			if !r.is(i, "def") {
				continue
			}
			line := r.toks[i].line
			for j := i + 1; j < len(r.toks); j++ {
				if r.is(j, "(") && r.toks[j].line == line {
					j = r.closing(j)
					line = r.toks[min(j, len(r.toks)-1)].line
					continue
				}
				if r.toks[j].line > line {
					return j
				}
			}
			return len(r.toks)
		}
		return len(r.toks)
	}
	// Past the first brace outside brackets, or a JavaScript arrow.
	for i := 0; i < len(r.toks); i++ {
		switch {
		case r.is(i, "(") || r.is(i, "["):
			i = r.closing(i)
		case r.is(i, "{"):
			return i + 1
		case r.is(i, "=>") && r.words.arrow:
			return i + 1
		}
	}
	return len(r.toks)
}

// calls collects the calls from token body on, skipping the tokens on the
// lines of nested definitions.
func (r *callReader) calls(body int, skip [][2]int32) []Call {
	var out []Call
	r.locals(body)
	for i := body; i+1 < len(r.toks); i++ {
		t := r.toks[i]
		if t.kind != tIdent || !r.is(i+1, "(") || inSpans(skip, t.line) {
			continue
		}
		if c, ok := r.call(i); ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func inSpans(spans [][2]int32, line int32) bool {
	for _, s := range spans {
		if line >= s[0] && line <= s[1] {
			return true
		}
	}
	return false
}

// call reads the call whose name is token i, followed by "(".
func (r *callReader) call(i int) (Call, bool) {
	w := r.words
	if w.keyword[string(r.raw(i))] {
		return Call{}, false
	}
	name := r.text(i)
	c := Call{Name: name}
	prev := i - 1
	if prev >= 0 {
		p := r.toks[prev]
		switch {
		case p.kind == tPunct && (r.is(prev, ".") || r.is(prev, "->") || r.is(prev, "::") || r.is(prev, "?.")):
			if r.lang == "C" && !r.is(prev, "::") {
				return Call{}, false // a function pointer in a struct
			}
			if !r.qualify(&c, prev) {
				return Call{}, false
			}
		case p.kind == tIdent:
			pw := r.raw(prev)
			switch {
			case string(pw) == "new":
				c.New = true
			case w.define[string(pw)]:
				return Call{}, false
			case w.typed && !w.precedes[string(pw)]:
				return Call{}, false // int f(…), Foo x(…): a declaration
			}
		case r.is(prev, "@") || r.is(prev, "#") || r.is(prev, "~") && w.typed:
			return Call{}, false // an annotation, an attribute, a destructor
		case r.is(prev, "\\"): // PHP: new \App\Foo(…), \strlen(…)
			j := prev
			for r.is(j, "\\") && r.ident(j-1) {
				j -= 2
			}
			c.New = r.is(j, "new") || r.is(j-1, "new")
		}
	}
	if w.braceDef && !c.New {
		if end := r.closing(i + 1); end+1 < len(r.toks) && r.is(end+1, "{") {
			return Call{}, false // a definition, or a macro that opens a block
		}
	}
	if r.lang == "Python" && isUpper(name) {
		c.New = true
	}
	return c, true
}

// qualify fills in the qualifier before the separator at token sep; false
// for a call the scanner should not report.
func (r *callReader) qualify(c *Call, sep int) bool {
	q := sep - 1
	if q < 0 {
		c.Chained = true
		return true
	}
	c.Static = r.is(sep, "::")
	switch {
	case r.ident(q):
		c.Qual = r.text(q)
		if q > 0 && (r.is(q-1, ".") || r.is(q-1, "->") || r.is(q-1, "?.") || r.is(q-1, "::") && r.ident(q-2)) {
			c.Chained = true
		}
		c.Rooted = r.is(q-1, "::") && !r.ident(q-2) && !r.is(q-2, ">")
		if r.lang == "Ruby" && string(r.raw(sep+1)) == "new" {
			c.New = true
		}
		if !c.Chained {
			c.Type = r.types[c.Qual]
		}
	case r.is(q, ">") && r.words.typed:
		c.Chained = true // Foo<T>::bar(), generic arguments
	default:
		c.Chained = true
	}
	return true
}

func isUpper(s string) bool { return s != "" && 'A' <= s[0] && s[0] <= 'Z' }

func isUpperBytes(b []byte) bool { return len(b) > 0 && 'A' <= b[0] && b[0] <= 'Z' }

// paramTypes reads the declared types of the definition's receiver and
// parameters, in the tokens before its body.
func (r *callReader) paramTypes(body int) map[string]string {
	types := map[string]string{}
	for i := 0; i < body && i < len(r.toks); i++ {
		if !r.is(i, "(") {
			continue
		}
		end := r.closing(i)
		r.groups(i+1, min(end, body), types)
		i = end
	}
	return types
}

// groups reads the comma-separated parameter declarations in tokens
// [from, to).
func (r *callReader) groups(from, to int, types map[string]string) {
	var pending []string // Go: a, b T
	start := from
	for i := from; i <= to; i++ {
		if i < to {
			if r.is(i, "(") || r.is(i, "[") || r.is(i, "{") || r.is(i, "<") && r.lang != "Go" {
				i = r.closingAngle(i)
				continue
			}
			if !r.is(i, ",") {
				continue
			}
		}
		name, typ := r.param(start, i)
		switch {
		case r.lang == "Go" && name != "" && typ == "" && i-start == 1:
			pending = append(pending, name)
		case name != "":
			if typ != "" {
				types[name] = typ
				for _, p := range pending {
					types[p] = typ
				}
			}
			pending = pending[:0]
		}
		start = i + 1
	}
}

// closingAngle is closing, with <…> counted as brackets too.
func (r *callReader) closingAngle(i int) int {
	if !r.is(i, "<") {
		return r.closing(i)
	}
	depth := 0
	for j := i; j < len(r.toks); j++ {
		switch {
		case r.is(j, "<"):
			depth++
		case r.is(j, ">"):
			depth--
			if depth == 0 {
				return j
			}
		case r.is(j, ";") || r.is(j, "{") || r.is(j, ")"):
			return j - 1
		}
	}
	return len(r.toks)
}

// param reads one parameter declaration, tokens [from, to): its name and,
// when declared, the last name of its type.
func (r *callReader) param(from, to int) (name, typ string) {
	var before, after []int // names before and after a colon (name: Type)
	colon := false
	for i := from; i < to; i++ {
		switch {
		case r.ident(i) && !r.words.modifier[string(r.raw(i))]:
			if colon {
				after = append(after, i)
			} else {
				before = append(before, i)
			}
		case r.is(i, ":") && !colon:
			colon = true
		case r.is(i, "=") || r.is(i, ":="):
			to = i // a default value
		case r.is(i, "<") || r.is(i, "[") || r.is(i, "("):
			i = r.closingAngle(i)
		}
	}
	switch {
	case len(before) == 0:
		return "", ""
	case colon: // name: Type (TypeScript, Python, Rust)
		if len(after) == 0 {
			return r.text(before[len(before)-1]), ""
		}
		return r.text(before[len(before)-1]), r.text(after[len(after)-1])
	case r.lang == "Go": // name Type, name *pkg.Type
		if len(before) == 1 {
			return r.text(before[0]), ""
		}
		for i := from; i < to; i++ {
			if r.is(i, "[") || r.is(i, ".") && r.is(i+1, ".") {
				return r.text(before[0]), "" // a slice, an array, a map, variadic
			}
		}
		return r.text(before[0]), r.text(before[len(before)-1])
	case r.lang == "PHP": // Type $name
		last := r.text(before[len(before)-1])
		if len(before) >= 2 && last[0] == '$' {
			return last, r.text(before[len(before)-2])
		}
		return last, ""
	case r.words.typed && len(before) >= 2: // Type name, const Type& name, Foo<T> name
		return r.text(before[len(before)-1]), r.text(before[len(before)-2])
	}
	return r.text(before[len(before)-1]), ""
}

// locals adds the types of local variables that the body declares or
// assigns a new instance to: Foo x = …, x = new Foo(…), x := &Foo{…},
// var x Foo, x = Foo(…) (Python), x = Foo.new (Ruby), let x: Foo,
// let x = Foo::new(…).
func (r *callReader) locals(body int) {
	for i := body; i+2 < len(r.toks); i++ {
		if !r.ident(i) {
			continue
		}
		name := r.raw(i)
		switch {
		case (r.is(i+1, "=") || r.is(i+1, ":=")) && !r.is(i-1, ".") && !r.is(i-1, "->"):
			j := i + 2
			if r.is(j, "&") || r.is(j, "new") {
				j++
			}
			if !r.ident(j) {
				continue
			}
			t := j // the type's last name
			for r.is(j+1, ".") && r.ident(j+2) && (r.lang == "Go" || isUpperBytes(r.raw(j+2)) && r.lang != "Ruby") {
				j += 2
				t = j
			}
			switch {
			case r.is(i+2, "new"), r.is(j+1, "{") && r.lang == "Go", r.lang == "Ruby" && r.is(j+1, ".") && r.is(j+2, "new"),
				(r.lang == "Python" || r.lang == "Rust" || r.lang == "C++") && isUpperBytes(r.raw(t)) && (r.is(j+1, "(") || r.is(j+1, "::") || r.is(j+1, "{")):
				r.types[string(name)] = r.text(t)
			}
		case r.words.typed && r.ident(i+1) && (r.is(i+2, "=") || r.is(i+2, ";")) && !r.words.precedes[string(name)] && !r.words.modifier[string(name)]:
			r.types[r.text(i+1)] = string(name) // Foo x = …;
		case (string(name) == "var" && r.lang == "Go" || string(name) == "let" || string(name) == "const") && r.ident(i+1):
			if r.is(i+1, "mut") {
				i++
			}
			j := i + 2
			if r.is(j, ":") {
				j++
			}
			for r.is(j, "&") || r.is(j, "*") || r.is(j, "mut") {
				j++
			}
			if r.ident(j) && (r.lang == "Go" || r.is(i+2, ":")) {
				t := j
				for r.is(j+1, ".") && r.ident(j+2) {
					j += 2
					t = j
				}
				r.types[r.text(i+1)] = r.text(t)
			}
		}
	}
}
