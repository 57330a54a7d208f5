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

// follow records each created file's follow source, found among the
// files of the parent's tree (tree: its hash). git's detection for one
// file scores it against at most RenameLimit² sources.
func (rn *renamer) follow(changes []change, dsts []renameDst, tree plumbing.Hash) error {
	files, err := rn.r.flatTree("", tree)
	if err != nil || len(files) == 0 {
		return err
	}
	deleted := map[string]bool{}
	for _, c := range changes {
		if c.status == model.Deleted {
			deleted[c.path] = true
		}
	}
	inexact := len(files) <= rn.r.opts.RenameLimit*rn.r.opts.RenameLimit
	srcs := &followSources{rn: rn, files: files}
	for _, d := range dsts {
		if changes[d.c].follow, err = rn.followSource(srcs, deleted, d, inexact); err != nil {
			return err
		}
	}
	return nil
}

// followSources are the files of a parent's tree, with their signatures
// looked up once for all the files a commit creates: a commit that
// creates many scores each against much the same sources.
type followSources struct {
	rn    *renamer
	files []flatFile
	sigs  []*signature
	got   []bool
}

// score is the j-th file's score against the destination (0 if either is
// too large to read).
func (s *followSources) score(dst *target, j int) int {
	tab := dst.table()
	if tab == nil {
		return 0
	}
	sig := s.sig(j)
	if sig == nil {
		return 0
	}
	return tab.score(sig)
}

// sig is the signature of the j-th file (nil: too large to read).
func (s *followSources) sig(j int) *signature {
	if s.sigs == nil {
		s.sigs, s.got = make([]*signature, len(s.files)), make([]bool, len(s.files))
	}
	if !s.got[j] {
		s.sigs[j], s.got[j] = s.rn.sourceSig(s.files[j].from.hash), true
	}
	return s.sigs[j]
}

// flatFile is a file of a tree as a follow source: its path, where its
// file name starts, its blob and the blob's size (-1: not a regular file,
// which only an exact match can follow).
type flatFile struct {
	path string
	base int
	from side
	size int64
}

// flatKey names a subtree at a path.
type flatKey struct {
	prefix string
	hash   plumbing.Hash
}

// flatTree lists a tree's files depth first in tree order, as git's tree
// diff meets them, without submodules (no blobs). A subtree's list is
// cached by its path and hash: most of a tree is unchanged from one
// commit that creates files to the next, and its blob sizes are known.
// The root's list, rarely met twice, is built in the same array each time
// (valid until the next call for a root): it is as long as the whole tree.
func (r *Repo) flatTree(prefix string, h plumbing.Hash) ([]flatFile, error) {
	key := flatKey{prefix, h}
	if files, ok := r.flats.get(key); ok {
		return files, nil
	}
	t, err := r.tree(h)
	if err != nil {
		return nil, err
	}
	subs, direct, err := r.flatParts(prefix, t)
	if err != nil {
		return nil, err
	}
	n := len(direct)
	for _, s := range subs {
		n += len(s)
	}
	var files []flatFile
	if prefix == "" {
		files = slices.Grow(r.rootFlat[:0], n)
	} else {
		files = make([]flatFile, 0, n)
	}
	for i := range t.Entries {
		switch t.Entries[i].Mode {
		case filemode.Submodule:
		case filemode.Dir:
			files = append(files, subs[i]...)
		default:
			files = append(files, direct[0])
			direct = direct[1:]
		}
	}
	if prefix == "" {
		r.rootFlat = files
	} else {
		r.flats.put(key, files)
	}
	return files, nil
}

