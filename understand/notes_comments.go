package understand

import (
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// Design notes from the comments a diff added: blocks of consecutive added
// comment lines, their NOTE/WHY/HACK/XXX/IMPORTANT tags or rationale markers.

// dnBlock is a run of consecutive added comment lines.
type dnBlock struct {
	line  int
	parts []string
}

func dnCommentNotes(hash string, fc *model.FileChange) []model.DesignNote {
	sx := dnSyntaxFor(fc)
	if sx == nil {
		return nil
	}
	var notes []model.DesignNote
	var blk dnBlock
	flush := func() {
		if len(blk.parts) > 0 {
			if n, ok := dnCommentNote(hash, fc.Path, blk); ok {
				notes = append(notes, n)
			}
		}
		blk = dnBlock{}
	}
	for _, h := range fc.Hunks {
		text := h.Text
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		cur := h.NewStart
		if cur < 1 {
			cur = 1
		}
		var st dnScanState
		for len(text) > 0 {
			var ln string
			if k := strings.IndexByte(text, '\n'); k >= 0 {
				ln, text = text[:k], text[k+1:]
			} else {
				ln, text = text, ""
			}
			ln = strings.TrimSuffix(ln, "\r")
			var op byte = ' '
			body := ln
			if ln != "" {
				op, body = ln[0], ln[1:]
			}
			switch op {
			case '-', '\\':
				continue // not in the new file; "\ No newline at end of file"
			case '@':
				if ns, ok := dnHunkNewStart(ln); ok {
					flush()
					cur, st = ns, dnScanState{}
				}
				continue
			case '+':
				t, kind := dnScanLine(sx, &st, body)
				switch kind {
				case dnLineComment:
					if len(blk.parts) == 0 && blk.line == 0 {
						blk.line = cur
					}
					if t != "" {
						blk.parts = append(blk.parts, t)
					}
				case dnLineTrailing:
					flush()
					if t != "" {
						blk = dnBlock{line: cur, parts: []string{t}}
					}
					flush()
				default:
					flush()
				}
			default: // context; a line without prefix is a blank context line
				if op != ' ' {
					body = ln
				}
				flush()
				// Only the state it leaves matters, and a line without
				// an opening byte leaves none.
				if st != (dnScanState{}) || dnHasAny(body, &sx.opens) {
					dnScanLine(sx, &st, body)
				}
			}
			if cur < math.MaxInt {
				cur++
			}
		}
		flush()
	}
	sort.SliceStable(notes, func(i, j int) bool { return notes[i].Line < notes[j].Line })
	return notes
}

// dnHunkNewStart parses the new start of a "@@ -a,b +c,d @@" header.
func dnHunkNewStart(ln string) (int, bool) {
	if !strings.HasPrefix(ln, "@@ ") {
		return 0, false
	}
	k := strings.Index(ln, " +")
	if k < 0 {
		return 0, false
	}
	n := 0
	digits := 0
	for j := k + 2; j < len(ln) && ln[j] >= '0' && ln[j] <= '9' && digits < 9; j++ {
		n = n*10 + int(ln[j]-'0')
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	if n < 1 {
		n = 1
	}
	return n, true
}

// Tags that mark a comment as rationale, matched as upper-case words.
var dnTags = []string{"NOTE", "WHY", "HACK", "XXX", "IMPORTANT", "NB"}

// dnCommentNote turns a comment block into a note when it is rationale.
func dnCommentNote(hash, path string, blk dnBlock) (model.DesignNote, bool) {
	text := dnSingleSpace(strings.Join(blk.parts, " "))
	if text == "" || blk.line < 1 {
		return model.DesignNote{}, false
	}
	first := strings.TrimLeft(text, "@")
	if dnHasWordPrefixFold(first, "TODO") || dnIsLicense(text) {
		return model.DesignNote{}, false
	}
	marker := dnCommentTag(text)
	if marker == "" {
		canon, ok := dnFindMarker(strings.ToLower(text), true)
		if !ok {
			return model.DesignNote{}, false
		}
		marker = canon
	}
	return model.DesignNote{
		Commit:   hash,
		Source:   dnSourceComment,
		Path:     path,
		Line:     blk.line,
		Marker:   marker,
		Text:     dnClip(text),
		Entities: dnEntities(text),
	}, true
}

// dnCommentTag finds the earliest tag: an upper-case word anywhere
// ("NOTE(rsc):", "XXX"), or a capitalised one opening the comment with a
// colon ("Note:", "Why:", "Hack:", "Important:").
func dnCommentTag(text string) string {
	// One pass over the text, not one per tag: the first position where a
	// tag fits is the earliest, and no two tags fit at one position.
	for pos := 0; pos < len(text); pos++ {
		if !dnTagFirst[text[pos]] {
			continue
		}
		for _, tag := range dnTags {
			end := pos + len(tag)
			if !strings.HasPrefix(text[pos:], tag) || !dnBoundaryBefore(text, pos) {
				continue
			}
			if r, _ := utf8.DecodeRuneInString(text[end:]); end < len(text) && dnIsWordRune(r) {
				continue
			}
			switch {
			case tag != "NB":
				return tag
			case strings.HasPrefix(text[end:], ":"):
				return "NOTE" // "NB:" only; "NB" is also an abbreviation
			}
		}
	}
	for i, t := range dnTagsOpening {
		if strings.HasPrefix(text, t) {
			return dnTags[i]
		}
	}
	return ""
}

// dnTagFirst holds the first bytes of dnTags: a tag can start nowhere else.
var dnTagFirst = func() (t [256]bool) {
	for _, tag := range dnTags {
		t[tag[0]] = true
	}
	return t
}()

// dnTagsOpening are the capitalised tags that open a comment: "Note:", ...
var dnTagsOpening = func() (out []string) {
	for _, tag := range dnTags[:5] {
		out = append(out, tag[:1]+strings.ToLower(tag[1:])+":")
	}
	return out
}()

func dnHasWordPrefixFold(s, w string) bool {
	if len(s) < len(w) || !strings.EqualFold(s[:len(w)], w) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[len(w):])
	return len(s) == len(w) || !dnIsWordRune(r)
}

// dnIsLicense recognises a licence header, whose boilerplate is no rationale.
func dnIsLicense(text string) bool {
	return strings.Contains(text, "SPDX-License-Identifier") ||
		strings.Contains(text, "Licensed under the") ||
		strings.Contains(text, "Permission is hereby granted") ||
		strings.Contains(text, "Copyright (c)") || strings.Contains(text, "Copyright ©") ||
		strings.Contains(text, "GNU General Public License")
}
