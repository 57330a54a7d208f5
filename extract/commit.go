package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/go-enry/go-enry/v2"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/gitmemory/gitmemory/model"
)

// Extract reads one commit with its file changes against the first parent.
// A merge commit records only the files it changed relative to every
// parent (git's combined diff): the rest was already attributed to the
// commits of the merged branches.
func (r *Repo) Extract(hash string) (*model.Commit, error) {
	l, err := r.Load(hash)
	if err != nil {
		return nil, err
	}
	return l.Finish(), nil
}

// Loaded is a commit whose objects have been read but whose line diffs are
// not computed yet. Load needs the Repo (go-git is not safe for concurrent
// use); Finish does not, so it can run on other cores.
type Loaded struct {
	commit  *model.Commit
	pending []pendingDiff
	context int
}

type pendingDiff struct {
	idx      int
	old, new []byte
	// same marks an exact rename: no diff, but the content is kept for
	// the entity stage, whose entities change path.
	same bool
}

// IsMerge reports whether the loaded commit has several parents.
func (l *Loaded) IsMerge() bool { return l.commit.IsMerge }

// Finish computes the line diffs and returns the commit.
func (l *Loaded) Finish() *model.Commit {
	return l.FinishWith(nil)
}

// FinishWith computes the line diffs, then calls visit (if not nil) with
// each diffed file change and its old and new content (nil for a side that
// does not exist), and for each exact rename with its content on both
// sides. It returns the commit.
func (l *Loaded) FinishWith(visit func(fc *model.FileChange, old, new []byte)) *model.Commit {
	for _, p := range l.pending {
		fc := &l.commit.Changes[p.idx]
		if !p.same {
			fc.Hunks, fc.Insertions, fc.Deletions = DiffLines(p.old, p.new, l.context)
		}
		if visit != nil {
			visit(fc, p.old, p.new)
		}
	}
	l.pending = nil
	return l.commit
}

// Load reads a commit, its tree changes and the blobs to diff.
func (r *Repo) Load(hash string) (*Loaded, error) {
	oc, err := r.commitObject(hash)
	if err != nil {
		return nil, err
	}
	c := &model.Commit{
		Hash:      oc.Hash.String(),
		Author:    model.Signature{Name: oc.Author.Name, Email: oc.Author.Email, When: oc.Author.When},
		Committer: model.Signature{Name: oc.Committer.Name, Email: oc.Committer.Email, When: oc.Committer.When},
		IsMerge:   len(oc.ParentHashes) > 1,
		Shallow:   r.shallow[oc.Hash],
	}
	c.Author.Name, _ = repair(c.Author.Name, oc.Encoding)
	c.Committer.Name, _ = repair(c.Committer.Name, oc.Encoding)
	for _, p := range oc.ParentHashes {
		c.Parents = append(c.Parents, p.String())
	}
	var raw bool
	if c.Message, raw = repair(oc.Message, oc.Encoding); raw {
		c.RawMessage = []byte(oc.Message)
	}
	c.IssueRefs = ParseIssueRefs(c.Message)
	changes, err := r.fileChanges(oc)
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", hash, err)
	}
	l := &Loaded{commit: c, context: r.opts.Context}
	for _, ch := range changes {
		fc, old, new, err := r.fileChange(ch)
		if err != nil {
			return nil, fmt.Errorf("diff %s %s: %w", hash, ch.path, err)
		}
		switch {
		case fc.Skipped != "" || fc.Status == "" || isSubmodule(ch):
		case ch.from.hash != ch.to.hash:
			l.pending = append(l.pending, pendingDiff{idx: len(c.Changes), old: old, new: new})
		case new != nil:
			l.pending = append(l.pending, pendingDiff{idx: len(c.Changes), old: old, new: new, same: true})
		}
		c.Changes = append(c.Changes, fc)
	}
	return l, nil
}

func isSubmodule(ch change) bool {
	return ch.from.mode == filemode.Submodule || ch.to.mode == filemode.Submodule
}

// repair returns text as valid UTF-8: decoded from the commit's declared
// encoding when it has one, invalid bytes replaced otherwise. changed
// reports that the stored text differs from the raw bytes.
func repair(text string, enc object.MessageEncoding) (out string, changed bool) {
	e := strings.ToLower(string(enc))
	if e != "" && e != "utf-8" && e != "utf8" {
		if dec, err := htmlindex.Get(e); err == nil {
			if s, err := dec.NewDecoder().String(text); err == nil && utf8.ValidString(s) {
				return s, s != text
			}
		}
	}
	if utf8.ValidString(text) {
		return text, false
	}
	return strings.ToValidUTF8(text, "\uFFFD"), true
}

