package extract

import (
	"bytes"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Doc is a documentation file of a commit's tree.
type Doc struct {
	Path string
	Blob plumbing.Hash
}

// Docs lists the documentation files of a commit's tree (IsDoc), without
// descending into test, vendored or dependency directories.
func (r *Repo) Docs(hash string) ([]Doc, error) {
	c, err := r.commitObject(hash)
	if err != nil {
		return nil, err
	}
	var out []Doc
	err = r.docs("", c.TreeHash, &out)
	return out, err
}

func (r *Repo) docs(prefix string, h plumbing.Hash, out *[]Doc) error {
	t, err := r.tree(h)
	if err != nil {
		return err
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		p := join(prefix, t.name(e))
		switch {
		case e.Mode == filemode.Dir:
			if !skipDocDir[strings.ToLower(t.name(e))] {
				if err := r.docs(p, t.hash(e), out); err != nil {
					return err
				}
			}
		case isRegular(e.Mode) && IsDoc(p):
			*out = append(*out, Doc{Path: p, Blob: t.hash(e)})
		}
	}
	return nil
}

// skipDocDir are directories whose text files document tests, fixtures
// or someone else's code, not the project.
var skipDocDir = map[string]bool{"t": true, "test": true, "tests": true, "testdata": true, "fixtures": true,
	"vendor": true, "node_modules": true, "third_party": true, "third-party": true, "3rdparty": true}

// IsDoc reports whether a path names documentation written for people:
// a README, changelog, news or release notes, or a Markdown, reStructuredText,
// AsciiDoc or plain-text file.
func IsDoc(p string) bool {
	base := strings.ToLower(path.Base(p))
	for _, prefix := range []string{"readme", "changelog", "changes", "news", "history", "releasenotes", "release-notes"} {
		if strings.HasPrefix(base, prefix) {
			return true
		}
	}
	switch path.Ext(base) {
	case ".md", ".markdown", ".rst", ".adoc", ".asciidoc", ".txt":
		return true
	}
	return false
}

// MaxDocBytes is the largest documentation file read.
const MaxDocBytes = 2 << 20

// DocText reads a documentation blob: nil when it is larger than
// MaxDocBytes, binary, or missing from the repository.
func (r *Repo) DocText(h plumbing.Hash) ([]byte, error) {
	b, err := r.blob(h, MaxDocBytes)
	if IsMissing(err) {
		return nil, nil
	}
	if err != nil || b == nil || bytes.IndexByte(b, 0) >= 0 {
		return nil, err
	}
	return b, nil
}

// DocChanges returns the documentation files that differ between two
// commits' trees: those added or changed in to, and the paths of those
// gone. Equal subtrees are skipped, so a sync of a few commits reads a few
// trees, not the repository's.
func (r *Repo) DocChanges(from, to string) (changed []Doc, gone []string, err error) {
	a, err := r.commitTree(from)
	if err != nil {
		return nil, nil, err
	}
	b, err := r.commitTree(to)
	if err != nil {
		return nil, nil, err
	}
	changes, err := r.diffTrees("", a, b, nil)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range changes {
		if !IsDoc(c.path) || inSkippedDir(c.path) {
			continue
		}
		if c.to.exists() && isRegular(c.to.mode) {
			changed = append(changed, Doc{Path: c.path, Blob: c.to.hash})
		} else if c.from.exists() {
			gone = append(gone, c.path)
		}
	}
	return changed, gone, nil
}

func (r *Repo) commitTree(hash string) (*tree, error) {
	c, err := r.commitObject(hash)
	if err != nil {
		return nil, err
	}
	return r.tree(c.TreeHash)
}

// inSkippedDir reports whether a path lies under a directory Docs skips.
func inSkippedDir(p string) bool {
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if skipDocDir[strings.ToLower(d)] {
			return true
		}
	}
	return false
}
