package understand

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// Comment syntax by language, and the line scanner that separates an added
// line's comment text from its code and strings.

// dnSyntax is a language's comment syntax.
type dnSyntax struct {
	line   []string    // line-comment tokens
	blocks [][2]string // block-comment delimiters
	// docstrings: Python's triple-quoted strings at the start of a line.
	docstrings bool
	// quotes are the string delimiters skipped when looking for a
	// trailing comment; '`' may span lines.
	quotes string
	// hashWord: a trailing '#' comment needs whitespace before it
	// (shell, YAML, TOML: "a#b" is not a comment).
	hashWord bool
	// starLines: a line starting with '*' continues a /* */ block whose
	// opening the hunk does not show.
	starLines bool

	// Byte tables derived from the above by index (init indexes every
	// syntax), so that a line is scanned token by token only where a token
	// can start.
	//
	// opens holds the bytes that can start what spans lines: a block
	// comment, a docstring, a '`' string. Without them a line outside a
	// comment or string leaves none open.
	opens [256]bool
	// starts adds the bytes that can start a line comment: without any of
	// them a line outside a comment or string has none.
	starts [256]bool
	// special adds the quotes: every other byte is code.
	special [256]bool
	quote   [256]bool // the bytes of quotes
}

// index fills sx's byte tables.
func (sx *dnSyntax) index() {
	mark := func(t *[256]bool, bytes string) {
		for i := 0; i < len(bytes); i++ {
			t[bytes[i]] = true
		}
	}
	for _, b := range sx.blocks {
		mark(&sx.opens, b[0][:1])
	}
	if sx.docstrings {
		mark(&sx.opens, `"'`)
	}
	if strings.IndexByte(sx.quotes, '`') >= 0 {
		mark(&sx.opens, "`")
	}
	sx.starts = sx.opens
	for _, tok := range sx.line {
		mark(&sx.starts, tok[:1])
	}
	sx.special = sx.starts
	mark(&sx.special, sx.quotes)
	mark(&sx.quote, sx.quotes)
}

// dnHasAny reports whether s holds a byte of table t.
func dnHasAny(s string, t *[256]bool) bool {
	for i := 0; i < len(s); i++ {
		if t[s[i]] {
			return true
		}
	}
	return false
}

var (
	dnSyntaxC      = &dnSyntax{line: []string{"//"}, blocks: [][2]string{{"/*", "*/"}}, quotes: "\"'`", starLines: true}
	dnSyntaxPHP    = &dnSyntax{line: []string{"//", "#"}, blocks: [][2]string{{"/*", "*/"}}, quotes: "\"'`", starLines: true}
	dnSyntaxHash   = &dnSyntax{line: []string{"#"}, quotes: "\"'", hashWord: true}
	dnSyntaxPython = &dnSyntax{line: []string{"#"}, docstrings: true, quotes: "\"'"}
	dnSyntaxRuby   = &dnSyntax{line: []string{"#"}, blocks: [][2]string{{"=begin", "=end"}}, quotes: "\"'"}
	dnSyntaxSQL    = &dnSyntax{line: []string{"--"}, blocks: [][2]string{{"/*", "*/"}}, quotes: "\"'", starLines: true}
	dnSyntaxLua    = &dnSyntax{line: []string{"--"}, blocks: [][2]string{{"--[[", "]]"}}, quotes: "\"'"}
	dnSyntaxHs     = &dnSyntax{line: []string{"--"}, blocks: [][2]string{{"{-", "-}"}}, quotes: "\""}
	dnSyntaxLisp   = &dnSyntax{line: []string{";"}, blocks: [][2]string{{"#|", "|#"}}, quotes: "\""}
	dnSyntaxHTML   = &dnSyntax{blocks: [][2]string{{"<!--", "-->"}}}
	dnSyntaxCSS    = &dnSyntax{blocks: [][2]string{{"/*", "*/"}}, quotes: "\"'", starLines: true}
	dnSyntaxHCL    = &dnSyntax{line: []string{"#", "//"}, blocks: [][2]string{{"/*", "*/"}}, quotes: "\"", hashWord: true, starLines: true}
	dnSyntaxTeX    = &dnSyntax{line: []string{"%"}}
	dnSyntaxINI    = &dnSyntax{line: []string{";", "#"}, hashWord: true}
	dnSyntaxVue    = &dnSyntax{line: []string{"//"}, blocks: [][2]string{{"<!--", "-->"}, {"/*", "*/"}}, quotes: "\"'`"}
	// dnSyntaxAny is used for files of unknown language.
	dnSyntaxAny = &dnSyntax{line: []string{"//", "#"}, blocks: [][2]string{{"/*", "*/"}}, quotes: "\"'", hashWord: true, starLines: true}
)

