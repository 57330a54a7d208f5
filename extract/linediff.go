package extract

import (
	"bytes"
	"hash/maphash"
	"math"
	"sync"

	"github.com/gitmemory/gitmemory/model"
)

// This file implements a line diff that reproduces git's default diff
// output (xdiff's Myers variant with its preprocessing, its cost
// heuristics, its change sliding and the indent heuristic that git enables
// by default since 2.14), so that hunks and line counts agree with
// `git diff`/`git log -p` and `--numstat`.
//
// The pipeline is:
//
//  1. find the common prefix and suffix lines by comparing bytes, and split
//     into lines only what lies between them plus a margin (a line keeps
//     its '\n', so a final line without one never equals a line with one,
//     as in git); other lines are split on first use;
//  2. give every middle line an integer class through a hash table; if the
//     two middle parts share no line, all of them is changed and the rest
//     of the files is never looked at; otherwise count how often each
//     class occurs in each whole file;
//  3. drop from the Myers problem the lines that cannot or should not be
//     matched (no occurrence on the other side, or a very frequent line in
//     a run of unmatchable lines), exactly like xdiff does;
//  4. run the linear-space, divide-and-conquer Myers algorithm on the
//     remaining class ids, with xdiff's cost cap so that pathological inputs
//     stay fast (the result then is a valid, possibly non-minimal, diff);
//  5. slide groups of changes up/down to merge them, to align them with
//     changes in the other file, or else as the indent heuristic prefers;
//  6. emit unified-diff hunks.

// Tuning constants of the Myers search (same values as git's xdiff).
const (
	ldMaxCostMin  = 256 // lower bound of the cost cap of one split
	ldHeurMinCost = 256 // cost above which the snake heuristic may cut a split
	ldSnakeCnt    = 20  // length of a snake considered "good"
	ldKHeur       = 4   // weight of the snake heuristic
)

// Preprocessing constants (same values as git's xdiff).
const (
	ldMaxEqLimit    = 1024 // cap of the "too many matches" threshold
	ldSimScanWindow = 100  // lines looked at around a frequent line
	ldKpDisRun      = 4    // ratio deciding whether a frequent line is dropped
)

// Indent heuristic constants (same values as git's xdiff).
const (
	ldMaxIndent           = 200
	ldMaxBlanks           = 20
	ldStartOfFilePenalty  = 1
	ldEndOfFilePenalty    = 21
	ldTotalBlankWeight    = -30
	ldPostBlankWeight     = 6
	ldRelIndentPenalty    = -4
	ldRelIndentBlankPen   = 10
	ldRelOutdentPenalty   = 24
	ldRelOutdentBlankPen  = 17
	ldRelDedentPenalty    = 23
	ldRelDedentBlankPen   = 17
	ldIndentWeight        = 60
	ldIndentMaxSliding    = 100
	ldNoNewlineMarker     = "\n\\ No newline at end of file\n"
	ldCommonTailBlockSize = 1024
)

// DiffLines compares two file contents line by line and returns unified-diff
// hunks with `context` lines of context (git's default is 3), plus the counts
// of inserted and deleted lines exactly as `git diff --numstat` reports them.
//
// The output reproduces git's default (Myers) diff, including the indent
// heuristic, so Text and the hunk positions normally equal what
// `git diff -U<context>` prints. Hunk.Text holds the lines after the @@
// header, each prefixed by ' ', '-' or '+' and terminated by '\n', followed
// by git's "\ No newline at end of file" line where it applies. A start is
// the line before the hunk when its count is 0, as in git's headers.
//
// With context 0, like git with -U0, identical trailing 1 KiB blocks are cut
// off before diffing; the counts then are those of `git diff -U0 --numstat`,
// which in rare cases differ from the default-context numstat.
//
// Identical inputs give no hunks. The inputs are not modified or retained.
func DiffLines(old, new []byte, context int) (hunks []model.Hunk, insertions, deletions int) {
	if bytes.Equal(old, new) {
		return nil, 0, 0
	}
	context = min(max(context, 0), 1<<30)
	if context == 0 {
		old, new = ldTrimCommonTail(old, new)
	}
	d := ldDifferPool.Get().(*ldDiffer)
	d.a.load(old)
	d.b.load(new)
	d.run()
	hunks, insertions, deletions = d.emit(context)
	d.release()
	return hunks, insertions, deletions
}

// ldTrimCommonTail drops the identical trailing 1 KiB blocks of both inputs,
// keeping whole lines, as git does before diffing without context.
func ldTrimCommonTail(a, b []byte) ([]byte, []byte) {
	smaller := min(len(a), len(b))
	trimmed := 0
	for trimmed+ldCommonTailBlockSize <= smaller &&
		bytes.Equal(a[len(a)-trimmed-ldCommonTailBlockSize:len(a)-trimmed],
			b[len(b)-trimmed-ldCommonTailBlockSize:len(b)-trimmed]) {
		trimmed += ldCommonTailBlockSize
	}
	recovered := 0
	base := len(a) - trimmed
	for recovered < trimmed {
		c := a[base+recovered]
		recovered++
		if c == '\n' {
			break
		}
	}
	cut := trimmed - recovered
	return a[:len(a)-cut], b[:len(b)-cut]
}

