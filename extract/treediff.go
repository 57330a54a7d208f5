package extract

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/gitmemory/gitmemory/model"
)

// side is one side of a file change: a blob (or submodule commit) and mode.
type side struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

func (s side) exists() bool { return !s.hash.IsZero() }

// change is a file-level change before content diffing.
type change struct {
	path, oldPath string
	from, to      side
	status        model.ChangeStatus
	similarity    int
	// follow is the path git log --follow continues with (FileChange.Follow).
	follow string
}

func (r *Repo) tree(h plumbing.Hash) (*tree, error) {
	if t, ok := r.trees.get(h); ok {
		return t, nil
	}
	raw, err := r.object(plumbing.TreeObject, h, 1<<62)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	t, err := parseTree(raw)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	r.trees.put(h, t)
	return t, nil
}

// tree is a decoded tree object. go-git's object.Tree decodes through a
// buffered reader and allocates per entry; trees are decoded for every
// commit, so we parse the raw bytes with one string allocation per tree.
// Entries hold no pointers (a name is a span of names): the tree cache is
// most of a sync's live heap with pointers in it, and the collector, which
// runs every few hundred megabytes allocated, marked each of its entries.
// Nor do they copy the object id, which follows the name in the raw tree:
// 12 bytes an entry instead of 32, which were a twentieth of what the
// extract stage allocated.
type tree struct {
	names   string // the raw tree, which holds the entries' names
	Entries []treeEntry
}

type treeEntry struct {
	off, end uint32 // the name is names[off:end], the object id the 20 bytes after end+1
	Mode     filemode.FileMode
}

// name returns an entry's name.
func (t *tree) name(e *treeEntry) string { return t.names[e.off:e.end] }

// rawHash returns an entry's object id as it is stored.
func (t *tree) rawHash(e *treeEntry) string { return t.names[e.end+1 : e.end+21] }

// hash returns an entry's object id.
func (t *tree) hash(e *treeEntry) plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], t.rawHash(e))
	return h
}

// side returns an entry's object id and mode.
func (t *tree) side(e *treeEntry) side { return side{t.hash(e), e.Mode} }

// parseTree parses git's tree format: entries of "<octal mode> <name>\0"
// followed by the 20-byte object id.
func parseTree(raw []byte) (*tree, error) {
	if len(raw) > math.MaxUint32 {
		return nil, errors.New("tree larger than 4 GiB")
	}
	// The names are read in place: raw is an object's content as the pack
	// reader or go-git returned it, allocated for it and never written
	// again (the offset cache hands the same bytes to every reader), so a
	// copy only doubled each cached tree's memory.
	var s string
	if len(raw) > 0 {
		s = unsafe.String(&raw[0], len(raw))
	}
	t := &tree{names: s, Entries: make([]treeEntry, 0, bytes.Count(raw, []byte{0}))}
	for at := 0; at < len(s); {
		rest := s[at:]
		sp := strings.IndexByte(rest, ' ')
		nul := strings.IndexByte(rest, 0)
		if sp < 0 || nul < sp || len(rest) < nul+1+20 {
			return nil, errors.New("malformed tree")
		}
		var mode uint32
		for _, c := range rest[:sp] {
			if c < '0' || c > '7' {
				return nil, errors.New("malformed tree mode")
			}
			mode = mode<<3 | uint32(c-'0')
		}
		t.Entries = append(t.Entries, treeEntry{off: uint32(at + sp + 1), end: uint32(at + nul), Mode: canonMode(filemode.FileMode(mode))})
		at += nul + 21
	}
	return t, nil
}

// canonMode is git's canon_mode: a regular file is 100644 or 100755 by its
// owner's execute bit, whatever other bits an old tree recorded (git's
// first trees hold 100664), so that git and gitmemory see the same mode
// changes.
func canonMode(m filemode.FileMode) filemode.FileMode {
	switch m & 0o170000 {
	case 0o100000:
		if m&0o100 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	case 0o040000:
		return filemode.Dir
	case 0o160000:
		return filemode.Submodule
	}
	return m
}

