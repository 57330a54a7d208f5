package secrets

import (
	"path"
	"strings"
)

// Secrets by position rather than by shape: the value of a key that names
// a secret (SMTP_PASS=…, SECRET_KEY_BASE=…, password: …, db.password=…),
// and the password in a URL (postgres://user:PASSWORD@host). Such values
// are often short or plain words, so neither gitleaks' rules nor the
// entropy check see them.
//
// Where the key=value form is also ordinary code (password = password),
// only a quoted value or an environment-style key (UPPER_SNAKE, as in
// .env files, shell scripts and Dockerfiles) counts; in configuration
// files (configPath) any literal value does.

const (
	assignmentID  = "secret-assignment"
	urlPasswordID = "url-password"
)

// configPath reports whether a file holds configuration: .env files,
// properties, YAML, INI, TOML and the like.
func configPath(p string) bool {
	base := strings.ToLower(path.Base(p))
	if base == ".env" || strings.HasPrefix(base, ".env.") || base == ".npmrc" || base == ".pypirc" || base == ".netrc" {
		return true
	}
	switch path.Ext(base) {
	case ".env", ".properties", ".yml", ".yaml", ".ini", ".cfg", ".conf", ".toml", ".envrc":
		return true
	}
	return false
}

// assignmentSpans appends the values of secret-named keys, line by line.
func assignmentSpans(text string, config bool, out []span) []span {
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		if s, e, ok := assignedSecret(text[off:end], config); ok {
			out = append(out, span{start: off + s, end: off + e, rule: assignmentID})
		}
		off = end + 1
	}
	return out
}

// assignedSecret finds the secret value in one line, as byte offsets.
func assignedSecret(line string, config bool) (int, int, bool) {
	i := 0
	for i < len(line) && strings.IndexByte("+- \t", line[i]) >= 0 { // diff prefix, indentation
		i++
	}
	if strings.HasPrefix(line[i:], "export ") {
		i += len("export ")
	}
	ks, ke, q := keyAt(line, i)
	if ke <= ks || ke-ks > 80 {
		return 0, 0, false
	}
	key := line[ks:ke]
	j := ke + q
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	if j >= len(line) || (line[j] != '=' && line[j] != ':') {
		return 0, 0, false
	}
	j++
	if j < len(line) && line[j] == '=' { // "==" is a comparison
		return 0, 0, false
	}
	if !secretKey(key) {
		return 0, 0, false
	}
	vs, ve, quoted := valueAt(line, j)
	if v := line[vs:ve]; ve-vs < 4 || placeholder(v) || !quoted && strings.ContainsAny(v, " \t") {
		return 0, 0, false
	}
	if !config && !quoted && !envStyle(key) {
		return 0, 0, false
	}
	return vs, ve, true
}

// keyAt returns the key starting at i (optionally quoted) and the length
// of its closing quote.
func keyAt(line string, i int) (int, int, int) {
	q := 0
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		i++
		q = 1
	}
	k := i
	for k < len(line) && isKeyByte(line[k]) {
		k++
	}
	if q == 1 && (k >= len(line) || (line[k] != '"' && line[k] != '\'')) {
		return 0, 0, 0
	}
	return i, k, q
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// valueAt returns the value after a separator: quoted, or up to a comment
// or the end of the line.
func valueAt(line string, j int) (int, int, bool) {
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	if j < len(line) && (line[j] == '"' || line[j] == '\'' || line[j] == '`') {
		q := line[j]
		e := strings.IndexByte(line[j+1:], q)
		if e < 0 {
			return j + 1, len(line), true
		}
		return j + 1, j + 1 + e, true
	}
	e := len(line)
	if c := strings.Index(line[j:], " #"); c >= 0 {
		e = j + c
	}
	// Trimming can reach back before the value when there is none ("= ;").
	return j, max(j, len(strings.TrimRight(line[:e], " \t\r,;"))), false
}