// ldBogoSqrt is xdiff's rough integer square root (a power of two).
func ldBogoSqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

// ldSide is one of the two files being compared.
type ldSide struct {
	data []byte
	n    int // number of lines
	// Line offsets are computed for a window of lines [lo, hi) only: line
	// i is data[off[i-lo]:off[i-lo+1]]. Touching a line outside the window
	// splits the whole file.
	lo, hi int
	off    []int
	spare  []int // buffer for widening off

	// ids holds the class of line idLo+k at k, for the lines that were in
	// the window when classifying (-1: a prefix/suffix line equal to no
	// middle line). Empty when no classification was needed.
	ids  []int32
	idLo int
	// chg marks changed lines with 1; line i is chg[i+1], chg[0] and
	// chg[n+1] are always-0 sentinels.
	chg []byte
	// The reduced sequence handed to Myers: class ids and line indexes of
	// the middle lines that were kept.
	rha    []int32
	rindex []int32
	// dis classifies each middle line: 0 no match on the other side,
	// 1 some matches, 2 many matches.
	dis []uint8
}

func (s *ldSide) load(data []byte) {
	s.data = data
	s.n, s.lo, s.hi = 0, 0, 0
	s.off = s.off[:0]
	s.ids = s.ids[:0]
	s.rha = s.rha[:0]
	s.rindex = s.rindex[:0]
}

// split computes the offsets of the lines starting at byte pos (the start
// of line lo): first the lines beginning before byte stop, then up to extra
// more. It returns the number of lines beginning before stop.
func (s *ldSide) split(lo, pos, stop, extra int) int {
	off := s.off[:0]
	mid := 0
	for pos < stop || (extra > 0 && pos < len(s.data)) {
		if pos < stop {
			mid++
		} else {
			extra--
		}
		off = append(off, pos)
		j := bytes.IndexByte(s.data[pos:], '\n')
		if j < 0 {
			pos = len(s.data)
		} else {
			pos += j + 1
		}
	}
	s.off = append(off, pos)
	s.lo, s.hi = lo, lo+len(off)
	return mid
}

// splitAll widens the line window to the whole file.
func (s *ldSide) splitAll() {
	if s.lo == 0 && s.hi == s.n {
		return
	}
	all := s.spare[:0]
	for pos := 0; pos < s.off[0]; { // lines before the window
		all = append(all, pos)
		pos += bytes.IndexByte(s.data[pos:], '\n') + 1
	}
	all = append(all, s.off[:len(s.off)-1]...)
	for pos := s.off[len(s.off)-1]; pos < len(s.data); { // lines after it
		all = append(all, pos)
		j := bytes.IndexByte(s.data[pos:], '\n')
		if j < 0 {
			pos = len(s.data)
		} else {
			pos += j + 1
		}
	}
	all = append(all, len(s.data))
	s.spare, s.off = s.off, all
	s.lo, s.hi = 0, len(all)-1
}

func (s *ldSide) line(i int) []byte {
	if i < s.lo || i >= s.hi {
		s.splitAll()
	}
	k := i - s.lo
	return s.data[s.off[k]:s.off[k+1]]
}

// nextChanged returns the first changed line at or after p, or n.
func (s *ldSide) nextChanged(p int) int {
	if p >= s.n {
		return s.n
	}
	if i := bytes.IndexByte(s.chg[p+1:s.n+1], 1); i >= 0 {
		return p + i
	}
	return s.n
}

// same reports whether lines i and j of this file are equal.
func (s *ldSide) same(i, j int) bool {
	i2, j2 := i-s.idLo, j-s.idLo
	if uint(i2) < uint(len(s.ids)) && uint(j2) < uint(len(s.ids)) {
		x, y := s.ids[i2], s.ids[j2]
		if x != y {
			return false
		}
		if x >= 0 {
			return true
		}
	}
	return bytes.Equal(s.line(i), s.line(j))
}

type ldChange struct{ i1, i2, c1, c2 int }

// ldDiffer holds the reusable working memory of one diff.
type ldDiffer struct {
	a, b ldSide
	// Line classes: a representative of each distinct middle line and
	// its number of occurrences in the old and the new file.
	reps    [][]byte
	cnt     [][2]int32
	slots   []uint64 // hash table: high 32 bits of the hash, class index+1
	kvf     []int    // forward furthest-reaching paths, by diagonal
	kvb     []int    // backward furthest-reaching paths, by diagonal
	kz      int      // index of diagonal 0 in kvf/kvb
	mxcost  int
	changes []ldChange
	// Byte offsets in the old file of the first line after the common
	// prefix and of the first line of the common suffix.
	preOff, sufOff int
	text           []byte
}

var (
	ldDifferPool = sync.Pool{New: func() any { return new(ldDiffer) }}
	ldLineSeed   = maphash.MakeSeed()
)