var dnSyntaxByExt = map[string]*dnSyntax{}

func init() {
	add := func(s *dnSyntax, exts ...string) {
		for _, e := range exts {
			dnSyntaxByExt[e] = s
		}
	}
	add(dnSyntaxC, "go", "c", "h", "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "m", "mm",
		"java", "kt", "kts", "scala", "sc", "groovy", "gradle", "js", "jsx", "mjs", "cjs",
		"ts", "tsx", "mts", "cts", "cs", "fs", "rs", "swift", "dart", "proto", "zig", "v",
		"sol", "jsonc", "json5", "less", "scss", "cu", "glsl", "hlsl", "d", "ino")
	add(dnSyntaxPHP, "php", "phpt")
	add(dnSyntaxPython, "py", "pyi", "pyx", "pxd")
	add(dnSyntaxRuby, "rb", "rake", "gemspec")
	add(dnSyntaxHash, "sh", "bash", "zsh", "fish", "ksh", "yaml", "yml", "toml", "pl", "pm",
		"r", "ex", "exs", "cmake", "mk", "make", "nix", "jl", "cr", "nim", "ps1", "psm1",
		"tcl", "awk", "sed", "conf", "cfg", "properties", "dockerfile", "containerfile",
		"graphql", "gql", "bzl", "star", "bats", "gitignore", "dockerignore", "editorconfig",
		"env", "service", "coffee", "gd", "mojo")
	add(dnSyntaxSQL, "sql", "psql", "pgsql", "mysql", "plsql", "ada", "adb", "ads", "vhd", "vhdl")
	add(dnSyntaxLua, "lua")
	add(dnSyntaxHs, "hs", "lhs", "elm", "purs", "agda", "idr")
	add(dnSyntaxLisp, "lisp", "lsp", "cl", "el", "scm", "ss", "rkt", "clj", "cljs", "cljc", "edn", "fnl", "asm")
	add(dnSyntaxHTML, "html", "htm", "xhtml", "xml", "xsd", "xsl", "xslt", "svg", "md",
		"markdown", "mdx", "plist", "csproj", "fsproj", "vbproj", "props", "targets", "pom", "wsdl", "jsp", "erb", "cshtml", "razor", "hbs", "handlebars")
	add(dnSyntaxCSS, "css")
	add(dnSyntaxHCL, "tf", "tfvars", "hcl", "nomad")
	add(dnSyntaxTeX, "tex", "sty", "cls", "bib", "erl", "hrl", "matlab", "pro", "ml", "mli")
	add(dnSyntaxINI, "ini", "reg", "inf")
	add(dnSyntaxVue, "vue", "svelte", "astro")
	// OCaml comments are (* *), not '%'.
	dnSyntaxByExt["ml"] = &dnSyntax{blocks: [][2]string{{"(*", "*)"}}, quotes: "\""}
	dnSyntaxByExt["mli"] = dnSyntaxByExt["ml"]
	for _, m := range []map[string]*dnSyntax{dnSyntaxByExt, dnSyntaxByName, dnSyntaxByLang} {
		for _, sx := range m {
			sx.index()
		}
	}
	dnSyntaxAny.index()
}

var dnSyntaxByName = map[string]*dnSyntax{
	"makefile": dnSyntaxHash, "gnumakefile": dnSyntaxHash, "dockerfile": dnSyntaxHash,
	"containerfile": dnSyntaxHash, "rakefile": dnSyntaxRuby, "gemfile": dnSyntaxRuby,
	"podfile": dnSyntaxRuby, "vagrantfile": dnSyntaxRuby, "brewfile": dnSyntaxRuby,
	"jenkinsfile": dnSyntaxC, "procfile": dnSyntaxHash, "cmakelists.txt": dnSyntaxHash,
	"build": dnSyntaxHash, "workspace": dnSyntaxHash, "justfile": dnSyntaxHash,
	".bashrc": dnSyntaxHash, ".zshrc": dnSyntaxHash, ".profile": dnSyntaxHash,
}

