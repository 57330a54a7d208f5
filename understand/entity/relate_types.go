package entity

import "strings"

// Base is a type that a class, interface or trait says it extends or
// implements.
type Base struct {
	// Name is the type's last name: "Base" for pkg.Base<T>.
	Name string
	// Qual is the name before it, if any: "React" for React.Component.
	Qual string
	// Implements is true for a base listed after "implements" (Java,
	// TypeScript, PHP). Lists that do not say (C#, C++, Python, Ruby, an
	// interface's or trait's supertypes) give false; the indexer decides by
	// what the base turns out to be.
	Implements bool
}

// Bases returns the supertypes that a class, struct, interface or trait
// declares in its header (its Signature): extends and implements lists
// (Java, JavaScript, TypeScript, PHP), base lists (C++, C#, Python), the
// superclass (Ruby) and supertraits (Rust). Go interfaces declare theirs
// in their body (see InterfaceSpec); Rust impl blocks in theirs (Impls).
func Bases(lang string, kind Kind, signature string) []Base {
	switch kind {
	case KindClass, KindStruct, KindInterface, KindEnum:
	default:
		return nil
	}
	spec, ok := lexSpecs[lang]
	if !ok {
		return nil
	}
	src := []byte(strings.TrimSuffix(signature, "…"))
	b := &baseReader{lang: lang, src: src, toks: tokenize(spec, src), cut: strings.HasSuffix(signature, "…")}
	return b.read()
}

type baseReader struct {
	lang string
	src  []byte
	toks []token
	cut  bool // the signature was truncated: its last name may be partial
	out  []Base
}

func (b *baseReader) is(i int, s string) bool {
	return i >= 0 && i < len(b.toks) && b.toks[i].is(b.src, s)
}

func (b *baseReader) ident(i int) bool { return i >= 0 && i < len(b.toks) && b.toks[i].kind == tIdent }

func (b *baseReader) text(i int) string { return string(b.toks[i].text(b.src)) }

func (b *baseReader) read() []Base {
	switch b.lang {
	case "Java", "JavaScript", "TypeScript", "TSX", "PHP":
		for i := 0; i < len(b.toks); i++ {
			switch {
			case b.is(i, "<"):
				i = b.skip(i, "<", ">") - 1
			case b.is(i, "extends"):
				b.list(i+1, false, ",")
			case b.is(i, "implements"):
				b.list(i+1, true, ",")
			}
		}
	case "C#", "C++":
		// class A<T> : B, IC where T : …; class A final : public B
		for i := 0; i < len(b.toks); i++ {
			if b.is(i, "<") {
				i = b.skip(i, "<", ">") - 1
				continue
			}
			if b.is(i, ":") {
				b.list(i+1, false, ",")
				break
			}
			if b.is(i, "(") || b.lang == "C#" && b.is(i, "where") {
				break // a primary constructor's parameters (C# records), or type constraints
			}
		}
	case "Python":
		for i := range b.toks {
			if b.is(i, "(") {
				b.list(i+1, false, ",")
				break
			}
		}
	case "Ruby":
		for i := range b.toks {
			if b.is(i, "<") {
				b.list(i+1, false, ",")
				break
			}
		}
	case "Rust":
		for i := 0; i < len(b.toks); i++ {
			if b.is(i, "<") {
				i = b.skip(i, "<", ">") - 1
				continue
			}
			if b.is(i, ":") {
				b.list(i+1, false, "+")
				break
			}
			if b.is(i, "where") {
				break // constraints on the type's parameters, not supertraits
			}
		}
	}
	if b.cut && len(b.out) > 0 {
		b.out = b.out[:len(b.out)-1]
	}
	return b.out
}

// list reads a list of type references from token i, separated by sep,
// up to a token that ends it.
func (b *baseReader) list(i int, implements bool, sep string) {
	for i < len(b.toks) {
		name, qual, next := b.ref(i)
		if name != "" && !b.is(next, "=") && !b.is(next, "(") {
			b.out = append(b.out, Base{Name: name, Qual: qual, Implements: implements})
		}
		switch {
		case b.is(next, "="): // Python's metaclass=M
			next++
			for next < len(b.toks) && !b.is(next, ",") && !b.is(next, ")") {
				next++
			}
		case b.is(next, "("): // JavaScript's extends mixin(B)
			next = b.skip(next, "(", ")")
		}
		if !b.is(next, sep) {
			return
		}
		i = next + 1
	}
}

