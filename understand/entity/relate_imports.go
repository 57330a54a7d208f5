package entity

import (
	"bytes"
	"strings"
)

// Import is one import statement's target, as written.
type Import struct {
	// Path is the module, package or file imported, as the language
	// writes it: "fmt", "./util", "a.b.c", "foo.h", "crate::a::b",
	// "App\Models\User".
	Path string
	// Alias is the name the import binds where it binds one: a Go
	// package's alias, Python's "as" name, a JavaScript default or
	// namespace import, a Rust or PHP "as" name.
	Alias string
	// Names are the names it imports from Path: a Python from-import's,
	// a JavaScript import's named bindings, a Rust use list's leaf, a Java
	// static import's member.
	Names []string
	// Local marks an import of a file relative to the importing one: C's
	// #include "…", Ruby's require_relative, Rust's mod m;.
	Local bool
	// Level counts the leading dots of a Python relative import.
	Level int
	// Line is the 1-based line of the statement.
	Line int
}

// Imports returns the import statements of the source, in order. Up to
// before a 1-based line if it is positive: the file's header, where its
// imports name what its definitions call.
func (s *Source) Imports(before int) []Import {
	s.usable()
	text := s.src
	if before > 0 {
		text = s.src[:s.offset(before)]
	}
	if s.lang == "C" || s.lang == "C++" {
		text = text[:includesEnd(text)]
	}
	s.toks = tokenizeInto(s.spec, text, s.toks)
	r := &importReader{lang: s.lang, src: text, toks: s.toks}
	r.read()
	return r.out
}

// includesEnd returns where the last line that may hold a C or C++
// include directive ends (with its continuation lines): the imports of
// src[:includesEnd(src)] are those of src. Tokens before a line end are
// the same in a prefix as in the whole text, and a directive names the
// word it is; the includes are at the top of most files, and scanning the
// rest of a changed file for them was a third of what reading git's
// relationship facts cost.
func includesEnd(src []byte) int {
	last := max(lastIndex(src, []byte("include")), lastIndex(src, []byte("import")))
	if last < 0 {
		return 0
	}
	for {
		nl := bytes.IndexByte(src[last:], '\n')
		if nl < 0 {
			return len(src)
		}
		end := last + nl
		if !bytes.HasSuffix(bytes.TrimSuffix(src[last:end], []byte("\r")), []byte("\\")) {
			return end + 1
		}
		last = end + 1
	}
}

// lastIndex is bytes.LastIndex for a word that a file holds a few times:
// each occurrence found forwards. bytes.LastIndex searches backwards a
// byte at a time (Rabin-Karp), and from a C file's end to its includes
// near the top it scanned nearly the whole file: 0.9 s of CPU over
// git/git's history, against a tenth of that with the vectorised forward
// search.
func lastIndex(src, word []byte) int {
	last := -1
	for off := 0; ; {
		i := bytes.Index(src[off:], word)
		if i < 0 {
			return last
		}
		last = off + i
		off = last + 1
	}
}

// MayImport reports whether a line of the language may begin or end an
// import statement: the lines of a diff to look at before reading a
// file's imports again.
func MayImport(lang string, line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return false
	}
	for _, w := range importWords[lang] {
		if bytes.HasPrefix(line, []byte(w)) {
			return true
		}
	}
	switch lang {
	case "JavaScript", "TypeScript", "TSX":
		return bytes.Contains(line, []byte("require(")) || bytes.Contains(line, []byte("import(")) ||
			bytes.Contains(line, []byte(" from ")) || line[0] == '}'
	case "Go", "Python", "Rust", "PHP":
		return line[0] == ')' || line[0] == '}' || line[0] == '"' || line[len(line)-1] == ','
	case "C", "C++":
		return line[0] == '#'
	}
	return false
}

var importWords = map[string][]string{
	"C": {"#"}, "C++": {"#", "import"},
	"Go":         {"import"},
	"Python":     {"import", "from"},
	"JavaScript": {"import", "export", "const", "let", "var"}, "TypeScript": {"import", "export", "const", "let", "var"},
	"TSX":  {"import", "export", "const", "let", "var"},
	"Java": {"import"}, "C#": {"using", "global using"},
	"Rust": {"use", "pub use", "pub(crate) use", "mod", "pub mod", "pub(crate) mod", "extern crate"},
	"Ruby": {"require", "load", "autoload"},
	"PHP":  {"use", "require", "include"},
}

// importReader reads a file's import statements from its tokens.
type importReader struct {
	lang string
	src  []byte
	toks []token
	out  []Import
}

func (r *importReader) text(i int) string { return string(r.toks[i].text(r.src)) }

func (r *importReader) is(i int, s string) bool {
	return i >= 0 && i < len(r.toks) && r.toks[i].is(r.src, s)
}

func (r *importReader) ident(i int) bool {
	return i >= 0 && i < len(r.toks) && r.toks[i].kind == tIdent
}

