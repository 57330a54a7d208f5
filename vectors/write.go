package vectors

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	chromem "github.com/philippgille/chromem-go"
)

// Upsert embeds docs and stores them. For every commit that docs name,
// the documents given replace all that commit's stored documents (its
// commit document and every note), so writing a commit again is
// idempotent and drops notes it no longer has. Docs are embedded and
// appended in steps of Options.BatchSize, each step one synced frame; on
// an error the steps before it are stored.
func (ix *Index) Upsert(ctx context.Context, docs []Doc) error {
	for i := range docs {
		if err := docs[i].check(); err != nil {
			return err
		}
	}
	groups := groupByCommit(docs)
	for lo := 0; lo < len(groups); {
		hi, n := lo, 0
		for hi < len(groups) && (n == 0 || n+len(groups[hi]) <= ix.opts.BatchSize) {
			n += len(groups[hi])
			hi++
		}
		if err := ix.upsertStep(ctx, groups[lo:hi], n); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// groupByCommit groups docs by commit in the order commits first appear;
// of two documents with one ID the later wins.
func groupByCommit(docs []Doc) [][]Doc {
	at := map[string]int{}
	var groups [][]Doc
	for _, d := range docs {
		i, ok := at[d.Commit]
		if !ok {
			i = len(groups)
			at[d.Commit] = i
			groups = append(groups, nil)
		}
		g := groups[i]
		if j := slices.IndexFunc(g, func(o Doc) bool { return o.ID() == d.ID() }); j >= 0 {
			g[j] = d
			continue
		}
		groups[i] = append(g, d)
	}
	return groups
}

func (ix *Index) upsertStep(ctx context.Context, groups [][]Doc, n int) error {
	vecs, err := ix.embedDocs(ctx, groups, n)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.writableLocked(); err != nil {
		return err
	}
	if err := ix.setDimsLocked(len(vecs[0])); err != nil {
		return err
	}
	// Sized up front: a batch's payload runs to megabytes, and growing it
	// by doubling allocated 1 GB over git/git's history.
	enc := encoder{buf: make([]byte, 0, len(vecs)*(4*len(vecs[0])+docOverhead))}
	type added struct {
		commit string
		docs   []chromem.Document
	}
	adds := make([]added, 0, len(groups))
	k := 0
	for _, g := range groups {
		a := added{commit: g[0].Commit}
		for i := range g {
			id, meta := g[i].ID(), g[i].metadata()
			enc.putDoc(id, meta, vecs[k], i == 0) // the first drops what the commit had
			a.docs = append(a.docs, chromem.Document{ID: id, Metadata: meta, Embedding: vecs[k]})
			k++
		}
		adds = append(adds, a)
	}
	if err := ix.appendLocked(enc.frame()); err != nil {
		return err
	}
	mem := ix.mem
	if mem == nil {
		return nil
	}
	mem.mu.Lock()
	defer mem.mu.Unlock()
	for _, a := range adds {
		if err := mem.drop(ctx, a.commit); err != nil {
			return err
		}
		if err := mem.add(ctx, a.commit, a.docs); err != nil {
			return err
		}
	}
	return nil
}

// setDimsLocked records the vectors' size on the first write and checks
// it on every later one.
func (ix *Index) setDimsLocked(dims int) error {
	switch ix.mark.Dims {
	case dims:
		return nil
	case 0:
		m := *ix.mark
		m.Dims = dims
		if err := writeMarker(ix.dir, &m); err != nil {
			return err
		}
		ix.mark = &m
		return nil
	}
	return fmt.Errorf("%w: %s returned %d dimensions, the index holds %d (reset and rebuild it)",
		ErrDimensions, ix.name, dims, ix.mark.Dims)
}

// DeleteCommits removes every document of the given commits (the commit
// and its notes): rewritten commits, or commits a retention policy
// pruned. Commits that are not indexed are ignored, and a directory with
// no index stays without one.
func (ix *Index) DeleteCommits(ctx context.Context, shas ...string) error {
	if len(shas) == 0 {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return ErrClosed
	}
	if ix.log == nil {
		m, err := readMarker(ix.dir)
		if err != nil {
			return rebuildIfCorrupt(err)
		}
		if m == nil {
			return nil
		}
	}
	if err := ix.writableLocked(); err != nil {
		return err
	}
	var enc encoder
	for _, sha := range shas {
		enc.delCommit(sha)
	}
	if err := ix.appendLocked(enc.frame()); err != nil {
		return err
	}
	mem := ix.mem
	if mem == nil {
		return nil
	}
	mem.mu.Lock()
	defer mem.mu.Unlock()
	for _, sha := range shas {
		if err := mem.drop(ctx, sha); err != nil {
			return err
		}
	}
	return nil
}

// compactFrameDocs is the number of documents per frame of a compacted log.
const compactFrameDocs = 512

// Compact loads the index and rewrites its log with only the live
// documents (a new file renamed over the old one), dropping the space of
// deleted and replaced documents. Call it after a rebuild, or when Status
// reports NeedsCompaction.
func (ix *Index) Compact(ctx context.Context) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	mem, err := ix.loadLocked(ctx)
	if err != nil || mem == nil {
		return err
	}
	if err := ix.writableLocked(); err != nil {
		return err
	}
	path := ix.logPath(ix.mark)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+logFile+".tmp*")
	if err != nil {
		return fmt.Errorf("compact vector log: %w", err)
	}
	size, err := writeCompact(mem, tmp)
	if err := renameOver(tmp, path, err); err != nil {
		return fmt.Errorf("compact vector log: %w", err)
	}
	ix.log.Close()
	ix.log, ix.logEnd = tmp, size
	m := *ix.mark
	m.Compacted = size
	if err := writeMarker(ix.dir, &m); err != nil {
		return err
	}
	ix.mark = &m
	return nil
}