// diffTrees appends the file changes between two trees (nil for empty).
// Equal subtrees are skipped by hash, so the cost follows the size of the
// change, not of the repository.
func (r *Repo) diffTrees(prefix string, a, b *tree, out []change) ([]change, error) {
	var ae, be []treeEntry
	var an, bn string
	if a != nil {
		ae, an = a.Entries, a.names
	}
	if b != nil {
		be, bn = b.Entries, b.names
	}
	i, j := 0, 0
	var err error
	for i < len(ae) || j < len(be) {
		var c int
		switch {
		case i == len(ae):
			c = 1
		case j == len(be):
			c = -1
		default:
			c = compareEntries(an[ae[i].off:ae[i].end], ae[i].Mode, bn[be[j].off:be[j].end], be[j].Mode)
		}
		switch {
		case c < 0:
			out, err = r.addSide(join(prefix, an[ae[i].off:ae[i].end]), a.side(&ae[i]), out, true)
			i++
		case c > 0:
			out, err = r.addSide(join(prefix, bn[be[j].off:be[j].end]), b.side(&be[j]), out, false)
			j++
		default:
			if ae[i].Mode != be[j].Mode || a.rawHash(&ae[i]) != b.rawHash(&be[j]) {
				out, err = r.diffEntry(prefix, an[ae[i].off:ae[i].end], a.side(&ae[i]), b.side(&be[j]), out)
			}
			i++
			j++
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// diffEntry diffs two different entries of one name.
func (r *Repo) diffEntry(prefix, name string, x, y side, out []change) ([]change, error) {
	if x.mode == filemode.Dir {
		tx, err := r.tree(x.hash)
		if err != nil {
			return nil, err
		}
		ty, err := r.tree(y.hash)
		if err != nil {
			return nil, err
		}
		return r.diffTrees(join(prefix, name), tx, ty, out)
	}
	p := join(prefix, name)
	if (x.mode == filemode.Submodule) != (y.mode == filemode.Submodule) {
		// A file became a submodule or back: git shows a delete and an add.
		out = append(out, change{path: p, from: x, status: model.Deleted})
		return append(out, change{path: p, to: y, status: model.Added}), nil
	}
	return append(out, change{path: p, from: x, to: y, status: model.Modified}), nil
}

// addSide records an entry at path p present on one side only (deleted
// when old), descending into directories.
func (r *Repo) addSide(p string, e side, out []change, old bool) ([]change, error) {
	if e.mode == filemode.Dir {
		t, err := r.tree(e.hash)
		if err != nil {
			return nil, err
		}
		if old {
			return r.diffTrees(p, t, nil, out)
		}
		return r.diffTrees(p, nil, t, out)
	}
	if old {
		return append(out, change{path: p, from: e, status: model.Deleted}), nil
	}
	return append(out, change{path: p, to: e, status: model.Added}), nil
}

// compareEntries orders tree entries as git stores them: names compared
// bytewise, with a directory's name compared as if it ended in '/'. Entries
// of the same name and kind compare equal; a file and a directory of the
// same name do not, so a type change is a delete plus an add, as in git.
func compareEntries(an string, am filemode.FileMode, bn string, bm filemode.FileMode) int {
	n := min(len(an), len(bn))
	for k := 0; k < n; k++ {
		if an[k] != bn[k] {
			return int(an[k]) - int(bn[k])
		}
	}
	return int(endByte(an, n, am)) - int(endByte(bn, n, bm))
}

func endByte(name string, n int, mode filemode.FileMode) byte {
	if len(name) > n {
		return name[n]
	}
	if mode == filemode.Dir {
		return '/'
	}
	return 0
}

// lookup finds the entry at a slash-separated path in a tree.
func (r *Repo) lookup(t *tree, p string) (side, error) {
	for {
		name, rest := p, ""
		for k := 0; k < len(p); k++ {
			if p[k] == '/' {
				name, rest = p[:k], p[k+1:]
				break
			}
		}
		var found *treeEntry
		for k := range t.Entries {
			if t.name(&t.Entries[k]) == name {
				found = &t.Entries[k]
				break
			}
		}
		if found == nil {
			return side{}, nil
		}
		if rest == "" {
			return t.side(found), nil
		}
		if found.Mode != filemode.Dir {
			return side{}, nil
		}
		var err error
		if t, err = r.tree(t.hash(found)); err != nil {
			return side{}, err
		}
		p = rest
	}
}

func join(prefix, name string) string {
	if prefix == "" {
		// A name is a span of its tree's raw bytes: a path kept after
		// the diff (a file change's, a memo's key) must not hold the
		// whole root tree alive with it. On git/git, root trees held so
		// grew to over 100 MB of the live heap by the end of a sync.
		return strings.Clone(name)
	}
	return prefix + "/" + name
}
