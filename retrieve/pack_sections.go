package retrieve

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// The candidate items of each section, best first, before the budget
// chooses among them. Each item carries the commits and files it cites,
// from which the pack's provenance is made.

// packRefs are the commits and files an item cites.
type packRefs struct {
	commits []string
	files   []string
}

// packMatch is what the query named: entity keys and paths.
type packMatch struct {
	keys  map[string]bool
	names map[string]bool // the named entities' names, lower case, for notes
	paths []string
}

func newPackMatch(in PackInput) packMatch {
	m := packMatch{keys: map[string]bool{}, names: map[string]bool{}}
	for _, k := range in.Entities {
		m.keys[k] = true
		_, qual, _ := strings.Cut(k, "#")
		parts := strings.FieldsFunc(qual, func(r rune) bool { return r == '.' || r == ':' })
		for i := range parts {
			m.names[strings.ToLower(strings.Join(parts[i:], "."))] = true
		}
	}
	for _, f := range in.Files {
		if p := model.NormalizePath(f); p != "" && p != "." {
			m.paths = append(m.paths, strings.TrimSuffix(p, "/"))
		}
	}
	return m
}

// file reports whether path is a named path or lies under a named
// directory.
func (m packMatch) file(path string) bool {
	for _, f := range m.paths {
		if path == f || strings.HasPrefix(path, f+"/") {
			return true
		}
	}
	return false
}

// note reports whether a design note speaks of what the query named.
func (m packMatch) note(n model.DesignNote) bool {
	if n.Path != "" && m.file(n.Path) {
		return true
	}
	for _, e := range n.Entities {
		if m.names[strings.ToLower(e)] || m.file(model.NormalizePath(e)) {
			return true
		}
	}
	return false
}

// packShort is the 7-character abbreviation git shows by default.
func packShort(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

func packDay(t time.Time) string { return t.UTC().Format("2006-01-02") }

// packClip cuts s to at most n runes on a word boundary, ending it in "…", and
// folds it onto one line.
func packClip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := string([]rune(s)[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

// packLabel prefixes a commit's text with seed 004's labels: rewritten
// (only when asked for), stale, and files that are gone from the head.
func packLabel(c *packCommit) string {
	var b strings.Builder
	if c.rewritten {
		b.WriteString("[rewritten] ")
	}
	if c.res.Stale {
		b.WriteString("[Stale?] ")
	}
	if len(c.res.Gone) > 0 {
		b.WriteString("[Source may be outdated] ")
	}
	return b.String()
}

func packKeyItems(cs []*packCommit) ([]KeyItem, []packRefs) {
	var items []KeyItem
	var refs []packRefs
	for _, c := range cs[:min(len(cs), packMaxKeyItems)] {
		items = append(items, KeyItem{Hash: c.hash, Summary: packLabel(c) + packClip(c.text(), packMaxTextRunes),
			Classification: c.class, RelevanceScore: round3(c.res.Score), Tier: c.res.Tier, Confidence: c.res.Confidence,
			cands: evidenceCands(c)})
		refs = append(refs, packRefs{commits: []string{c.hash}})
	}
	return items, refs
}

// Timeline granularity: results are grouped by day, or by month when they
// span more than packTimelineDays days or fall on more days than the
// timeline has entries.
const packTimelineDays = 90

// packTimeline groups the results by date. Entries come best first (by
// their best result), to be chosen in that order; the pack shows the
// chosen ones oldest first.
func packTimeline(cs []*packCommit) ([]TimelineEntry, []packRefs) {
	if len(cs) == 0 {
		return nil, nil
	}
	key := packDay
	days := map[string]bool{}
	first, last := cs[0].when, cs[0].when
	for _, c := range cs {
		days[key(c.when)] = true
		first, last = packMinTime(first, c.when), packMaxTime(last, c.when)
	}
	if len(days) > packMaxTimeline || last.Sub(first) > packTimelineDays*24*time.Hour {
		key = func(t time.Time) string { return t.UTC().Format("2006-01") }
	}
	groups := map[string][]*packCommit{}
	var order []string
	for _, c := range cs { // best first, so order is by best result
		k := key(c.when)
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	var items []TimelineEntry
	var refs []packRefs
	for _, k := range order[:min(len(order), packMaxTimeline)] {
		g := groups[k]
		var parts []string
		for _, c := range g[:min(len(g), 3)] {
			part := packClip(c.text(), 100)
			if c.class != "" {
				part = c.class + ": " + part
			}
			parts = append(parts, part)
		}
		if len(g) > 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(g)-3))
		}
		byTime := slices.Clone(g)
		sort.SliceStable(byTime, func(i, j int) bool { return byTime[i].when.Before(byTime[j].when) })
		e := TimelineEntry{Date: k, Summary: strings.Join(parts, "; ")}
		for _, c := range byTime {
			e.Commits = append(e.Commits, c.hash)
		}
		items = append(items, e)
		refs = append(refs, packRefs{commits: e.Commits})
	}
	return items, refs
}

func packMinTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func packMaxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// packNotes lists the results' design notes: those that speak of what the
// query named first, then by result rank, each text once.
func packNotes(cs []*packCommit, m packMatch) ([]NoteItem, []packRefs) {
	type cand struct {
		n       model.DesignNote
		c       *packCommit
		matched bool
	}
	var all []cand
	for _, c := range cs {
		for _, n := range c.notes {
			all = append(all, cand{n, c, m.note(n)})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].matched && !all[j].matched })
	var items []NoteItem
	var refs []packRefs
	seen := map[string]bool{}
	for _, x := range all {
		text := strings.Join(strings.Fields(x.n.Text), " ")
		if seen[text] || len(items) == packMaxNotes {
			continue
		}
		seen[text] = true
		it := NoteItem{Source: x.c.hash, Note: text,
			Relevance: fmt.Sprintf("result #%d, %s", x.c.rank+1, packCommitTag(x.c))}
		r := packRefs{commits: []string{x.c.hash}}
		if x.n.Source == "comment" && x.n.Path != "" {
			it.Source = fmt.Sprintf("%s:%d", x.n.Path, x.n.Line)
			it.Relevance = "comment added in " + it.Relevance
			r.files = []string{x.n.Path}
		}
		if x.matched {
			it.Relevance += "; about what the query names"
		}
		items = append(items, it)
		refs = append(refs, r)
	}
	return items, refs
}

