package understand

// Co-evolution (temporal coupling), as code-maat's "coupling" analysis and
// hercules' "couples" compute it: two items are coupled when they keep
// changing in the same commits. The result feeds CO_EVOLVES_WITH edges.
//
// Decisions:
//   - A commit that touches more than MaxChangeset distinct items (mass
//     formatting, vendoring, licence headers) is ignored entirely, as
//     code-maat's --max-changeset-size does: it adds no pairs and does not
//     count in the items' revisions or in the commit total. Counting it in
//     the revisions only would lower every coupling of every file it touched
//     because of one commit that says nothing about design.
//   - Confidence is code-maat's degree of coupling, shared divided by the
//     average of the two revision counts, 2·shared/(revsA+revsB). It is
//     symmetric, in [0, 1], and 1 only when the two always change together.
//     The directional confidences (association-rule confidence) are also
//     given: ConfidenceAB = shared/revsA reads "when A changes, B changes too".
//   - Both items must reach MinRevisions (code-maat thresholds the average
//     of the two): a file changed twice is not evidence, however its partner
//     changed.
//   - Commits with no items (after dropping empty strings) are not counted.
//   - Items are interned to 32-bit ids and a pair is one uint64 key, so a
//     pair costs about 16 bytes of map. Names of items whose revisions fall
//     back to zero through Remove stay interned: rewrites are rare and the
//     ids stay stable.

import (
	"cmp"
	"slices"
	"sync"
)

// CoEvolutionOptions are the coupling thresholds. A zero field takes its
// default; a negative one disables that threshold.
type CoEvolutionOptions struct {
	MinRevisions  int     // each item changed in at least this many commits (default 5)
	MinShared     int     // the pair changed together at least this often (default 3)
	MaxChangeset  int     // commits with more distinct items are ignored entirely (default 30)
	MinConfidence float64 // minimum Coupling.Confidence (default 0.3)
}

func (o CoEvolutionOptions) withDefaults() CoEvolutionOptions {
	o.MinRevisions = ceDefault(o.MinRevisions, 5)
	o.MinShared = ceDefault(o.MinShared, 3)
	o.MaxChangeset = ceDefault(o.MaxChangeset, 30)
	if o.MinConfidence == 0 {
		o.MinConfidence = 0.3
	}
	return o
}

func ceDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// CoEvolution accumulates which items (file paths, or entity ids) change
// together, commit by commit, incrementally. It is safe for concurrent use.
type CoEvolution struct {
	opts CoEvolutionOptions // with defaults applied

	mu      sync.Mutex // protects the fields below
	ids     map[string]uint32
	names   []string         // by id
	revs    []int32          // by id: commits counted that changed the item
	pairs   map[uint64]int32 // ceKey(a, b) → commits that changed both
	commits int              // commits counted (1..MaxChangeset items)
	ignored int              // commits ignored for touching too many items
	strs    []string         // scratch for normalising a changeset
	idbuf   []uint32         // scratch for its ids
}

// NewCoEvolution returns an empty accumulator with the given thresholds.
func NewCoEvolution(opts CoEvolutionOptions) *CoEvolution {
	return &CoEvolution{
		opts:  opts.withDefaults(),
		ids:   make(map[string]uint32),
		pairs: make(map[uint64]int32),
	}
}

// Coupling is a pair of items that change together, with A < B.
type Coupling struct {
	A, B         string
	Shared       int     // commits that changed both
	RevsA, RevsB int     // commits that changed each
	Support      float64 // Shared / commits counted
	Confidence   float64 // Shared / average(RevsA, RevsB), code-maat's degree
	ConfidenceAB float64 // Shared / RevsA: how often B follows a change to A
	ConfidenceBA float64 // Shared / RevsB: how often A follows a change to B
}

// Other returns the item of the pair that is not item.
func (c Coupling) Other(item string) string {
	if c.A == item {
		return c.B
	}
	return c.A
}

// Add records one commit's changed items. Duplicates and empty strings are
// dropped; a commit with more than MaxChangeset distinct items is counted
// only in Ignored.
func (c *CoEvolution) Add(items []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	set := c.normalise(items)
	if len(set) == 0 {
		return
	}
	if c.tooLarge(len(set)) {
		c.ignored++
		return
	}
	ids := c.idbuf[:0]
	for _, s := range set {
		id, ok := c.ids[s]
		if !ok {
			id = uint32(len(c.names))
			c.ids[s] = id
			c.names = append(c.names, s)
			c.revs = append(c.revs, 0)
		}
		c.revs[id]++
		ids = append(ids, id)
	}
	c.idbuf = ids
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			c.pairs[ceKey(a, b)]++
		}
	}
	c.commits++
}