func (r *Repo) fileChanges(oc *object.Commit) ([]change, error) {
	newTree, err := r.tree(oc.TreeHash)
	if err != nil {
		return nil, err
	}
	var oldTree *tree
	var oldHash plumbing.Hash
	if len(oc.ParentHashes) > 0 && !r.shallow[oc.Hash] {
		if oldHash, err = r.commitTreeHash(oc.ParentHashes[0]); err != nil {
			return nil, fmt.Errorf("read parent %s: %w", oc.ParentHashes[0], err)
		}
		if oldTree, err = r.tree(oldHash); err != nil {
			return nil, err
		}
	}
	changes, err := r.diffTrees("", oldTree, newTree, nil)
	if err != nil {
		return nil, err
	}
	if len(oc.ParentHashes) > 1 && !r.shallow[oc.Hash] {
		if changes, err = r.mergeOnly(oc, changes); err != nil {
			return nil, err
		}
	}
	// git log --follow switches paths only at a commit with one parent.
	if changes, err = r.detectRenames(changes, oldHash, len(oc.ParentHashes) <= 1); err != nil {
		return nil, err
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].path < changes[j].path })
	return changes, nil
}

// mergeOnly keeps the changes whose result differs from every parent.
func (r *Repo) mergeOnly(oc *object.Commit, changes []change) ([]change, error) {
	for _, ph := range oc.ParentHashes[1:] {
		if len(changes) == 0 {
			break
		}
		th, err := r.commitTreeHash(ph)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read parent %s: %w", ph, err)
		}
		t, err := r.tree(th)
		if err != nil {
			return nil, err
		}
		kept := changes[:0]
		for _, c := range changes {
			s, err := r.lookup(t, c.path)
			if err != nil {
				return nil, err
			}
			if s != c.to {
				kept = append(kept, c)
			}
		}
		changes = kept
	}
	return changes, nil
}

// fileChange describes a change and loads the contents to diff.
func (r *Repo) fileChange(ch change) (fc model.FileChange, oldData, newData []byte, err error) {
	fc = model.FileChange{Path: ch.path, OldPath: ch.oldPath, Status: ch.status, Similarity: ch.similarity, Follow: ch.follow}
	if ch.from.exists() {
		fc.OldBlob = ch.from.hash.String()
	}
	if ch.to.exists() {
		fc.NewBlob = ch.to.hash.String()
	}
	if isSubmodule(ch) {
		// git diffs a submodule as one "Subproject commit <sha>" line.
		fc.Insertions, fc.Deletions = b2i(ch.to.exists()), b2i(ch.from.exists())
		if ch.from.hash == ch.to.hash {
			fc.Insertions, fc.Deletions = 0, 0
		}
		return fc, nil, nil, nil
	}
	if r.isVendor(ch.path) {
		fc.Skipped = model.SkipVendor
	}
	fc, oldData, newData, err = r.fileContents(ch, fc)
	if IsMissing(err) {
		// git would stop here; the commit's message and paths still say
		// what it did, so only this file's lines are left out.
		fc.Skipped = model.SkipMissing
		return fc, nil, nil, nil
	}
	return fc, oldData, newData, err
}

// IsMissing reports an error for an object the repository does not hold
// (a partial clone's blob, an object lost or pruned).
func IsMissing(err error) bool { return errors.Is(err, plumbing.ErrObjectNotFound) }

// fileContents loads a change's contents and names its language and
// why it is not diffed, if it is not.
func (r *Repo) fileContents(ch change, fc model.FileChange) (_ model.FileChange, oldData, newData []byte, err error) {
	if ch.from.hash == ch.to.hash {
		// A rename, copy or mode change: nothing to diff, but the content
		// names the language, and a renamed or copied file's entities
		// move with it.
		data, err := r.blob(ch.to.hash, r.opts.MaxFileBytes)
		if err != nil {
			return fc, nil, nil, err
		}
		fc.Language = r.language(ch.path, ch.to.hash, data)
		switch {
		case data == nil:
			fc.Skipped = model.SkipHuge
		case isBinary(data):
			fc.Binary, fc.Skipped = true, model.SkipBinary // git counts it "-", as any binary file
		case fc.Skipped == "" && generated(ch.path, fc.Language, data):
			// Its entities were never recorded, so there are none to move.
			fc.Skipped = model.SkipGen
		}
		if fc.Skipped != "" || (ch.status != model.Renamed && ch.status != model.Copied) {
			return fc, nil, nil, nil
		}
		return fc, data, data, nil
	}
	if ch.from.exists() {
		if oldData, err = r.blob(ch.from.hash, r.opts.MaxFileBytes); err != nil {
			return fc, nil, nil, err
		}
	}
	if ch.to.exists() {
		if newData, err = r.blob(ch.to.hash, r.opts.MaxFileBytes); err != nil {
			return fc, nil, nil, err
		}
	}
	// The new version names the language, or the old one when the new is
	// empty or gone: a file emptied or deleted keeps its language, so that
	// the entity stage records its entities' deletion.
	sample, sampleHash := newData, ch.to.hash
	if len(newData) == 0 && len(oldData) > 0 {
		sample, sampleHash = oldData, ch.from.hash
	}
	fc.Language = r.language(ch.path, sampleHash, sample)
	switch {
	case (ch.from.exists() && oldData == nil) || (ch.to.exists() && newData == nil):
		fc.Skipped = model.SkipHuge
	case isBinary(oldData) || isBinary(newData):
		fc.Binary, fc.Skipped = true, model.SkipBinary
	case fc.Skipped == "" && generated(ch.path, fc.Language, sample):
		fc.Skipped = model.SkipGen
	}
	return fc, oldData, newData, nil
}

