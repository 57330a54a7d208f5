package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNotRepository: the path exists but is not inside a Git repository.
	ErrNotRepository = errors.New("not a git repository")
	// ErrNoPath: the path does not exist.
	ErrNoPath = errors.New("no such file or directory")
	// ErrEmpty: the repository has no commits yet.
	ErrEmpty = errors.New("repository has no commits yet")
	// ErrNoBranch: a requested branch does not exist.
	ErrNoBranch = errors.New("no such branch")
)

// Options tune extraction. The zero value means the defaults.
type Options struct {
	// Context is the number of context lines around hunks (git's -U).
	Context int
	// MaxFileBytes: larger blobs are flagged huge and not diffed.
	MaxFileBytes int64
	// RenameLimit bounds inexact rename and copy detection like git's
	// diff.renameLimit: above limit² candidate pairs only exact renames
	// are found, because scoring is quadratic.
	RenameLimit int
	// CacheBytes bounds the memory of each opened repository's caches,
	// both generations of each counted: object contents (pack objects by
	// offset, or blobs read through go-git) take half, decoded trees'
	// entries a quarter, and go-git's cache of loose objects, which the
	// other caches sit above, the rest. Rename detection adds its own:
	// signatures an eighth, subtrees' file lists (follow sources) a
	// sixteenth, blob sizes a thirty-second and each directory's own
	// files a sixty-fourth; commits' trees and whether paths are vendored
	// a 128th each.
	CacheBytes int64
}

func (o Options) withDefaults() Options {
	if o.Context <= 0 {
		o.Context = 3
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 1 << 20
	}
	if o.RenameLimit <= 0 {
		o.RenameLimit = 1000
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	return o
}

// DefaultCacheBytes is Options.CacheBytes's default. At 256 MiB the caches
// held about 170 MB of git/git's sync's live heap; at 160 MiB the sync
// used the same CPU (the last 10k commits: 66.5 s against 68.2 s), and
// the Go runtime's memory limit came down by as much as they gave up.
var DefaultCacheBytes int64 = 160 << 20

// Repo is an open repository. A Repo is not safe for concurrent use: open
// one per goroutine (they share nothing but the files).
type Repo struct {
	Path        string
	root        string
	repo        *git.Repository
	store       storer.EncodedObjectStorer
	opts        Options
	shallow     map[plumbing.Hash]bool
	trees       *genCache[plumbing.Hash, *tree]
	commitTrees *genCache[plumbing.Hash, plumbing.Hash] // commits' trees, for their children
	vendor      *genCache[string, bool]                 // enry.IsVendor by path
	blobs       *genCache[plumbing.Hash, []byte]
	sizes       *genCache[plumbing.Hash, int64]      // blob sizes, for rename detection
	sigs        *genCache[plumbing.Hash, *signature] // rename signatures (nil: not scored)
	flats       *genCache[flatKey, []flatFile]       // subtrees' files, as follow sources
	direct      *genCache[string, []flatFile]        // each directory's own files, as last listed
	hasher      sigHasher                            // builds rename signatures
	table       sigTable                             // the destination scored against
	rootFlat    []flatFile                           // the last root tree's files, reused
	langs       map[langKey]string
	packs       *packReader // nil: read every object through go-git
	bare        bool        // a bare repository (no work tree)
}

// Open opens the repository containing path (a work tree, a subdirectory of
// one, or a bare repository).
func Open(path string, opts Options) (*Repo, error) {
	opts = opts.withDefaults()
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, ErrNoPath)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	dir, err := findRepo(path)
	if err != nil {
		return nil, err
	}
	probe, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRepository)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	fsStore, ok := probe.Storer.(*filesystem.Storage)
	if !ok {
		return nil, fmt.Errorf("open %s: unexpected storage %T", path, probe.Storer)
	}
	// Reopen the same .git with a large object cache and pack files kept
	// open: this alone makes walking history ~2.5× faster. Alternates
	// (clone --shared or --reference) name absolute paths, which go-git
	// resolves inside the repository's own directory unless given the
	// whole file system.
	st := filesystem.NewStorageWithOptions(fsStore.Filesystem(), cache.NewObjectLRU(cache.FileSize(opts.CacheBytes/4)),
		filesystem.Options{KeepDescriptors: true, AlternatesFS: osfs.New("/", osfs.WithBoundOS())})
	repo, err := git.Open(st, nil)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	root := fsStore.Filesystem().Root()
	wt, wtErr := probe.Worktree()
	if wtErr == nil {
		root = wt.Filesystem.Root()
	}
	r := &Repo{Path: path, root: root, repo: repo, store: st, opts: opts, shallow: map[plumbing.Hash]bool{}, trees: newTreeCache(int(opts.CacheBytes / 8)),
		blobs: newByteCache(int(opts.CacheBytes / 4)), sizes: newSizeCache(int(opts.CacheBytes / 64)),
		sigs: newSignatureCache(int(opts.CacheBytes / 16)), flats: newFlatCache(int(opts.CacheBytes / 32)),
		direct: newDirectCache(int(opts.CacheBytes / 128)), langs: map[langKey]string{},
		commitTrees: newCommitTreeCache(int(opts.CacheBytes / 256)), vendor: newVendorCache(int(opts.CacheBytes / 256)),
		bare: errors.Is(wtErr, git.ErrIsBareRepository)}
	if r.packs, err = openPacks(objectsDir(fsStore.Filesystem().Root()), int(opts.CacheBytes/4)); err != nil {
		return nil, fmt.Errorf("open packs of %s: %w", path, err)
	}
	shallow, err := st.Shallow()
	if err != nil {
		return nil, fmt.Errorf("read shallow list of %s: %w", path, err)
	}
	for _, h := range shallow {
		r.shallow[h] = true
	}
	return r, nil
}