// dnSyntaxByLang maps go-enry language names (lower-cased) for files whose
// name says nothing.
var dnSyntaxByLang = map[string]*dnSyntax{
	"go": dnSyntaxC, "c": dnSyntaxC, "c++": dnSyntaxC, "java": dnSyntaxC, "javascript": dnSyntaxC,
	"typescript": dnSyntaxC, "rust": dnSyntaxC, "c#": dnSyntaxC, "kotlin": dnSyntaxC,
	"swift": dnSyntaxC, "scala": dnSyntaxC, "groovy": dnSyntaxC, "php": dnSyntaxPHP,
	"python": dnSyntaxPython, "ruby": dnSyntaxRuby, "shell": dnSyntaxHash, "perl": dnSyntaxHash,
	"yaml": dnSyntaxHash, "toml": dnSyntaxHash, "makefile": dnSyntaxHash, "dockerfile": dnSyntaxHash,
	"r": dnSyntaxHash, "elixir": dnSyntaxHash, "sql": dnSyntaxSQL, "plsql": dnSyntaxSQL,
	"lua": dnSyntaxLua, "haskell": dnSyntaxHs, "emacs lisp": dnSyntaxLisp, "common lisp": dnSyntaxLisp,
	"clojure": dnSyntaxLisp, "scheme": dnSyntaxLisp, "html": dnSyntaxHTML, "xml": dnSyntaxHTML,
	"markdown": dnSyntaxHTML, "css": dnSyntaxCSS, "hcl": dnSyntaxHCL, "tex": dnSyntaxTeX,
	"erlang": dnSyntaxTeX, "ini": dnSyntaxINI, "vue": dnSyntaxVue,
}

// dnProse files have no comment syntax: nothing in them is a comment.
var dnProse = dnSet("txt", "text", "rst", "adoc", "asciidoc", "org", "json", "csv", "tsv", "lock", "sum", "mod", "patch", "diff", "log")

func dnSyntaxFor(fc *model.FileChange) *dnSyntax {
	p := strings.ReplaceAll(fc.Path, "\\", "/")
	base := strings.ToLower(p[strings.LastIndexByte(p, '/')+1:])
	if s, ok := dnSyntaxByName[base]; ok {
		return s
	}
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		ext := base[i+1:]
		if s, ok := dnSyntaxByExt[ext]; ok {
			return s
		}
		if dnProse[ext] {
			return nil
		}
	}
	if s, ok := dnSyntaxByLang[strings.ToLower(fc.Language)]; ok {
		return s
	}
	return dnSyntaxAny
}

// dnStarLine reports whether line continues a block comment by the
// starLines rule of dnScanLine.
func dnStarLine(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return t == "*" || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "*/")
}

// dnScanState is what a line leaves open for the next one.
type dnScanState struct {
	blockEnd string // inside a block comment or docstring ending with this
	strEnd   string // inside a multi-line string ending with this
}

// Kinds of line, for comment blocks.
const (
	dnLineCode     = iota // code, or blank outside a comment: ends a block
	dnLineComment         // comment only: continues a block
	dnLineTrailing        // a comment next to code: a block of its own
)

