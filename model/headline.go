package model

import (
	"strings"
	"unicode/utf8"
)

// maxHeadline bounds a headline taken from a body paragraph, about two
// wrapped lines: enough for the sentence that says what the change does.
const maxHeadline = 200

// Placeholder reports a subject that names no change: the "upstream
// commit" an OpenBSD-derived history puts on every imported change (over a
// thousand of openssh-portable's), whose topic is the body's first
// paragraph. Store migration 18 finds the same subjects in SQL.
func Placeholder(subject string) bool {
	return strings.EqualFold(strings.Trim(subject, " \t\r"), "upstream commit")
}

// Headline is what a message says its change is: the subject, or, when
// the subject is a placeholder and the body has text, the body's first
// paragraph (its wrapped lines joined, cut at maxHeadline bytes on a word
// boundary). The rest is the body without that paragraph, or all of it
// when the paragraph was cut.
func Headline(message string) (headline, rest string) {
	subject, body, _ := strings.Cut(message, "\n")
	if !Placeholder(subject) {
		return subject, body
	}
	body = strings.TrimLeft(body, " \t\r\n")
	para, after, _ := strings.Cut(body, "\n\n")
	para = strings.Join(strings.Fields(para), " ")
	if para == "" {
		return subject, body
	}
	if len(para) <= maxHeadline {
		return para, after
	}
	cut := strings.LastIndexByte(para[:maxHeadline], ' ')
	if cut <= 0 { // one long word: cut it at a rune's start
		cut = maxHeadline
		for cut > 0 && !utf8.RuneStart(para[cut]) {
			cut--
		}
		if cut == 0 { // no rune starts there: not UTF-8, cut at the bound
			cut = maxHeadline
		}
	}
	return para[:cut], body
}
