package understand

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// cePlanted is the planted history: 20 commits change a.go with a_test.go,
// 10 of them also c.go; c.go changes 10 more times alone and b.go 10 times
// alone. 40 commits in all.
func cePlanted() [][]string {
	var commits [][]string
	for i := range 20 {
		cs := []string{"a.go", "a_test.go"}
		if i%2 == 0 {
			cs = append(cs, "c.go")
		}
		commits = append(commits, cs, nil)
	}
	for i := range 10 {
		commits[2*i+1] = []string{"c.go"}
		commits[2*i+21] = []string{"b.go"}
	}
	return commits
}

// ceMass is one formatting commit over 200 files, the planted ones included.
func ceMass() []string {
	items := []string{"a.go", "a_test.go", "b.go", "c.go"}
	for i := range 196 {
		items = append(items, fmt.Sprintf("fmt/f%03d.go", i))
	}
	return items
}

func ceAddAll(c *CoEvolution, commits [][]string) {
	for _, cs := range commits {
		c.Add(cs)
	}
}

func TestCoEvolutionPlanted(t *testing.T) {
	half := Coupling{Shared: 10, RevsA: 20, RevsB: 20, Support: 0.25, Confidence: 0.5, ConfidenceAB: 0.5, ConfidenceBA: 0.5}
	ac, atc := half, half
	ac.A, ac.B = "a.go", "c.go"
	atc.A, atc.B = "a_test.go", "c.go"
	want := []Coupling{
		{A: "a.go", B: "a_test.go", Shared: 20, RevsA: 20, RevsB: 20, Support: 0.5, Confidence: 1, ConfidenceAB: 1, ConfidenceBA: 1},
		// a_test.go always changes with a.go, so it inherits a.go's coupling to c.go.
		ac, atc,
	}
	commits := cePlanted()
	c := NewCoEvolution(CoEvolutionOptions{})
	ceAddAll(c, commits[:20])
	c.Add(ceMass())
	ceAddAll(c, commits[20:])
	if diff := cmp.Diff(want, c.Couplings()); diff != "" {
		t.Errorf("Couplings (-want +got):\n%s", diff)
	}
	if c.Commits() != 40 || c.Ignored() != 1 {
		t.Errorf("Commits, Ignored = %d, %d; want 40, 1", c.Commits(), c.Ignored())
	}
	if diff := cmp.Diff([]Coupling{ac, atc}, c.Of("c.go")); diff != "" {
		t.Errorf("Of(c.go) (-want +got):\n%s", diff)
	}
	if got := c.Of("b.go"); len(got) != 0 {
		t.Errorf("Of(b.go) = %v, want none", got)
	}
	if got := c.Of("fmt/f000.go"); len(got) != 0 {
		t.Errorf("Of(fmt/f000.go) = %v, want none", got)
	}
	if got := ac.Other("a.go"); got != "c.go" {
		t.Errorf("Other = %q", got)
	}

	// The mass commit changes nothing, wherever it comes.
	plain := NewCoEvolution(CoEvolutionOptions{})
	ceAddAll(plain, commits)
	if diff := cmp.Diff(plain.Couplings(), c.Couplings()); diff != "" {
		t.Errorf("mass commit changed couplings (-without +with):\n%s", diff)
	}
}

func TestCoEvolutionDeterministic(t *testing.T) {
	commits := append(cePlanted(), ceMass(), []string{"c.go", "a.go", "c.go", ""})
	c := NewCoEvolution(CoEvolutionOptions{})
	ceAddAll(c, commits)
	want := c.Couplings()
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		shuffled := slices.Clone(commits)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		d := NewCoEvolution(CoEvolutionOptions{})
		for _, cs := range shuffled {
			cs = slices.Clone(cs)
			r.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
			d.Add(cs)
		}
		if diff := cmp.Diff(want, d.Couplings()); diff != "" {
			t.Fatalf("order changed couplings (-want +got):\n%s", diff)
		}
	}
}

