package understand

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The code names and file paths a design note mentions.

// dnKnownExt are file extensions that make a word a file name.
var dnKnownExt = dnSet(
	"go", "py", "pyi", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "java", "kt", "kts",
	"scala", "groovy", "gradle", "rb", "rs", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx",
	"cs", "fs", "php", "swift", "m", "mm", "dart", "lua", "sql", "sh", "bash", "zsh", "ps1",
	"pl", "pm", "ex", "exs", "erl", "hrl", "hs", "elm", "clj", "cljs", "el", "lisp", "scm", "ml",
	"vue", "svelte", "html", "htm", "css", "scss", "sass", "less", "xml", "json", "yaml", "yml",
	"toml", "ini", "cfg", "conf", "proto", "graphql", "gql", "md", "rst", "txt", "mod", "sum",
	"tf", "hcl", "nix", "cmake", "mk", "bzl", "zig", "nim", "jl", "sol", "lock", "csproj", "sln",
	"properties", "env", "dockerfile", "tpl", "tmpl", "j2", "ipynb", "r", "tex",
)

var dnFileNames = dnSet("Makefile", "Dockerfile", "Gemfile", "Rakefile", "Jenkinsfile",
	"Procfile", "Vagrantfile", "Containerfile", "Justfile", "BUILD", "WORKSPACE")

// Words with a CamelCase bump that are product names, not code.
var dnNotCode = dnSet("github", "gitlab", "bitbucket", "javascript", "typescript",
	"coffeescript", "postgresql", "mysql", "nosql", "mongodb", "mariadb", "dynamodb",
	"couchdb", "influxdb", "cockroachdb", "macos", "ios", "ipados", "tvos", "watchos",
	"iphone", "ipad", "youtube", "linkedin", "powershell", "devops", "graphql", "openai",
	"chatgpt", "pypi", "webassembly", "wordpress", "jetbrains", "intellij", "pycharm",
	"openssl", "openssh", "freebsd", "openbsd", "netbsd", "sourceforge", "stackoverflow",
	"phd", "oauth", "devtools", "gitea", "sqlserver", "rabbitmq", "activemq", "zeromq", "nodejs",
	"vscode", "netlify", "circleci", "teamcity", "appveyor", "homebrew", "macbook", "airpods",
	"node.js", "vue.js", "next.js", "nuxt.js", "react.js", "express.js", "d3.js", "three.js", "chart.js")

// Slash-separated words that are prose.
var dnNotPath = dnSet("and/or", "either/or", "read/write", "input/output", "i/o", "tcp/ip",
	"client/server", "yes/no", "on/off", "true/false", "w/o", "w/", "n/a", "a/b", "b/c",
	"s/", "he/she", "his/her", "him/her", "get/set", "encode/decode", "encoding/decoding",
	"start/stop", "open/close", "load/store", "push/pull", "pros/cons", "ci/cd", "pr/mr", "en/ru")

