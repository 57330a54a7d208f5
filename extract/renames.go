package extract

import (
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/gitmemory/gitmemory/model"
)

// Rename and copy detection is a port of git's diffcore-rename, so that
// the renames stored are the ones git log -M -C shows and history follows
// a file where git log --follow does: the same candidates, the same
// scores (diffcore-delta's hash, see similarity.go), the same order of
// preference and the same tie-breaks.

// renameSrc is a possible source: a deleted file, or (for copies) a
// modified file's old version. used is git's rename_used: how many
// destinations took it, plus one for a modified file, which stays.
type renameSrc struct {
	c    int // index in the commit's changes
	path string
	from side
	used int
}

// renameDst is an added file, paired with a source (src >= 0) or not.
type renameDst struct {
	c     int
	path  string
	to    side
	src   int
	score int
}

// renameCand is one cell of git's similarity matrix (struct diff_score).
type renameCand struct {
	dst, src, score int
	name            bool // the same file name
}

// candsPerDst is git's NUM_CANDIDATE_PER_DST: only a destination's four
// best sources are kept for the assignment.
const candsPerDst = 4

// renamer scores the pairs of one commit. Each blob is hashed once while
// the repository's signature cache keeps it: a tree's unchanged files are
// the follow sources of commit after commit.
type renamer struct {
	r *Repo
}

func (rn *renamer) sig(h plumbing.Hash) *signature {
	return rn.sigRead(h, rn.r.blob)
}

// sourceSig is sig for a follow source, a file of the parent's tree that
// the commit may not change: its content is only hashed, so it is read
// without being cached (reading those for signatures was 7 % of what
// extraction allocated, and pushed out of the cache what diffs read next).
func (rn *renamer) sourceSig(h plumbing.Hash) *signature {
	return rn.sigRead(h, rn.r.blobTemp)
}

func (rn *renamer) sigRead(h plumbing.Hash, read func(plumbing.Hash, int64) ([]byte, error)) *signature {
	if s, ok := rn.r.sigs.get(h); ok {
		return s
	}
	var s *signature
	if data, err := read(h, rn.r.opts.MaxFileBytes); err == nil && data != nil {
		s = rn.r.hasher.signature(data)
	}
	rn.r.sigs.put(h, s)
	return s
}

// target scores sources against one destination, whose signature goes
// into the repository's table when the first source's size allows a
// score.
type target struct {
	rn *renamer
	to side
}

func (rn *renamer) target(to side) *target {
	return &target{rn: rn, to: to}
}

// estimate is git's estimate_similarity: regular files only (a symbolic
// link is renamed only as an exact match), whose sizes are close enough
// (checked before either is read). A blob too large to read scores 0.
func (t *target) estimate(src side) int {
	if !isRegular(src.mode) || !isRegular(t.to.mode) {
		return 0
	}
	ss, err1 := t.rn.r.blobSize(src.hash)
	ds, err2 := t.rn.r.blobSize(t.to.hash)
	if err1 != nil || err2 != nil || !mayScore(ss, ds) {
		return 0
	}
	return t.similarity(src.hash)
}

// similarity is the score of a source blob against the destination (0 if
// either is too large to read).
func (t *target) similarity(src plumbing.Hash) int {
	tab := t.table()
	if tab == nil {
		return 0
	}
	s := t.rn.sig(src)
	if s == nil {
		return 0
	}
	return tab.score(s)
}

// table is the repository's table loaded with the destination's
// signature, or nil if the destination is too large to read.
func (t *target) table() *sigTable {
	tab := &t.rn.r.table
	if tab.owner != t {
		tab.load(t.rn.sig(t.to.hash))
		tab.owner = t
	}
	if tab.sig == nil {
		return nil
	}
	return tab
}

func isRegular(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated
}

