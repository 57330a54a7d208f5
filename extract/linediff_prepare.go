// SPDX-License-Identifier: LGPL-2.1-or-later

package extract

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// Steps 2 and 3 of the line diff (see linediff.go, also for this code's
// provenance and licence, LGPL-2.1-or-later): classify the lines, and drop
// from the Myers problem those that cannot or should not match.

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
