package extract

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/gitmemory/gitmemory/model"
)

// git log --follow, at the commit that created the followed file, runs
// rename detection for that file alone (try_to_follow_renames in
// tree-diff.c: diff_opts.single_follow) with find_copies_harder set, so
// its sources are every file of the parent's tree, changed or not, in the
// order the tree diff meets them. Which of several equally similar
// sources wins depends on that whole list: git keeps a destination's four
// best candidates in four cells, a better candidate replacing the first
// of the worst, and the stable sort of the cells keeps their order among
// equal scores. Unchanged files met between two tied sources move them
// between the cells, so the sources below are the whole tree, as git's.

// follow records each created file's follow source. git's detection for
// one file compares it with at most RenameLimit² sources.
func (rn *renamer) follow(changes []change, dsts []renameDst, old *tree) error {
	srcs, sizes, err := rn.r.followSources(old, changes)
	if err != nil || len(srcs) == 0 {
		return err
	}
	inexact := len(srcs) <= rn.r.opts.RenameLimit*rn.r.opts.RenameLimit
	for _, d := range dsts {
		if changes[d.c].follow, err = rn.followSource(srcs, sizes, d, inexact); err != nil {
			return err
		}
	}
	return nil
}

// followSources lists the parent tree's files as git's sources for one
// followed file: in tree order, a file the commit deleted unused, any
// other (modified or unchanged) used once by itself (git's rename_used of
// a source that stays), with the blob sizes that rule out most pairs
// before their contents are read. Submodules are no sources (their
// entries are no blobs).
func (r *Repo) followSources(old *tree, changes []change) ([]renameSrc, []int64, error) {
	deleted := map[string]bool{}
	for _, c := range changes {
		if c.status == model.Deleted {
			deleted[c.path] = true
		}
	}
	var srcs []renameSrc
	var sizes []int64
	err := r.eachFile("", old, func(p string, e *treeEntry) error {
		size := int64(-1)
		if isRegular(e.Mode) {
			var err error
			if size, err = r.blobSize(e.Hash); err != nil {
				return err
			}
		}
		srcs = append(srcs, renameSrc{c: -1, path: p, from: side{e.Hash, e.Mode}, used: b2i(!deleted[p])})
		sizes = append(sizes, size)
		return nil
	})
	return srcs, sizes, err
}

// eachFile calls fn for every file of a tree, depth first in tree order.
func (r *Repo) eachFile(prefix string, t *tree, fn func(string, *treeEntry) error) error {
	if t == nil {
		return nil
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		p := join(prefix, t.name(e))
		switch e.Mode {
		case filemode.Submodule:
			continue
		case filemode.Dir:
			sub, err := r.tree(e.Hash)
			if err != nil {
				return err
			}
			if err := r.eachFile(p, sub, fn); err != nil {
				return err
			}
			continue
		}
		if err := fn(p, e); err != nil {
			return err
		}
	}
	return nil
}

// followSource is the path git log --follow continues with when it meets
// the destination's creation: an exact match (a deleted file first, then
// one of the same name), else the destination's four most similar
// sources in git's cells, the first deleted one, else the first. sizes
// are the sources' blob sizes (-1: not a regular file). Without inexact
// (more than RenameLimit² sources), only exact matches count, as in git.
func (rn *renamer) followSource(srcs []renameSrc, sizes []int64, d renameDst, inexact bool) (string, error) {
	if j := exactSource(srcs, d, true); j >= 0 {
		return srcs[j].path, nil
	}
	if !inexact || !isRegular(d.to.mode) {
		return "", nil
	}
	dsize, err := rn.r.blobSize(d.to.hash)
	if err != nil {
		return "", err
	}
	m := make([]renameCand, candsPerDst)
	for i := range m {
		m[i].dst = -1
	}
	for j, s := range srcs {
		sc := 0
		if sizes[j] >= 0 && mayScore(sizes[j], dsize) {
			sc = rn.estimate(s.from, d.to)
		}
		recordIfBetter(m, renameCand{dst: 0, src: j, score: sc, name: basenameSame(s.path, d.path)})
	}
	slices.SortStableFunc(m, compareCands)
	for _, copies := range []bool{false, true} {
		for _, c := range m {
			if c.dst < 0 || c.score < minScore {
				break
			}
			if copies || srcs[c.src].used == 0 {
				return srcs[c.src].path, nil
			}
		}
	}
	return "", nil
}

// mayScore reports whether two files' sizes allow a score above 0: git's
// estimate_similarity gives up, before reading either, on files whose
// sizes differ by more than minScore allows, and on an empty destination.
func mayScore(src, dst int64) bool {
	big, small := max(src, dst), min(src, dst)
	return dst > 0 && big*(maxScore-minScore) >= (big-small)*maxScore
}

// blobSize is a blob's size, read from its pack header where it can be.
func (r *Repo) blobSize(h plumbing.Hash) (int64, error) {
	if n, ok := r.sizes.get(h); ok {
		return n, nil
	}
	n, err := int64(0), errNotInPack
	if r.packs != nil {
		n, err = r.packs.size(h)
	}
	if errors.Is(err, errNotInPack) {
		var obj plumbing.EncodedObject
		if obj, err = r.store.EncodedObject(plumbing.BlobObject, h); err == nil {
			n = obj.Size()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("size of blob %s: %w", h, err)
	}
	r.sizes.put(h, n)
	return n, nil
}

func newSizeCache(max int) *genCache[plumbing.Hash, int64] {
	return newCache[plumbing.Hash](max, func(int64) int { return 64 })
}

func newSignatureCache(max int) *genCache[plumbing.Hash, *signature] {
	return newCache[plumbing.Hash](max, func(s *signature) int {
		if s == nil {
			return 64
		}
		return 64 + 8*len(s.spans)
	})
}
