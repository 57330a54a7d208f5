package entity

import (
	"bytes"
	"strings"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// maxSignature is the longest signature kept, in runes.
const maxSignature = 200

// signature returns the definition's text from sigStart up to its body,
// white space collapsed. Without a body node (Go types, bodiless Ruby
// methods) it takes the first line up to an opening brace.
func signature(src []byte, sigStart uint32, def *sitter.Node) string {
	end := def.EndByte()
	if body := bodyOf(def); body != nil && body.StartByte() > sigStart {
		end = body.StartByte()
	} else {
		text := src[sigStart:end]
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			text = text[:i]
		}
		if i := bytes.IndexByte(text, '{'); i >= 0 {
			text = text[:i]
		}
		end = sigStart + uint32(len(text))
	}
	return truncate(collapse(src[sigStart:end]), maxSignature)
}

// bodyOf returns a definition's body: its body field, or the body of the
// function assigned by a declarator or an assignment.
func bodyOf(def *sitter.Node) *sitter.Node {
	if b := def.ChildByFieldName("body"); b != nil {
		return b
	}
	for _, f := range [...]string{"value", "right"} {
		if v := def.ChildByFieldName(f); v != nil {
			return v.ChildByFieldName("body")
		}
	}
	return nil
}

// collapse trims text and replaces each run of white space with one space.
func collapse(text []byte) string {
	var b strings.Builder
	b.Grow(len(text))
	space := false
	for _, c := range text {
		if isSpace(c) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// truncate cuts s to at most n runes, marking a cut with an ellipsis.
func truncate(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}

// bodyHash hashes text with every whole-word occurrence of name removed
// and white space collapsed (FNV-1a, 64 bits).
func bodyHash(text []byte, name string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	write := func(c byte) { h = (h ^ uint64(c)) * prime }
	space, started := false, false
	for i := 0; i < len(text); {
		c := text[i]
		if isSpace(c) {
			space = started
			i++
			continue
		}
		if n := nameAt(text, i, name); n > 0 {
			i += n
			continue
		}
		if space {
			write(' ')
			space = false
		}
		write(c)
		started = true
		i++
	}
	return h
}

// nameAt returns len(name) if name occurs at text[i:] as a whole word.
func nameAt(text []byte, i int, name string) int {
	if name == "" || text[i] != name[0] || len(text)-i < len(name) || string(text[i:i+len(name)]) != name {
		return 0
	}
	if isIdent(name[0]) && i > 0 && isIdent(text[i-1]) {
		return 0
	}
	end := i + len(name)
	if isIdent(name[len(name)-1]) && end < len(text) && isIdent(text[end]) {
		return 0
	}
	return len(name)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isIdent(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