// dnScanLine scans one line of the new file and returns its comment text.
func dnScanLine(sx *dnSyntax, st *dnScanState, line string) (text string, kind int) {
	if *st == (dnScanState{}) && !dnHasAny(line, &sx.starts) && !(sx.starLines && dnStarLine(line)) {
		return "", dnLineCode // no comment can start: most lines of code
	}
	var parts []string
	code := false
	commentSeen := false
	i := 0
	if st.strEnd != "" {
		k := strings.Index(line, st.strEnd)
		if k < 0 {
			return "", dnLineCode
		}
		i = k + len(st.strEnd)
		st.strEnd = ""
		code = true
	}
	if st.blockEnd != "" {
		commentSeen = true
		k := strings.Index(line, st.blockEnd)
		if k < 0 {
			return dnCleanCommentLine(line, true), dnLineComment
		}
		parts = append(parts, dnCleanCommentLine(line[:k], true))
		i = k + len(st.blockEnd)
		st.blockEnd = ""
	} else if sx.starLines && dnStarLine(line) {
		t := strings.TrimLeft(line, " \t")
		if k := strings.Index(t, "*/"); k >= 0 {
			rest := strings.TrimSpace(t[k+2:])
			return dnCleanCommentLine(t[:k], true), dnKind(rest != "" && !strings.HasPrefix(rest, "//"), true)
		}
		return dnCleanCommentLine(t, true), dnLineComment
	}
scan:
	for i < len(line) {
		c := line[i]
		if c == ' ' || c == '\t' || c == '\r' {
			i++
			continue
		}
		if !sx.special[c] { // no token starts here: skip the checks below
			code = true
			if c < utf8.RuneSelf {
				i++
			} else {
				_, n := utf8.DecodeRuneInString(line[i:])
				i += n
			}
			continue
		}
		// Python docstrings (and other triple-quoted strings).
		if sx.docstrings && (strings.HasPrefix(line[i:], `"""`) || strings.HasPrefix(line[i:], `'''`)) {
			q := line[i : i+3]
			k := strings.Index(line[i+3:], q)
			if !code {
				commentSeen = true
				if k < 0 {
					parts = append(parts, dnCleanCommentLine(line[i+3:], false))
					st.blockEnd = q
					break scan
				}
				parts = append(parts, dnCleanCommentLine(line[i+3:i+3+k], false))
				i += 6 + k
				continue
			}
			if k < 0 {
				st.strEnd = q
				break scan
			}
			i += 6 + k
			continue
		}
		for _, b := range sx.blocks {
			if strings.HasPrefix(line[i:], b[0]) && (b[0] != "=begin" || i == 0) {
				commentSeen = true
				rest := line[i+len(b[0]):]
				k := strings.Index(rest, b[1])
				if k < 0 {
					parts = append(parts, dnCleanCommentLine(rest, false))
					st.blockEnd = b[1]
					break scan
				}
				parts = append(parts, dnCleanCommentLine(rest[:k], false))
				i += len(b[0]) + k + len(b[1])
				continue scan
			}
		}
		for _, tok := range sx.line {
			if !strings.HasPrefix(line[i:], tok) {
				continue
			}
			if tok == "#" && sx.hashWord && i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
				continue
			}
			commentSeen = true
			parts = append(parts, dnCleanCommentLine(line[i+len(tok):], false))
			break scan
		}
		if sx.quote[c] {
			code = true
			k := dnStringEnd(line, i)
			if k < 0 {
				if c == '`' {
					st.strEnd = "`"
					break scan
				}
				i++ // an apostrophe or an unclosed quote: just a character
				continue
			}
			i = k
			continue
		}
		code = true
		_, n := utf8.DecodeRuneInString(line[i:])
		i += n
	}
	if !commentSeen {
		return "", dnLineCode
	}
	return strings.Join(dnNonEmpty(parts), " "), dnKind(code, true)
}

func dnKind(code, comment bool) int {
	switch {
	case !comment:
		return dnLineCode
	case code:
		return dnLineTrailing
	default:
		return dnLineComment
	}
}

// dnStringEnd returns the index after the string literal opening at i, or
// -1 when it is not closed on the line. A single quote must close within a
// few bytes (a character literal), or it is an apostrophe or a lifetime.
func dnStringEnd(line string, i int) int {
	q := line[i]
	for j := i + 1; j < len(line); j++ {
		if q == '\'' && j-i > 12 {
			return -1
		}
		switch line[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return -1
}

func dnNonEmpty(parts []string) []string {
	out := parts[:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// dnCleanCommentLine strips comment decoration: leading "*" of block
// comment lines, repeated comment characters ("///", "##", ";;"), doc
// markers ("//!", "-- |") and lines that are only decoration.
func dnCleanCommentLine(s string, inBlock bool) string {
	s = strings.TrimSpace(s)
	if inBlock {
		s = strings.TrimLeft(s, "*")
	}
	s = strings.TrimLeft(s, "/#;%*")
	if len(s) > 0 && strings.IndexByte("!<|^-", s[0]) >= 0 && (len(s) == 1 || s[1] == ' ') {
		s = s[1:] // "//! doc", "///< doc", "-- | doc", "--- doc"
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "*/")
	s = strings.TrimSpace(s)
	decoration := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			decoration = false
			break
		}
	}
	if decoration {
		return ""
	}
	return s
}
