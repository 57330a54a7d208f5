package retrieve

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// packFitter chooses a pack's items within the token budget. Every choice
// is checked on the whole rendered pack, counted exactly (tokenMemo makes
// re-counting a rendering cost only its new lines), so the budget holds
// whatever the tokenizer does at item boundaries.
//
// While choosing, token_count is set to the budget and the warning about
// items left out says that all were: both only shrink when the real
// figures replace them (a smaller number is never more tokens), so a pack
// that fits while choosing still fits when finished.
type packFitter struct {
	pc     *packCands
	format string
	budget int
	memo   *tokenMemo
	taken  []packCand
}

func newPackFitter(pc *packCands, opts PackOptions, count func(string) int) *packFitter {
	return &packFitter{pc: pc, format: opts.Format, budget: opts.Tokens, memo: newTokenMemo(count)}
}

func (f *packFitter) fit() (*Pack, error) {
	summary, err := f.fitSummary()
	if err != nil {
		return nil, err
	}
	for _, c := range f.pc.order {
		f.try(c, summary)
	}
	return f.finish(summary)
}

// try takes a candidate if the pack still fits with it; a diff that does
// not fit is tried again cut to half and a quarter of its lines, a key
// item without evidence (shedEvidence).
func (f *packFitter) try(c packCand, summary string) {
	trial := append(f.taken[:len(f.taken):len(f.taken)], c)
	fits := func() bool { return f.measure(trial, summary) <= f.budget }
	ok := fits()
	switch {
	case ok:
	case c.sec == secKeyItems:
		ok = f.shedEvidence(trial, fits)
	case c.sec == secDiffs:
		ok = f.cutDiff(c.idx, fits)
	}
	if ok {
		f.taken = trial
	}
}

// shedEvidence drops the evidence of the trial's key items, the last
// first (the one tried, then those taken before it), until the trial
// fits: a key item never stays out for lack of room while an evidence is
// in. When even that does not fit, the evidence is put back.
func (f *packFitter) shedEvidence(trial []packCand, fits func() bool) bool {
	items := f.pc.all.KeyItems
	type shed struct {
		i  int
		ev *Evidence
	}
	var undo []shed
	for j := len(trial) - 1; j >= 0; j-- {
		i := trial[j].idx
		if trial[j].sec != secKeyItems || items[i].Evidence == nil {
			continue
		}
		undo = append(undo, shed{i, items[i].Evidence})
		items[i].Evidence = nil
		if fits() {
			return true
		}
	}
	for _, u := range undo {
		items[u.i].Evidence = u.ev
	}
	return false
}

// cutDiff tries the idx-th diff cut to half and a quarter of its lines;
// when neither fits it is left whole.
func (f *packFitter) cutDiff(idx int, fits func() bool) bool {
	d := &f.pc.all.ImportantDiffs[idx]
	full := d.Diff
	for lines := packMaxDiffLines / 2; lines >= packMinDiffLines; lines /= 2 {
		d.Diff = trimDiff(f.pc.diffs[idx], lines)
		if fits() {
			return true
		}
	}
	d.Diff = full
	return false
}

// fitSummary chooses the summary: its leading sentences, at most
// packSummaryTokens tokens, as many as leave room for the first key item;
// with less room, fewer, then the first sentence cut by words.
func (f *packFitter) fitSummary() (string, error) {
	if n := f.measure(nil, ""); n > f.budget {
		return "", fmt.Errorf("%w: %d tokens, and the header alone takes %d", ErrBudgetTooSmall, f.budget, n)
	}
	sents := f.pc.summary
	k := 0
	for k < len(sents) && f.memo.Count(strings.Join(sents[:k+1], " ")) <= packSummaryTokens {
		k++
	}
	if k == 0 {
		sents, k = []string{f.cutWords(sents[0], func(s string) bool { return f.memo.Count(s) <= packSummaryTokens })}, 1
	}
	var first []packCand
	if len(f.pc.order) > 0 && f.pc.order[0].sec == secKeyItems {
		first = f.pc.order[:1]
		// The summary goes before the first key item's evidence.
		k := &f.pc.all.KeyItems[first[0].idx]
		ev := k.Evidence
		k.Evidence = nil
		defer func() { k.Evidence = ev }()
	}
	for j := k; j >= 1; j-- {
		if s := strings.Join(sents[:j], " "); f.measure(first, s) <= f.budget {
			return s, nil
		}
	}
	// Too little room for the whole first sentence: cut it, keeping the
	// first key item if the two can share the budget, else alone.
	for _, with := range [][]packCand{first, nil} {
		if s := f.cutWords(sents[0], func(s string) bool { return f.measure(with, s) <= f.budget }); s != "" {
			return s, nil
		}
	}
	return "", fmt.Errorf("%w: %d tokens leave no room for a summary", ErrBudgetTooSmall, f.budget)
}