// flatParts lists a tree's subtrees' files (by entry) and its own files.
// The directory's own files as last listed are kept by path, and a file
// with the same name and blob there is taken as it was: a changed
// directory keeps most of its files, whose paths and sizes cost a string
// and a map look-up each to make again.
func (r *Repo) flatParts(prefix string, t *tree) ([][]flatFile, []flatFile, error) {
	prev, _ := r.direct.get(prefix)
	subs := make([][]flatFile, len(t.Entries))
	n := 0
	for i := range t.Entries {
		n += b2i(t.Entries[i].Mode != filemode.Dir && t.Entries[i].Mode != filemode.Submodule)
	}
	direct := make([]flatFile, 0, n)
	for i := range t.Entries {
		var err error
		switch e := &t.Entries[i]; e.Mode {
		case filemode.Submodule:
		case filemode.Dir:
			subs[i], err = r.flatTree(join(prefix, t.name(e)), t.hash(e))
		default:
			var f flatFile
			f, prev, err = r.flatFile(prefix, t.name(e), t.side(e), prev)
			direct = append(direct, f)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	r.direct.put(prefix, direct)
	return subs, direct, nil
}

// flatFile is the file name at prefix with blob and mode s. prev is the
// directory's files as last listed, in tree order (which orders files by
// name), from this name on: the entry there is taken if it is the same.
func (r *Repo) flatFile(prefix, name string, s side, prev []flatFile) (flatFile, []flatFile, error) {
	for len(prev) > 0 && prev[0].path[prev[0].base:] < name {
		prev = prev[1:]
	}
	if len(prev) > 0 && prev[0].from == s && prev[0].path[prev[0].base:] == name {
		return prev[0], prev[1:], nil
	}
	p := join(prefix, name)
	f := flatFile{path: p, base: len(p) - len(name), from: s, size: -1}
	if isRegular(s.mode) {
		var err error
		if f.size, err = r.blobSize(s.hash); err != nil {
			if !IsMissing(err) {
				return f, prev, err
			}
			f.size = -1 // a blob the repository lacks is no source
		}
	}
	return f, prev, nil
}

// followSource is the path git log --follow continues with when it meets
// the destination's creation: an exact match (a deleted file first, then
// one of the same name), else the destination's four most similar
// sources in git's cells, the first deleted one, else the first. Without
// inexact (more than RenameLimit² sources), only exact matches count, as
// in git.
func (rn *renamer) followSource(srcs *followSources, deleted map[string]bool, d renameDst, inexact bool) (string, error) {
	files := srcs.files
	var same []renameSrc
	for j := range files {
		if f := &files[j]; f.from.hash == d.to.hash {
			same = append(same, renameSrc{c: j, path: f.path, from: f.from, used: b2i(!deleted[f.path])})
		}
	}
	if j := exactSource(same, d, true); j >= 0 {
		return same[j].path, nil
	}
	if !inexact || !isRegular(d.to.mode) {
		return "", nil
	}
	dsize, err := rn.r.blobSize(d.to.hash)
	if IsMissing(err) {
		return "", nil // nothing to compare a missing blob with
	}
	if err != nil {
		return "", err
	}
	m := make([]renameCand, candsPerDst)
	for i := range m {
		m[i].dst = -1
	}
	dst := rn.target(d.to)
	name := baseName(d.path)
	for j := range files {
		f := &files[j]
		sc := 0
		if f.size >= 0 && mayScore(f.size, dsize) {
			sc = srcs.score(dst, j)
		}
		recordIfBetter(m, renameCand{dst: 0, src: j, score: sc, name: f.path[f.base:] == name})
	}
	slices.SortStableFunc(m, compareCands)
	for _, copies := range []bool{false, true} {
		for _, c := range m {
			if c.dst < 0 || c.score < minScore {
				break
			}
			if copies || deleted[files[c.src].path] {
				return files[c.src].path, nil
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

func newFlatCache(max int) *genCache[flatKey, []flatFile] {
	return newCache[flatKey](max, func(fs []flatFile) int { return 64 + 64*len(fs) })
}

func newDirectCache(max int) *genCache[string, []flatFile] {
	return newCache[string](max, func(fs []flatFile) int { return 64 + 64*cap(fs) })
}

func newSignatureCache(max int) *genCache[plumbing.Hash, *signature] {
	return newCache[plumbing.Hash](max, func(s *signature) int {
		if s == nil {
			return 64
		}
		return 64 + 8*len(s.spans)
	})
}
