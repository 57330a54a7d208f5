package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NormalizePath returns the canonical repository-relative form of p, the
// form every stage compares paths in. Backslashes become slashes, empty and
// "." segments go, ".." is resolved lexically (one that would climb above the
// root is dropped), surrounding whitespace is trimmed, and the result has no
// leading or trailing slash. The root is "". Case is kept: git paths are
// case-sensitive. NormalizePath(NormalizePath(p)) == NormalizePath(p).
func NormalizePath(p string) string {
	segs := resolveSegments(strings.ReplaceAll(p, `\`, "/"))
	segs = trimLeadingSpace(segs)
	segs = trimTrailingSpace(segs)
	return strings.Join(segs, "/")
}

// resolveSegments splits p on "/" and resolves "", "." and ".." segments.
func resolveSegments(p string) []string {
	var segs []string
	for s := range strings.SplitSeq(p, "/") {
		switch s {
		case "", ".":
		case "..":
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
		default:
			segs = append(segs, s)
		}
	}
	return segs
}

// trimLeadingSpace trims whitespace off the start of the path. It works on
// segments, not the joined string, because trimming can turn the first
// segment into "", "." or ".." (think "/ ../a"), which must then be resolved
// too, or a second pass would change the result.
func trimLeadingSpace(segs []string) []string {
	for len(segs) > 0 {
		s := strings.TrimLeftFunc(segs[0], unicode.IsSpace)
		if s != "" && s != "." && s != ".." {
			segs[0] = s
			break
		}
		segs = segs[1:] // ".." at the root is dropped like "." and "".
	}
	return segs
}

// trimTrailingSpace is trimLeadingSpace's mirror: "a/b/.. " is "a/b/.."
// once trimmed, so a trailing ".." revealed by trimming still climbs.
func trimTrailingSpace(segs []string) []string {
	for len(segs) > 0 {
		n := len(segs) - 1
		switch s := strings.TrimRightFunc(segs[n], unicode.IsSpace); s {
		case "", ".":
			segs = segs[:n]
		case "..":
			segs = segs[:max(n-1, 0)]
		default:
			segs[n] = s
			return segs
		}
	}
	return segs
}

// PathWithin relates two normalised paths. exact reports that they are
// equal. prefix reports that they differ and one is a directory prefix of
// the other on a "/" boundary ("src/foo" and "src/foo/x.go", either way
// round, but not "src/foobar"); the root "" is a prefix of every other path.
// The two results are never both true, so callers can rank exact matches
// above directory matches without checking exact first.
func PathWithin(record, candidate string) (exact, prefix bool) {
	if record == candidate {
		return true, false
	}
	return false, isDirPrefix(record, candidate) || isDirPrefix(candidate, record)
}

// isDirPrefix reports whether dir is a proper directory prefix of p.
func isDirPrefix(dir, p string) bool {
	if dir == "" {
		return p != ""
	}
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// PathsFingerprintPrefix starts every paths fingerprint.
const PathsFingerprintPrefix = "paths:"

// PathsFingerprint is the fingerprint of a set of paths (seed 000):
// "paths:" and the first 16 hex digits of the SHA-256 of the sorted,
// de-duplicated, normalised paths joined by NUL bytes. Order, duplicates
// and spelling ("./a", "a/") do not change it.
func PathsFingerprint(paths []string) string {
	norm := make([]string, len(paths))
	for i, p := range paths {
		norm[i] = NormalizePath(p)
	}
	slices.Sort(norm)
	norm = slices.Compact(norm)
	sum := sha256.Sum256([]byte(strings.Join(norm, "\x00")))
	return PathsFingerprintPrefix + hex.EncodeToString(sum[:8])
}

// QuotePath returns p as git quotes a path it prints (core.quotePath): p
// itself when it is valid UTF-8 without control characters, double quotes
// or backslashes, else in double quotes with C escapes (\t, \n, \", \\)
// and every other control byte and every byte from 0x80 in octal
// ("caf\351.txt"). The quoted form is ASCII, so a file name that is not
// UTF-8 can travel through JSON and the API; UnquotePath gives the bytes
// back.
func QuotePath(p string) string {
	plain := utf8.ValidString(p)
	for i := 0; plain && i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f || c == '"' || c == '\\' {
			plain = false
		}
	}
	if plain {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// UnquotePath undoes QuotePath, and reads any path git printed quoted
// ("\"caf\\303\\251.txt\""): a string in double quotes with C escapes is
// replaced by the bytes it stands for. Anything else is returned as it is.
func UnquotePath(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	var b []byte
	in := s[1 : len(s)-1]
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c == '"' {
			return s // an unescaped quote inside: not a quoted path
		}
		if c != '\\' {
			b = append(b, c)
			continue
		}
		if i++; i == len(in) {
			return s
		}
		switch e := in[i]; e {
		case 'a':
			b = append(b, '\a')
		case 'b':
			b = append(b, '\b')
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		case 'v':
			b = append(b, '\v')
		case 'f':
			b = append(b, '\f')
		case 'r':
			b = append(b, '\r')
		case '"', '\\':
			b = append(b, e)
		case '0', '1', '2', '3':
			if i+2 >= len(in) || !isOctal(in[i+1]) || !isOctal(in[i+2]) {
				return s
			}
			b = append(b, (e-'0')<<6|(in[i+1]-'0')<<3|(in[i+2]-'0'))
			i += 2
		default:
			return s
		}
	}
	return string(b)
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
