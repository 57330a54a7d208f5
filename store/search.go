package store

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strings"
	"unicode"

	"github.com/gitmemory/gitmemory/model"
)

// SearchText returns text followed by the parts of its compound
// identifiers, lower-cased: "parseConfigFile" adds "parse config file",
// "HTTPServer2" adds "http server 2", "snake_case" adds "snake case". The
// keyword index stores and queries this form, so a word of a name finds it
// and the whole name still matches exactly.
func SearchText(text string) string {
	var parts []string
	for w := range identWords(text) {
		parts = append(parts, CompoundParts(w)...)
	}
	if len(parts) == 0 {
		return text
	}
	return text + "\n" + strings.Join(parts, " ")
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// identWords yields the words of s that strings.FieldsFunc would return
// with the separators !isIdentRune, without building their slice.
func identWords(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := -1
		for i, r := range s {
			switch {
			case isIdentRune(r):
				if start < 0 {
					start = i
				}
			case start >= 0:
				if !yield(s[start:i]) {
					return
				}
				start = -1
			}
		}
		if start >= 0 {
			yield(s[start:])
		}
	}
}

// CompoundParts returns the parts of a compound identifier, or nil when w
// is a plain word. A name with a leading or trailing underscore is
// compound too: "_headers" is one part, "headers", which the index's
// tokenizer (that keeps underscores in words) would not find otherwise.
func CompoundParts(w string) []string {
	// A word without underscores in one part is that part lower-cased:
	// plain. Most words of a message are; counting allocates nothing.
	if !strings.Contains(w, "_") && identifierPartCount(w) <= 1 {
		return nil
	}
	ps := IdentifierParts(w)
	if len(ps) > 1 || len(ps) == 1 && ps[0] != strings.ToLower(w) {
		return ps
	}
	return nil
}

// IdentifierParts splits an identifier at underscores, lower-to-upper case
// changes, the end of an acronym (HTTPServer: HTTP, Server) and letter-digit
// boundaries, lower-cased. A plain word is one part.
func IdentifierParts(w string) []string {
	rs := []rune(w)
	var out []string
	splitIdentifier(rs, func(start, end int) { out = append(out, strings.ToLower(string(rs[start:end]))) })
	return out
}

// identifierPartCount is len(IdentifierParts(w)) without building the
// parts.
func identifierPartCount(w string) int {
	var buf [64]rune
	rs := buf[:0]
	for _, r := range w {
		rs = append(rs, r)
	}
	n := 0
	splitIdentifier(rs, func(int, int) { n++ })
	return n
}

// splitIdentifier calls part with the bounds of each part of rs, in
// order (see IdentifierParts).
func splitIdentifier(rs []rune, part func(start, end int)) {
	start := 0
	flush := func(end int) {
		if end > start {
			part(start, end)
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '_':
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(r) && unicode.IsLower(rs[i-1]):
			flush(i)
		case i > start && unicode.IsUpper(r) && unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
		case i > start && unicode.IsDigit(r) != unicode.IsDigit(rs[i-1]):
			flush(i)
		}
	}
	flush(len(rs))
}

// maxProseBytes bounds the added prose indexed for one commit: a commit
// that imports a whole manual should not outweigh one that adds a line.
const maxProseBytes = 4 << 10

// searchRow is the keyword index's text for one commit.
func searchRow(u *model.Understood) [6]string {
	c := u.Commit
	subject, body := model.Headline(c.Message)
	var notes, paths, ents []string
	for _, n := range u.Notes {
		notes = append(notes, n.Text)
	}
	for _, fc := range c.Changes {
		paths = append(paths, fc.Path)
		if fc.OldPath != "" {
			paths = append(paths, fc.OldPath)
		}
	}
	for _, e := range u.Entities {
		ents = append(ents, e.Qualified)
	}
	ents = append(ents, diffIdentifiers(c)...)
	for _, r := range c.IssueRefs {
		body += "\n" + r.Key
	}
	return [6]string{SearchText(subject), SearchText(body), SearchText(u.Summary + "\n" + model.AddedProse(c, maxProseBytes)), SearchText(strings.Join(notes, "\n")),
		SearchText(strings.Join(paths, " ")), SearchText(strings.Join(ents, " "))}
}

// Flush writes the buffered rows (keyword index, design notes, entity
// changes, code relations, lookup keys) of the commits inserted so far. Call it before the
// transaction commits. The rows go in multi-row
// statements because FTS5 flushes its pending terms into a new segment at
// every statement of a transaction that touches it: a statement per commit
// made the index a third of the writer's time.
func (w *Writer) Flush(ctx context.Context) error {
	if err := searchRows.flush(ctx, w.tx, &w.search); err != nil {
		return err
	}
	if err := noteRows.flush(ctx, w.tx, &w.notes); err != nil {
		return err
	}
	if err := entityChangeRows.flush(ctx, w.tx, &w.entityChanges); err != nil {
		return err
	}
	if err := relationRows.flush(ctx, w.tx, &w.relations); err != nil {
		return err
	}
	return lookupRows.flush(ctx, w.tx, &w.lookup)
}

