package indexer

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/gitmemory/gitmemory/model"
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
// that no tracked branch's head holds. A sync killed before this point
// stored commits the next sync does not see again: the files those made
// live are checked too (store.SinceRelate), so that a resumed sync ends as
// an uninterrupted one.
func (s *Syncer) reconcile(ctx context.Context, root string, branches []BranchResult) error {
	if s.opts.ExtractOnly || len(branches) == 0 || branches[0].Head == "" {
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
	has, err := headTrees(root, branches)
	if err != nil {
		return err
	}
	c := &model.Commit{}
	for _, p := range candidates {
		if !has(p) {
			c.Changes = append(c.Changes, model.FileChange{Path: p, Status: model.Deleted})
		}
	}
	if len(c.Changes) == 0 {
		return nil
	}
	r.before = map[relKind]before{}
	r.updatePaths(c)
	gone := r.vanished(c)
	for _, e := range gone {
		r.entityRelations(e, nil)
	}
	r.retarget(gone)
	r.goImplements(gone, nil)
	if r.err != nil {
		return fmt.Errorf("code relationships: %w", r.err)
	}
	return s.st.AddRelations(ctx, branches[0].Head, r.changed())
}

// headTrees returns whether a path is in the tree of one of the branches'
// heads; root is the repository's (extract.Repo.Root: its work tree, or
// the bare repository itself).
func headTrees(root string, branches []BranchResult) (func(string) bool, error) {
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
	var trees []*object.Tree
	for _, b := range branches {
		if b.Head == "" {
			continue
		}
		commit, err := repo.CommitObject(plumbing.NewHash(b.Head))
		if err != nil {
			return nil, fmt.Errorf("head of %s: %w", b.Name, err)
		}
		tree, err := commit.Tree()
		if err != nil {
			return nil, fmt.Errorf("tree of %s: %w", b.Name, err)
		}
		trees = append(trees, tree)
	}
	return func(p string) bool {
		for _, t := range trees {
			if _, err := t.FindEntry(p); err == nil {
				return true
			}
		}
		return false
	}, nil
}