// detectRenames pairs the added files with sources as git's -M -C does:
// exact matches first, then the similarity matrix (skipped above
// RenameLimit² pairs), renames from deleted files before copies. A
// deleted file that a destination took is no longer listed as deleted;
// every destination of one deleted file but the last (in path order) is a
// copy, the last a rename, as in git. With follow, each added file also
// gets the path git log --follow continues with (followSource), found
// among the files of the parent's tree (old; zero without a parent).
func (r *Repo) detectRenames(changes []change, old plumbing.Hash, follow bool) ([]change, error) {
	var dsts []renameDst
	var srcs []renameSrc
	for i, c := range changes {
		if c.from.mode == filemode.Submodule || c.to.mode == filemode.Submodule {
			continue
		}
		switch c.status {
		case model.Added:
			dsts = append(dsts, renameDst{c: i, path: c.path, to: c.to, src: -1})
		case model.Deleted:
			srcs = append(srcs, renameSrc{c: i, path: c.path, from: c.from})
		case model.Modified:
			srcs = append(srcs, renameSrc{c: i, path: c.path, from: c.from, used: 1})
		}
	}
	rn := &renamer{r: r}
	if follow && len(dsts) > 0 && !old.IsZero() {
		if err := rn.follow(changes, dsts, old); err != nil {
			return nil, err
		}
	}
	if len(dsts) == 0 || len(srcs) == 0 {
		return changes, nil
	}
	pair := func(k, j, score int) {
		dsts[k].src, dsts[k].score = j, score
		srcs[j].used++
	}
	for k := range dsts {
		if j := exactSource(srcs, dsts[k], true); j >= 0 {
			pair(k, j, maxScore)
		}
	}
	var todo []int
	for k := range dsts {
		if dsts[k].src < 0 {
			todo = append(todo, k)
		}
	}
	if len(todo) > 0 && len(todo)*len(srcs) <= r.opts.RenameLimit*r.opts.RenameLimit {
		mx := make([]renameCand, candsPerDst*len(todo))
		for i := range mx {
			mx[i].dst = -1
		}
		for t, k := range todo {
			m := mx[candsPerDst*t : candsPerDst*(t+1)]
			dst := rn.target(dsts[k].to)
			for j := range srcs {
				recordIfBetter(m, renameCand{dst: k, src: j, score: dst.estimate(srcs[j].from),
					name: basenameSame(srcs[j].path, dsts[k].path)})
			}
		}
		slices.SortStableFunc(mx, compareCands)
		for _, copies := range []bool{false, true} {
			for _, m := range mx {
				if m.dst < 0 || m.score < minScore {
					break
				}
				if dsts[m.dst].src >= 0 || (!copies && srcs[m.src].used > 0) {
					continue
				}
				pair(m.dst, m.src, m.score)
			}
		}
	}
	drop := map[int]bool{}
	for _, s := range srcs {
		if changes[s.c].status == model.Deleted && s.used > 0 {
			drop[s.c] = true
		}
	}
	for _, d := range dsts {
		if d.src < 0 {
			continue
		}
		s := &srcs[d.src]
		s.used--
		c := &changes[d.c]
		c.status = model.Renamed
		if s.used > 0 {
			c.status = model.Copied
		}
		c.oldPath, c.from, c.similarity = s.path, s.from, similarityIndex(d.score)
	}
	if len(drop) == 0 {
		return changes, nil
	}
	out := changes[:0]
	for i, c := range changes {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

// exactSource is git's find_identical_files: among the sources of the
// destination's blob (of the same mode, unless both are regular files),
// one not taken yet scores a point and one of the same file name another;
// the first of the best wins. Without copies a taken source is no
// candidate. It returns -1 when no source has the blob.
func exactSource(srcs []renameSrc, d renameDst, copies bool) int {
	best, bestScore, tries := -1, -1, 100
	for j, s := range srcs {
		if s.from.hash != d.to.hash {
			continue
		}
		if (!isRegular(s.from.mode) || !isRegular(d.to.mode)) && s.from.mode != d.to.mode {
			continue
		}
		if s.used > 0 && !copies {
			continue
		}
		score := b2i(s.used == 0) + b2i(basenameSame(s.path, d.path))
		if score > bestScore {
			best, bestScore = j, score
			if score == 2 {
				break
			}
		}
		if tries--; tries == 0 {
			break
		}
	}
	return best
}

// compareCands is git's score_compare: unused cells last, then by score,
// then a same-name pair first.
func compareCands(a, b renameCand) int {
	switch {
	case a.dst < 0:
		return b2i(b.dst >= 0)
	case b.dst < 0:
		return -1
	case a.score == b.score:
		return b2i(b.name) - b2i(a.name)
	}
	return b.score - a.score
}

// recordIfBetter is git's record_if_better: the candidate replaces the
// worst of a destination's cells if it is better.
func recordIfBetter(m []renameCand, o renameCand) {
	worst := 0
	for i := 1; i < len(m); i++ {
		if compareCands(m[i], m[worst]) > 0 {
			worst = i
		}
	}
	if compareCands(m[worst], o) > 0 {
		m[worst] = o
	}
}