// Remove undoes a previous Add of the same items (in any order), for
// rewritten or pruned commits, restoring the exact previous counts. It
// reports false and changes nothing when the counts show the commit cannot
// have been added; a commit that was never added but is consistent with the
// counts is not detected.
func (c *CoEvolution) Remove(items []string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	set := c.normalise(items)
	if len(set) == 0 {
		return true
	}
	if c.tooLarge(len(set)) {
		if c.ignored == 0 {
			return false
		}
		c.ignored--
		return true
	}
	ids, ok := c.lookup(set)
	if !ok {
		return false
	}
	for _, id := range ids {
		c.revs[id]--
	}
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			k := ceKey(a, b)
			if c.pairs[k]--; c.pairs[k] == 0 {
				delete(c.pairs, k)
			}
		}
	}
	c.commits--
	return true
}

// lookup returns the ids of set when every item and pair has a count to
// take back.
func (c *CoEvolution) lookup(set []string) ([]uint32, bool) {
	if c.commits == 0 {
		return nil, false
	}
	ids := c.idbuf[:0]
	for _, s := range set {
		id, ok := c.ids[s]
		if !ok || c.revs[id] == 0 {
			return nil, false
		}
		ids = append(ids, id)
	}
	c.idbuf = ids
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			if c.pairs[ceKey(a, b)] == 0 {
				return nil, false
			}
		}
	}
	return ids, true
}

// Commits returns the number of commits counted for coupling.
func (c *CoEvolution) Commits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.commits
}

// Ignored returns the number of commits ignored for touching more than
// MaxChangeset items.
func (c *CoEvolution) Ignored() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ignored
}

// Couplings returns the pairs passing the thresholds, sorted by confidence
// descending, then shared descending, then (A, B) ascending.
func (c *CoEvolution) Couplings() []Coupling {
	return c.collect(func(uint32, uint32) bool { return true })
}

// Of returns the pairs passing the thresholds that contain item, in the
// order of Couplings. It scans every pair: O(pairs), like Couplings.
func (c *CoEvolution) Of(item string) []Coupling {
	c.mu.Lock()
	id, ok := c.ids[item]
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return c.collect(func(a, b uint32) bool { return a == id || b == id })
}

func (c *CoEvolution) collect(keep func(a, b uint32) bool) []Coupling {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Coupling
	for k, n := range c.pairs {
		a, b := uint32(k>>32), uint32(k)
		if !keep(a, b) {
			continue
		}
		if cp, ok := c.coupling(a, b, int(n)); ok {
			out = append(out, cp)
		}
	}
	slices.SortFunc(out, compareCouplings)
	return out
}

// coupling builds the pair's Coupling and reports whether it passes the
// thresholds.
func (c *CoEvolution) coupling(a, b uint32, shared int) (Coupling, bool) {
	cp, ok := c.opts.Couple(c.names[a], c.names[b], shared, int(c.revs[a]), int(c.revs[b]))
	if ok {
		cp.Support = float64(shared) / float64(c.commits)
	}
	return cp, ok
}

// Couple builds the Coupling of items a and b from their counts, without
// Support (which needs the commit total), and reports whether it passes the
// thresholds. It is what CoEvolution computes, for callers that count
// elsewhere (in SQL, for the few items a new commit touched).
func (o CoEvolutionOptions) Couple(a, b string, shared, ra, rb int) (Coupling, bool) {
	o = o.withDefaults()
	if ra < o.MinRevisions || rb < o.MinRevisions || shared < o.MinShared {
		return Coupling{}, false
	}
	conf := float64(2*shared) / float64(ra+rb)
	if conf < o.MinConfidence {
		return Coupling{}, false
	}
	cp := Coupling{A: a, B: b, Shared: shared, RevsA: ra, RevsB: rb, Confidence: conf,
		ConfidenceAB: float64(shared) / float64(ra), ConfidenceBA: float64(shared) / float64(rb)}
	if cp.A > cp.B {
		cp.A, cp.B = cp.B, cp.A
		cp.RevsA, cp.RevsB = cp.RevsB, cp.RevsA
		cp.ConfidenceAB, cp.ConfidenceBA = cp.ConfidenceBA, cp.ConfidenceAB
	}
	return cp, true
}

func compareCouplings(x, y Coupling) int {
	if c := cmp.Compare(y.Confidence, x.Confidence); c != 0 {
		return c
	}
	if c := cmp.Compare(y.Shared, x.Shared); c != 0 {
		return c
	}
	if c := cmp.Compare(x.A, y.A); c != 0 {
		return c
	}
	return cmp.Compare(x.B, y.B)
}

// normalise returns items sorted, deduplicated and without empty strings,
// in the scratch buffer.
func (c *CoEvolution) normalise(items []string) []string {
	s := append(c.strs[:0], items...)
	c.strs = s[:0]
	slices.Sort(s)
	s = slices.Compact(s)
	if len(s) > 0 && s[0] == "" {
		s = s[1:]
	}
	return s
}

func (c *CoEvolution) tooLarge(n int) bool {
	return c.opts.MaxChangeset >= 0 && n > c.opts.MaxChangeset
}

// ceKey is the map key of the unordered pair {a, b}, a != b.
func ceKey(a, b uint32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(a)<<32 | uint64(b)
}

// Resolved returns the options with every default applied.
func (o CoEvolutionOptions) Resolved() CoEvolutionOptions { return o.withDefaults() }