// secretWords name a secret wherever they stand in a key; keyWords only
// as the last word after a qualifier (SECRET_KEY, API_KEY, BASIC_AUTH,
// but not primary_key or sort_key).
var (
	secretWords = map[string]bool{"pass": true, "passwd": true, "password": true, "passphrase": true, "pwd": true,
		"secret": true, "secrets": true, "token": true, "credential": true, "credentials": true, "apikey": true,
		"privatekey": true, "secretkey": true, "accesskey": true, "authtoken": true}
	keyWords = map[string]bool{"key": true, "auth": true, "pat": true, "dsn": true}
	// notSecretKeys: a first word that makes key or auth not secret.
	notSecretKeys = map[string]bool{"public": true, "primary": true, "foreign": true, "sort": true, "cache": true,
		"partition": true, "unique": true, "index": true, "hash": true, "lookup": true, "map": true, "group": true,
		"routing": true, "idempotency": true, "shard": true, "row": true, "hot": true}
	// notSecretLast: a last word that says the value is about a secret,
	// not the secret (TOKEN_URL, PASSWORD_MIN_LENGTH, SECRET_NAME).
	notSecretLast = map[string]bool{"url": true, "uri": true, "endpoint": true, "path": true, "file": true,
		"name": true, "id": true, "type": true, "length": true, "len": true, "ttl": true, "expiry": true,
		"expires": true, "timeout": true, "header": true, "env": true, "var": true, "field": true, "prefix": true,
		"enabled": true, "count": true, "size": true, "min": true, "max": true, "format": true, "policy": true,
		"hint": true, "label": true, "ref": true, "version": true, "algorithm": true, "mode": true, "dir": true,
		"location": true, "provider": true, "command": true, "cmd": true, "regex": true, "pattern": true}
)

// secretKey reports whether a key names a secret.
func secretKey(key string) bool {
	words := keyParts(key)
	if len(words) == 0 || notSecretLast[words[len(words)-1]] {
		return false
	}
	for _, w := range words {
		if secretWords[w] {
			return true
		}
	}
	last := words[len(words)-1]
	return keyWords[last] && len(words) > 1 && !notSecretKeys[words[len(words)-2]]
}

// keyParts splits a key into lower-case words at '_', '-', '.' and
// camelCase humps: "spring.datasource.password", "apiKey", "SMTP_PASS".
func keyParts(key string) []string {
	var words []string
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, strings.ToLower(key[start:end]))
		}
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			flush(i)
			start = i + 1
		case i > start && 'A' <= c && c <= 'Z' && 'a' <= key[i-1] && key[i-1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(key))
	return words
}

// envStyle reports whether a key is an environment variable's name:
// upper case, digits and underscores.
func envStyle(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// placeholder reports whether a value stands for a secret rather than
// being one: a variable reference, a template, code, a marker, a boolean,
// a run of one character.
func placeholder(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "nil", "undefined", "required", "optional", "changeme_in_env":
		return true
	}
	if len(v) > 1 && v[0] == '$' && (v[1] == '{' || v[1] == '_' || 'A' <= v[1] && v[1] <= 'Z') || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "<") ||
		strings.HasPrefix(v, "%(") || strings.HasPrefix(v, "#{") || strings.HasPrefix(v, markerPrefix) {
		return true
	}
	if strings.ContainsAny(v, "()[]{}") { // code, not a literal
		return true
	}
	return strings.Trim(v, v[:1]) == ""
}

// urlPasswordSpans appends the password of every URL with user
// information: scheme://user:PASSWORD@host.
func urlPasswordSpans(text string, out []span) []span {
	for off := 0; ; {
		i := strings.Index(text[off:], "://")
		if i < 0 {
			return out
		}
		p := off + i + 3
		off = p
		if p-3 == 0 || !isSchemeByte(text[p-4]) {
			continue
		}
		end := p
		for end < len(text) && isUserinfoByte(text[end]) {
			end++
		}
		if end >= len(text) || text[end] != '@' {
			continue
		}
		colon := strings.IndexByte(text[p:end], ':')
		if colon < 0 {
			continue
		}
		pw := text[p+colon+1 : end]
		if pw == "" || placeholder(pw) || strings.HasPrefix(text[p:], "${") {
			continue
		}
		out = append(out, span{start: p + colon + 1, end: end, rule: urlPasswordID})
		off = end
	}
}

func isSchemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '.' || c == '-'
}

// isUserinfoByte: what RFC 3986 allows in user information, without '@'.
func isUserinfoByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("-._~%!$&'*+,;=:", c) >= 0
}
