package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// How an example runs, from the <!-- ci: ... --> comment right above its
// block (blank lines between are allowed).
const (
	runPlain      = ""           // in $HOME, outside any work tree, one repository registered
	runClone      = "clone"      // in a fresh clone of this project, with a home of its own
	runBackground = "background" // started, kept running through the next example, then stopped
	runSkip       = "skip"       // not run; Reason says why
)

// example is one runnable piece of the README: a ```sh block, or a
// command in the example column of a table.
type example struct {
	Line   int    // where it starts in the README, 1-based
	Script string // shell text
	How    string // runPlain, runClone, runBackground or runSkip
	Reason string // why a skipped example is skipped
}

var (
	ciComment = regexp.MustCompile(`^<!--\s*ci:\s*([a-z-]+)\s*(?::\s*(.*?))?\s*-->\s*$`)
	// A table cell holding a command: `gitmemory ...`.
	cellCommand = regexp.MustCompile("^`(gitmemory [^`]*)`$")
)

// parseExamples reads the README's examples in document order. A block
// whose fence says sh is an example; so is a table cell that is a whole
// `gitmemory ...` command in a table whose header has an "example"
// column. A ci comment that is not followed by a block is an error, so a
// misplaced annotation cannot silently skip nothing or run everything.
func parseExamples(r io.Reader) ([]example, error) {
	var out []example
	var pending *example // the annotation waiting for its block
	exampleCol := -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case ciComment.MatchString(trimmed):
			if pending != nil {
				return nil, fmt.Errorf("line %d: ci comment of line %d has no block", n, pending.Line)
			}
			m := ciComment.FindStringSubmatch(trimmed)
			how, reason := m[1], m[2]
			if how != runClone && how != runBackground && how != runSkip {
				return nil, fmt.Errorf("line %d: unknown ci mode %q: want clone, background or skip", n, how)
			}
			if how == runSkip && reason == "" {
				return nil, fmt.Errorf("line %d: ci: skip needs a reason (<!-- ci: skip: why -->)", n)
			}
			pending = &example{Line: n, How: how, Reason: reason}
		case strings.HasPrefix(trimmed, "```"):
			lang := strings.TrimPrefix(trimmed, "```")
			body, end, err := fenced(sc, n, trimmed)
			if err != nil {
				return nil, err
			}
			if lang == "sh" {
				ex := example{Line: n, Script: body}
				if pending != nil {
					ex.How, ex.Reason = pending.How, pending.Reason
				}
				out = append(out, ex)
				pending = nil
			}
			n = end
		case strings.HasPrefix(trimmed, "|"):
			cells := splitRow(trimmed)
			if exampleCol < 0 {
				for i, c := range cells {
					if strings.EqualFold(c, "example") {
						exampleCol = i
					}
				}
				continue
			}
			if exampleCol < len(cells) {
				if m := cellCommand.FindStringSubmatch(cells[exampleCol]); m != nil {
					out = append(out, example{Line: n, Script: strings.ReplaceAll(m[1], `\|`, "|")})
				}
			}
		case trimmed == "":
			exampleCol = -1 // a table ends at a blank line
		default:
			if pending != nil {
				return nil, fmt.Errorf("line %d: ci comment of line %d is not followed by a ```sh block", n, pending.Line)
			}
			exampleCol = -1 // a table ended
		}
	}
	if pending != nil {
		return nil, fmt.Errorf("ci comment of line %d has no block", pending.Line)
	}
	return out, sc.Err()
}

// fenced reads a fenced block's body up to its closing fence and returns
// it with the closing fence's line number.
func fenced(sc *bufio.Scanner, start int, open string) (string, int, error) {
	fence := open[:strings.IndexFunc(open, func(r rune) bool { return r != '`' })]
	var b strings.Builder
	n := start
	for sc.Scan() {
		n++
		if strings.TrimSpace(sc.Text()) == fence {
			return b.String(), n, nil
		}
		b.WriteString(sc.Text())
		b.WriteByte('\n')
	}
	return "", n, fmt.Errorf("line %d: block never closed", start)
}

// splitRow splits a Markdown table row into trimmed cells, keeping
// escaped pipes inside their cell.
func splitRow(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		if row[i] == '\\' && i+1 < len(row) && row[i+1] == '|' {
			cur.WriteString(`\|`)
			i++
			continue
		}
		if row[i] == '|' {
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteByte(row[i])
	}
	return append(cells, strings.TrimSpace(cur.String()))
}
