package entity

import (
	"slices"

	"github.com/gitmemory/gitmemory/model"
)

// diffStates returns Diff(localize(prev's entities, oldPath),
// localize(next's entities, newPath), hunks) from the entities that can
// matter: those of the chunks that only one state has, those a changed
// line falls in, and all others of the same names (Diff pairs entities of
// one name among themselves). The entities of any other name lie in
// chunks both states share, the same in both and in the same order, so
// Diff pairs each with itself and finds no change.
func (inc *incState) diffStates(prev, next *fileState, oldPath, newPath string, hunks []model.Hunk) []Change {
	l := prev.lang
	pkg, key := prev.prefix()
	if _, nextKey := next.prefix(); nextKey != key {
		// A new package renames every entity.
		return Diff(localize(prev.entities(), l, oldPath), localize(next.entities(), l, newPath), hunks)
	}
	removed, added := changedLines(hunks)
	// Mark the chunks of each state: a chunk in both is shared.
	inc.stamp++
	stamp := inc.stamp
	for _, ch := range prev.chunks {
		ch.inPrev = stamp
	}
	for _, ch := range next.chunks {
		ch.inNext = stamp
	}
	names := make(map[string]bool)
	concerned := func(s *fileState, lines []int, inOther func(*chunk) bool) {
		line := 0
		for _, ch := range s.chunks {
			ents := ch.entities(l, pkg, key)
			switch {
			case !inOther(ch):
				for _, e := range ents {
					names[e.Qualified] = true
				}
			case linesIn(lines, line+1, line+ch.lines+1):
				for _, e := range ents {
					e.StartLine += line
					e.EndLine += line
					if touches(lines, e) {
						names[e.Qualified] = true
					}
				}
			}
			line += ch.lines
		}
	}
	concerned(prev, removed, func(ch *chunk) bool { return ch.inNext == stamp })
	concerned(next, added, func(ch *chunk) bool { return ch.inPrev == stamp })
	if len(names) == 0 {
		return nil
	}
	pick := func(s *fileState, path string) []Entity {
		var out []Entity
		line := 0
		for _, ch := range s.chunks {
			for _, e := range ch.entities(l, pkg, key) {
				if names[e.Qualified] {
					e.StartLine += line
					e.EndLine += line
					out = append(out, e)
				}
			}
			line += ch.lines
		}
		return localize(out, l, path)
	}
	return Diff(pick(prev, oldPath), pick(next, newPath), hunks)
}

// linesIn reports whether a sorted line list has a line in [first, last].
func linesIn(lines []int, first, last int) bool {
	i, _ := slices.BinarySearch(lines, first)
	return i < len(lines) && lines[i] <= last
}
