package entity

import (
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/model"
)

// Action is what a change does to an entity.
type Action string

// The actions of a change on an entity.
const (
	Introduces Action = "introduces"
	Modifies   Action = "modifies"
	Deletes    Action = "deletes"
)

// Change is one entity that a file change introduces, modifies or deletes.
type Change struct {
	// Entity is the new version, or for Deletes the old one.
	Entity Entity
	Action Action
	// Old is the old version of a modified entity, nil otherwise.
	Old *Entity
}

// Diff relates one file change's old and new entities through its hunks.
// Entities are matched by qualified name, without the path prefix, so a
// renamed file keeps its entities. An entity only in new is introduced, one
// only in old is deleted, and one in both is modified when a changed line
// of the hunks falls in its old range (a '-' line) or its new range (a '+'
// line). Entities that share a qualified name (overloads) are paired by
// equal signatures first, then in order. Nested entities are reported each:
// a class is modified with its method.
//
// The changes come in new-file order, followed by the deletions in
// old-file order.
func Diff(old, new []Entity, hunks []model.Hunk) []Change {
	removed, added := changedLines(hunks)
	pairOf := pairEntities(old, new)
	var changes []Change
	matched := make([]bool, len(old))
	for j := range new {
		i := pairOf[j]
		if i < 0 {
			changes = append(changes, Change{Entity: new[j], Action: Introduces})
			continue
		}
		matched[i] = true
		if touches(removed, old[i]) || touches(added, new[j]) {
			o := old[i]
			changes = append(changes, Change{Entity: new[j], Action: Modifies, Old: &o})
		}
	}
	for i := range old {
		if !matched[i] {
			changes = append(changes, Change{Entity: old[i], Action: Deletes})
		}
	}
	return changes
}

// pairEntities returns, for each new entity, the index of its old version
// or -1.
func pairEntities(old, new []Entity) []int {
	byName := make(map[string][]int, len(old))
	for i, e := range old {
		k := localName(e.Qualified)
		byName[k] = append(byName[k], i)
	}
	newCount := make(map[string]int, len(new))
	for _, e := range new {
		newCount[localName(e.Qualified)]++
	}
	pairOf := make([]int, len(new))
	var dups []int // new entities whose name is not unique
	for j, e := range new {
		pairOf[j] = -1
		k := localName(e.Qualified)
		switch cands := byName[k]; {
		case len(cands) == 1 && newCount[k] == 1:
			pairOf[j] = cands[0]
		case len(cands) > 0:
			dups = append(dups, j)
		}
	}
	if len(dups) > 0 {
		pairDuplicates(old, new, byName, dups, pairOf)
	}
	return pairOf
}

// pairDuplicates pairs entities that share a name: equal signatures first,
// then the remaining ones in order.
func pairDuplicates(old, new []Entity, byName map[string][]int, dups []int, pairOf []int) {
	used := make(map[int]bool)
	for pass := range 2 {
		for _, j := range dups {
			if pairOf[j] >= 0 {
				continue
			}
			for _, i := range byName[localName(new[j].Qualified)] {
				if !used[i] && (pass == 1 || old[i].Signature == new[j].Signature) {
					pairOf[j], used[i] = i, true
					break
				}
			}
		}
	}
}

// localName strips the path prefix of a path-scoped qualified name. Names
// never contain ':', so the prefix ends at the last one.
func localName(q string) string {
	return q[strings.LastIndexByte(q, ':')+1:]
}

// changedLines returns the sorted old line numbers of the hunks' '-' lines
// and new line numbers of their '+' lines.
func changedLines(hunks []model.Hunk) (removed, added []int) {
	for _, h := range hunks {
		o, n := h.OldStart, h.NewStart
		for line := range strings.Lines(h.Text) {
			switch line[0] {
			case '-':
				removed = append(removed, o)
				o++
			case '+':
				added = append(added, n)
				n++
			case '\\':
			default: // ' ', or a context line stripped of its blank
				o++
				n++
			}
		}
	}
	slices.Sort(removed)
	slices.Sort(added)
	return removed, added
}

// touches reports whether a sorted line list has a line in e's range.
func touches(lines []int, e Entity) bool {
	i, _ := slices.BinarySearch(lines, e.StartLine)
	return i < len(lines) && lines[i] <= e.EndLine
}