func TestCoEvolutionRemoveRestores(t *testing.T) {
	c := NewCoEvolution(CoEvolutionOptions{MinRevisions: 1, MinShared: 1, MinConfidence: -1})
	ceAddAll(c, cePlanted())
	extra := [][]string{
		{"a.go", "c.go"},
		{"c.go", "a.go", "a.go"}, // duplicate inside
		{"new.go", "a.go", "b.go"},
		ceMass(),
		{"b.go"},
	}
	for _, x := range extra {
		before, commits, ignored := c.Couplings(), c.Commits(), c.Ignored()
		c.Add(x)
		if !c.Remove(reversed(x)) {
			t.Fatalf("Remove(%v) refused", x)
		}
		if diff := cmp.Diff(before, c.Couplings()); diff != "" {
			t.Errorf("Remove(%v) did not restore (-before +after):\n%s", x, diff)
		}
		if c.Commits() != commits || c.Ignored() != ignored {
			t.Errorf("Remove(%v): commits %d→%d, ignored %d→%d", x, commits, c.Commits(), ignored, c.Ignored())
		}
	}
	// Remove in the middle of history, then add back.
	before := c.Couplings()
	if !c.Remove([]string{"a.go", "a_test.go", "c.go"}) {
		t.Fatal("Remove of an added commit refused")
	}
	if slices.Equal(before, c.Couplings()) {
		t.Error("Remove changed nothing")
	}
	c.Add([]string{"c.go", "a_test.go", "a.go"})
	if diff := cmp.Diff(before, c.Couplings()); diff != "" {
		t.Errorf("Add after Remove (-before +after):\n%s", diff)
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

func TestCoEvolutionRemoveRefused(t *testing.T) {
	c := NewCoEvolution(CoEvolutionOptions{MinRevisions: 1, MinShared: 1, MinConfidence: -1})
	c.Add([]string{"a", "b"})
	c.Add([]string{"c"})
	before := c.Couplings()
	for _, x := range [][]string{
		{"z"},           // unknown item
		{"a", "c"},      // never changed together
		ceMass(),        // no ignored commit to take back
		{"a", "b", "c"}, // pair b, c never counted
	} {
		if c.Remove(x) {
			t.Errorf("Remove(%v) accepted", x)
		}
	}
	if diff := cmp.Diff(before, c.Couplings()); diff != "" || c.Commits() != 2 {
		t.Errorf("refused Remove changed state (-before +after):\n%s", diff)
	}
	if !c.Remove(nil) || !c.Remove([]string{""}) {
		t.Error("Remove of an empty commit should be a no-op that succeeds")
	}
	c.Remove([]string{"b", "a"})
	c.Remove([]string{"c"})
	if got := c.Couplings(); len(got) != 0 || c.Commits() != 0 {
		t.Errorf("after removing everything: %v, commits %d", got, c.Commits())
	}
	if c.Remove([]string{"c"}) {
		t.Error("Remove from empty accepted")
	}
}

// TestCoEvolutionThresholds puts each threshold exactly at and one step
// past its boundary.
func TestCoEvolutionThresholds(t *testing.T) {
	// history returns shared commits of {x, y} plus onlyX commits of x alone
	// and onlyY of y alone.
	history := func(shared, onlyX, onlyY int) [][]string {
		var h [][]string
		for range shared {
			h = append(h, []string{"x", "y"})
		}
		for range onlyX {
			h = append(h, []string{"x"})
		}
		for range onlyY {
			h = append(h, []string{"y"})
		}
		return h
	}
	tests := []struct {
		name                 string
		opts                 CoEvolutionOptions
		shared, onlyX, onlyY int
		want                 bool
	}{
		{"revs at 5", CoEvolutionOptions{}, 5, 0, 0, true},
		{"revs 4", CoEvolutionOptions{}, 4, 0, 0, false},
		{"one side short of revs", CoEvolutionOptions{}, 4, 1, 0, false},
		{"shared at 3", CoEvolutionOptions{MinConfidence: -1}, 3, 2, 2, true},
		{"shared 2", CoEvolutionOptions{MinConfidence: -1}, 2, 3, 3, false},
		{"confidence at 0.3", CoEvolutionOptions{}, 3, 7, 7, true},
		{"confidence under 0.3", CoEvolutionOptions{}, 3, 7, 8, false},
		{"custom confidence 0.75 at", CoEvolutionOptions{MinConfidence: 0.75}, 6, 2, 2, true},
		{"custom confidence 0.75 under", CoEvolutionOptions{MinConfidence: 0.75}, 6, 2, 3, false},
		{"thresholds off", CoEvolutionOptions{MinRevisions: -1, MinShared: -1, MinConfidence: -1}, 1, 9, 9, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCoEvolution(tt.opts)
			ceAddAll(c, history(tt.shared, tt.onlyX, tt.onlyY))
			got := c.Couplings()
			if (len(got) == 1) != tt.want || len(got) > 1 {
				t.Errorf("Couplings = %+v, want coupled %v", got, tt.want)
			}
		})
	}
}

func TestCoEvolutionMaxChangeset(t *testing.T) {
	set := func(n int) []string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("f%02d", i))
		}
		return s
	}
	c := NewCoEvolution(CoEvolutionOptions{MinRevisions: 1, MinShared: 1, MaxChangeset: 4})
	c.Add(set(4))
	c.Add(append(set(5), "f00", "f00")) // 5 distinct
	if c.Commits() != 1 || c.Ignored() != 1 || len(c.Couplings()) != 6 {
		t.Errorf("commits %d, ignored %d, couplings %d; want 1, 1, 6", c.Commits(), c.Ignored(), len(c.Couplings()))
	}
	d := NewCoEvolution(CoEvolutionOptions{MinRevisions: 1, MinShared: 1, MaxChangeset: -1})
	d.Add(set(200))
	if d.Ignored() != 0 || len(d.Couplings()) != 200*199/2 {
		t.Errorf("unlimited: ignored %d, couplings %d", d.Ignored(), len(d.Couplings()))
	}
}