func (r *importReader) str(i int) (string, bool) {
	if i < 0 || i >= len(r.toks) || r.toks[i].kind != tString {
		return "", false
	}
	return unquote(r.toks[i].text(r.src)), true
}

// unquote strips a literal's prefix and quotes.
func unquote(b []byte) string {
	i := bytes.IndexAny(b, "\"'`")
	if i < 0 {
		return string(b)
	}
	q := b[i]
	b = b[i+1:]
	if j := bytes.LastIndexByte(b, q); j >= 0 {
		b = b[:j]
	}
	return string(bytes.Trim(b, string(q)))
}

// startsStatement reports whether token i begins a statement: the first
// on its line, or after a semicolon or a brace.
func (r *importReader) startsStatement(i int) bool {
	return i == 0 || r.toks[i-1].line != r.toks[i].line || r.is(i-1, ";") || r.is(i-1, "{") || r.is(i-1, "}")
}

func (r *importReader) add(im Import, i int) {
	im.Line = int(r.toks[i].line) + 1
	r.out = append(r.out, im)
}

func (r *importReader) read() {
	switch r.lang {
	case "C", "C++":
		r.includes()
	case "Go":
		r.goImports()
	case "Python":
		r.pyImports()
	case "JavaScript", "TypeScript", "TSX":
		r.jsImports()
	case "Java":
		r.dotted("import", ";")
	case "C#":
		r.dotted("using", ";")
	case "Rust":
		r.rustUses()
	case "Ruby":
		r.requires("require", "require_relative", "load", "autoload")
	case "PHP":
		r.phpImports()
	}
}

// includes reads C and C++ #include and #import directives.
func (r *importReader) includes() {
	for i, t := range r.toks {
		if t.kind != tDirective {
			continue
		}
		d := bytes.TrimSpace(t.text(r.src)[1:])
		var rest []byte
		for _, w := range []string{"include_next", "include", "import"} {
			if after, ok := bytes.CutPrefix(d, []byte(w)); ok {
				rest = bytes.TrimSpace(after)
				break
			}
		}
		if len(rest) < 3 {
			continue
		}
		close := byte('"')
		if rest[0] == '<' {
			close = '>'
		} else if rest[0] != '"' {
			continue // a macro
		}
		if end := bytes.IndexByte(rest[1:], close); end > 0 {
			r.add(Import{Path: string(rest[1 : 1+end]), Local: close == '"'}, i)
		}
	}
}

// goImports reads import "p", import a "p" and import ( … ) blocks.
func (r *importReader) goImports() {
	for i := 0; i < len(r.toks); i++ {
		if !r.is(i, "import") || !r.startsStatement(i) {
			continue
		}
		if !r.is(i+1, "(") {
			i = r.goSpec(i + 1)
			continue
		}
		for j := i + 2; j < len(r.toks) && !r.is(j, ")"); j++ {
			j = r.goSpec(j)
		}
	}
}

// goSpec reads one import spec at token i, [alias] "path", and returns its
// last token.
func (r *importReader) goSpec(i int) int {
	alias := ""
	if r.ident(i) || r.is(i, ".") {
		alias = r.text(i)
		i++
	}
	p, ok := r.str(i)
	if !ok {
		return i
	}
	if alias == "" {
		alias = GoPackageName(p)
	}
	r.add(Import{Path: p, Alias: alias}, i)
	return i
}

// GoPackageName is the name an import path's package is most likely
// declared with: its last element, before any major version suffix.
func GoPackageName(path string) string {
	parts := strings.Split(path, "/")
	name := parts[len(parts)-1]
	if len(parts) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = parts[len(parts)-2]
	}
	name = strings.TrimPrefix(name, "go-")
	if i := strings.IndexAny(name, ".-"); i > 0 {
		name = name[:i]
	}
	return name
}

// pyImports reads import a.b [as c], … and from .a import b [as c], ….
func (r *importReader) pyImports() {
	for i := 0; i < len(r.toks); i++ {
		switch {
		case r.is(i, "import") && r.startsStatement(i):
			for j := i + 1; j < len(r.toks) && r.toks[j].line == r.toks[i].line; j++ {
				path, next := r.dottedName(j)
				if path == "" {
					break
				}
				im := Import{Path: path}
				if r.is(next, "as") && r.ident(next+1) {
					im.Alias = r.text(next + 1)
					next += 2
				} else {
					im.Alias = strings.SplitN(path, ".", 2)[0]
				}
				r.add(im, i)
				if !r.is(next, ",") {
					break
				}
				j = next
			}
		case r.is(i, "from") && r.startsStatement(i):
			j := i + 1
			im := Import{}
			for r.is(j, ".") {
				im.Level++
				j++
			}
			im.Path, j = r.dottedName(j)
			if !r.is(j, "import") {
				continue
			}
			end, last := j+1, 0 // names in [j+1, end); last: the statement's last token
			if r.is(end, "(") {
				end = r.closing(end)
				last = end
			} else {
				for end < len(r.toks) && r.toks[end].line == r.toks[j].line {
					end++
				}
				last = end - 1
			}
			for k := j + 1; k < end && k < len(r.toks); k++ {
				switch {
				case r.ident(k) && r.is(k+1, "as") && r.ident(k+2):
					im.Names = append(im.Names, r.text(k)+" as "+r.text(k+2))
					k += 2
				case r.ident(k) || r.is(k, "*"):
					im.Names = append(im.Names, r.text(k))
				}
			}
			r.add(im, i)
			i = last
		}
	}
}

