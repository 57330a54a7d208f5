package model

import (
	"path"
	"strings"
)

// AddedProse returns the prose a commit added: the added lines of its
// documentation and changelog files, and the added comment lines of its
// code, at most limit bytes. They say in a user's words what the change
// does ("pretty-printed JSON is now opt-in"), where the subject often
// names only the mechanism.
func AddedProse(c *Commit, limit int) string {
	var b strings.Builder
	for _, fc := range c.Changes {
		if fc.Binary || fc.Skipped != NotSkipped {
			continue
		}
		doc := isDocPath(fc.Path)
		for _, h := range fc.Hunks {
			for line := range strings.Lines(h.Text) {
				if line == "" || line[0] != '+' {
					continue
				}
				text := strings.TrimSpace(line[1:])
				if doc {
					text = strings.TrimLeft(text, "-*#>+ \t")
				} else {
					var ok bool
					if text, ok = commentText(text); !ok {
						continue
					}
				}
				if len(text) < 8 {
					continue
				}
				if b.Len()+len(text)+1 > limit {
					return b.String()
				}
				b.WriteString(text)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// isDocPath reports whether a file is documentation or a changelog.
func isDocPath(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".rst", ".txt", ".adoc", ".asciidoc", ".texi", ".pod":
		return true
	}
	base := strings.ToUpper(path.Base(p))
	for _, pre := range []string{"CHANGE", "HISTORY", "NEWS", "README", "RELEASE"} {
		if strings.HasPrefix(base, pre) {
			return true
		}
	}
	return false
}

// commentText returns the text of a line that is a comment in the common
// languages (//, /*, *, #, --, ;), or false. C preprocessor lines are not
// comments.
func commentText(line string) (string, bool) {
	for _, m := range []string{"///", "//", "/**", "/*", "*", "--", ";;", "#"} {
		rest, ok := strings.CutPrefix(line, m)
		if !ok {
			continue
		}
		if m == "#" && (strings.HasPrefix(rest, "!") || isPreprocessor(rest)) {
			return "", false
		}
		if m == "*" && strings.HasPrefix(rest, "/") {
			return "", false
		}
		return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "*/")), true
	}
	return "", false
}

func isPreprocessor(rest string) bool {
	word, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	switch word {
	case "include", "define", "undef", "if", "ifdef", "ifndef", "else", "elif", "endif", "pragma", "error", "warning", "line":
		return true
	}
	return false
}
