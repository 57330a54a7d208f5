package indexer

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/store"
)

// indexDocs brings the documentation index to the tracked branch's head:
// the files whose blob changed since the last sync are read again, the
// others stay as they are. A question's best paragraphs there lend their
// distinctive words to its keyword search (retrieve/docwords.go): a manual
// or release note describes a behaviour in a user's words and names the
// option, command or function the commits that made it name.
func (s *Syncer) indexDocs(ctx context.Context, repo *extract.Repo, head string) error {
	if s.opts.ExtractOnly || head == "" {
		return nil
	}
	old, err := s.st.LoadDocsState(ctx)
	if err != nil {
		return err
	}
	if old.Head == head {
		return nil
	}
	sc, err := s.secretScanner()
	if err != nil {
		return err
	}
	name := func(p string) string { p, _ = sc.RedactName(p); return p }
	docs, gone, err := docChanges(repo, old, head, name)
	if extract.IsMissing(err) {
		// The head's commit fails alike and is retried; the index keeps
		// the last head's documentation until then.
		return nil
	}
	if err != nil {
		return fmt.Errorf("documentation of %s: %w", head, err)
	}
	var files []store.DocFile
	for _, d := range docs {
		// Stored as the history stores it: secrets redacted, in the path too.
		path := name(d.Path)
		if bytes.Equal(old.Blobs[path], d.Blob[:]) {
			continue
		}
		text, err := repo.DocText(d.Blob)
		if err != nil {
			return fmt.Errorf("documentation %s: %w", path, err)
		}
		redacted, _ := sc.RedactFile(d.Path, string(text))
		files = append(files, store.DocFile{Path: path, Blob: bytes.Clone(d.Blob[:]), Paragraphs: paragraphs(redacted)})
	}
	return s.st.ReplaceDocs(ctx, head, gone, files)
}

// docChanges returns the documentation files to read and the paths gone
// since the index's head: from the two heads' trees' difference, or, when
// there is no previous head or it is no longer readable (a rewritten
// branch's old head may be pruned), from head's whole tree, against the
// stored paths. Paths gone are returned as stored: through name, which
// redacts them.
func docChanges(repo *extract.Repo, old *store.DocsState, head string, name func(string) string) ([]extract.Doc, []string, error) {
	if old.Head != "" {
		if docs, gone, err := repo.DocChanges(old.Head, head); err == nil {
			for i, p := range gone {
				gone[i] = name(p)
			}
			return docs, gone, nil
		}
	}
	docs, err := repo.Docs(head)
	if err != nil {
		return nil, nil, err
	}
	now := map[string]bool{}
	for _, d := range docs {
		now[name(d.Path)] = true
	}
	var gone []string
	for p := range old.Blobs {
		if !now[p] {
			gone = append(gone, p)
		}
	}
	return docs, gone, nil
}

// Paragraph bounds: shorter ones are headings and list markers, longer
// ones generated tables or logs, neither of which reads as prose.
const (
	minParagraph = 40
	maxParagraph = 3000
)

// paragraphs splits text at blank lines and keeps the paragraphs of
// readable length, as valid UTF-8.
func paragraphs(text string) []string {
	s := strings.ReplaceAll(text, "\r\n", "\n")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var out []string
	for len(s) > 0 {
		p := s
		if i := blankLine(s); i >= 0 {
			p, s = s[:i], s[i:]
		} else {
			s = ""
		}
		s = strings.TrimLeft(s, " \t\n")
		if p = strings.TrimSpace(p); len(p) >= minParagraph && len(p) <= maxParagraph {
			out = append(out, p)
		}
	}
	return out
}

// blankLine returns where the first line holding only white space
// starts (after its newline), or -1.
func blankLine(s string) int {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
		k := i
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k < len(s) && s[k] == '\n' {
			return i
		}
		if k == len(s) {
			return -1
		}
	}
}
