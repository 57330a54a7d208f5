package model

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestHeadline(t *testing.T) {
	long := strings.Repeat("word ", 60) // 300 bytes
	cases := []struct {
		name, msg, head, rest string
	}{
		{"plain subject", "Fix the parser\n\nIt crashed.\n", "Fix the parser", "\nIt crashed.\n"},
		{"subject only", "Fix the parser", "Fix the parser", ""},
		{"placeholder", "upstream commit\n\nskip if running as root; many systems\n allow root to ptrace\n\nUpstream-Regress-ID: be2b\n",
			"skip if running as root; many systems allow root to ptrace", "Upstream-Regress-ID: be2b\n"},
		{"placeholder, any case and spaces", " \tUpstream Commit \r\n\n\nmake it so\n", "make it so", ""},
		{"placeholder without a body", "upstream commit\n", "upstream commit", ""},
		{"placeholder with a blank body", "upstream commit\n\n \n", "upstream commit", ""},
		{"not a placeholder", "upstream commit of the fix\n\nbody\n", "upstream commit of the fix", "\nbody\n"},
		{"long paragraph", "upstream commit\n\n" + long + "\n\nnext\n", long[:199], long + "\n\nnext\n"},
	}
	for _, c := range cases {
		head, rest := Headline(c.msg)
		if head != c.head || rest != c.rest {
			t.Errorf("%s: Headline(%q) = %q, %q; want %q, %q", c.name, c.msg, head, rest, c.head, c.rest)
		}
	}
}

func TestHeadlineCutsOnRunes(t *testing.T) {
	msg := "upstream commit\n\n" + strings.Repeat("é", 150) // 300 bytes, no space
	head, _ := Headline(msg)
	if !utf8.ValidString(head) || len(head) > maxHeadline || len(head) < maxHeadline-1 {
		t.Fatalf("headline of %d bytes, valid %v", len(head), utf8.ValidString(head))
	}
}

// A first paragraph of continuation bytes alone, which no rune starts,
// is cut at the bound rather than searched back for a rune forever.
func TestHeadlineNotUTF8(t *testing.T) {
	done := make(chan string)
	go func() {
		head, _ := Headline("upstream commit\n\n" + strings.Repeat("\x80", 300))
		done <- head
	}()
	select {
	case head := <-done:
		if len(head) != maxHeadline {
			t.Errorf("headline of %d bytes, want %d", len(head), maxHeadline)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Headline did not return")
	}
}

func FuzzHeadline(f *testing.F) {
	f.Add("upstream commit\n\n" + strings.Repeat("\xbf", 250))
	f.Add("upstream commit\n\nfix it\n")
	f.Add("x")
	f.Fuzz(func(t *testing.T, msg string) {
		head, rest := Headline(msg)
		if len(head) > max(maxHeadline, len(msg)) || len(rest) > len(msg) {
			t.Fatalf("Headline(%q) = %q, %q: longer than the message", msg, head, rest)
		}
		if utf8.ValidString(msg) && !utf8.ValidString(head) {
			t.Fatalf("Headline(%q) = %q: not UTF-8", msg, head)
		}
	})
}
