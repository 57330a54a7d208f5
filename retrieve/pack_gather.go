package retrieve

import (
	"context"
	"fmt"
	"time"

	"github.com/gitmemory/gitmemory/store"
)

// packSection names a pack section, in seed 003's priority order.
type packSection int

const (
	secKeyItems packSection = iota
	secTimeline
	secNotes
	secCode
	secDiffs
	secTests
)

// packCand is one candidate item: its section, its index among the
// section's candidates, and what it cites.
type packCand struct {
	sec  packSection
	idx  int
	refs packRefs
}

// packCands is everything the fitter chooses from.
type packCands struct {
	frame   Pack     // metadata, warnings and clarify; no items
	summary []string // the summary's sentences, most important first
	all     Pack     // every section's candidate items, best first
	order   []packCand
	diffs   []packDiffSource // the full text of all.ImportantDiffs
	rank    map[string]int   // commit → result rank, for provenance order
	authors map[string]string
}

// gatherPack reads what the pack can show from the store.
func gatherPack(ctx context.Context, st *store.Store, in PackInput, opts PackOptions) (*packCands, error) {
	pc := &packCands{rank: map[string]int{}, authors: map[string]string{}}
	pc.frame.Metadata = PackMetadata{Query: in.Query, Repository: in.Repository, Mode: in.Mode,
		Degraded: in.Degraded, Intent: in.Intent, GeneratedAt: opts.Now().UTC().Truncate(time.Second)}
	pc.frame.Warnings = append(pc.frame.Warnings, in.Warnings...)

	cs, warnings, err := packResults(ctx, st, in.Items, opts.IncludeRewritten)
	if err != nil {
		return nil, err
	}
	pc.frame.Warnings = append(pc.frame.Warnings, warnings...)
	if len(cs) > 0 {
		if err := loadPackDetails(ctx, st.DB, cs); err != nil {
			return nil, err
		}
	}
	for _, c := range cs {
		pc.rank[c.hash] = c.rank
		pc.authors[c.hash] = c.author
	}
	named, err := loadPackEntities(ctx, st, in.Entities)
	if err != nil {
		return nil, err
	}
	for _, n := range named {
		if n.last != nil {
			pc.authors[n.last.Commit] = n.last.Author
		}
	}
	m := newPackMatch(in)
	a := &pc.all
	var refs [secTests + 1][]packRefs
	a.KeyItems, refs[secKeyItems] = packKeyItems(cs)
	if opts.Full {
		if err := packFull(ctx, st.DB, cs, a.KeyItems, m); err != nil {
			return nil, err
		}
	}
	a.Timeline, refs[secTimeline] = packTimeline(cs)
	a.DesignNotes, refs[secNotes] = packNotes(cs, m)
	a.CodeContext, refs[secCode] = packCode(cs, named, m)
	if a.ImportantDiffs, refs[secDiffs], pc.diffs, err = packDiffs(ctx, st.DB, cs, m); err != nil {
		return nil, err
	}
	vs, tier, err := packTestRows(ctx, st, in, named, a)
	if err != nil {
		return nil, err
	}
	a.RelatedTests, refs[secTests] = packTests(vs, tier)
	for sec, rs := range refs {
		if opts.NoDiffs && sec == int(secDiffs) || opts.NoTests && sec == int(secTests) {
			continue
		}
		for i, r := range rs {
			pc.order = append(pc.order, packCand{sec: packSection(sec), idx: i, refs: r})
		}
	}
	pc.summary = packSummary(in, cs, a)
	pc.frame.Clarify = packClarify(in, cs, a)
	return pc, nil
}

// packResults loads the results' commits, best first, each once, at most
// packMaxResults: rewritten commits are left out unless asked for, and
// results not in the store are skipped. It says what it left out.
func packResults(ctx context.Context, st *store.Store, rs []Item, rewritten bool) ([]*packCommit, []string, error) {
	var hashes []string
	for _, r := range rs {
		hashes = append(hashes, r.Commit)
	}
	byHash, err := loadPackCommits(ctx, st.DB, hashes)
	if err != nil {
		return nil, nil, err
	}
	var out []*packCommit
	var missing, gone int
	seen := map[string]bool{}
	for _, r := range rs {
		c, ok := byHash[r.Commit]
		switch {
		case seen[r.Commit] || len(out) == packMaxResults:
			continue
		case !ok:
			missing++
			continue
		case c.rewritten && !rewritten:
			gone++
			continue
		}
		seen[r.Commit] = true
		c.rank, c.res = len(out), r
		out = append(out, c)
	}
	var warnings []string
	if gone > 0 {
		warnings = append(warnings, packPlural(gone, "rewritten commit")+" left out: no longer in the branch's history")
	}
	if missing > 0 {
		warnings = append(warnings, packPlural(missing, "result")+" not in the store (sync again)")
	}
	return out, warnings, nil
}

// packTestRows reads the tests of what the query named (tier 0) and of the
// entities and files the other sections show (tier 1).
func packTestRows(ctx context.Context, st *store.Store, in PackInput, named []packEntityInfo, a *Pack) ([]packVerification, map[string]int, error) {
	tier := map[string]int{}
	var subjects []string
	add := func(id string, t int) {
		if old, ok := tier[id]; ok && old <= t {
			return
		} else if !ok {
			subjects = append(subjects, id)
		}
		tier[id] = t
	}
	for _, k := range in.Entities {
		add("entity:"+k, 0)
	}
	for _, n := range named {
		add("file:"+n.Path, 0)
	}
	for _, f := range newPackMatch(in).paths {
		add("file:"+f, 0)
	}
	for _, c := range a.CodeContext {
		add("entity:"+c.Path+"#"+c.Entity, 1)
		add("file:"+c.Path, 1)
	}
	for _, d := range a.ImportantDiffs {
		add("file:"+d.Path, 1)
	}
	if len(subjects) == 0 {
		return nil, tier, nil
	}
	vs, err := loadPackTests(ctx, st.DB, subjects)
	return vs, tier, err
}

// packPlural is "1 commit" or "2 commits".
func packPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
