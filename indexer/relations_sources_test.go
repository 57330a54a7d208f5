package indexer

import (
	"slices"
	"testing"
)

// TestSourceSet: a set of sources holds each once, small or large, and
// forgets what is removed, across the switch from slice to map.
func TestSourceSet(t *testing.T) {
	for _, n := range []int{1, sourceSetMax, sourceSetMax + 1, 3 * sourceSetMax} {
		var s sourceSet
		want := map[nodeCode]bool{}
		for i := 0; i < n; i++ {
			x := nodeCode(i)
			s.add(x)
			s.add(x) // again: still once
			want[x] = true
		}
		for i := 0; i < n; i += 2 {
			x := nodeCode(i)
			s.remove(x)
			s.remove(x)
			delete(want, x)
		}
		s.remove(nodeCode(n + 7)) // absent
		got := slices.Sorted(slices.Values(s.all()))
		var exp []nodeCode
		for x := range want {
			exp = append(exp, x)
		}
		slices.Sort(exp)
		if !slices.Equal(got, exp) || s.len() != len(exp) {
			t.Errorf("%d added, every other removed: have %d %v, want %d %v", n, s.len(), got, len(exp), exp)
		}
	}
	var none *sourceSet
	if none.all() != nil {
		t.Error("a target without sources lists some")
	}
}

// TestRelSet: a source's relationships behave as a map from (kind,
// target) to confidence: a put replaces, a delete of one leaves the
// others and the same target under another kind, and an emptied set is
// not nil (the source stays known).
func TestRelSet(t *testing.T) {
	const calls, imports = kindCode(0), kindCode(1)
	a, b := edgeKey{1, calls}, edgeKey{2, calls}
	ab := edgeKey{2, imports}
	var s relSet
	s = s.put(a, 0.8).put(b, 1).put(ab, 1).put(a, 1)
	if c, ok := s.get(a); !ok || c != 1 || len(s) != 3 {
		t.Fatalf("after four puts of three keys: %v", s)
	}
	s = s.del(b)
	if _, ok := s.get(b); ok || !s.hasTo(b.to) || len(s) != 2 {
		t.Fatalf("after deleting CALLS b: %v", s)
	}
	s = s.del(edgeKey{9, calls}).del(ab).del(a)
	if s == nil || len(s) != 0 || s.hasTo(b.to) {
		t.Fatalf("emptied: %#v", s)
	}
}
