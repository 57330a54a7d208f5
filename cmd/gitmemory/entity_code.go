package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gitmemory/gitmemory/memory"
)

// codeSections are the code relationships' sections of an entity report,
// in order: title, items and full count.
func codeSections(c *memory.CodeRelations) []struct {
	title string
	items []memory.Related
	n     int
} {
	if c == nil {
		return nil
	}
	type section = struct {
		title string
		items []memory.Related
		n     int
	}
	return []section{
		{"callers", c.Callers, c.Counts["callers"]},
		{"calls", c.Callees, c.Counts["callees"]},
		{"imported by", c.Importers, c.Counts["importers"]},
		{"extends or implements", c.Bases, c.Counts["bases"]},
		{"extended or implemented by", c.Derived, c.Counts["derived"]},
	}
}

// codeName shows a code node without its type prefix.
func codeName(r memory.Related) string {
	id := strings.TrimPrefix(strings.TrimPrefix(r.ID, "entity:"), "file:")
	if r.Basis != "" {
		id += "  (" + strings.ToLower(r.Basis) + ")"
	}
	if r.Confidence < 1 {
		id += fmt.Sprintf("  (name unique in the repository, %.1f)", r.Confidence)
	}
	return id
}

func printCode(w io.Writer, c *memory.CodeRelations) {
	for _, s := range codeSections(c) {
		if len(s.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s (%d):\n", s.title, s.n)
		for _, r := range s.items {
			fmt.Fprintf(w, "    %s\n", codeName(r))
		}
		if more := s.n - len(s.items); more > 0 {
			fmt.Fprintf(w, "    … and %d more (--limit)\n", more)
		}
	}
}

func codeMarkdown(w io.Writer, c *memory.CodeRelations) {
	for _, s := range codeSections(c) {
		if len(s.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n### %s%s (%d)\n\n", strings.ToUpper(s.title[:1]), s.title[1:], s.n)
		for _, r := range s.items {
			fmt.Fprintf(w, "- %s\n", code(codeName(r)))
		}
		if more := s.n - len(s.items); more > 0 {
			fmt.Fprintf(w, "- … and %d more\n", more)
		}
	}
}
