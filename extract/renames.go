package extract

import (
	"hash/maphash"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/gitmemory/gitmemory/model"
)

// minScore is git's default rename and copy threshold (-M50%).
const minScore = 50

// detectRenames pairs deleted with added files into renames, then finds
// copies of modified or deleted files among the remaining additions (git's
// -M -C). Exact matches by blob hash come first; similarity scoring is
// skipped when the candidate pairs exceed RenameLimit², as git does.
func (r *Repo) detectRenames(changes []change) []change {
	var added, deleted, modified []int
	for i, c := range changes {
		if c.from.mode == filemode.Submodule || c.to.mode == filemode.Submodule {
			continue
		}
		switch c.status {
		case model.Added:
			added = append(added, i)
		case model.Deleted:
			deleted = append(deleted, i)
		case model.Modified:
			modified = append(modified, i)
		}
	}
	if len(added) == 0 {
		return changes
	}
	drop := map[int]bool{}
	// Renames: a deleted file is the source of at most one rename.
	used := map[int]bool{}
	pair := func(a, d, score int, status model.ChangeStatus) {
		changes[a].status = status
		changes[a].oldPath = changes[d].path
		changes[a].from = changes[d].from
		changes[a].similarity = score
	}
	added = r.matchExact(changes, added, deleted, used, func(a, d int) {
		pair(a, d, 100, model.Renamed)
		drop[d] = true
	})
	if len(added) > 0 && len(deleted)-len(used) > 0 {
		var free []int
		for _, d := range deleted {
			if !used[d] {
				free = append(free, d)
			}
		}
		added = r.matchSimilar(changes, added, free, func(a, d, score int) {
			pair(a, d, score, model.Renamed)
			drop[d] = true
		}, true)
	}
	// Copies: sources are the modified files' old versions and every
	// deleted file, reusable any number of times.
	if len(added) > 0 {
		sources := append(append([]int(nil), modified...), deleted...)
		copyFrom := func(a, s, score int) {
			src := changes[s]
			changes[a].status = model.Copied
			changes[a].oldPath = src.path
			changes[a].from = src.from
			changes[a].similarity = score
		}
		added = r.matchExact(changes, added, sources, nil, func(a, s int) { copyFrom(a, s, 100) })
		r.matchSimilar(changes, added, sources, copyFrom, false)
	}
	if len(drop) == 0 {
		return changes
	}
	out := changes[:0]
	for i, c := range changes {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return out
}

// matchExact pairs additions with sources of the same blob, preferring
// the same file name. With used non-nil a source is used once. It returns
// the additions left unpaired.
func (r *Repo) matchExact(changes []change, added, sources []int, used map[int]bool, pair func(a, s int)) []int {
	byHash := map[plumbing.Hash][]int{}
	for _, s := range sources {
		h := changes[s].from.hash
		byHash[h] = append(byHash[h], s)
	}
	var left []int
	for _, a := range added {
		best := -1
		for _, s := range byHash[changes[a].to.hash] {
			if used != nil && used[s] {
				continue
			}
			if best < 0 || baseName(changes[s].path) == baseName(changes[a].path) {
				best = s
			}
		}
		if best < 0 {
			left = append(left, a)
			continue
		}
		if used != nil {
			used[best] = true
		}
		pair(a, best)
	}
	return left
}

// matchSimilar scores every addition against every source and pairs the
// best first, as git's diffcore-rename does. Exclusive means a source is
// used once (renames); copies may reuse sources.
func (r *Repo) matchSimilar(changes []change, added, sources []int, pair func(a, s, score int), exclusive bool) []int {
	if len(added) == 0 || len(sources) == 0 || len(added)*len(sources) > r.opts.RenameLimit*r.opts.RenameLimit {
		return added
	}
	type cand struct{ a, s, score int }
	var cands []cand
	sigs := map[plumbing.Hash]*signature{}
	sig := func(h plumbing.Hash) *signature {
		if s, ok := sigs[h]; ok {
			return s
		}
		var s *signature
		if data, err := r.blob(h, r.opts.MaxFileBytes); err == nil && data != nil {
			s = newSignature(data)
		}
		sigs[h] = s
		return s
	}
	for _, a := range added {
		sa := sig(changes[a].to.hash)
		if sa == nil {
			continue
		}
		for _, s := range sources {
			ss := sig(changes[s].from.hash)
			if ss == nil {
				continue
			}
			if score := similarity(ss, sa); score >= minScore {
				cands = append(cands, cand{a, s, score})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	doneA, doneS := map[int]bool{}, map[int]bool{}
	for _, c := range cands {
		if doneA[c.a] || (exclusive && doneS[c.s]) {
			continue
		}
		doneA[c.a], doneS[c.s] = true, true
		pair(c.a, c.s, c.score)
	}
	var left []int
	for _, a := range added {
		if !doneA[a] {
			left = append(left, a)
		}
	}
	return left
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// signature is git's diffcore-delta fingerprint: content cut into lines
// (and 64-byte pieces of long lines), each hashed and counted by bytes.
type signature struct {
	size   int
	chunks map[uint64]int
}

var seed = maphash.MakeSeed()

func newSignature(data []byte) *signature {
	s := &signature{size: len(data), chunks: map[uint64]int{}}
	start := 0
	for i := 0; i < len(data); i++ {
		if data[i] == '\n' || i-start+1 == 64 {
			s.chunks[maphash.Bytes(seed, data[start:i+1])] += i + 1 - start
			start = i + 1
		}
	}
	if start < len(data) {
		s.chunks[maphash.Bytes(seed, data[start:])] += len(data) - start
	}
	return s
}

// similarity is the percentage of the larger file's bytes found in both.
func similarity(src, dst *signature) int {
	big := max(src.size, dst.size)
	if big == 0 {
		return 100
	}
	small := min(src.size, dst.size)
	if small*100 < big*minScore {
		return 0 // too different in size to reach the threshold
	}
	copied := 0
	for h, n := range dst.chunks {
		copied += min(n, src.chunks[h])
	}
	return copied * 100 / big
}
