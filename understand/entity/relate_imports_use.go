package entity

import "strings"

// rustUses reads use trees (use a::b::{c, d as e};), mod m; and extern
// crate c;.
func (r *importReader) rustUses() {
	for i := 0; i < len(r.toks); i++ {
		switch {
		case r.is(i, "use") && (r.startsStatement(i) || r.is(i-1, "pub") || r.is(i-1, ")")):
			end := i + 1
			for end < len(r.toks) && !r.is(end, ";") {
				end++
			}
			r.useTree(i, i+1, end, nil)
			i = end
		case r.is(i, "mod") && r.ident(i+1) && r.is(i+2, ";"):
			r.add(Import{Path: r.text(i + 1), Local: true}, i)
		case r.is(i, "extern") && r.is(i+1, "crate") && r.ident(i+2):
			im := Import{Path: r.text(i + 2)}
			if r.is(i+3, "as") && r.ident(i+4) {
				im.Alias = r.text(i + 4)
			}
			r.add(im, i)
		}
	}
}

// useTree expands the use tree in tokens [from, to) under prefix.
func (r *importReader) useTree(at, from, to int, prefix []string) {
	path := append([]string(nil), prefix...)
	for j := from; j < to; j++ {
		switch {
		case r.is(j, "as") && r.ident(j+1):
			r.addUse(at, path, r.text(j+1))
			return
		case r.ident(j) || r.is(j, "*"):
			path = append(path, r.text(j))
		case r.is(j, "{"):
			end := r.closingBrace(j, to)
			start := j + 1
			for k := j + 1; k <= end; k++ {
				if k == end || r.is(k, ",") && r.depth(start, k) == 0 {
					if start < k {
						r.useTree(at, start, k, path)
					}
					start = k + 1
				}
			}
			return
		}
	}
	r.addUse(at, path, "")
}

func (r *importReader) addUse(at int, path []string, alias string) {
	if len(path) == 0 {
		return
	}
	leaf := path[len(path)-1]
	im := Import{Path: strings.Join(path, "::"), Alias: alias}
	if leaf != "*" && leaf != "self" {
		im.Names = []string{leaf}
	}
	if leaf == "self" {
		im.Path = strings.Join(path[:len(path)-1], "::")
	}
	r.add(im, at)
}

func (r *importReader) closingBrace(i, to int) int {
	depth := 0
	for j := i; j < to; j++ {
		switch {
		case r.is(j, "{"):
			depth++
		case r.is(j, "}"):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return to
}

func (r *importReader) depth(from, to int) int {
	d := 0
	for j := from; j < to; j++ {
		switch {
		case r.is(j, "{"):
			d++
		case r.is(j, "}"):
			d--
		}
	}
	return d
}

// requires reads Ruby's require "x", require_relative "x" and load "x".
func (r *importReader) requires(words ...string) {
	for i := 0; i < len(r.toks); i++ {
		w := ""
		for _, x := range words {
			if r.is(i, x) {
				w = x
			}
		}
		if w == "" || r.is(i-1, ".") {
			continue
		}
		j := i + 1
		if r.is(j, "(") {
			j++
		}
		if w == "autoload" && j < len(r.toks) && r.toks[j].kind != tString {
			j += 3 // autoload :Name, "path"
		}
		if p, ok := r.str(j); ok {
			r.add(Import{Path: p, Local: w == "require_relative"}, i)
		}
	}
}

// phpImports reads require/include of a literal path and the namespace
// imports (use A\B\C [as D];, use A\{B, C};) before the first class.
func (r *importReader) phpImports() {
	decl := false
	for i := 0; i < len(r.toks); i++ {
		switch {
		case r.is(i, "class") || r.is(i, "interface") || r.is(i, "trait") || r.is(i, "function"):
			decl = true
		case r.is(i, "require") || r.is(i, "require_once") || r.is(i, "include") || r.is(i, "include_once"):
			last := ""
			j := i + 1
			for ; j < len(r.toks) && !r.is(j, ";") && r.toks[j].line == r.toks[i].line; j++ {
				if p, ok := r.str(j); ok {
					last = p
				}
			}
			if last != "" {
				r.add(Import{Path: last, Local: strings.HasPrefix(last, "/") || strings.HasPrefix(last, ".")}, i)
			}
		case r.is(i, "use") && !decl && r.startsStatement(i) && !r.is(i+1, "("):
			end := i + 1
			for end < len(r.toks) && !r.is(end, ";") {
				end++
			}
			r.phpUse(i, i+1, end, "")
			i = end
		}
	}
}

// phpUse expands use A\B, C as D; and use A\{B, C}; in tokens [from, to).
func (r *importReader) phpUse(at, from, to int, prefix string) {
	path := prefix
	start := from
	if r.is(start, "function") || r.is(start, "const") {
		start++
	}
	for j := start; j <= to; j++ {
		switch {
		case j == to || r.is(j, ","):
			if path != "" && path != prefix {
				r.add(Import{Path: strings.Trim(path, `\`)}, at)
			}
			path = prefix
		case r.is(j, "{"):
			end := r.closingBrace(j, to)
			r.phpUse(at, j+1, end, path)
			path, j = prefix, end
		case r.is(j, "as") && r.ident(j+1):
			r.add(Import{Path: strings.Trim(path, `\`), Alias: r.text(j + 1)}, at)
			path = prefix
			j++
		case r.ident(j):
			path += r.text(j)
		case r.is(j, `\`):
			path += `\`
		}
	}
}
