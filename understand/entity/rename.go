package entity

// PathEntity is an entity with the path of its file.
type PathEntity struct {
	Path string
	Entity
}

// Rename pairs an entity that a commit deleted with one it introduced with
// the same body: the old entity is REPLACED_BY the new one.
type Rename struct {
	From, To         Entity
	FromPath, ToPath string
}

// Renames pairs deleted entities with introduced entities of equal
// BodyHash, within a file or across the files of one commit. Each entity
// is paired at most once; among several candidates it prefers one with the
// same name (a move), then one in the same file (a rename), then the first.
// The pairs come in the order of deleted.
func Renames(deleted, introduced []PathEntity) []Rename {
	byHash := make(map[uint64][]int, len(introduced))
	for j, e := range introduced {
		byHash[e.BodyHash] = append(byHash[e.BodyHash], j)
	}
	used := make([]bool, len(introduced))
	var out []Rename
	for _, d := range deleted {
		best, bestScore := -1, -1
		for _, j := range byHash[d.BodyHash] {
			if used[j] {
				continue
			}
			in := introduced[j]
			score := 0
			if in.Name == d.Name {
				score += 2
			}
			if in.Path == d.Path {
				score++
			}
			if score > bestScore {
				best, bestScore = j, score
			}
		}
		if best < 0 {
			continue
		}
		used[best] = true
		in := introduced[best]
		out = append(out, Rename{From: d.Entity, To: in.Entity, FromPath: d.Path, ToPath: in.Path})
	}
	return out
}