// release drops references to the inputs and returns d to the pool unless
// it grew very large.
func (d *ldDiffer) release() {
	d.a.data, d.b.data = nil, nil
	clear(d.reps)
	d.reps = d.reps[:0]
	d.cnt = d.cnt[:0]
	// Do not keep the buffers of very large inputs alive.
	const maxLines = 1 << 20
	for _, s := range [2]*ldSide{&d.a, &d.b} {
		if cap(s.off) > maxLines || cap(s.spare) > maxLines || cap(s.ids) > maxLines || cap(s.chg) > maxLines {
			return
		}
	}
	if cap(d.text) > 1<<24 || cap(d.kvf) > 2*maxLines || cap(d.slots) > 2*maxLines {
		return
	}
	ldDifferPool.Put(d)
}

func ldGrowInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n, n+n/4)
	}
	return s[:n]
}

func ldGrowInt32s(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/4)
	}
	return s[:n]
}

func ldGrowBytes(s []byte, n int) []byte {
	if cap(s) < n {
		return make([]byte, n, n+n/4)
	}
	return s[:n]
}

// ldWindowMargin is how many common lines around the changed middle are
// split up front; hunk context and change sliding rarely need more.
const ldWindowMargin = 64

var ldNL = []byte{'\n'}

// run computes the changed lines of both files.
func (d *ldDiffer) run() {
	a, b := &d.a, &d.b
	pre, suf := d.prepare()
	end1, end2 := a.n-suf, b.n-suf // exclusive ends of the middle parts
	a.chg = ldGrowBytes(a.chg, a.n+2)
	clear(a.chg)
	b.chg = ldGrowBytes(b.chg, b.n+2)
	clear(b.chg)

	if pre == end1 || pre == end2 || !d.classify(pre, end1, end2) {
		// Nothing in the middle parts can be matched (pure insertion or
		// deletion, or no line in common): all of it is changed.
		a.ids, b.ids = a.ids[:0], b.ids[:0]
		for i := pre; i < end1; i++ {
			a.chg[i+1] = 1
		}
		for i := pre; i < end2; i++ {
			b.chg[i+1] = 1
		}
	} else {
		d.reduce(a, pre, end1, 1)
		d.reduce(b, pre, end2, 0)
		d.myers()
	}

	d.compact(a, b)
	d.compact(b, a)
}

// prepare counts the lines of the common prefix and suffix, as xdiff trims
// them (the suffix never overlaps the prefix), sets both line counts, and
// splits the middle lines plus a margin around them. It works on bytes so
// that large unchanged regions cost little more than a memory comparison.
func (d *ldDiffer) prepare() (pre, suf int) {
	a, b := &d.a, &d.b
	x, y := a.data, b.data

	p := ldCommonPrefix(x, y)
	preOff := bytes.LastIndexByte(x[:p], '\n') + 1 // start of line pre
	pre = bytes.Count(x[:preOff], ldNL)

	// Suffix lines: whole lines inside the common tail of what follows
	// the prefix, starting at a line start in both files.
	x2, y2 := x[preOff:], y[preOff:]
	start := len(x2) // start of the first suffix line in x2
	if s := ldCommonSuffix(x2, y2); s > 0 {
		q, qy := len(x2)-s, len(y2)-s
		suf = bytes.Count(x2[q:len(x2)-1], ldNL)
		if (q == 0 || x2[q-1] == '\n') && (qy == 0 || y2[qy-1] == '\n') {
			suf++
			start = q
		} else if suf > 0 {
			start = q + bytes.IndexByte(x2[q:], '\n') + 1
		}
	}
	startY := start + len(y2) - len(x2)

	lo := max(0, pre-ldWindowMargin)
	loOff := preOff
	for k := lo; k < pre; k++ {
		loOff = bytes.LastIndexByte(x[:loOff-1], '\n') + 1
	}
	extra := min(suf, ldWindowMargin)
	d.preOff, d.sufOff = preOff, preOff+start
	a.n = lo + a.split(lo, loOff, preOff+start, extra) + suf
	b.n = lo + b.split(lo, loOff, preOff+startY, extra) + suf
	return pre, suf
}

// ldCommonPrefix returns the length of the longest common prefix of x and y.
func ldCommonPrefix(x, y []byte) int {
	n := min(len(x), len(y))
	i := 0
	for i+256 <= n && bytes.Equal(x[i:i+256], y[i:i+256]) {
		i += 256
	}
	for i+16 <= n && bytes.Equal(x[i:i+16], y[i:i+16]) {
		i += 16
	}
	for i < n && x[i] == y[i] {
		i++
	}
	return i
}

// ldCommonSuffix returns the length of the longest common suffix of x and y.
func ldCommonSuffix(x, y []byte) int {
	n := min(len(x), len(y))
	lx, ly := len(x), len(y)
	i := 0
	for i+256 <= n && bytes.Equal(x[lx-i-256:lx-i], y[ly-i-256:ly-i]) {
		i += 256
	}
	for i+16 <= n && bytes.Equal(x[lx-i-16:lx-i], y[ly-i-16:ly-i]) {
		i += 16
	}
	for i < n && x[lx-i-1] == y[ly-i-1] {
		i++
	}
	return i
}