// findRepo walks up from path to the first directory that holds a .git
// entry or is itself a bare repository, as git does. (go-git's own
// DetectDotGit never recognises a bare repository.)
func findRepo(path string) (string, error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir, nil
		}
		if isBare(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%s: %w", path, ErrNotRepository)
		}
		dir = parent
	}
}

func isBare(dir string) bool {
	for _, p := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return false
		}
	}
	return true
}

// objectsDir is the objects directory of a git directory, following a
// linked work tree's commondir.
func objectsDir(gitDir string) string {
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		return filepath.Join(common, "objects")
	}
	return filepath.Join(gitDir, "objects")
}

// ReleaseMemory returns the pages of mapped pack files to the kernel; a
// sync calls it between batches to bound its resident memory.
func (r *Repo) ReleaseMemory() {
	if r.packs != nil {
		r.packs.release()
	}
}

// DropCaches empties the caches of decoded objects; they fill again as
// objects are read. A sync calls it once the history is extracted, so that
// what it does after (co-evolution over the whole history) does not add
// its memory to theirs.
func (r *Repo) DropCaches() {
	r.trees.clear()
	r.commitTrees.clear()
	r.vendor.clear()
	r.blobs.clear()
	clear(r.langs)
	if r.packs != nil {
		r.packs.cache.clear()
	}
}

// Close releases the repository's open pack files.
func (r *Repo) Close() error {
	if r.packs != nil {
		r.packs.close()
	}
	if c, ok := r.store.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// Root is the absolute path of the work tree, or of a bare repository.
func (r *Repo) Root() string { return r.root }

// IsShallow reports whether the repository is a shallow clone.
func (r *Repo) IsShallow() bool { return len(r.shallow) > 0 }

// IsBare reports whether the repository has no work tree.
// It is decided at Open, from the probe that saw the work tree: the
// repository is reopened without one, so asking it later says bare always.
func (r *Repo) IsBare() bool { return r.bare }

// RemoteURL returns origin's first URL, or "".
func (r *Repo) RemoteURL() string {
	rem, err := r.repo.Remote("origin")
	if err != nil || len(rem.Config().URLs) == 0 {
		return ""
	}
	return rem.Config().URLs[0]
}

// DefaultBranch names the branch HEAD points at. For a detached HEAD it
// falls back to main or master, and to "HEAD" itself when neither exists.
// It returns ErrEmpty when there is no commit at all.
func (r *Repo) DefaultBranch() (string, error) {
	head, err := r.repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	if head.Type() == plumbing.SymbolicReference && head.Target().IsBranch() {
		name := head.Target().Short()
		if _, err := r.repo.Reference(head.Target(), true); err != nil {
			if r.hasAnyBranch() {
				return name, nil // HEAD names an unborn branch, others exist
			}
			return "", ErrEmpty
		}
		return name, nil
	}
	for _, name := range []string{"main", "master"} {
		if _, err := r.repo.Reference(plumbing.NewBranchReferenceName(name), true); err == nil {
			return name, nil
		}
	}
	return "HEAD", nil
}

func (r *Repo) hasAnyBranch() bool {
	bs, _ := r.Branches()
	return len(bs) > 0
}

// Branches lists the local branches, sorted.
func (r *Repo) Branches() ([]string, error) {
	iter, err := r.repo.Branches()
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	var names []string
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		names = append(names, ref.Name().Short())
		return nil
	})
	sort.Strings(names)
	return names, err
}

// ResolveBranch returns the commit a branch points at ("HEAD" is allowed).
func (r *Repo) ResolveBranch(name string) (string, error) {
	ref := plumbing.NewBranchReferenceName(name)
	if name == "HEAD" {
		ref = plumbing.HEAD
	}
	resolved, err := r.repo.Reference(ref, true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", fmt.Errorf("%s: %w", name, ErrNoBranch)
	}
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", name, err)
	}
	return resolved.Hash().String(), nil
}

