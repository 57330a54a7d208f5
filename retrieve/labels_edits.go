package retrieve

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// trimContext narrows hunks to the lines that may have changed, given that
// each carries n lines of context: all n before its first change unless
// it starts the file, and after its last unless it ends the file, which it
// does not when another hunk or a followed line comes after it.
func trimContext(edits []edit, n int, spans []span) []edit {
	if n == 0 || len(edits) == 0 {
		return edits
	}
	last := 0 // the last followed line
	if len(spans) > 0 {
		last = spans[len(spans)-1].to - 1
	}
	out := make([]edit, len(edits))
	for i, e := range edits {
		lead, trail := 0, 0
		if e.old > 1 {
			lead = n
		}
		if i+1 < len(edits) || last >= e.old+e.oldN {
			trail = n
		}
		if c := lead + trail; c <= min(e.oldN, e.newN) && c < max(e.oldN, e.newN) { // else not as assumed
			e = edit{e.old + lead, e.oldN - lead - trail, e.new + lead, e.newN - lead - trail}
		}
		out[i] = e
	}
	return out
}

// contextOf reads how many context lines a diff blob's hunks carry: those
// before the first change of a hunk that does not start the file.
func contextOf(text []byte) (n int, ok bool) {
	counting := false
	for line := range bytes.Lines(text) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case len(line) == 0:
		case line[0] == '@':
			h := parseHunkHeader(line)
			counting, n = h.old > 1 && h.oldN > 0, 0
		case !counting:
		case line[0] == ' ':
			n++
		case line[0] == '-' || line[0] == '+':
			return n, true
		}
	}
	return 0, false
}

// normalize turns a hunk header's starts into first lines: an empty side's
// start names the line before it.
func normalize(e edit) edit {
	if e.oldN == 0 {
		e.old++
	}
	if e.newN == 0 {
		e.new++
	}
	return e
}

// touches reports whether an edit replaces a line of spans; both are sorted.
func touches(spans []span, edits []edit) bool {
	i := 0
	for _, e := range edits {
		for i < len(spans) && spans[i].to <= e.old {
			i++
		}
		if i == len(spans) {
			return false
		}
		if e.oldN > 0 && spans[i].from < e.old+e.oldN {
			return true
		}
	}
	return false
}

// mapSpans moves sorted spans through sorted edits: lines an edit replaces
// are dropped, lines after it shift by its net line count.
func mapSpans(spans []span, edits []edit) []span {
	if len(spans) == 0 || len(edits) == 0 || edits[0].old >= spans[len(spans)-1].to {
		return spans // nothing before or in them
	}
	var out []span
	emit := func(from, to, orig int) {
		if n := len(out); n > 0 && out[n-1].to == from && out[n-1].orig+out[n-1].to-out[n-1].from == orig {
			out[n-1].to = to
			return
		}
		out = append(out, span{from, to, orig})
	}
	delta, j := 0, 0
	for _, s := range spans {
		for at := s.from; at < s.to; {
			for j < len(edits) && edits[j].old+edits[j].oldN <= at {
				delta += edits[j].newN - edits[j].oldN
				j++
			}
			if j < len(edits) && edits[j].old <= at { // inside a replaced range
				at = min(s.to, edits[j].old+edits[j].oldN)
				continue
			}
			end := s.to
			if j < len(edits) {
				end = min(end, edits[j].old)
			}
			emit(at+delta, end+delta, s.orig+at-s.from)
			at = end
		}
	}
	return out
}

// appendLine adds line at, the added line orig, to sorted spans.
func appendLine(spans []span, at, orig int) []span {
	if n := len(spans); n > 0 && spans[n-1].to == at && spans[n-1].orig+spans[n-1].to-spans[n-1].from == orig {
		spans[n-1].to++
		return spans
	}
	return append(spans, span{at, at + 1, orig})
}

func countLines(spans []span) int {
	n := 0
	for _, s := range spans {
		n += s.to - s.from
	}
	return n
}

// parseEdits reads the changed blocks of a diff blob (store.FormatHunks):
// each run of '-' and '+' lines between context lines is one edit.
func parseEdits(text []byte) []edit {
	var out []edit
	open := false
	diffLines(text, func(kind byte, old, new int, _ []byte) {
		if kind != '-' && kind != '+' {
			open = false
			return
		}
		if !open {
			out, open = append(out, edit{old: old, new: new}), true
		}
		if kind == '-' {
			out[len(out)-1].oldN++
		} else {
			out[len(out)-1].newN++
		}
	})
	return out
}

// diffLines calls fn with each line of a diff blob: its kind (' ', '-' or
// '+'; '@' for a hunk header), the line's position in the old and the new
// version (for '-' the new position is the next new line's, for '+' the
// old position the next old line's), and its text.
func diffLines(text []byte, fn func(kind byte, old, new int, line []byte)) {
	o, n := 0, 0
	for line := range bytes.Lines(text) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) == 0 {
			continue
		}
		switch line[0] {
		case '@':
			h := normalize(parseHunkHeader(line))
			o, n = h.old, h.new
			fn('@', o, n, nil)
		case ' ':
			fn(' ', o, n, line[1:])
			o, n = o+1, n+1
		case '-':
			fn('-', o, n, line[1:])
			o++
		case '+':
			fn('+', o, n, line[1:])
			n++
		}
	}
}

// parseHunkHeader reads "@@ -a,b +c,d @@" (a count of 1 may be left out).
func parseHunkHeader(line []byte) edit {
	var e edit
	f := bytes.Fields(line)
	if len(f) < 3 {
		return e
	}
	e.old, e.oldN = parseHunkRange(f[1])
	e.new, e.newN = parseHunkRange(f[2])
	return e
}

func parseHunkRange(r []byte) (start, n int) {
	if len(r) > 0 {
		r = r[1:] // '-' or '+'
	}
	s, c, ok := bytes.Cut(r, []byte{','})
	start, _ = strconv.Atoi(string(s))
	n = 1
	if ok {
		n, _ = strconv.Atoi(string(c))
	}
	return start, n
}

// stmtCache is a store.Querier on one connection that prepares each query
// once: a label run issues the same few queries hundreds of times, and
// preparing them, on whichever pooled connection, was most of their cost.
type stmtCache struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
}

func newStmtCache(ctx context.Context, db *sql.DB) (*stmtCache, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	return &stmtCache{conn: conn, stmts: map[string]*sql.Stmt{}}, nil
}

func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := c.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return c.conn.QueryRowContext(ctx, query, args...) // reports the same error
	}
	return st.QueryRowContext(ctx, args...)
}

// Close closes the statements and returns the connection to the pool.
func (c *stmtCache) Close() error {
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	return errors.Join(append(errs, c.conn.Close())...)
}