// cutWords returns the longest prefix of s's words, ending in "…", that
// fits; "" if none does.
func (f *packFitter) cutWords(s string, fits func(string) bool) string {
	words := strings.Fields(s)
	cut := func(n int) string { return strings.Join(words[:n], " ") + "…" }
	n := sort.Search(len(words), func(n int) bool { return !fits(cut(n + 1)) })
	if n == 0 {
		return ""
	}
	return cut(n)
}

// measure counts the pack of the taken items and summary, with the
// placeholders of the choosing phase.
func (f *packFitter) measure(taken []packCand, summary string) int {
	p := f.assemble(taken, summary, len(f.pc.order))
	p.Metadata.TokenCount = f.budget
	return f.size(p)
}

func (f *packFitter) size(p *Pack) int {
	if f.format == FormatJSON {
		b, err := RenderJSON(p)
		if err != nil { // unreachable: the pack holds no value JSON cannot encode
			return f.budget + 1
		}
		return f.memo.Count(string(b))
	}
	return f.memo.Count(RenderMarkdown(p))
}

// finish assembles the chosen pack with its real token count and
// warning. Should the count still exceed the budget, the last item taken
// goes, until it fits.
func (f *packFitter) finish(summary string) (*Pack, error) {
	for {
		p := f.assemble(f.taken, summary, len(f.pc.order)-len(f.taken))
		if n := f.settleCount(p); n <= f.budget {
			return p, nil
		}
		if len(f.taken) == 0 {
			return nil, fmt.Errorf("%w: %d tokens", ErrBudgetTooSmall, f.budget)
		}
		f.taken = f.taken[:len(f.taken)-1]
	}
}

// settleCount sets token_count to the count of the pack that shows it. The
// count is a fixed point of n = rest + tokens(n), found in a few steps
// since tokens(n) is 1 to 3.
func (f *packFitter) settleCount(p *Pack) int {
	t := f.budget
	for range 8 {
		p.Metadata.TokenCount = t
		n := f.size(p)
		if n == t {
			return n
		}
		t = n
	}
	return f.budget + 1
}

// assemble builds the pack of the taken items, in each section's order
// (the timeline oldest first), with provenance and, when leftOut > 0, the
// warning that says so.
func (f *packFitter) assemble(taken []packCand, summary string, leftOut int) *Pack {
	p := f.pc.frame
	p.Warnings = slices.Clone(p.Warnings)
	p.Summary = summary
	p.Timeline, p.KeyItems, p.CodeContext = []TimelineEntry{}, []KeyItem{}, []CodeItem{}
	p.ImportantDiffs, p.DesignNotes, p.RelatedTests = []DiffItem{}, []NoteItem{}, []TestItem{}
	a := &f.pc.all
	for _, c := range taken {
		switch c.sec {
		case secKeyItems:
			p.KeyItems = append(p.KeyItems, a.KeyItems[c.idx])
		case secTimeline:
			p.Timeline = append(p.Timeline, a.Timeline[c.idx])
		case secNotes:
			p.DesignNotes = append(p.DesignNotes, a.DesignNotes[c.idx])
		case secCode:
			p.CodeContext = append(p.CodeContext, a.CodeContext[c.idx])
		case secDiffs:
			p.ImportantDiffs = append(p.ImportantDiffs, a.ImportantDiffs[c.idx])
		case secTests:
			p.RelatedTests = append(p.RelatedTests, a.RelatedTests[c.idx])
		}
	}
	sort.SliceStable(p.Timeline, func(i, j int) bool { return p.Timeline[i].Date < p.Timeline[j].Date })
	p.Provenance = f.provenance(taken)
	if leftOut > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("token budget %d: %d of %d items left out (raise --tokens)",
			f.budget, leftOut, len(f.pc.order)))
	}
	return &p
}

// provenance lists the commits (by result rank), files and authors that
// the taken items cite.
func (f *packFitter) provenance(taken []packCand) Provenance {
	pv := Provenance{Commits: []string{}, Files: []string{}, Authors: []string{}}
	seen := map[string]bool{}
	for _, c := range taken {
		for _, h := range c.refs.commits {
			if !seen[h] {
				seen[h] = true
				pv.Commits = append(pv.Commits, h)
				if a := f.pc.authors[h]; a != "" && !seen["author:"+a] {
					seen["author:"+a] = true
					pv.Authors = append(pv.Authors, a)
				}
			}
		}
		for _, p := range c.refs.files {
			if !seen["file:"+p] {
				seen["file:"+p] = true
				pv.Files = append(pv.Files, p)
			}
		}
	}
	rank := func(h string) int {
		if r, ok := f.pc.rank[h]; ok {
			return r
		}
		return len(f.pc.rank)
	}
	sort.SliceStable(pv.Commits, func(i, j int) bool { return rank(pv.Commits[i]) < rank(pv.Commits[j]) })
	sort.Strings(pv.Files)
	sort.Strings(pv.Authors)
	pv.Commits = pv.Commits[:min(len(pv.Commits), packMaxProvCommits)]
	pv.Files = pv.Files[:min(len(pv.Files), packMaxProvFiles)]
	pv.Authors = pv.Authors[:min(len(pv.Authors), packMaxProvAuthors)]
	return pv
}
