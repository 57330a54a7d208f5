package understand

import (
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// Diff-shape evidence for Classify: line counts and statuses, and hunks
// that only move lines, change whitespace or touch comments.

// clsScoreShape adds the evidence of the diff's shape: line counts and
// statuses.
func clsScoreShape(changes []model.FileChange, kinds []clsKind, s *clsScores) {
	if len(changes) == 0 {
		return
	}
	var ins, del, codeIns, codeDel int
	renames, tinySym, newCode := 0, 0, false
	for i, fc := range changes {
		ins += fc.Insertions
		del += fc.Deletions
		if fc.Status == model.Renamed {
			renames++
		}
		if fc.Insertions <= 3 && fc.Deletions <= 3 && fc.Insertions+fc.Deletions > 0 &&
			fc.Insertions-fc.Deletions <= 1 && fc.Deletions-fc.Insertions <= 1 {
			tinySym++
		}
		if kinds[i] == clsKindCode && !fc.Binary {
			codeIns += fc.Insertions
			codeDel += fc.Deletions
			newCode = newCode || fc.Status == model.Added
		}
	}
	switch {
	case renames == len(changes):
		s.add(model.Refactor, 2)
	case ins == 0 && del > 0:
		s.add(model.Cleanup, 1.5)
		s.add(model.Refactor, 0.5)
	case len(changes) >= 5 && tinySym == len(changes):
		s.add(model.Cleanup, 1.5)
		s.add(model.Refactor, 0.5)
	}
	if newCode {
		s.add(model.Feature, 1)
	}
	if codeIns >= 100 && codeIns >= 4*codeDel {
		s.add(model.Feature, 0.5)
	}
}

// clsScoreHunks adds the evidence of the changed lines themselves: only
// white space changed (formatting), or only comments (documentation).
func clsScoreHunks(changes []model.FileChange, s *clsScores) {
	comments, lines, code := 0, 0, false
	added, removed := 0, 0
	for line := range clsChangedLines(changes) {
		if lines++; lines > clsHunkLineLimit {
			return
		}
		body := strings.TrimSpace(line[1:])
		switch {
		case body == "":
		case clsIsComment(body):
			comments++
		default:
			code = true
		}
		if line[0] == '+' {
			added++
		} else {
			removed++
		}
	}
	switch {
	case lines == 0:
	case added == removed && clsOnlySpaceChanged(changes):
		s.add(model.Cleanup, 2.5)
	case !code && comments > 0:
		s.add(model.Documentation, 2)
	}
}

// clsChangedLines yields the added and removed lines of changes' hunks,
// with their '+' or '-' and without the newline.
func clsChangedLines(changes []model.FileChange) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, fc := range changes {
			for _, h := range fc.Hunks {
				for text := h.Text; text != ""; {
					line := text
					if k := strings.IndexByte(text, '\n'); k >= 0 {
						line, text = text[:k], text[k+1:]
					} else {
						text = ""
					}
					if line != "" && (line[0] == '+' || line[0] == '-') && !yield(line) {
						return
					}
				}
			}
		}
	}
}

// clsOnlySpaceChanged reports whether the added lines are the removed
// ones in some order once white space is removed. clsScoreHunks calls it
// only when there are at most clsHunkLineLimit changed lines.
//
// Equal multisets of lines have equal sums of hashes, so a difference of
// the sums rules most changes out before any line is built and sorted.
func clsOnlySpaceChanged(changes []model.FileChange) bool {
	var diff uint64 // the added lines' hashes less the removed ones'
	for line := range clsChangedLines(changes) {
		if line[0] == '+' {
			diff += clsSqueezeHash(line[1:])
		} else {
			diff -= clsSqueezeHash(line[1:])
		}
	}
	if diff != 0 {
		return false
	}
	var added, removed []string
	for line := range clsChangedLines(changes) {
		if line[0] == '+' {
			added = append(added, clsSqueeze(line[1:]))
		} else {
			removed = append(removed, clsSqueeze(line[1:]))
		}
	}
	return len(added) == len(removed) && clsSameLines(added, removed)
}

// clsSqueezeHash is the FNV-1a hash of the runes of clsSqueeze(s), without
// building it: like strings.Map, it reads an invalid byte as U+FFFD.
func clsSqueezeHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if !clsASCIISpace[c] {
				h = (h ^ uint64(c)) * 1099511628211
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if !unicode.IsSpace(r) {
			h = (h ^ uint64(r)) * 1099511628211
		}
	}
	return h
}

// clsASCIISpace holds the ASCII bytes unicode.IsSpace accepts.
var clsASCIISpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// clsIsComment reports whether a trimmed, non-empty source line is a
// comment.
func clsIsComment(line string) bool {
	if !clsCommentFirst[line[0]] { // most lines: spare the prefixes
		return false
	}
	for _, p := range clsCommentStarts {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return line == "#" || line == "*"
}

var clsCommentStarts = []string{"//", "/*", "* ", "*/", "# ", "-- ", "<!--", "\"\"\"", ";;"}

// clsCommentFirst holds the first bytes of clsCommentStarts, "#" and "*".
var clsCommentFirst = func() (first [256]bool) {
	for _, p := range slices.Concat(clsCommentStarts, []string{"#", "*"}) {
		first[p[0]] = true
	}
	return first
}()

// clsSqueeze removes all white space from s.
func clsSqueeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// clsSameLines reports whether a and b hold the same lines in any order.
// It sorts both.
func clsSameLines(a, b []string) bool {
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
