package extract

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// Walk is the result of discovering the commits to index behind a head.
type Walk struct {
	// New lists the commits not known yet, parents before children (oldest
	// first), ready to be processed in order.
	New []string
	// Boundary lists the known commits the walk stopped at.
	Boundary map[string]bool
	// Missing lists parents absent from the repository (a shallow clone's
	// cut, or a damaged repository).
	Missing []string
}

// Discover walks from head towards the roots, stopping at commits for which
// known returns true, as `git rev-list head --not <known>` would. Parents of
// shallow-boundary commits are not followed. If stop is non-nil, a commit
// for which it returns true is neither returned nor walked past (a
// retention window).
func (r *Repo) Discover(head string, known func(hash string) bool, stop func(committed int64) bool) (*Walk, error) {
	w := &Walk{Boundary: map[string]bool{}}
	type node struct {
		parents []plumbing.Hash
	}
	nodes := map[plumbing.Hash]node{}
	var order []plumbing.Hash // discovery order, for determinism
	stack := []plumbing.Hash{plumbing.NewHash(head)}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, seen := nodes[h]; seen || w.Boundary[h.String()] {
			continue
		}
		if known(h.String()) {
			w.Boundary[h.String()] = true
			continue
		}
		c, err := r.commit(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) && h.String() != head {
			w.Missing = append(w.Missing, h.String())
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", h, err)
		}
		if stop != nil && stop(c.Committer.When.Unix()) {
			continue
		}
		parents := c.ParentHashes
		if r.shallow[h] {
			for _, p := range parents {
				w.Missing = append(w.Missing, p.String())
			}
			parents = nil
		}
		nodes[h] = node{parents: parents}
		order = append(order, h)
		for i := len(parents) - 1; i >= 0; i-- {
			stack = append(stack, parents[i])
		}
	}
	// Order parents before children: an iterative post-order DFS from each
	// discovered commit, first parent first, mirrors `git rev-list --reverse
	// --topo-order` closely enough and is deterministic.
	done := make(map[plumbing.Hash]bool, len(nodes))
	type frame struct {
		h    plumbing.Hash
		next int
	}
	for _, root := range order {
		if done[root] {
			continue
		}
		st := []frame{{h: root}}
		done[root] = true
		for len(st) > 0 {
			top := &st[len(st)-1]
			ps := nodes[top.h].parents
			if top.next < len(ps) {
				p := ps[top.next]
				top.next++
				if _, ok := nodes[p]; ok && !done[p] {
					done[p] = true
					st = append(st, frame{h: p})
				}
				continue
			}
			w.New = append(w.New, top.h.String())
			st = st[:len(st)-1]
		}
	}
	return w, nil
}

// Reachable returns every commit reachable from the heads (not following
// shallow-boundary parents or missing objects).
func (r *Repo) Reachable(heads []string) (map[string]bool, error) {
	seen := map[string]bool{}
	err := r.walk(heads, func(h plumbing.Hash) bool {
		seen[h.String()] = true
		return true
	})
	return seen, err
}

// walk visits every commit reachable from heads once, until visit returns
// false. Shallow-boundary parents and missing objects are not followed.
func (r *Repo) walk(heads []string, visit func(plumbing.Hash) bool) error {
	seen := map[plumbing.Hash]bool{}
	var stack []plumbing.Hash
	for _, h := range heads {
		stack = append(stack, plumbing.NewHash(h))
	}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := r.commit(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read commit %s: %w", h, err)
		}
		if !visit(h) {
			return nil
		}
		if !r.shallow[h] {
			stack = append(stack, c.ParentHashes...)
		}
	}
	return nil
}

// IsAncestor reports whether a is an ancestor of (or equal to) b. It
// walks b's history, so it is meant for the rare check after a head moved
// in a way that is not a fast-forward.
func (r *Repo) IsAncestor(a, b string) (bool, error) {
	if a == b {
		return true, nil
	}
	found := false
	err := r.walk([]string{b}, func(h plumbing.Hash) bool {
		found = found || h.String() == a
		return !found
	})
	return found, err
}