// closing returns the index of the parenthesis closing the one at i.
func (r *importReader) closing(i int) int {
	for j := i + 1; j < len(r.toks); j++ {
		if r.is(j, ")") {
			return j
		}
	}
	return len(r.toks)
}

// dottedName reads a.b.c from token i and returns it with the index after.
func (r *importReader) dottedName(i int) (string, int) {
	var parts []string
	for r.ident(i) && !r.is(i, "import") {
		parts = append(parts, r.text(i))
		if !r.is(i+1, ".") || !r.ident(i+2) {
			i++
			break
		}
		i += 2
	}
	return strings.Join(parts, "."), i
}

// jsImports reads import … from "m", export … from "m", import "m",
// import("m") and require("m"), with the names they bind.
func (r *importReader) jsImports() {
	for i := 0; i < len(r.toks); i++ {
		switch {
		case (r.is(i, "import") || r.is(i, "export")) && r.startsStatement(i) && !r.is(i+1, "("):
			r.jsStatement(i)
		case (r.is(i, "require") || r.is(i, "import")) && r.is(i+1, "(") && r.is(i+3, ")") && !r.is(i-1, "."):
			p, ok := r.str(i + 2)
			if !ok {
				continue
			}
			im := Import{Path: p}
			// const x = require("m"), const { a, b } = require("m")
			if r.is(i-1, "=") {
				if r.ident(i - 2) {
					im.Alias = r.text(i - 2)
				} else if r.is(i-2, "}") {
					for j := i - 3; j >= 0 && !r.is(j, "{"); j-- {
						if r.ident(j) && !r.is(j-1, ":") {
							im.Names = append([]string{r.text(j)}, im.Names...)
						}
					}
				}
			}
			r.add(im, i)
		}
	}
}

// jsStatement reads one import or export statement that starts at i.
func (r *importReader) jsStatement(i int) {
	var im Import
	braces := false
	for j := i + 1; j < len(r.toks); j++ {
		switch {
		case r.is(j, ";") || !braces && r.toks[j].line != r.toks[j-1].line && !r.is(j-1, ",") && !r.is(j, "from") && !r.is(j-1, "import"):
			return // export const x = …, or an unterminated statement
		case r.toks[j].kind == tString:
			if p, _ := r.str(j); r.is(j-1, "from") || r.is(j-1, "import") {
				im.Path = p
				r.add(im, i)
			}
			return
		case r.is(j, "{"):
			braces = true
		case r.is(j, "}"):
			braces = false
		case r.is(j, "*") && r.is(j+1, "as") && r.ident(j+2):
			im.Alias = r.text(j + 2)
			j += 2
		case r.ident(j) && braces:
			name := r.text(j)
			if r.is(j+1, "as") && r.ident(j+2) {
				name += " as " + r.text(j+2)
				j += 2
			}
			if name != "type" {
				im.Names = append(im.Names, name)
			}
		case r.ident(j) && r.is(j-1, "import") && !r.is(j, "type"):
			im.Alias = r.text(j) // the default import
		case r.ident(j) && r.is(j-1, "type") && r.is(j-2, "import"):
			im.Alias = r.text(j)
		case r.ident(j) && !r.is(j, "from") && !r.is(j, "type") && !r.is(j, "as") && r.is(j-1, "export"):
			return // export function, export const, …
		}
	}
}

// dotted reads Java's import a.b.C; and import static a.b.C.m; and C#'s
// using A.B; and using X = A.B;.
func (r *importReader) dotted(word, end string) {
	for i := 0; i < len(r.toks); i++ {
		if !r.is(i, word) || !r.startsStatement(i) || r.is(i+1, "(") {
			continue
		}
		j := i + 1
		static := r.is(j, "static")
		if static {
			j++
		}
		alias := ""
		if r.ident(j) && r.is(j+1, "=") {
			alias = r.text(j)
			j += 2
		}
		var parts []string
		for ; j < len(r.toks) && !r.is(j, end); j++ {
			switch {
			case r.ident(j) || r.is(j, "*"):
				parts = append(parts, r.text(j))
			case !r.is(j, "."):
				parts = nil // not an import: using var x = …
				j = len(r.toks)
			}
		}
		if len(parts) == 0 || parts[0] == "var" {
			continue
		}
		im := Import{Path: strings.Join(parts, "."), Alias: alias}
		if static && len(parts) > 1 {
			im.Path = strings.Join(parts[:len(parts)-1], ".")
			im.Names = []string{parts[len(parts)-1]}
		}
		r.add(im, i)
	}
}
