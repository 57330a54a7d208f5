package indexer

import (
	"fmt"
	"slices"
	"testing"
)

// TestSourceSet: a set of sources holds each once, small or large, and
// forgets what is removed, across the switch from slice to map.
func TestSourceSet(t *testing.T) {
	for _, n := range []int{1, sourceSetMax, sourceSetMax + 1, 3 * sourceSetMax} {
		var s sourceSet
		want := map[string]bool{}
		for i := 0; i < n; i++ {
			x := fmt.Sprintf("entity:f.c#f%d", i)
			s.add(x)
			s.add(x) // again: still once
			want[x] = true
		}
		for i := 0; i < n; i += 2 {
			x := fmt.Sprintf("entity:f.c#f%d", i)
			s.remove(x)
			s.remove(x)
			delete(want, x)
		}
		s.remove("entity:f.c#absent")
		got := slices.Sorted(slices.Values(s.all()))
		var exp []string
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