// Ref is a branch or tag and the commit it points at (tags peeled).
type Ref struct {
	Name   string // short name
	Kind   string // "branch", "tag" or "remote"
	Object string // what the ref names: a commit, or an annotated tag
	Target string // the commit, or "" for a tag of a tree or blob
}

// Refs lists branches, remote-tracking branches and tags, with annotated
// tags peeled to their commits. Peeling reads each tag object (a thousand
// of them in git/git), so tags whose object is unchanged since a previous
// listing (known, by name) keep their known target.
func (r *Repo) Refs(known map[string]Ref) ([]Ref, error) {
	iter, err := r.repo.References()
	if err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	var out []Ref
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() != plumbing.HashReference {
			return nil
		}
		name := ref.Name()
		kind := ""
		switch {
		case name.IsBranch():
			kind = "branch"
		case name.IsTag():
			kind = "tag"
		case name.IsRemote():
			kind = "remote"
		default:
			return nil
		}
		object := ref.Hash().String()
		if k, ok := known[name.Short()]; ok && k.Object == object && k.Kind == kind {
			out = append(out, k)
			return nil
		}
		target := ref.Hash().String()
		if kind == "tag" {
			if peeled, ok := r.peelTag(ref.Hash()); ok {
				target = peeled
			}
		}
		out = append(out, Ref{Name: name.Short(), Kind: kind, Object: object, Target: target})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// peelTag returns the commit that an annotated tag names, through tags of
// tags, or "" when it names a tree or a blob; ok is false when h is not a
// tag object. It reads through the pack reader: go-git's TagObject would
// load go-git's own copy of the pack index, and keep it for the sync.
func (r *Repo) peelTag(h plumbing.Hash) (commit string, ok bool) {
	for depth := 0; depth < maxTagDepth; depth++ {
		raw, err := r.object(plumbing.TagObject, h, maxTagBytes)
		if err != nil || raw == nil {
			return "", depth > 0
		}
		t := &object.Tag{}
		if err := t.Decode(&rawObject{hash: h, typ: plumbing.TagObject, data: raw}); err != nil {
			return "", depth > 0
		}
		switch t.TargetType {
		case plumbing.CommitObject:
			return t.Target.String(), true
		case plumbing.TagObject:
			h = t.Target
		default:
			return "", true
		}
	}
	return "", true
}

// A tag chain longer than maxTagDepth, or a tag object larger than
// maxTagBytes, is taken to name no commit.
const (
	maxTagDepth = 16
	maxTagBytes = 1 << 20
)

func (r *Repo) commitObject(hash string) (*object.Commit, error) {
	h := plumbing.NewHash(hash)
	if h.String() != strings.ToLower(hash) {
		return nil, fmt.Errorf("bad commit hash %q", hash)
	}
	c, err := r.commit(h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", hash, err)
	}
	return c, nil
}

// commitTreeHash is a commit's tree. A sync loads parents before their
// children, so a parent's tree is known from its own load and is not read
// and decoded again (that was half of reading commits: 0.6 GB of a
// git/git sync's allocation).
func (r *Repo) commitTreeHash(h plumbing.Hash) (plumbing.Hash, error) {
	if t, ok := r.commitTrees.get(h); ok {
		return t, nil
	}
	c, err := r.commit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

func newCommitTreeCache(max int) *genCache[plumbing.Hash, plumbing.Hash] {
	return newCache[plumbing.Hash](max, func(plumbing.Hash) int { return 64 })
}

// commit reads and decodes a commit object: from the packs when it is
// there (go-git's decoder on our bytes), else through go-git.
func (r *Repo) commit(h plumbing.Hash) (*object.Commit, error) {
	raw, err := r.object(plumbing.CommitObject, h, 1<<62)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, plumbing.ErrObjectNotFound
		}
		return nil, err
	}
	c := &object.Commit{}
	if err := c.Decode(&rawObject{hash: h, typ: plumbing.CommitObject, data: raw}); err != nil {
		return nil, err
	}
	r.commitTrees.put(h, c.TreeHash)
	return c, nil
}

// rawObject hands bytes we read to go-git's decoders, with the hash we
// already know (a plumbing.MemoryObject would compute it again).
type rawObject struct {
	hash plumbing.Hash
	typ  plumbing.ObjectType
	data []byte
}

func (o *rawObject) Hash() plumbing.Hash           { return o.hash }
func (o *rawObject) Type() plumbing.ObjectType     { return o.typ }
func (o *rawObject) SetType(t plumbing.ObjectType) { o.typ = t }
func (o *rawObject) Size() int64                   { return int64(len(o.data)) }
func (o *rawObject) SetSize(int64)                 {}
func (o *rawObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *rawObject) Writer() (io.WriteCloser, error) { return nil, errors.New("read-only object") }