// classify assigns class ids: middle lines are inserted in the table, the
// common prefix and suffix lines are only looked up (they matter only for
// the occurrence counts of middle classes and for equality tests). It
// returns false, leaving the prefix and suffix unclassified, when the two
// middle parts have no line in common.
func (d *ldDiffer) classify(pre, end1, end2 int) bool {
	a, b := &d.a, &d.b
	m := (end1 - pre) + (end2 - pre)
	size := 16
	for size < 2*m {
		size <<= 1
	}
	if cap(d.slots) < size {
		d.slots = make([]uint64, size)
	} else {
		d.slots = d.slots[:size]
		clear(d.slots)
	}
	a.ids, a.idLo = ldGrowInt32s(a.ids, a.hi-a.lo), a.lo
	b.ids, b.idLo = ldGrowInt32s(b.ids, b.hi-b.lo), b.lo

	// sigs has the signature bit of every middle line: a prefix or suffix
	// line with another signature cannot be of a middle class and needs no
	// lookup.
	var sigs [64]uint64
	for i := pre; i < end1; i++ {
		l := a.line(i)
		k := ldSignature(l)
		sigs[k>>6] |= 1 << (k & 63)
		a.ids[i-a.lo] = d.class(l, 0, true)
	}
	shared := false
	for i := pre; i < end2; i++ {
		l := b.line(i)
		k := ldSignature(l)
		sigs[k>>6] |= 1 << (k & 63)
		id := d.class(l, 1, true)
		b.ids[i-b.lo] = id
		shared = shared || d.cnt[id][0] > 0
	}
	if !shared {
		return false
	}

	// Prefix and suffix lines are the same in both files: scan them once,
	// in the old file, counting them for both. Those inside the window get
	// their ids recorded.
	data := a.data
	pos, i := 0, 0
	for _, end := range [2]int{d.preOff, len(data)} {
		for pos < end {
			e := end
			if j := bytes.IndexByte(data[pos:end], '\n'); j >= 0 {
				e = pos + j + 1
			}
			id := int32(-1)
			if k := ldSignature(data[pos:e]); sigs[k>>6]&(1<<(k&63)) != 0 {
				id = d.class(data[pos:e], 2, false)
			}
			if k := i - a.lo; k >= 0 && k < len(a.ids) {
				a.ids[k] = id
			}
			if i >= end1 { // suffix: line i-end1+end2 of the new file
				if k := i - end1 + end2 - b.lo; k < len(b.ids) {
					b.ids[k] = id
				}
			} else if k := i - b.lo; k >= 0 {
				b.ids[k] = id
			}
			pos = e
			i++
		}
		pos, i = d.sufOff, end1
	}
	return true
}

// ldSignature is a cheap 12-bit digest of a (non-empty) line: its length
// and two of its bytes.
func ldSignature(l []byte) uint {
	n := uint(len(l))
	return (n*131 + uint(l[n/2])*31 + uint(l[n/4])) & 4095
}

