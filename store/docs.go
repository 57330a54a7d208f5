package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// DocFile is a documentation file at the tracked branch's head: its
// path, its blob id's bytes and, when read, its paragraphs.
type DocFile struct {
	Path       string
	Blob       []byte
	Paragraphs []string
}

// DocsState is what the documentation index was built from: the head
// commit and each file's blob.
type DocsState struct {
	Head  string
	Blobs map[string][]byte
	// Paragraphs is how many paragraphs the index holds.
	Paragraphs int
}

// LoadDocsState reads the documentation index's state.
func (s *Store) LoadDocsState(ctx context.Context) (*DocsState, error) {
	st := &DocsState{Blobs: map[string][]byte{}}
	err := s.DB.QueryRowContext(ctx, `SELECT head, paragraphs FROM docs_state`).Scan(&st.Head, &st.Paragraphs)
	if err != nil {
		return nil, fmt.Errorf("documentation index: %w", err)
	}
	err = EachRow(ctx, s.DB, `SELECT path, blob FROM doc_files`, nil, func(r *sql.Rows) error {
		var p string
		var b []byte
		err := r.Scan(&p, &b)
		st.Blobs[p] = b
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("documentation index: %w", err)
	}
	return st, nil
}

// ReplaceDocs records head's documentation: the files of gone and the old
// versions of those in files are dropped, files are added, each word's
// paragraph count follows, all in one transaction.
func (s *Store) ReplaceDocs(ctx context.Context, head string, gone []string, files []DocFile) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		df := map[string]int{}
		delta := 0
		for _, p := range slices.Concat(gone, docPaths(files)) {
			n, err := dropDocFile(ctx, tx, p, df)
			if err != nil {
				return err
			}
			delta -= n
		}
		var next int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(first + n), 1) FROM doc_files`).Scan(&next); err != nil {
			return err
		}
		for _, f := range files {
			if err := addDocFile(ctx, tx, f, next, df); err != nil {
				return err
			}
			next += int64(len(f.Paragraphs))
			delta += len(f.Paragraphs)
		}
		if err := applyDocTerms(ctx, tx, df); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE docs_state SET head = ?, paragraphs = paragraphs + ?`, head, delta)
		return err
	})
}

func docPaths(files []DocFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// dropDocFile removes a file's paragraphs, counting their words out of
// df, and returns how many there were.
func dropDocFile(ctx context.Context, tx *sql.Tx, path string, df map[string]int) (int, error) {
	var first, n int64
	var text []byte
	var codec, size int
	err := tx.QueryRowContext(ctx, `SELECT first, n, codec, size, text FROM doc_files WHERE path = ?`, path).
		Scan(&first, &n, &codec, &size, &text)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	paras, err := decodeParagraphs(path, codec, size, text)
	if err != nil {
		return 0, err
	}
	for _, p := range paras {
		for _, w := range DocWords(p) {
			df[w]--
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM docs WHERE rowid BETWEEN ? AND ?`, first, first+n-1); err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM doc_files WHERE path = ?`, path)
	return int(n), err
}

func addDocFile(ctx context.Context, tx *sql.Tx, f DocFile, first int64, df map[string]int) error {
	for i, p := range f.Paragraphs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO docs(rowid, text) VALUES (?, ?)`, first+int64(i), p); err != nil {
			return fmt.Errorf("documentation %s: %w", f.Path, err)
		}
		for _, w := range DocWords(p) {
			df[w]++
		}
	}
	b := encodeBlob([]byte(strings.Join(f.Paragraphs, "\x00")))
	_, err := tx.ExecContext(ctx, `INSERT INTO doc_files(path, blob, first, n, codec, size, text) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		f.Path, f.Blob, first, len(f.Paragraphs), b.codec, b.size, b.data)
	return err
}

func decodeParagraphs(path string, codec, size int, text []byte) ([]string, error) {
	b, err := decodeBlob("documentation "+path, codec, size, text)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, nil
	}
	return strings.Split(string(b), "\x00"), nil
}

// DocParagraph is a paragraph of the documentation index.
type DocParagraph struct {
	Path, Text string
}

// DocParagraphs returns the paragraphs of the documentation index's rows,
// in the order of ids.
func (s *Store) DocParagraphs(ctx context.Context, ids []int64) ([]DocParagraph, error) {
	out := make([]DocParagraph, 0, len(ids))
	for _, id := range ids {
		var path string
		var first int64
		var codec, size int
		var text []byte
		err := s.DB.QueryRowContext(ctx, `SELECT path, first, codec, size, text FROM doc_files
			WHERE first <= ?1 AND first + n > ?1 ORDER BY first DESC LIMIT 1`, id).Scan(&path, &first, &codec, &size, &text)
		if err != nil {
			return nil, fmt.Errorf("documentation paragraph %d: %w", id, err)
		}
		paras, err := decodeParagraphs(path, codec, size, text)
		if err != nil {
			return nil, err
		}
		if i := int(id - first); i < len(paras) {
			out = append(out, DocParagraph{Path: path, Text: paras[i]})
		}
	}
	return out, nil
}

// applyDocTerms adds the changes of the words' paragraph counts.
func applyDocTerms(ctx context.Context, tx *sql.Tx, df map[string]int) error {
	up, err := tx.PrepareContext(ctx, `INSERT INTO doc_terms(term, df) VALUES (?1, ?2)
		ON CONFLICT(term) DO UPDATE SET df = df + ?2`)
	if err != nil {
		return err
	}
	defer up.Close()
	for w, d := range df {
		if d == 0 {
			continue
		}
		if _, err := up.ExecContext(ctx, w, d); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM doc_terms WHERE df <= 0`)
	return err
}

// DocFrequencies returns in how many paragraphs each of words occurs;
// a word in none is absent.
func (s *Store) DocFrequencies(ctx context.Context, words []string) (map[string]int, error) {
	df := map[string]int{}
	for len(words) > 0 {
		batch := words[:min(len(words), 500)]
		words = words[len(batch):]
		args := make([]any, len(batch))
		for i, w := range batch {
			args[i] = w
		}
		err := EachRow(ctx, s.DB, `SELECT term, df FROM doc_terms WHERE term IN (`+Marks(len(batch))+`)`, args,
			func(r *sql.Rows) error {
				var w string
				var n int
				err := r.Scan(&w, &n)
				df[w] = n
				return err
			})
		if err != nil {
			return nil, err
		}
	}
	return df, nil
}

// docWord is a word of documentation as the expansion counts it: letters
// and digits, with the dots, dashes and underscores inside a name kept
// (core.preloadIndex, --no-verify's no-verify, res.locals).
var docWord = regexp.MustCompile(`[a-z0-9][a-z0-9_.\-]*[a-z0-9]`)

// DocWords returns the distinct words of text, lower-cased, of three
// bytes or more.
func DocWords(text string) []string {
	ws := DocTokens(text)
	slices.Sort(ws)
	return slices.Compact(ws)
}

// DocTokens returns the words of text in order, repeats included.
func DocTokens(text string) []string {
	ws := docWord.FindAllString(strings.ToLower(text), -1)
	out := ws[:0]
	for _, w := range ws {
		if len(w) >= 3 {
			out = append(out, w)
		}
	}
	return out
}