// ref reads one type reference (a.b.C<T>, ::ns::C, public virtual B,
// ?Sized, 'a) from token i: its last name and qualifier, and the index
// after it.
func (b *baseReader) ref(i int) (name, qual string, next int) {
	for b.ident(i) && (accessWord[b.text(i)] || b.lang == "Rust" && b.src[b.toks[i].start] == '\'') || b.is(i, "?") {
		i++
	}
	for i < len(b.toks) {
		switch {
		case b.ident(i):
			qual, name = name, b.text(i)
			i++
			if !b.is(i, ".") && !b.is(i, "::") && !b.is(i, `\`) && !b.is(i, "<") && !b.is(i, "[") {
				return name, qual, i
			}
		case b.is(i, ".") || b.is(i, "::") || b.is(i, `\`):
			i++
		case b.is(i, "<") || b.is(i, "["): // Foo<T>, Python's Generic[T]
			if b.is(i, "<") {
				i = b.skip(i, "<", ">")
			} else {
				i = b.skip(i, "[", "]")
			}
			if !b.is(i, ".") && !b.is(i, "::") && !b.is(i, `\`) {
				return name, qual, i
			}
		default:
			return name, qual, i
		}
	}
	return name, qual, i
}

var accessWord = map[string]bool{"public": true, "private": true, "protected": true, "virtual": true}

// skip returns the index after the bracket that closes the one at i.
func (b *baseReader) skip(i int, open, close string) int {
	depth := 0
	for ; i < len(b.toks); i++ {
		switch {
		case b.is(i, open):
			depth++
		case b.is(i, close):
			depth--
			if depth == 0 {
				return i + 1
			}
		case b.is(i, ">>") && close == ">":
			depth -= 2
			if depth <= 0 {
				return i + 1
			}
		}
	}
	return i
}

// MethodShape is a Go method's name and arity, as an interface requires
// it or a type has it.
type MethodShape struct {
	Name            string
	Params, Results int
}

// InterfaceSpec returns what the Go interface e requires: its methods and
// the interfaces it embeds (by last name). ok is false for a constraint
// (a type set such as ~int | float64), which no method set satisfies.
func (s *Source) InterfaceSpec(e Entity) (methods []MethodShape, embeds []string, ok bool) {
	s.usable()
	if s.lang != "Go" || e.Kind != KindInterface {
		return nil, nil, false
	}
	text := s.lineText(e.StartLine, e.EndLine)
	s.toks = tokenizeInto(s.spec, text, s.toks)
	toks := s.toks
	r := &callReader{lang: s.lang, src: text, toks: toks, words: wordsOf(s.lang)}
	open := -1
	for i := range toks {
		if r.is(i, "interface") && r.is(i+1, "{") {
			open = i + 1
			break
		}
	}
	if open < 0 {
		return nil, nil, false
	}
	end := r.closing(open)
	for i := open + 1; i < end; {
		// One element per line (or per semicolon).
		j := i
		for j < end && toks[j].line == toks[i].line && !r.is(j, ";") {
			if r.is(j, "(") || r.is(j, "[") {
				j = r.closing(j)
			}
			j++
		}
		switch {
		case r.ident(i) && r.is(i+1, "("):
			m := MethodShape{Name: r.text(i)}
			close := r.closing(i + 1)
			m.Params = countList(r, i+1, close)
			m.Results = results(r, close+1, j)
			methods = append(methods, m)
		case r.ident(i) && (i+1 == j || r.is(i+1, ".") && r.ident(i+2) && i+3 == j):
			embeds = append(embeds, r.text(j-1))
		case r.is(i, ";"):
		default:
			return nil, nil, false // a type set, or what the scanner cannot read
		}
		i = max(j, i+1)
		for i < end && r.is(i, ";") {
			i++
		}
	}
	return methods, embeds, true
}

// countList counts the comma-separated items between the bracket at open
// and its closing one at close.
func countList(r *callReader, open, close int) int {
	if close <= open+1 {
		return 0
	}
	n := 1
	for i := open + 1; i < close; i++ {
		switch {
		case r.is(i, "(") || r.is(i, "[") || r.is(i, "{"):
			i = r.closing(i)
		case r.is(i, ","):
			n++
		}
	}
	return n
}

// results counts a Go signature's results in tokens [from, to).
func results(r *callReader, from, to int) int {
	switch {
	case from >= to || r.is(from, "{"):
		return 0
	case r.is(from, "("):
		return countList(r, from, r.closing(from))
	}
	return 1
}

// GoMethodShape reads a Go method's name and arity from its Signature
// ("func (s *T) Get(key string) (int, bool)").
func GoMethodShape(signature string) (MethodShape, bool) {
	src := []byte(signature)
	toks := tokenize(lexSpecs["Go"], src)
	r := &callReader{lang: "Go", src: src, toks: toks, words: wordsOf("Go")}
	if !r.is(0, "func") || !r.is(1, "(") {
		return MethodShape{}, false
	}
	i := r.closing(1) + 1
	if !r.ident(i) {
		return MethodShape{}, false
	}
	m := MethodShape{Name: r.text(i)}
	open := i + 1
	if r.is(open, "[") {
		open = r.closing(open) + 1
	}
	if !r.is(open, "(") {
		return MethodShape{}, false
	}
	close := r.closing(open)
	if close >= len(toks) {
		return MethodShape{}, false // a truncated signature
	}
	m.Params = countList(r, open, close)
	m.Results = results(r, close+1, len(toks))
	return m, true
}

// Impl is a Rust impl block of a trait for a type.
type Impl struct {
	Trait, Type string // last names
}

// Impls returns the source's impl Trait for Type blocks (Rust), each once.
func (s *Source) Impls() []Impl {
	s.usable()
	if s.lang != "Rust" {
		return nil
	}
	toks := tokenize(s.spec, s.src)
	b := &baseReader{lang: "Rust", src: s.src, toks: toks}
	var out []Impl
	seen := map[Impl]bool{}
	for i := 0; i < len(toks); i++ {
		if !b.is(i, "impl") {
			continue
		}
		j := i + 1
		if b.is(j, "<") {
			j = b.skip(j, "<", ">")
		}
		if b.is(j, "!") {
			continue // impl !Send for T
		}
		trait, _, next := b.ref(j)
		if trait == "" || !b.is(next, "for") {
			continue
		}
		for b.is(next+1, "&") || b.ident(next+1) && b.text(next+1) == "mut" {
			next++
		}
		typ, _, _ := b.ref(next + 1)
		if im := (Impl{Trait: trait, Type: typ}); typ != "" && !seen[im] {
			seen[im] = true
			out = append(out, im)
		}
	}
	return out
}