// writeCompact writes the live documents to f, commit by commit in hash
// order, and syncs it. It returns the file's size.
func writeCompact(mem *memIndex, f *os.File) (int64, error) {
	commits := make([]string, 0, len(mem.byCommit))
	for c := range mem.byCommit {
		commits = append(commits, c)
	}
	slices.Sort(commits)
	size, err := writeMagic(f)
	if err != nil {
		return 0, err
	}
	var enc encoder
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		frame := enc.frame()
		if _, err := f.WriteAt(frame, size); err != nil {
			return err
		}
		size += int64(len(frame))
		enc.reset()
		n = 0
		return nil
	}
	for _, c := range commits {
		ids := slices.Sorted(slices.Values(mem.byCommit[c]))
		for _, id := range ids {
			d := &mem.docs[mem.pos[id]]
			enc.putDoc(id, d.meta, d.vec, false)
			n++
		}
		if n >= compactFrameDocs {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	return size, f.Sync()
}

// embedDocs embeds the documents of groups (n in all), in order, each
// with its lead added.
func (ix *Index) embedDocs(ctx context.Context, groups [][]Doc, n int) ([][]float32, error) {
	texts := make([]string, 0, 2*n)
	var leads []int // the position of each document's lead in texts, or -1
	for _, g := range groups {
		for i := range g {
			texts = append(texts, clip(g[i].Text, MaxTextBytes))
		}
	}
	for _, g := range groups {
		for i := range g {
			at := -1
			if l := strings.TrimSpace(g[i].Lead); l != "" {
				at = len(texts)
				texts = append(texts, clip(l, MaxTextBytes))
			}
			leads = append(leads, at)
		}
	}
	vecs, err := ix.emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed %d documents: %w", n, err)
	}
	if err := checkVectors(vecs, len(texts), 0); err != nil {
		return nil, fmt.Errorf("embed %d documents: %w", n, err)
	}
	for i, at := range leads {
		if at >= 0 {
			addLead(vecs[i], vecs[at])
		}
	}
	return vecs[:n], nil
}

// addLead adds the unit vector w to the unit vector v (checkVectors
// normalised both) and scales the sum back to unit length. Opposite
// vectors, whose sum is zero, leave v as it was.
func addLead(v, w []float32) {
	sum := slices.Clone(v)
	for i := range sum {
		sum[i] += w[i]
	}
	if normalize(sum) == nil {
		copy(v, sum)
	}
}

// renameOver puts the written file tmp in path's place and syncs the
// directory, unless err (the writing's) or the rename failed: then tmp is
// closed and removed, and path is left as it was.
func renameOver(tmp *os.File, path string, err error) error {
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
	}
	return err
}