// IndexSearchBackfill adds the commits stored before the keyword index
// existed to it, and reports how many it added.
func (s *Store) IndexSearchBackfill(ctx context.Context) (int, error) {
	// Counting both tables is far cheaper than the anti-join, and every
	// commit inserted since the index exists has its row.
	var missing bool
	if err := s.DB.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM commits) != (SELECT COUNT(*) FROM search_docsize)`).
		Scan(&missing); err != nil || !missing {
		return 0, err
	}
	rows, err := s.DB.QueryContext(ctx, `SELECT hash FROM commits WHERE id NOT IN (SELECT id FROM search_docsize)`)
	if err != nil {
		return 0, err
	}
	var hashes []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			rows.Close()
			return 0, err
		}
		hashes = append(hashes, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(hashes) == 0 {
		return 0, err
	}
	for _, h := range hashes {
		u, info, err := s.GetUnderstood(ctx, h)
		if err != nil {
			return 0, err
		}
		if err := putSearchRow(ctx, s.DB, info.ID, u); err != nil {
			return 0, err
		}
	}
	return len(hashes), nil
}

// putSearchRow writes, or writes again, the keyword row of the commit
// stored under id, outside the Writer's batched statements.
func putSearchRow(ctx context.Context, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, id int64, u *model.Understood) error {
	r := searchRow(u)
	_, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO search(rowid, subject, body, summary, notes, paths, entities)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, id, r[0], r[1], r[2], r[3], r[4], r[5])
	return err
}

// maxDiffIdents bounds the identifiers a commit's diff adds to its row.
const maxDiffIdents = 300

// diffIdentifiers are the compound identifiers (camelCase, snake_case) on
// the lines a commit added or removed: the names of variables, fields,
// flags and constants, which entity extraction does not record, so that
// "EnablePrefixMatching" finds the commit that introduced it.
func diffIdentifiers(c *model.Commit) []string {
	seen := map[string]bool{}
	var out []string
	for _, fc := range c.Changes {
		for _, h := range fc.Hunks {
			for line := range strings.Lines(h.Text) {
				if line == "" || (line[0] != '+' && line[0] != '-') {
					continue
				}
				for w := range identWords(line[1:]) {
					if len(w) < 4 || seen[w] || identifierPartCount(w) < 2 {
						continue
					}
					seen[w] = true
					out = append(out, w)
					if len(out) == maxDiffIdents {
						return out
					}
				}
			}
		}
	}
	return out
}

// multiInsert is a table whose rows a Writer buffers and Flush inserts
// many per statement: a statement per row costs database/sql and the
// driver more than SQLite's own work (git/git has 127k entity changes and
// 43k design notes), and FTS5 starts a new segment at every statement
// that touches the keyword index.
type multiInsert struct {
	what   string // for errors
	prefix string // INSERT … VALUES
	suffix string // what follows the rows, if anything
	cols   int
	chunk  int    // how many rows one statement inserts
	full   string // the statement for a full chunk, built once
}

// multiChunk is how many rows one statement inserts, unless a table says
// otherwise.
const multiChunk = 128

var (
	searchRows = newMultiInsert("keyword index",
		`INSERT OR REPLACE INTO search(rowid, subject, body, summary, notes, paths, entities) VALUES `, "", 7, multiChunk)
	noteRows         = newMultiInsert("design notes", `INSERT INTO design_notes VALUES `, "", 8, multiChunk)
	entityChangeRows = newMultiInsert("entity changes", `INSERT OR IGNORE INTO entity_changes VALUES `, "", 7, multiChunk)
	// A lookup key's row takes its commit's columns: the rows are (key,
	// commit id) pairs joined to commits.
	lookupRows = newMultiInsert("lookup keys", `INSERT OR IGNORE INTO lookup_keys
		SELECT k.column1, c.rewritten = 0, c.severity, c.committer_time, c.id FROM (VALUES `,
		`) k JOIN commits c ON c.id = k.column2`, 2, 400)
)

func newMultiInsert(what, prefix, suffix string, cols, chunk int) *multiInsert {
	m := &multiInsert{what: what, prefix: prefix, suffix: suffix, cols: cols, chunk: chunk}
	m.full = m.statement(chunk)
	return m
}

// statement inserts n rows.
func (m *multiInsert) statement(n int) string {
	row := "(" + Marks(m.cols) + "),"
	return m.prefix + strings.TrimSuffix(strings.Repeat(row, n), ",") + m.suffix
}

// flush inserts the rows whose arguments *pending holds, in order (with
// OR IGNORE the first of two rows with one key stays, as row by row), and
// empties it.
func (m *multiInsert) flush(ctx context.Context, tx *sql.Tx, pending *[]any) error {
	args := *pending
	*pending = args[:0]
	for len(args) > 0 {
		n := min(len(args)/m.cols, m.chunk)
		q := m.full
		if n < m.chunk {
			q = m.statement(n)
		}
		if _, err := tx.ExecContext(ctx, q, args[:n*m.cols]...); err != nil {
			return fmt.Errorf("insert %s: %w", m.what, err)
		}
		args = args[n*m.cols:]
	}
	return nil
}