// class returns the class of line l and counts one occurrence of it in
// file which (0 old, 1 new, 2 both). A line of no known class is added
// when insert is set; otherwise -1 is returned.
func (d *ldDiffer) class(l []byte, which int, insert bool) int32 {
	h := maphash.Bytes(ldLineSeed, l)
	tag := h &^ (1<<32 - 1)
	mask := uint64(len(d.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		e := d.slots[k]
		if e == 0 {
			if !insert {
				return -1
			}
			d.reps = append(d.reps, l)
			d.cnt = append(d.cnt, [2]int32{})
			id := int32(len(d.reps) - 1)
			d.slots[k] = tag | uint64(id+1)
			d.cnt[id][which]++
			return id
		}
		if e&^(1<<32-1) == tag {
			id := int32(uint32(e)) - 1
			if bytes.Equal(d.reps[id], l) {
				if which == 2 {
					d.cnt[id][0]++
					d.cnt[id][1]++
				} else {
					d.cnt[id][which]++
				}
				return id
			}
		}
	}
}

// reduce decides which middle lines of s take part in the Myers search;
// the others are marked changed up front. other is the index of the other
// file in the class counts.
func (d *ldDiffer) reduce(s *ldSide, start, end, other int) {
	mlim := min(ldBogoSqrt(s.n), ldMaxEqLimit)
	m := end - start
	if cap(s.dis) < m {
		s.dis = make([]uint8, m)
	}
	dis := s.dis[:m]
	for i := range dis {
		nm := int(d.cnt[s.ids[start+i-s.idLo]][other])
		switch {
		case nm == 0:
			dis[i] = 0
		case nm >= mlim:
			dis[i] = 2
		default:
			dis[i] = 1
		}
	}
	rha := ldGrowInt32s(s.rha, m)
	rindex := ldGrowInt32s(s.rindex, m)
	nr := 0
	for i := range dis {
		if dis[i] == 1 || (dis[i] == 2 && !ldCleanMultiMatch(dis, i, 0, m-1)) {
			rha[nr] = s.ids[start+i-s.idLo]
			rindex[nr] = int32(start + i)
			nr++
		} else {
			s.chg[start+i+1] = 1
		}
	}
	s.rha, s.rindex = rha[:nr], rindex[:nr]
}

// ldCleanMultiMatch reports whether a frequent line (dis[i] == 2) sits in a
// run made mostly of unmatched lines and should be dropped.
func ldCleanMultiMatch(dis []uint8, i, s, e int) bool {
	if i-s > ldSimScanWindow {
		s = i - ldSimScanWindow
	}
	if e-i > ldSimScanWindow {
		e = i + ldSimScanWindow
	}
	var noBefore, noAfter int
	multiBefore, multiAfter := 1, 1
	for r := 1; i-r >= s; r++ {
		if dis[i-r] == 0 {
			noBefore++
		} else if dis[i-r] == 2 {
			multiBefore++
		} else {
			break
		}
	}
	if noBefore == 0 {
		return false
	}
	for r := 1; i+r <= e; r++ {
		if dis[i+r] == 0 {
			noAfter++
		} else if dis[i+r] == 2 {
			multiAfter++
		} else {
			break
		}
	}
	if noAfter == 0 {
		return false
	}
	no := noBefore + noAfter
	multi := multiBefore + multiAfter
	return multi*ldKpDisRun < multi+no
}

// myers marks the changed lines among the reduced sequences.
func (d *ldDiffer) myers() {
	n1, n2 := len(d.a.rha), len(d.b.rha)
	ndiags := n1 + n2 + 3
	d.kvf = ldGrowInts(d.kvf, ndiags)
	d.kvb = ldGrowInts(d.kvb, ndiags)
	d.kz = n2 + 1
	d.mxcost = max(ldBogoSqrt(ndiags), ldMaxCostMin)
	d.compare(0, n1, 0, n2, false)
}

// compare is the divide-and-conquer step: shrink the box by its diagonal
// ends, then split it at a middle snake and recurse.
func (d *ldDiffer) compare(off1, lim1, off2, lim2 int, needMin bool) {
	ha1, ha2 := d.a.rha, d.b.rha
	for {
		for off1 < lim1 && off2 < lim2 && ha1[off1] == ha2[off2] {
			off1++
			off2++
		}
		for off1 < lim1 && off2 < lim2 && ha1[lim1-1] == ha2[lim2-1] {
			lim1--
			lim2--
		}
		if off1 == lim1 {
			for ; off2 < lim2; off2++ {
				d.b.chg[d.b.rindex[off2]+1] = 1
			}
			return
		}
		if off2 == lim2 {
			for ; off1 < lim1; off1++ {
				d.a.chg[d.a.rindex[off1]+1] = 1
			}
			return
		}
		i1, i2, minLo, minHi := d.split(off1, lim1, off2, lim2, needMin)
		d.compare(off1, i1, off2, i2, minLo)
		off1, off2, needMin = i1, i2, minHi
	}
}

// split finds the point where a forward and a backward furthest-reaching
// path meet (the middle snake), or, past the cost cap, a good enough point.
// minLo/minHi tell whether the two halves still need a minimal diff.
func (d *ldDiffer) split(off1, lim1, off2, lim2 int, needMin bool) (s1, s2 int, minLo, minHi bool) {
	ha1, ha2 := d.a.rha, d.b.rha
	kf, kb, z := d.kvf, d.kvb, d.kz
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid

	kf[z+fmid] = off1
	kb[z+bmid] = lim1
	fwd1, fwd2 := ha1[:lim1], ha2[:lim2]         // forward snakes end below lim
	bwd1, bwd2 := ha1[off1:lim1], ha2[off2:lim2] // backward snakes end above off

	for ec := 1; ; ec++ {
		// Forward pass.
		if fmin > dmin {
			fmin--
			kf[z+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			kf[z+fmax+1] = -1
		} else {
			fmax--
		}
		gotSnake := ldForwardPass(kf[z+fmin-1:z+fmax+2], fwd1, fwd2, fmin-1)
		if odd {
			// Does a forward path overlap a backward one?
			lo, hi := max(fmin, bmin), min(fmax, bmax)
			if (fmax-hi)&1 != 0 {
				hi--
			}
			for k := hi; k >= lo; k -= 2 {
				if i1 := kf[z+k]; kb[z+k] <= i1 {
					return i1, i1 - k, true, true
				}
			}
		}

		// Backward pass.
		if bmin > dmin {
			bmin--
			kb[z+bmin-1] = math.MaxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			kb[z+bmax+1] = math.MaxInt
		} else {
			bmax--
		}
		if ldBackwardPass(kb[z+bmin-1:z+bmax+2], bwd1, bwd2, bmin-1, off1, off2) {
			gotSnake = true
		}
		if !odd {
			lo, hi := max(fmin, bmin), min(fmax, bmax)
			if (bmax-hi)&1 != 0 {
				hi--
			}
			for k := hi; k >= lo; k -= 2 {
				if i1 := kb[z+k]; i1 <= kf[z+k] {
					return i1, i1 - k, true, true
				}
			}
		}

		if needMin {
			continue
		}

		// Past a moderate cost, accept a diagonal that went far and ends
		// in a long snake.
		if gotSnake && ec > ldHeurMinCost {
			best := 0
			for k := fmax; k >= fmin; k -= 2 {
				dd := k - fmid
				if dd < 0 {
					dd = -dd
				}
				i1 := kf[z+k]
				i2 := i1 - k
				v := (i1 - off1) + (i2 - off2) - dd
				if v > ldKHeur*ec && v > best &&
					off1+ldSnakeCnt <= i1 && i1 < lim1 &&
					off2+ldSnakeCnt <= i2 && i2 < lim2 {
					for j := 1; ha1[i1-j] == ha2[i2-j]; j++ {
						if j == ldSnakeCnt {
							best = v
							s1, s2 = i1, i2
							break
						}
					}
				}
			}
			if best > 0 {
				return s1, s2, true, false
			}
			for k := bmax; k >= bmin; k -= 2 {
				dd := k - bmid
				if dd < 0 {
					dd = -dd
				}
				i1 := kb[z+k]
				i2 := i1 - k
				v := (lim1 - i1) + (lim2 - i2) - dd
				if v > ldKHeur*ec && v > best &&
					off1 < i1 && i1 <= lim1-ldSnakeCnt &&
					off2 < i2 && i2 <= lim2-ldSnakeCnt {
					for j := 0; ha1[i1+j] == ha2[i2+j]; j++ {
						if j == ldSnakeCnt-1 {
							best = v
							s1, s2 = i1, i2
							break
						}
					}
				}
			}
			if best > 0 {
				return s1, s2, false, true
			}
		}

		// Cost cap reached: take the furthest-reaching path.
		if ec >= d.mxcost {
			fbest, fbest1 := -1, -1
			for k := fmax; k >= fmin; k -= 2 {
				i1 := min(kf[z+k], lim1)
				i2 := i1 - k
				if lim2 < i2 {
					i1 = lim2 + k
					i2 = lim2
				}
				if fbest < i1+i2 {
					fbest = i1 + i2
					fbest1 = i1
				}
			}
			bbest, bbest1 := math.MaxInt, math.MaxInt
			for k := bmax; k >= bmin; k -= 2 {
				i1 := max(off1, kb[z+k])
				i2 := i1 - k
				if i2 < off2 {
					i1 = off2 + k
					i2 = off2
				}
				if i1+i2 < bbest {
					bbest = i1 + i2
					bbest1 = i1
				}
			}
			if (lim1+lim2)-bbest < fbest-(off1+off2) {
				return fbest1, fbest - fbest1, true, false
			}
			return bbest1, bbest - bbest1, false, true
		}
	}
}

// ldForwardPass extends the forward furthest-reaching paths by one edit on
// every other diagonal. w holds the diagonals k0 .. k0+len(w)-1 (the two
// outer ones are only read); h1 and h2 end at the box's lower right corner.
// It reports whether a long snake was followed.
func ldForwardPass(w []int, h1, h2 []int32, k0 int) bool {
	got := false
	for j := len(w) - 2; j >= 1; j -= 2 {
		i1 := w[j+1]
		if w[j-1] >= i1 {
			i1 = w[j-1] + 1
		}
		prev := i1
		i2 := i1 - (k0 + j)
		for uint(i1) < uint(len(h1)) && uint(i2) < uint(len(h2)) && h1[i1] == h2[i2] {
			i1++
			i2++
		}
		if i1-prev > ldSnakeCnt {
			got = true
		}
		w[j] = i1
	}
	return got
}

// ldBackwardPass is ldForwardPass for the backward paths; t1 and t2 start
// at the box's upper left corner (off1, off2).
func ldBackwardPass(w []int, t1, t2 []int32, k0, off1, off2 int) bool {
	got := false
	for j := len(w) - 2; j >= 1; j -= 2 {
		i1 := w[j-1]
		if i1 >= w[j+1] {
			i1 = w[j+1] - 1
		}
		prev := i1
		// Walk back while the lines before (i1, i1-k) match.
		x, y := i1-1-off1, i1-(k0+j)-1-off2
		for uint(x) < uint(len(t1)) && uint(y) < uint(len(t2)) && t1[x] == t2[y] {
			x--
			y--
		}
		i1 = x + 1 + off1
		if prev-i1 > ldSnakeCnt {
			got = true
		}
		w[j] = i1
	}
	return got
}

// ldGroup is a run [start, end) of changed lines in one file; an empty group
// (start == end) sits just above line start.
type ldGroup struct{ start, end int }

func (s *ldSide) groupInit(g *ldGroup) {
	g.start, g.end = 0, 0
	for s.chg[g.end+1] != 0 {
		g.end++
	}
}

// groupAt sets g to the group that begins at line p.
func (s *ldSide) groupAt(g *ldGroup, p int) {
	g.start, g.end = p, p
	for s.chg[g.end+1] != 0 {
		g.end++
	}
}

func (s *ldSide) groupNext(g *ldGroup) bool {
	if g.end == s.n {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for s.chg[g.end+1] != 0 {
		g.end++
	}
	return true
}

func (s *ldSide) groupPrev(g *ldGroup) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for s.chg[g.start] != 0 { // line start-1
		g.start--
	}
	return true
}

func (s *ldSide) slideDown(g *ldGroup) bool {
	if g.end < s.n && s.same(g.start, g.end) {
		s.chg[g.start+1] = 0
		g.start++
		s.chg[g.end+1] = 1
		g.end++
		for s.chg[g.end+1] != 0 {
			g.end++
		}
		return true
	}
	return false
}

func (s *ldSide) slideUp(g *ldGroup) bool {
	if g.start > 0 && s.same(g.start-1, g.end-1) {
		g.start--
		s.chg[g.start+1] = 1
		g.end--
		s.chg[g.end+1] = 0
		for s.chg[g.start] != 0 {
			g.start--
		}
		return true
	}
	return false
}

// compact slides the groups of changed lines of x, keeping o (the other
// file) in step: groups that can move are merged with neighbours, aligned
// with a change in the other file when possible, and otherwise placed
// where the indent heuristic likes them best.
func (d *ldDiffer) compact(x, o *ldSide) {
	var g, gO ldGroup
	x.groupInit(&g)
	o.groupInit(&gO)
	for {
		if g.start == g.end && gO.start == gO.end {
			// Jump over lines that are unchanged in both files.
			if k := min(x.nextChanged(g.end)-g.end, o.nextChanged(gO.end)-gO.end); k > 0 {
				x.groupAt(&g, g.end+k)
				o.groupAt(&gO, gO.end+k)
			}
		}
		if g.end != g.start {
			var size, earliestEnd int
			endMatchingOther := -1
			for {
				size = g.end - g.start
				endMatchingOther = -1
				for x.slideUp(&g) {
					if !o.groupPrev(&gO) {
						return // out of sync; cannot happen
					}
				}
				earliestEnd = g.end
				if gO.end > gO.start {
					endMatchingOther = g.end
				}
				for x.slideDown(&g) {
					if !o.groupNext(&gO) {
						return
					}
					if gO.end > gO.start {
						endMatchingOther = g.end
					}
				}
				if size == g.end-g.start {
					break
				}
			}

			switch {
			case g.end == earliestEnd:
				// The group cannot move.
			case endMatchingOther != -1:
				for gO.end == gO.start {
					if !x.slideUp(&g) || !o.groupPrev(&gO) {
						return
					}
				}
			default:
				shift := earliestEnd
				if g.end-size-1 > shift {
					shift = g.end - size - 1
				}
				if g.end-ldIndentMaxSliding > shift {
					shift = g.end - ldIndentMaxSliding
				}
				bestShift := -1
				var best ldSplitScore
				for ; shift <= g.end; shift++ {
					var sc ldSplitScore
					sc.add(x.measureSplit(shift))
					sc.add(x.measureSplit(shift - size))
					if bestShift == -1 || sc.cmp(best) <= 0 {
						best = sc
						bestShift = shift
					}
				}
				for g.end > bestShift {
					if !x.slideUp(&g) || !o.groupPrev(&gO) {
						return
					}
				}
			}
		}
		if !x.groupNext(&g) {
			break
		}
		if !o.groupNext(&gO) {
			return
		}
	}
}

// lineIndent returns the indentation width of line i (tabs to multiples of
// 8), -1 for a blank line, capped at ldMaxIndent. Only ' ', '\t', '\n' and
// '\r' count as white space, like git's isspace.
func (s *ldSide) lineIndent(i int) int {
	ret := 0
	for _, c := range s.line(i) {
		switch c {
		case ' ':
			ret++
		case '\t':
			ret += 8 - ret%8
		case '\n', '\r':
		default:
			return ret
		}
		if ret >= ldMaxIndent {
			return ldMaxIndent
		}
	}
	return -1
}

type ldSplitMeasure struct {
	endOfFile  bool
	indent     int
	preBlank   int
	preIndent  int
	postBlank  int
	postIndent int
}

func (s *ldSide) measureSplit(split int) ldSplitMeasure {
	var m ldSplitMeasure
	if split >= s.n {
		m.endOfFile = true
		m.indent = -1
	} else {
		m.indent = s.lineIndent(split)
	}
	m.preIndent = -1
	for i := split - 1; i >= 0; i-- {
		m.preIndent = s.lineIndent(i)
		if m.preIndent != -1 {
			break
		}
		m.preBlank++
		if m.preBlank == ldMaxBlanks {
			m.preIndent = 0
			break
		}
	}
	m.postIndent = -1
	for i := split + 1; i < s.n; i++ {
		m.postIndent = s.lineIndent(i)
		if m.postIndent != -1 {
			break
		}
		m.postBlank++
		if m.postBlank == ldMaxBlanks {
			m.postIndent = 0
			break
		}
	}
	return m
}

type ldSplitScore struct{ effectiveIndent, penalty int }

func (sc *ldSplitScore) add(m ldSplitMeasure) {
	if m.preIndent == -1 && m.preBlank == 0 {
		sc.penalty += ldStartOfFilePenalty
	}
	if m.endOfFile {
		sc.penalty += ldEndOfFilePenalty
	}
	postBlank := 0
	if m.indent == -1 {
		postBlank = 1 + m.postBlank
	}
	totalBlank := m.preBlank + postBlank
	sc.penalty += ldTotalBlankWeight * totalBlank
	sc.penalty += ldPostBlankWeight * postBlank
	indent := m.indent
	if indent == -1 {
		indent = m.postIndent
	}
	anyBlanks := totalBlank != 0
	sc.effectiveIndent += indent
	switch {
	case indent == -1 || m.preIndent == -1:
	case indent > m.preIndent:
		if anyBlanks {
			sc.penalty += ldRelIndentBlankPen
		} else {
			sc.penalty += ldRelIndentPenalty
		}
	case indent == m.preIndent:
	case m.postIndent != -1 && m.postIndent > indent:
		if anyBlanks {
			sc.penalty += ldRelOutdentBlankPen
		} else {
			sc.penalty += ldRelOutdentPenalty
		}
	default:
		if anyBlanks {
			sc.penalty += ldRelDedentBlankPen
		} else {
			sc.penalty += ldRelDedentPenalty
		}
	}
}

func (sc ldSplitScore) cmp(o ldSplitScore) int {
	c := 0
	if sc.effectiveIndent > o.effectiveIndent {
		c = 1
	} else if sc.effectiveIndent < o.effectiveIndent {
		c = -1
	}
	return ldIndentWeight*c + (sc.penalty - o.penalty)
}

// emit builds the change script and renders the hunks.
func (d *ldDiffer) emit(context int) (hunks []model.Hunk, insertions, deletions int) {
	a, b := &d.a, &d.b
	d.changes = d.changes[:0]
	for i1, i2 := 0, 0; i1 < a.n || i2 < b.n; {
		if a.chg[i1+1] != 0 || b.chg[i2+1] != 0 {
			s1, s2 := i1, i2
			for a.chg[i1+1] != 0 {
				i1++
			}
			for b.chg[i2+1] != 0 {
				i2++
			}
			d.changes = append(d.changes, ldChange{s1, s2, i1 - s1, i2 - s2})
			deletions += i1 - s1
			insertions += i2 - s2
		} else {
			// Skip lines unchanged in both files.
			k := max(1, min(a.nextChanged(i1)-i1, b.nextChanged(i2)-i2))
			i1 += k
			i2 += k
		}
	}
	if len(d.changes) == 0 {
		return nil, 0, 0
	}

	// Group changes into hunks: two changes share a hunk when at most
	// 2*context unchanged lines separate them.
	maxCommon := 2 * context
	nh := 1
	for k := 1; k < len(d.changes); k++ {
		p, c := d.changes[k-1], d.changes[k]
		if c.i1-(p.i1+p.c1) > maxCommon {
			nh++
		}
	}
	hunks = make([]model.Hunk, 0, nh)
	type span struct{ from, to int }
	spans := make([]span, 0, nh)
	buf := d.text[:0]
	for k := 0; k < len(d.changes); {
		first := k
		for k+1 < len(d.changes) {
			p, c := d.changes[k], d.changes[k+1]
			if c.i1-(p.i1+p.c1) > maxCommon {
				break
			}
			k++
		}
		last := k
		k++
		x, y := d.changes[first], d.changes[last]
		s1 := max(x.i1-context, 0)
		s2 := max(x.i2-context, 0)
		lctx := min(context, a.n-(y.i1+y.c1), b.n-(y.i2+y.c2))
		e1 := y.i1 + y.c1 + lctx
		e2 := y.i2 + y.c2 + lctx

		h := model.Hunk{OldStart: s1, OldLines: e1 - s1, NewStart: s2, NewLines: e2 - s2}
		if h.OldLines > 0 {
			h.OldStart++
		}
		if h.NewLines > 0 {
			h.NewStart++
		}
		from := len(buf)
		for j := s2; j < x.i2; j++ {
			buf = ldAppendLine(buf, ' ', b.line(j))
		}
		c1, c2 := x.i1, x.i2
		for j := first; j <= last; j++ {
			ch := d.changes[j]
			for ; c1 < ch.i1 && c2 < ch.i2; c1, c2 = c1+1, c2+1 {
				buf = ldAppendLine(buf, ' ', b.line(c2))
			}
			for i := ch.i1; i < ch.i1+ch.c1; i++ {
				buf = ldAppendLine(buf, '-', a.line(i))
			}
			for i := ch.i2; i < ch.i2+ch.c2; i++ {
				buf = ldAppendLine(buf, '+', b.line(i))
			}
			c1, c2 = ch.i1+ch.c1, ch.i2+ch.c2
		}
		for j := y.i2 + y.c2; j < e2; j++ {
			buf = ldAppendLine(buf, ' ', b.line(j))
		}
		hunks = append(hunks, h)
		spans = append(spans, span{from, len(buf)})
	}
	all := string(buf)
	for i := range hunks {
		hunks[i].Text = all[spans[i].from:spans[i].to]
	}
	d.text = buf
	return hunks, insertions, deletions
}

func ldAppendLine(buf []byte, prefix byte, line []byte) []byte {
	buf = append(buf, prefix)
	buf = append(buf, line...)
	if len(line) == 0 || line[len(line)-1] != '\n' {
		buf = append(buf, ldNoNewlineMarker...)
	}
	return buf
}
