package retrieve

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/gitmemory/gitmemory/store"
)

// packFullDiffLines bounds a key item's diff snippet under PackOptions.Full:
// seed 004's --full shows at most 10 lines an entry beyond the short form.
const packFullDiffLines = 12

// packFull adds to each key item what seed 004's --full shows: the whole
// message, a diff snippet of the file it changed that the question is
// most about, and the command that verifies the entry against the
// repository (git show HASH -- PATH).
func packFull(ctx context.Context, db *sql.DB, cs []*packCommit, items []KeyItem, m packMatch) error {
	for i := range items {
		c := cs[i]
		k := &items[i]
		msg, err := store.GetBlob(ctx, db, store.MessageKey(c.hash))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		k.Message = strings.TrimSpace(string(msg))
		if k.Message == "" {
			k.Message = strings.TrimSpace(c.subject + "\n\n" + c.body)
		}
		f, ok := fullFile(c, m)
		if !ok {
			k.Verify = "git show " + c.hash
			continue
		}
		k.Verify = "git show " + c.hash + " -- " + shellQuote(f.path)
		text, err := loadPackDiff(ctx, db, c.hash, f.seq)
		if err != nil {
			return err
		}
		if strings.TrimSpace(text) != "" {
			k.Diff = trimDiff(packDiffSource{text: text}, packFullDiffLines)
		}
	}
	return nil
}

// fullFile is the file of a commit to show: one the question names, else
// the first whose code entities it changed, else the first with a text
// diff, else the first.
func fullFile(c *packCommit, m packMatch) (packFile, bool) {
	for _, f := range c.files {
		if m.file(f.path) && !f.binary && f.skipped == "" {
			return f, true
		}
	}
	for _, f := range c.files {
		for _, e := range c.ents {
			if e.path == f.path && !f.binary && f.skipped == "" {
				return f, true
			}
		}
	}
	for _, f := range c.files {
		if !f.binary && f.skipped == "" {
			return f, true
		}
	}
	if len(c.files) > 0 {
		return c.files[0], true
	}
	return packFile{}, false
}

// shellQuote quotes a path for a POSIX shell when it needs it, so that the
// verify command can be pasted as it is.
func shellQuote(p string) string {
	if p != "" && strings.IndexFunc(p, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// tierLabel renders seed 004's labels as it prints them: " [Hard] [S1]".
func tierLabel(tier, conf string) string {
	if tier == "" {
		return ""
	}
	return " [" + strings.ToUpper(tier[:1]) + tier[1:] + "] [" + conf + "]"
}

// mdFull renders a key item's --full fields under it in Markdown.
func mdFull(k KeyItem) string {
	var b strings.Builder
	if k.Message != "" {
		b.WriteString("\n  ```text\n")
		for _, l := range strings.Split(k.Message, "\n") {
			b.WriteString("  " + clipLines(l) + "\n")
		}
		b.WriteString("  ```\n")
	}
	if k.Diff != "" {
		b.WriteString("\n  ```diff\n")
		for _, l := range strings.Split(strings.TrimRight(k.Diff, "\n"), "\n") {
			b.WriteString("  " + l + "\n")
		}
		b.WriteString("  ```\n")
	}
	if k.Verify != "" {
		b.WriteString("\n  Verify: `" + k.Verify + "`\n\n")
	}
	return b.String()
}