func checkCouplings(t *testing.T, cs []Coupling, commits int) {
	t.Helper()
	for i, cp := range cs {
		in01 := func(f float64) bool { return f >= 0 && f <= 1 }
		if cp.A >= cp.B || cp.Shared < 1 || cp.Shared > min(cp.RevsA, cp.RevsB) || cp.Shared > commits ||
			!in01(cp.Confidence) || !in01(cp.ConfidenceAB) || !in01(cp.ConfidenceBA) || !in01(cp.Support) {
			t.Fatalf("bad coupling %+v (commits %d)", cp, commits)
		}
		if i > 0 && compareCouplings(cs[i-1], cp) >= 0 {
			t.Fatalf("not sorted: %+v before %+v", cs[i-1], cp)
		}
	}
}

func FuzzCoEvolution(f *testing.F) {
	f.Add([]byte{0x12, 0x34, 0x80, 0x12, 0x34, 0xff, 0x01})
	f.Add([]byte("aaaaaaaabbbbbbbb\x80\x80\x80"))
	f.Add([]byte{7, 7, 7, 7, 7, 7, 7, 7, 0x81, 0x82})
	f.Fuzz(func(t *testing.T, ops []byte) {
		// Each byte is an operation: high bit clear adds a commit of
		// 1 + b>>4 (mod 8) items chosen from b's low bits among 12 paths; high
		// bit set removes the (b & 0x7f)-th live commit, or tries a commit
		// never added.
		c := NewCoEvolution(CoEvolutionOptions{MinRevisions: 1, MinShared: 1, MaxChangeset: 5, MinConfidence: -1})
		var live [][]string
		for i, b := range ops {
			if b&0x80 == 0 {
				n := 1 + int(b>>4)%8
				var cs []string
				for j := range n {
					cs = append(cs, fmt.Sprintf("p%d", (int(b&0x0f)*(j+1)+i*j)%12))
				}
				c.Add(cs)
				live = append(live, cs)
			} else if len(live) > 0 {
				k := int(b&0x7f) % len(live)
				if !c.Remove(reversed(live[k])) {
					t.Fatalf("Remove(%v) of a live commit refused", live[k])
				}
				live = slices.Delete(live, k, k+1)
			} else if c.Remove([]string{"p1", "p2"}) {
				t.Fatal("Remove on an empty accumulator accepted")
			}
			checkCouplings(t, c.Couplings(), c.Commits())
		}
		want := NewCoEvolution(c.opts)
		ceAddAll(want, live)
		if diff := cmp.Diff(want.Couplings(), c.Couplings()); diff != "" {
			t.Fatalf("adds and removes differ from adding the survivors (-want +got):\n%s", diff)
		}
		for _, cs := range live {
			if !c.Remove(cs) {
				t.Fatalf("Remove(%v) refused", cs)
			}
		}
		if got := c.Couplings(); len(got) != 0 || c.Commits() != 0 || c.Ignored() != 0 || len(c.pairs) != 0 {
			t.Fatalf("after removing everything: %v, commits %d, ignored %d, pairs %d", got, c.Commits(), c.Ignored(), len(c.pairs))
		}
	})
}

// ceBenchCommits is a synthetic history: 80,000 commits of 1–10 items from
// 20,000 paths in 1,000 directories of 20 files. Commits stay mostly inside a
// directory and directories are Zipf-popular, so pairs repeat as in a real
// repository.
func ceBenchCommits() [][]string {
	const nDirs, perDir, nCommits = 1000, 20, 80000
	r := rand.New(rand.NewPCG(42, 43))
	zipf := rand.NewZipf(r, 1.1, 1, nDirs-1)
	paths := make([]string, nDirs*perDir)
	for i := range paths {
		paths[i] = fmt.Sprintf("src/module%03d/sub/file%02d.go", i/perDir, i%perDir)
	}
	commits := make([][]string, nCommits)
	for i := range commits {
		dir := int(zipf.Uint64())
		n := 1 + r.IntN(10)
		cs := make([]string, n)
		for j := range cs {
			d := dir
			if r.IntN(5) == 0 {
				d = int(zipf.Uint64())
			}
			cs[j] = paths[d*perDir+r.IntN(perDir)]
		}
		commits[i] = cs
	}
	return commits
}

func BenchmarkCoEvolutionAdd(b *testing.B) {
	commits := ceBenchCommits()
	var c *CoEvolution
	b.ReportAllocs()
	start := time.Now()
	runs := 0
	for b.Loop() {
		c = NewCoEvolution(CoEvolutionOptions{})
		ceAddAll(c, commits)
		runs++
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(runs*len(commits)), "ns/commit")
	commits = nil
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(c)
	b.ReportMetric(float64(after.HeapAlloc)/(1<<20), "live-MiB")
	b.ReportMetric(float64(len(c.pairs)), "pairs")
	b.ReportMetric(float64(len(c.Couplings())), "couplings")
}

func BenchmarkCoEvolutionCouplings(b *testing.B) {
	c := NewCoEvolution(CoEvolutionOptions{})
	ceAddAll(c, ceBenchCommits())
	b.ReportAllocs()
	for b.Loop() {
		c.Couplings()
	}
}
