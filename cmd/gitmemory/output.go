package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// The output formats every result-printing command shares. Text is for a
// terminal, JSON for programs (its shapes are in docs/json.md and a test
// decodes each), Markdown for pasting into a review or an assistant.
const (
	formatText     = "text"
	formatJSON     = "json"
	formatMarkdown = "markdown"
)

// outputFlags is the one output convention: --format, with --json as an
// alias for --format json.
type outputFlags struct {
	format  string
	jsonOut bool
	allowed []string
}

// register adds --format (default def, one of allowed) and --json.
func (o *outputFlags) register(c *cobra.Command, def string, allowed ...string) {
	o.allowed = allowed
	c.Flags().StringVar(&o.format, "format", def, "output format: "+orList(allowed))
	c.Flags().BoolVar(&o.jsonOut, "json", false, "same as --format json")
}

// get is the chosen format, or an error naming what was wrong.
func (o *outputFlags) get(c *cobra.Command) (string, error) {
	f := strings.ToLower(o.format)
	if f == "md" {
		f = formatMarkdown
	}
	if o.jsonOut {
		if c.Flags().Changed("format") && f != formatJSON {
			return "", fmt.Errorf("--json and --format %s disagree: give one of them", o.format)
		}
		f = formatJSON
	}
	if !slices.Contains(o.allowed, f) {
		return "", fmt.Errorf("--format %q: want %s", o.format, orList(o.allowed))
	}
	return f, nil
}

// orList renders ["a","b","c"] as "a, b or c".
func orList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// mdTable writes a Markdown table; cells are kept to one line and their
// pipes escaped, so that any subject or path renders as one cell.
func mdTable(w io.Writer, header []string, rows [][]string) {
	line := func(cells []string) {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = strings.ReplaceAll(oneLine(c), "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(esc, " | "))
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(sep, "|"))
	for _, r := range rows {
		line(r)
	}
}

// code renders s as inline Markdown code.
func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}
