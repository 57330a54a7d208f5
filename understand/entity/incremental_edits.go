package entity

import (
	"bytes"

	"github.com/gitmemory/gitmemory/model"
	sitter "github.com/smacker/go-tree-sitter"
)

// fileEdit is one replacement that turns an old file version into the new
// one: old bytes [start, oldEnd) became newLen bytes. Edits are sorted and
// apart. Points are those tree-sitter wants when the edits are applied from
// the last to the first: start and old end in the old file, and the new
// end as the start point advanced over the new text.
type fileEdit struct {
	start, oldEnd, newLen int
	delta                 int // the sum of the earlier edits' length changes
	startPt, oldEndPt     sitter.Point
	newEndPt              sitter.Point
}

func (e fileEdit) newStart() int { return e.start + e.delta }
func (e fileEdit) newEnd() int   { return e.start + e.delta + e.newLen }

// fileEdits returns the edits that turn old into new: one per hunk, cut to
// the bytes that differ, when the hunks are consistent with the bytes;
// else one edit between the common prefix and suffix.
func fileEdits(s *fileState, old, new []byte, hunks []model.Hunk) []fileEdit {
	if bytes.Equal(old, new) {
		return nil
	}
	if edits, ok := hunkEdits(s, old, new, hunks); ok {
		return edits
	}
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	q := 0
	for q < len(old)-p && q < len(new)-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	row := bytes.Count(old[:p], newline)
	return []fileEdit{edit(old, new, lineStart(old, p), row, p, len(old)-q, p, len(new)-q, 0)}
}

// hunkEdits converts hunks to edits and checks that the bytes between
// them are equal in both versions.
func hunkEdits(s *fileState, old, new []byte, hunks []model.Hunk) ([]fileEdit, bool) {
	var edits []fileEdit
	oldPos, newPos, lastLine := 0, 0, 0
	for _, h := range hunks {
		first := h.OldStart // the first old line of the hunk
		if h.OldLines == 0 {
			first++
		}
		if first < 1 || first < lastLine || h.OldLines < 0 || h.NewLines < 0 {
			return nil, false
		}
		os, ok := s.lineOffset(old, first)
		if !ok {
			return nil, false
		}
		oe, ok := seekLines(old, os, h.OldLines)
		if !ok {
			return nil, false
		}
		ns := newPos + (os - oldPos)
		if ns > len(new) || !bytes.Equal(old[oldPos:os], new[newPos:ns]) {
			return nil, false
		}
		ne, ok := seekLines(new, ns, h.NewLines)
		if !ok {
			return nil, false
		}
		if oe-os != ne-ns || !bytes.Equal(old[os:oe], new[ns:ne]) {
			edits = append(edits, edit(old, new, os, first-1, os, oe, ns, ne, ns-os))
		}
		oldPos, newPos, lastLine = oe, ne, first+h.OldLines
	}
	if len(old)-oldPos != len(new)-newPos || !bytes.Equal(old[oldPos:], new[newPos:]) {
		return nil, false
	}
	return edits, true
}

// edit builds the edit replacing old[os:oe] by new[ns:ne], both starting
// at old's line start ls on 0-based row, cut to the bytes that differ.
func edit(old, new []byte, ls, row, os, oe, ns, ne, delta int) fileEdit {
	for os < oe && ns < ne && old[os] == new[ns] {
		os, ns = os+1, ns+1
	}
	for os < oe && ns < ne && old[oe-1] == new[ne-1] {
		oe, ne = oe-1, ne-1
	}
	start := advance(sitter.Point{Row: uint32(row)}, old[ls:os])
	return fileEdit{start: os, oldEnd: oe, newLen: ne - ns, delta: delta,
		startPt: start, oldEndPt: advance(start, old[os:oe]), newEndPt: advance(start, new[ns:ne])}
}

// advance returns the point after text that starts at p.
func advance(p sitter.Point, text []byte) sitter.Point {
	n := bytes.Count(text, newline)
	if n == 0 {
		return sitter.Point{Row: p.Row, Column: p.Column + uint32(len(text))}
	}
	return sitter.Point{Row: p.Row + uint32(n), Column: uint32(len(text) - bytes.LastIndexByte(text, '\n') - 1)}
}

// lineStart returns the start of the line holding byte i.
func lineStart(src []byte, i int) int {
	return bytes.LastIndexByte(src[:i], '\n') + 1
}

// seekLines returns the offset n lines after the line start from; the end
// of a last line without a newline counts as a line start.
func seekLines(src []byte, from, n int) (int, bool) {
	for ; n > 0; n-- {
		if from >= len(src) {
			return 0, false
		}
		i := bytes.IndexByte(src[from:], '\n')
		if i < 0 {
			if n > 1 {
				return 0, false
			}
			return len(src), true
		}
		from += i + 1
	}
	return from, true
}

// lineOffset returns the offset of 1-based line n of the state's source,
// starting the search at the chunk that holds it.
func (s *fileState) lineOffset(src []byte, n int) (int, bool) {
	off, line := 0, 1
	for _, ch := range s.chunks {
		if line+ch.lines > n {
			break
		}
		off += ch.size
		line += ch.lines
	}
	return seekLines(src, off, n-line)
}