// generated reports a file a tool wrote, by its name or its first lines.
func generated(path, lang string, content []byte) bool {
	return enry.IsGenerated(path, head(content, 4096)) || generatedHeader(path, lang, content)
}

// blob reads a blob's content, or returns nil without reading it when it
// is larger than limit. Contents are cached by hash: a file's new version
// in one commit is its old version in the next, and go-git would resolve
// its delta chain again.
//
// A blob in a pack is not cached here: the pack reader's offset cache
// holds the same bytes, and a second cache of them by hash doubled what
// stayed live.
func (r *Repo) blob(h plumbing.Hash, limit int64) ([]byte, error) {
	if b, ok := r.blobs.get(h); ok {
		return b, nil
	}
	data, packed, err := r.readObject(plumbing.BlobObject, h, limit)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	if data == nil {
		return nil, nil // larger than limit
	}
	if !packed {
		r.blobs.put(h, data)
	}
	return data, nil
}

// blobTemp is blob for content that is only looked at, not kept: a
// packed blob that is not cached is rebuilt into a buffer the pack reader
// reuses, valid until the next read, and is not cached.
func (r *Repo) blobTemp(h plumbing.Hash, limit int64) ([]byte, error) {
	if r.packs != nil {
		if _, ok := r.blobs.get(h); !ok {
			typ, data, err := r.packs.readTemp(h, limit)
			if err == nil && typ != objBlob {
				err = fmt.Errorf("%s is a %v, not a blob", h, plumbing.ObjectType(typ))
			}
			if !errors.Is(err, errNotInPack) {
				return data, err
			}
		}
	}
	return r.blob(h, limit)
}

// object reads an object's content from the packs, or through go-git for
// a loose or borrowed object. Content larger than limit is not read: it
// returns nil.
func (r *Repo) object(t plumbing.ObjectType, h plumbing.Hash, limit int64) ([]byte, error) {
	data, _, err := r.readObject(t, h, limit)
	return data, err
}

// readObject is object, also saying whether the content came from a pack.
func (r *Repo) readObject(t plumbing.ObjectType, h plumbing.Hash, limit int64) ([]byte, bool, error) {
	if r.packs != nil {
		typ, data, err := r.packs.read(h, limit)
		if err == nil {
			if typ != int(t) {
				return nil, false, fmt.Errorf("%s is a %v, not a %v", h, plumbing.ObjectType(typ), t)
			}
			return data, true, nil
		}
		if !errors.Is(err, errNotInPack) {
			return nil, false, err
		}
	}
	obj, err := r.store.EncodedObject(t, h)
	if err != nil {
		return nil, false, err
	}
	if obj.Size() > limit {
		return nil, false, nil
	}
	data, err := readAll(obj)
	return data, false, err
}

// readAll reads an object's content into a slice of its exact size: a
// bytes.Buffer would double its capacity near the end, and object contents
// are most of what extraction allocates.
func readAll(obj plumbing.EncodedObject) ([]byte, error) {
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data := make([]byte, obj.Size())
	if _, err := io.ReadFull(rd, data); err != nil {
		return nil, err
	}
	return data, nil
}

// isBinary applies git's rule: a NUL byte in the first 8000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(head(data, 8000), 0) >= 0
}

