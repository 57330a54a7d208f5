package entity

import (
	"cmp"
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
)

// queryItems runs the entity query over a chunk's tree, or only over the
// nodes that intersect ranges if not nil, and returns the items sorted by
// start, then by end descending (query order among equals).
func (p *Parser) queryItems(l *language, st *langState, tree *sitter.Tree, src []byte, ranges []span) []citem {
	cur := p.incremental().cursor
	if ranges == nil {
		ranges = []span{{0, 0}} // no limit
	}
	var items []citem
	for _, r := range ranges {
		setByteRange(cur, r.start, r.end)
		cur.Exec(st.query, tree.RootNode())
		for {
			m, ok := cur.NextMatch()
			if !ok {
				break
			}
			it, ok := newItem(l, st.caps, m, src)
			if !ok {
				continue
			}
			ci := citem{item: it, ctxStart: it.start, ctxEnd: it.end}
			if len(l.wrappers) > 0 {
				ci.ctxStart, ci.ctxEnd = wrapperRange(l, defOf(st.caps, m))
			}
			items = append(items, ci)
		}
	}
	setByteRange(cur, 0, 0)
	slices.SortStableFunc(items, compareItems)
	if len(ranges) > 1 {
		// A match that intersects several ranges is found once per range.
		items = slices.CompactFunc(items, sameItem)
	}
	return items
}

func compareItems(a, b citem) int {
	return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
}

func sameItem(a, b citem) bool {
	return a.start == b.start && a.end == b.end && a.capture == b.capture
}

// defOf returns the definition node of a match, as newItem reads it.
func defOf(caps []capture, m *sitter.QueryMatch) *sitter.Node {
	var def *sitter.Node
	for _, c := range m.Captures {
		switch caps[c.Index].role {
		case rolePackage, roleScope, roleImpl, roleEntity:
			def = c.Node
		}
	}
	return def
}

// wrapperRange returns the range of the wrappers that wrap may take for a
// definition, whether or not it takes them: the definition and its
// ancestors through wrapper types, at most as many as wrap climbs.
func wrapperRange(l *language, def *sitter.Node) (uint32, uint32) {
	n := def
	for range 4 {
		p := n.Parent()
		if p == nil {
			break
		}
		if _, ok := l.wrappers[p.Type()]; !ok {
			break
		}
		n = p
	}
	return n.StartByte(), n.EndByte()
}

// reuseItems returns the items of a chunk reparsed from its old tree:
// those of the old chunk whose definition and wrappers neither the edits
// nor the changed syntax touch, moved by the edits, and those the query
// finds where they do. An old item touched by a change is looked for
// again where it was, in case the change left it as it was.
//
// This is exact because an item depends only on the text and syntax of
// its definition and wrappers: outside the changed ranges that
// tree-sitter reports, the new tree has the old nodes at the moved
// positions, under ancestors of the same types.
func (p *Parser) reuseItems(l *language, st *langState, old *chunk, edits []fileEdit, tree *sitter.Tree, src []byte, changed []span) []citem {
	dirty := changed
	for _, e := range edits {
		dirty = append(dirty, span{e.newStart(), e.newEnd()})
	}
	dirty = mergeSpans(dirty, 1, len(src))
	var kept []citem
	ranges := slices.Clone(dirty)
	for _, it := range old.items {
		shift, lines, ok := moved(edits, int(it.ctxStart), int(it.ctxEnd))
		if ok {
			start, end := int(it.ctxStart)+shift, int(it.ctxEnd)+shift
			if !meets(dirty, start, end) {
				it.start, it.end = uint32(int(it.start)+shift), uint32(int(it.end)+shift)
				it.ctxStart, it.ctxEnd = uint32(start), uint32(end)
				if it.role == roleEntity {
					it.startLine, it.endLine = it.startLine+lines, it.endLine+lines
				}
				kept = append(kept, it)
				continue
			}
		}
		ranges = append(ranges, newPosition(edits, int(it.start)))
	}
	found := p.queryItems(l, st, tree, src, mergeSpans(ranges, 1, len(src)))
	if len(found) > 0 {
		type key struct {
			start, end uint32
			capture
		}
		seen := make(map[key]bool, len(found))
		for _, f := range found {
			seen[key{f.start, f.end, f.capture}] = true
		}
		kept = slices.DeleteFunc(kept, func(k citem) bool { return seen[key{k.start, k.end, k.capture}] })
	}
	items := append(kept, found...)
	slices.SortStableFunc(items, compareItems)
	return items
}

// moved returns how far the edits move the old range [start, end) in
// bytes and lines, or false if an edit touches it.
func moved(edits []fileEdit, start, end int) (shift, lines int, ok bool) {
	for _, e := range edits {
		if e.start > end {
			break
		}
		if e.oldEnd >= start {
			return 0, 0, false
		}
		shift += e.newLen - (e.oldEnd - e.start)
		lines += int(e.newEndPt.Row) - int(e.oldEndPt.Row)
	}
	return shift, lines, true
}

// newPosition returns the new range of old byte x: the byte it moved to,
// or the new text of an edit that touches it.
func newPosition(edits []fileEdit, x int) span {
	shift := 0
	for _, e := range edits {
		if e.start > x {
			break
		}
		if e.oldEnd >= x {
			return span{e.newStart(), e.newEnd() + 1}
		}
		shift += e.newLen - (e.oldEnd - e.start)
	}
	return span{x + shift, x + shift + 1}
}

// meets reports whether [start, end] meets one of the sorted spans,
// ends included.
func meets(spans []span, start, end int) bool {
	i, _ := slices.BinarySearchFunc(spans, start, func(s span, x int) int { return cmp.Compare(s.end, x) })
	return i < len(spans) && spans[i].start <= end
}

// mergeSpans widens spans by pad bytes each side within [0, size], sorts
// them and merges those that meet.
func mergeSpans(spans []span, pad, size int) []span {
	for i := range spans {
		spans[i] = span{max(spans[i].start-pad, 0), min(spans[i].end+pad, size)}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	out := spans[:0]
	for _, s := range spans {
		if n := len(out); n > 0 && s.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}