// packCommitTag is "abc1234 (bugfix)", or just the short hash when the commit
// is not classified.
func packCommitTag(c *packCommit) string {
	if c.class == "" {
		return packShort(c.hash)
	}
	return packShort(c.hash) + " (" + c.class + ")"
}

// packActionVerb turns an entity change's action into a past participle.
func packActionVerb(action string) string {
	switch action {
	case model.EntityIntroduced:
		return "introduced"
	case model.EntityDeleted:
		return "deleted"
	}
	return "modified"
}

// packCode lists entities: those the query named first, then those the
// results changed (in files the query named first), by result rank. An
// entity's explanation names the results that changed it, up to three.
func packCode(cs []*packCommit, named []packEntityInfo, m packMatch) ([]CodeItem, []packRefs) {
	type change struct {
		c *packCommit
		e packEntity
	}
	changes := map[string][]change{}
	var touched []packEntity
	for _, c := range cs {
		for _, e := range c.ents {
			if changes[e.key] == nil && !m.keys[e.key] {
				touched = append(touched, e)
			}
			changes[e.key] = append(changes[e.key], change{c, e})
		}
	}
	sort.SliceStable(touched, func(i, j int) bool { return m.file(touched[i].path) && !m.file(touched[j].path) })
	var items []CodeItem
	var refs []packRefs
	add := func(key, path, qual, kind, lang string, last *packEntityInfo) {
		chs := changes[key]
		r := packRefs{files: []string{path}}
		var says []string
		for _, ch := range chs[:min(len(chs), 3)] {
			says = append(says, packActionVerb(ch.e.action)+" in "+packCommitTag(ch.c))
			r.commits = append(r.commits, ch.c.hash)
		}
		it := CodeItem{Path: path, Entity: qual, Explanation: strings.Join(says, ", "), language: lang}
		if len(chs) > 0 {
			it.Snippet = chs[0].e.signature
		}
		if len(chs) == 0 {
			if last == nil || last.last == nil {
				return
			}
			ev := last.last
			it.Snippet = ev.Signature
			it.Explanation = fmt.Sprintf("last %s in %s (%s) on %s", packActionVerb(ev.Action), packShort(ev.Commit),
				ev.Classification, packDay(ev.When))
			r.commits = append(r.commits, ev.Commit)
		}
		if strings.TrimSpace(it.Snippet) == "" {
			it.Snippet = kind + " " + qual
		}
		items = append(items, it)
		refs = append(refs, r)
	}
	for i := range named {
		n := &named[i]
		add(n.Key, n.Path, n.Qualified, n.Kind, n.Language, n)
	}
	for _, e := range touched {
		add(e.key, e.path, e.qualified, e.kind, e.lang, nil)
	}
	if len(items) > packMaxCode {
		items, refs = items[:packMaxCode], refs[:packMaxCode]
	}
	return items, refs
}

// packTestNode splits a verified_by node id into a path and a qualified name
// ("" for a file).
func packTestNode(id string) (path, name string) {
	if rest, ok := strings.CutPrefix(id, "entity:"); ok {
		path, name, _ = strings.Cut(rest, "#")
		return path, name
	}
	return strings.TrimPrefix(id, "file:"), ""
}

// packTests lists the tests of the subjects, the query's own first (tier
// 0), then by confidence; each test once.
func packTests(vs []packVerification, tier map[string]int) ([]TestItem, []packRefs) {
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if tier[a.subject] != tier[b.subject] {
			return tier[a.subject] < tier[b.subject]
		}
		if a.confidence != b.confidence {
			return a.confidence > b.confidence
		}
		if a.test != b.test {
			return a.test < b.test
		}
		return a.subject < b.subject
	})
	var items []TestItem
	var refs []packRefs
	seen := map[string]bool{}
	for _, v := range vs {
		if seen[v.test] || v.test == v.subject || len(items) == packMaxTests {
			continue
		}
		seen[v.test] = true
		path, name := packTestNode(v.test)
		spath, sname := packTestNode(v.subject)
		if sname == "" {
			sname = spath
		}
		items = append(items, TestItem{Path: path, Name: name,
			Description: fmt.Sprintf("verifies %s (by %s, confidence %.2f)", sname, v.basis, v.confidence)})
		refs = append(refs, packRefs{files: []string{path}})
	}
	return items, refs
}