// dnEntities returns the code names and file paths s mentions.
func dnEntities(s string) []string {
	var out []string
	add := func(e string) {
		if e == "" || len(out) >= dnMaxEntities {
			return
		}
		for _, o := range out {
			if o == e {
				return
			}
		}
		out = append(out, e)
	}
	for i := 0; i < len(s) && len(out) < dnMaxEntities; {
		c := s[i]
		if c == '`' {
			j := i
			for j < len(s) && s[j] == '`' {
				j++
			}
			if j-i == 1 {
				if k := strings.IndexByte(s[j:], '`'); k >= 0 {
					add(dnBacktickEntity(s[j : j+k]))
					i = j + k + 1
					continue
				}
			}
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		j := i
		for j < len(s) && s[j] != '`' {
			r, n := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += n
		}
		add(dnWordEntity(s[i:j]))
		i = j
	}
	return out
}

func dnIsIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func dnHasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// dnBacktickEntity accepts `name`, `pkg.Name`, `Foo()`, `path/to/file.go`.
func dnBacktickEntity(x string) string {
	x = strings.TrimSpace(x)
	if x == "" || len(x) > 120 || strings.ContainsAny(x, " \t\n") || !utf8.ValidString(x) {
		return ""
	}
	if k := strings.IndexByte(x, '('); k > 0 && strings.HasSuffix(x, ")") {
		x = x[:k]
	}
	x = strings.TrimLeft(x, "*&")
	if !dnHasLetter(x) || strings.Contains(x, "://") {
		return ""
	}
	return x
}

// dnWordEntity accepts a word that looks like code: a CamelCase bump, an
// underscore, a call "()", a qualified name, or a file path.
func dnWordEntity(tok string) string {
	// Fast path: a plain lower-case word, the common case.
	plain := true
	for i := 0; i < len(tok) && plain; i++ {
		c := tok[i]
		plain = c >= 'a' && c <= 'z' || c == ',' || c == ';' || c == '!' || c == '?' || c == '"' || c == '\'' || c == '.' && i == len(tok)-1
	}
	if plain {
		return ""
	}
	t := strings.TrimLeftFunc(tok, func(r rune) bool {
		switch r {
		case '(', '"', '\'', '[', '{', '<', '«', '“', '‘', '*', '&':
			return true
		}
		return false
	})
	t = strings.TrimRightFunc(t, func(r rune) bool {
		switch r {
		case '.', ',', ';', ':', '!', '?', '"', '\'', '»', '”', '’', ']', '}', '>':
			return true
		}
		return false
	})
	call := false
	if k := strings.IndexByte(t, '('); k >= 0 {
		if k == 0 {
			return ""
		}
		call = strings.HasSuffix(t, ")")
		t = t[:k]
	}
	t = strings.TrimRight(t, ").,;:")
	if t == "" || len(t) > 200 || !dnHasLetter(t) || strings.Contains(t, "://") {
		return ""
	}
	slash := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case dnIsIdentByte(c), c == '.', c == ':', c == '#':
		case c == '/':
			slash = true
		case c == '-', c == '+', c == '@', c == '~':
		default:
			return ""
		}
	}
	lower := strings.ToLower(t)
	if slash {
		// owner/repo#123 is an issue, not a file.
		if dnNotPath[lower] || strings.Contains(t, "//") || strings.HasPrefix(t, "@") || strings.Contains(t, "#") {
			return ""
		}
		return strings.TrimSuffix(t, "/")
	}
	if dnFileNames[t] {
		return t
	}
	if strings.ContainsAny(t, "@+~") {
		return "" // e-mail addresses, mentions, versions like "1.2+dev"
	}
	if k := strings.LastIndexByte(t, '.'); k > 0 && k < len(t)-1 && dnKnownExt[lower[k+1:]] {
		stem := t[:k]
		if !dnNotCode[lower] && dnHasLetter(stem) && !strings.Contains(stem, "..") {
			return t
		}
	}
	if strings.Contains(t, "-") {
		return ""
	}
	if dnNotCode[lower] {
		return ""
	}
	if call && dnIsIdentish(t) {
		return t
	}
	if strings.Contains(t, "_") && dnIsIdentish(t) && strings.Trim(t, "_") != "" {
		return t
	}
	if dnHasCamelBump(t) && dnIsIdentish(t) {
		return t
	}
	// Qualified names: pkg.Name, Foo::bar, Foo#bar.
	if strings.ContainsAny(t, ".:#") && dnIsIdentish(t) {
		segs := strings.FieldsFunc(t, func(r rune) bool { return r == '.' || r == ':' || r == '#' })
		if len(segs) >= 2 {
			for _, sg := range segs[1:] {
				if sg[0] >= 'A' && sg[0] <= 'Z' || strings.Contains(t, "::") || strings.Contains(t, "#") {
					return t
				}
			}
		}
	}
	return ""
}

// dnIsIdentish: identifier segments joined by '.', "::" or '#', nothing
// else, and no empty segment.
func dnIsIdentish(t string) bool {
	if t == "" {
		return false
	}
	prevSep := true
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case dnIsIdentByte(c):
			prevSep = false
		case c == '.' || c == '#':
			if prevSep {
				return false
			}
			prevSep = true
		case c == ':':
			if i+1 < len(t) && t[i+1] == ':' && !prevSep {
				i++
				prevSep = true
				continue
			}
			return false
		default:
			return false
		}
	}
	return !prevSep
}

// dnHasCamelBump: a lower-case letter followed by an upper-case one
// ("parseConfig", "NewReader"), or an acronym followed by a capitalised word
// ("RWMutex", "HTTPServer"; not "URLs", "IDs").
func dnHasCamelBump(t string) bool {
	up := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	lo := func(c byte) bool { return c >= 'a' && c <= 'z' }
	for i := 1; i < len(t); i++ {
		if up(t[i]) && lo(t[i-1]) {
			return true
		}
		if i >= 2 && i+2 < len(t) && up(t[i-2]) && up(t[i-1]) && lo(t[i]) && lo(t[i+1]) && lo(t[i+2]) {
			return true
		}
	}
	return false
}
