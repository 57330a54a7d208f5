package indexer

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// The commits reach the relater in one order, parents first, but the
// history they come from branches and merges. Where a branch changed a
// file that the mainline had deleted, and was then merged, the file is
// absent from the merge, yet no commit says so: git's combined diff of a
// merge shows only what differs from every parent. Read in commit order,
// the file and its entities stay live, with their relationships. So at
// the end of a sync that met merges, the paths it kept live are checked
// against the tracked branches' heads, and those no head holds lose their
// relationships, recorded as removals at the default branch's head.

// reconcile removes the relationships of the files the sync kept live
// that no tracked branch's head holds, and reads again the imports of
// those whose last version it read is not the default branch head's (a
// merge that kept the mainline's version of a file a branch changed: the
// combined diff does not show it). A sync killed before this point stored
// commits the next sync does not see again: the files those made live are
// checked too (store.SinceRelate), so that a resumed sync ends as an
// uninterrupted one.
func (s *Syncer) reconcile(ctx context.Context, root string, branches []BranchResult) error {
	if s.opts.ExtractOnly || s.opts.NoRelations || len(branches) == 0 || branches[0].Head == "" {
		return nil
	}
	earlier, merged, err := s.st.SinceRelate(ctx)
	if err != nil {
		return fmt.Errorf("code relationships: %w", err)
	}
	r := s.rel
	if r == nil && merged { // nothing left to store: the killed sync stored it all
		r = newRelater(ctx, s.st, s.path)
		s.rel = r
	}
	if r == nil || r.err != nil || !r.merged && !merged {
		return nil
	}
	var candidates []string
	for p := range r.touched {
		if r.files[p] == 1 {
			candidates = append(candidates, p)
		}
	}
	for _, p := range earlier {
		if !r.touched[p] && r.isLive(p) {
			candidates = append(candidates, p)
		}
	}
	if r.err != nil {
		return fmt.Errorf("code relationships: %w", r.err)
	}
	if len(candidates) == 0 {
		return nil
	}
	slices.Sort(candidates)
	h, err := openHeads(root, branches)
	if err != nil {
		return err
	}
	c := &model.Commit{}
	for _, p := range candidates {
		if !h.has(p) {
			c.Changes = append(c.Changes, model.FileChange{Path: p, Status: model.Deleted})
		}
	}
	r.before = map[relCode]before{}
	if len(c.Changes) > 0 {
		r.updatePaths(c)
		gone := r.vanished(c)
		for _, e := range gone {
			r.entityRelations(e, nil)
		}
		r.retarget(gone)
		r.goImplements(gone, nil)
	}
	if err := r.refreshImports(h, candidates); err != nil {
		return err
	}
	if r.err != nil {
		return fmt.Errorf("code relationships: %w", r.err)
	}
	if len(r.before) == 0 {
		return nil
	}
	return s.st.AddRelations(ctx, branches[0].Head, r.changed())
}

// refreshImports reads, at the default branch's head, the imports of the
// live paths whose version there is not the one whose facts were read
// last, and makes them the files' imports.
func (r *relater) refreshImports(h *heads, paths []string) error {
	for _, p := range paths {
		v, ok := r.seen[p]
		if !ok || r.files[p] != 1 {
			continue
		}
		blob, ok := h.blob(p)
		if !ok || blob == v.blob {
			continue
		}
		src, err := h.read(blob)
		if extract.IsMissing(err) {
			continue // a partial clone's: the imports last read stand
		}
		if err != nil {
			return fmt.Errorf("code relationships: read %s at the head: %w", p, err)
		}
		s, ok := entity.NewSource(v.lang, src)
		if !ok {
			continue
		}
		r.fileRelations(&fileFacts{fc: &model.FileChange{Path: p, Language: v.lang, Status: model.Modified},
			imports: s.Imports(0), importsRead: true})
		r.seen[p] = seenVersion{blob, v.lang}
	}
	return nil
}

// heads are the files of the tracked branches' heads: each path's blob,
// the default branch's first. Each tree is walked once: a lookup per path
// (Tree.FindEntry) decodes the trees on its way every time, which on
// git/git's thousands of paths cost more than the rest of the end.
type heads struct {
	repo  *git.Repository
	files []map[string]plumbing.Hash
}

// openHeads opens the repository at root (extract.Repo.Root: its work
// tree, or the bare repository itself) and reads the branches' head trees.
func openHeads(root string, branches []BranchResult) (*heads, error) {
	probe, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	fs, ok := probe.Storer.(*filesystem.Storage)
	if !ok {
		return nil, fmt.Errorf("open %s: unexpected storage %T", root, probe.Storer)
	}
	// Alternates (clone --shared) name absolute paths.
	st := filesystem.NewStorageWithOptions(fs.Filesystem(), cache.NewObjectLRUDefault(),
		filesystem.Options{AlternatesFS: osfs.New("/", osfs.WithBoundOS())})
	repo, err := git.Open(st, nil)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	h := &heads{repo: repo}
	for _, b := range branches {
		if b.Head == "" {
			continue
		}
		files, err := headFiles(repo, b)
		if err != nil {
			return nil, err
		}
		h.files = append(h.files, files)
	}
	return h, nil
}

// headFiles returns the blob of each file in a branch's head tree.
func headFiles(repo *git.Repository, b BranchResult) (map[string]plumbing.Hash, error) {
	commit, err := repo.CommitObject(plumbing.NewHash(b.Head))
	if err != nil {
		return nil, fmt.Errorf("head of %s: %w", b.Name, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("tree of %s: %w", b.Name, err)
	}
	files := map[string]plumbing.Hash{}
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("tree of %s: %w", b.Name, err)
		}
		if e.Mode.IsFile() {
			files[name] = e.Hash
		}
	}
}

// has reports whether a path is in one of the head trees.
func (h *heads) has(p string) bool {
	for _, f := range h.files {
		if _, ok := f[p]; ok {
			return true
		}
	}
	return false
}

// blob returns the hash of a file in the default branch's head tree.
func (h *heads) blob(p string) (string, bool) {
	if len(h.files) == 0 {
		return "", false
	}
	hash, ok := h.files[0][p]
	if !ok {
		return "", false
	}
	return hash.String(), true
}

// read returns a blob's content.
func (h *heads) read(hash string) ([]byte, error) {
	b, err := h.repo.BlobObject(plumbing.NewHash(hash))
	if err != nil {
		return nil, err
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}
