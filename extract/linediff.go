// SPDX-License-Identifier: LGPL-2.1-or-later

package extract

import (
	"bytes"

	"github.com/gitmemory/gitmemory/model"
)

// This file and linediff_*.go implement a line diff that reproduces git's
// default diff output, so that hunks and line counts agree with
// `git diff`/`git log -p` and `--numstat`.
//
// Provenance. The algorithm is Myers' (E. W. Myers, "An O(ND) Difference
// Algorithm and Its Variations", Algorithmica 1(2), 1986), in its
// linear-space divide-and-conquer form. The code is not an independent
// implementation of the paper, though: it is a translation into Go of git's
// xdiff (xdiff/xprepare.c, xdiff/xdiffi.c, xdiff/xemit.c; originally
// LibXDiff by Davide Libenzi, with later work by git's contributors,
// notably the indent heuristic), following it function by function so that
// the output is identical: ldCleanMultiMatch is xdl_clean_mmatch, classify
// and reduce are xdl_classify_record and xdl_cleanup_records, split and
// compare are xdl_split and xdl_recs_cmp, compact is xdl_change_compact
// with measure_split, score_add_split and score_cmp, emit is
// xdl_build_script and xdl_get_hunk; every tuning constant has xdiff's
// value, and ldTrimCommonTail does what trim_common_tail in git's
// xdiff-interface.c does. What is new is the memory layout (lines split
// lazily, pooled buffers, a maphash classifier, lines sliced from the
// input rather than copied) and the rendering into model.Hunk.
//
// xdiff is licensed under the GNU LGPL, version 2.1 or later. As a
// translation of it, this file and linediff_*.go are distributed under the
// LGPL-2.1-or-later (LICENSES/LGPL-2.1.txt), not under the Apache-2.0 of
// the rest of gitmemory; see docs/third-party.md.
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
//     class occurs in each whole file (linediff_prepare.go);
//  3. drop from the Myers problem the lines that cannot or should not be
//     matched (no occurrence on the other side, or a very frequent line in
//     a run of unmatchable lines), exactly like xdiff does
//     (linediff_prepare.go);
//  4. run the linear-space, divide-and-conquer Myers algorithm on the
//     remaining class ids, with xdiff's cost cap so that pathological inputs
//     stay fast (the result then is a valid, possibly non-minimal, diff)
//     (linediff_myers.go);
//  5. slide groups of changes up/down to merge them, to align them with
//     changes in the other file, or else as the indent heuristic prefers
//     (linediff_compact.go);
//  6. emit unified-diff hunks (linediff_emit.go).

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