func head(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// language names a file's language with go-enry: from its file name
// where that is unambiguous, else from the first 8 KiB of the blob (a .h
// file is C, C++ or Objective-C by its content; an empty file is none).
// It is a function of the file name and the blob alone, so that every
// sync names a version alike, whatever it saw before (a sync resumed
// after a crash starts from other versions), and a renamed file keeps its
// language. Results are memoised by file name and blob.
func (r *Repo) language(path string, blob plumbing.Hash, content []byte) string {
	name := baseName(path)
	if lang, safe := enry.GetLanguageByFilename(name); safe {
		return lang
	}
	if lang, safe := enry.GetLanguageByExtension(name); safe {
		return lang
	}
	if len(content) == 0 {
		return "" // an empty (or unread, huge) file: nothing to tell C from C++, or Rust from XML
	}
	key := langKey{name, blob}
	if lang, ok := r.langs[key]; ok {
		return lang
	}
	lang := detectLanguage(name, head(content, 8192))
	if len(r.langs) > 1<<16 {
		clear(r.langs)
	}
	r.langs[key] = lang
	return lang
}

// isVendor is enry.IsVendor, memoised by path: its hundred-odd regular
// expressions were 0.7 % of a git/git sync's CPU, run for every file a
// commit changes, most of them changed before.
func (r *Repo) isVendor(path string) bool {
	if v, ok := r.vendor.get(path); ok {
		return v
	}
	v := enry.IsVendor(path)
	r.vendor.put(path, v)
	return v
}

func newVendorCache(max int) *genCache[string, bool] {
	return newCache[string](max, func(bool) int { return 96 }) // a path and its map entry
}

// langKey memoises a language: a file name and a blob.
type langKey struct {
	name string
	blob plumbing.Hash
}

// detectLanguage is go-enry's GetLanguage (its strategies in its order),
// except that a .h file none of whose lines could match go-enry's
// Objective-C or C++ heuristics is C without running them (they cost 1.4
// ms for 8 KiB, and most headers are C), and that the classifier, the last
// resort, reads 1 KiB.
func detectLanguage(name string, content []byte) string {
	if enry.IsBinary(content) {
		return ""
	}
	var langs []string
	for _, strategy := range languageStrategies {
		c := strategy(name, content, langs)
		if len(c) == 1 {
			return c[0]
		}
		if len(c) > 1 {
			langs = c
		}
	}
	for _, l := range langs {
		if l != "" {
			return l
		}
	}
	return ""
}

// languageStrategies are go-enry's DefaultStrategies, content heuristics
// through headerHeuristics and the classifier through shortClassifier.
var languageStrategies = []enry.Strategy{
	enry.GetLanguagesByModeline,
	enry.GetLanguagesByFilename,
	enry.GetLanguagesByShebang,
	enry.GetLanguagesByExtension,
	enry.GetLanguagesByXML,
	enry.GetLanguagesByManpage,
	headerHeuristics,
	shortClassifier,
}

// shortClassifier is go-enry's naive Bayes classifier on the first 1 KiB
// only: it runs when nothing else told the candidates apart (JSON or
// OpenAPI JSON, YAML or MiniYAML), for every version of such a file, and on
// 8 KiB it was most of the language detection's cost.
func shortClassifier(name string, content []byte, candidates []string) []string {
	return enry.GetLanguagesByClassifier(name, head(content, 1024), candidates)
}

// headerHeuristics is enry.GetLanguagesByContent, with its answer for a
// header that cannot be Objective-C or C++ given without the patterns.
func headerHeuristics(name string, content []byte, candidates []string) []string {
	if strings.ToLower(filepath.Ext(name)) == ".h" && !maybeNotC(content) {
		return []string{"C"}
	}
	return enry.GetLanguagesByContent(name, content, candidates)
}

// cppIncludes are the headers go-enry's .h heuristic takes for C++.
var cppIncludes = []string{"cstdint", "string", "vector", "map", "list", "array", "bitset", "queue", "stack",
	"forward_list", "unordered_map", "unordered_set", "istream", "ostream", "iostream"}

// maybeNotC reports whether a header could match go-enry's Objective-C or
// C++ patterns for .h files (go-enry's data/content.go); when it cannot,
// go-enry's answer is C. It may say yes for a plain C header (the
// heuristics then decide); it never says no for one they would not call C.
func maybeNotC(content []byte) bool {
	if bytes.Contains(content, []byte("std::")) || bytes.Contains(content, []byte("__has_cpp_attribute")) ||
		bytes.Contains(content, []byte("__cplusplus")) {
		return true
	}
	for line := range bytes.SplitSeq(content, []byte("\n")) {
		l := bytes.TrimLeft(line, " \t\r\v\f")
		if len(l) == 0 {
			continue
		}
		switch l[0] {
		case '@':
			return true
		case '#':
			d := bytes.TrimLeft(l[1:], " \t\r\v\f")
			if bytes.HasPrefix(d, []byte("import")) {
				return true
			}
			if inc, ok := bytes.CutPrefix(d, []byte("include <")); ok {
				for _, h := range cppIncludes {
					if bytes.HasPrefix(inc, []byte(h+">")) {
						return true
					}
				}
			}
			continue
		}
		for _, kw := range []string{"template", "try", "constexpr", "catch", "class", "namespace", "using",
			"private", "public", "protected"} {
			if bytes.HasPrefix(l, []byte(kw)) {
				return true
			}
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
