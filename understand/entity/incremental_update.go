package entity

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sort"
	"sync/atomic"

	sitter "github.com/smacker/go-tree-sitter"
)

// group is a run of a state's chunks, first to last, that edits touch.
type group struct {
	first, last int
	edits       []fileEdit
}

// updateState derives the state of a new file version from the old one's
// and the edits between them: the chunks the edits touch are reparsed,
// from their old tree when an edit group stays within one chunk; the
// others are shared. A reparsed group that would not parse the same
// within the file (see chunkFit) grows by the chunk before or after it
// and is parsed again, up to maxGrowth times; then the file is parsed
// whole. (On git/git's history, parsing whole every update that failed
// the rule was 62 MB in 1,270 of 67,000 updates, half of all the bytes
// parsed from scratch; growing, with top-level error nodes accepted, left
// 13 MB in about 410, most with a missing token. A full parse of each
// derived version found the same entities in all 77,700.)
func (p *Parser) updateState(ctx context.Context, prev *fileState, oldSrc, newSrc []byte, edits []fileEdit) (*fileState, error) {
	l := prev.lang
	st, err := p.state(l)
	if err != nil {
		return nil, err
	}
	offsets := make([]int, len(prev.chunks)+1)
	rows := make([]int, len(prev.chunks)+1)
	for i, ch := range prev.chunks {
		offsets[i+1], rows[i+1] = offsets[i]+ch.size, rows[i]+ch.lines
	}
	last := len(prev.chunks) - 1
	u := &update{}
	pending := groupEdits(offsets, edits)
	parseWhole := func() (*fileState, error) {
		u.discard()
		wholeParses.Add(1)
		return p.buildState(ctx, l, newSrc)
	}
	for growth := 0; len(pending) > 0; {
		g := pending[0]
		ch, text, scratch, err := p.groupChunk(ctx, l, st, prev, g, offsets, rows, oldSrc, newSrc)
		if errors.Is(err, errParseWhole) {
			return parseWhole()
		}
		if err != nil {
			u.discard()
			return nil, err
		}
		if ch != nil && ch.tree != nil {
			if need := chunkFit(l, ch.tree, text, g.first == 0, g.last == last); need != 0 {
				closeTree(ch.tree)
				growth++
				if growth > maxGrowth || need&whole != 0 || g.first == 0 && g.last == last {
					return parseWhole()
				}
				pending = u.grow(pending, need, last)
				continue
			}
		}
		made := []*chunk{ch}
		if scratch {
			made = resplit(l, ch, text)
		}
		u.done, u.made = append(u.done, g), append(u.made, made)
		pending = pending[1:]
	}
	return newState(l, u.splice(prev.chunks), prev.cache), nil
}

// maxGrowth is how many times updateState grows an update's groups before
// it parses the file whole. A broken boundary is mostly a definition that
// a macro or an error extends over the next one or two: on git/git, groups
// grew 714 times, and 11 updates still broke a boundary at the limit or
// at the file's ends.
const maxGrowth = 4

// grow widens the first pending group by the neighbours need names, and
// merges into it the groups it then shares a chunk with: done ones, whose
// new chunks it drops, and pending ones.
func (u *update) grow(pending []group, need sides, last int) []group {
	g := pending[0]
	if need&before != 0 {
		g.first = max(g.first-1, 0)
	}
	if need&after != 0 {
		g.last = min(g.last+1, last)
	}
	for k := len(u.done) - 1; k >= 0 && u.done[k].last >= g.first; k-- {
		d := u.done[k]
		closeTrees(u.made[k])
		u.done, u.made = u.done[:k], u.made[:k]
		g.first = min(g.first, d.first)
		g.edits = append(slices.Clone(d.edits), g.edits...)
	}
	k := 1
	for ; k < len(pending) && pending[k].first <= g.last; k++ {
		g.last = max(g.last, pending[k].last)
		g.edits = append(g.edits, pending[k].edits...)
	}
	pending = pending[k-1:]
	pending[0] = g
	return pending
}

// update is the progress of updateState: the edit groups done with their
// new chunks.
type update struct {
	done []group
	made [][]*chunk // made[i] are done[i]'s chunks, none for no text
}

// discard frees the trees of the chunks made so far.
func (u *update) discard() {
	for _, made := range u.made {
		closeTrees(made)
	}
}

func closeTrees(chunks []*chunk) {
	for _, ch := range chunks {
		if ch != nil && ch.tree != nil {
			closeTree(ch.tree)
		}
	}
}

// splice returns the old chunks with each done group's replaced by its new
// chunk.
func (u *update) splice(old []*chunk) []*chunk {
	var chunks []*chunk
	next := 0
	for i, g := range u.done {
		chunks = append(chunks, old[next:g.first]...)
		for _, ch := range u.made[i] {
			if ch != nil {
				chunks = append(chunks, ch)
			}
		}
		next = g.last + 1
	}
	return append(chunks, old[next:]...)
}

// groupEdits groups the edits by the chunks they touch. An insertion at a
// chunk boundary goes to the chunk after it (at the end of the file, to
// the last chunk).
func groupEdits(offsets []int, edits []fileEdit) []group {
	n := len(offsets) - 1
	chunkAt := func(x int) int {
		return min(sort.Search(n, func(i int) bool { return offsets[i+1] > x }), n-1)
	}
	var groups []group
	for _, e := range edits {
		first, last := chunkAt(e.start), chunkAt(max(e.start, e.oldEnd-1))
		if k := len(groups) - 1; k >= 0 && first <= groups[k].last {
			groups[k].last = max(groups[k].last, last)
			groups[k].edits = append(groups[k].edits, e)
			continue
		}
		groups = append(groups, group{first: first, last: last, edits: []fileEdit{e}})
	}
	return groups
}

// groupChunk parses the new text of a group of chunks into one chunk, or
// returns nil if no text is left of them, and returns the text and
// whether it was parsed from scratch. An edit group within one chunk
// skips the parse when bodyEdit proves the syntax around its edits
// unchanged, and else reparses the chunk from its tree if it has one.
func (p *Parser) groupChunk(ctx context.Context, l *language, st *langState, prev *fileState, g group, offsets, rows []int, oldSrc, newSrc []byte) (*chunk, []byte, bool, error) {
	before := g.edits[0].delta
	growth := 0
	for _, e := range g.edits {
		growth += e.newLen - (e.oldEnd - e.start)
	}
	start := offsets[g.first] + before
	text := newSrc[start : offsets[g.last+1]+before+growth]
	if len(text) == 0 {
		return nil, nil, false, nil
	}
	old := prev.chunks[g.first]
	entire := g.first == 0 && g.last == len(prev.chunks)-1
	if g.first != g.last {
		if entire {
			return nil, nil, false, errParseWhole
		}
		return p.scratchChunk(ctx, l, st, text)
	}
	rel := make([]fileEdit, len(g.edits))
	for i, e := range g.edits {
		e.start -= offsets[g.first]
		e.oldEnd -= offsets[g.first]
		e.delta -= before
		row := uint32(rows[g.first])
		e.startPt.Row -= row
		e.oldEndPt.Row -= row
		e.newEndPt.Row -= row
		rel[i] = e
	}
	if ch := bodyEdit(l, old, rel, oldSrc[offsets[g.first]:offsets[g.first+1]], text); ch != nil {
		bodyEdits.Add(1)
		return ch, text, false, nil
	}
	if entire && old.tainted && old.tree != nil && hasMissing(old.tree.RootNode()) {
		return nil, nil, false, errParseWhole
	}
	if old.tree == nil {
		return p.scratchChunk(ctx, l, st, text)
	}
	ch, err := p.reparseChunk(ctx, l, st, old, rel, text)
	return ch, text, false, err
}

// errParseWhole is groupChunk's answer when the group is the whole file and
// its parse would end as a whole parse: a group of several chunks, parsed
// from scratch, which chunkFit would send to a whole parse unless it fits
// as it is, and then split as a whole parse splits; or one chunk with a
// missing token that no body edit spares, which reparseChunk parses from
// scratch when the errors are gone and which chunkFit sends to a whole
// parse while the token stays missing. (A chunk with other errors only is
// still reparsed from its tree: the new tree shares the old one's nodes,
// which the state cache keeps beside it, and a fresh tree each time took
// git/git's sync over 1 GiB.) In C and C++ an include guard makes
// a header one top-level node, so one chunk, and macros leave missing
// tokens in it (fmt's FMT_ENABLE_IF(sizeof(To) > sizeof(From)) in a
// template's parameters): on fmtlib/fmt's history, 4,735 updates ended in
// a whole parse, 393 MB of C++, most of them after a reparse that could
// not be kept.
var errParseWhole = errors.New("parse the file whole")

// scratchChunk parses a chunk's text from scratch.
func (p *Parser) scratchChunk(ctx context.Context, l *language, st *langState, text []byte) (*chunk, []byte, bool, error) {
	tree, err := p.parseTree(ctx, st, nil, text)
	if err != nil {
		return nil, nil, false, err
	}
	ch := newChunk(l, len(text), bytes.Count(text, newline), tree, p.queryItems(l, st, tree, text, nil))
	ch.tainted = tree.RootNode().HasError()
	return ch, text, true, nil
}

// resplit cuts a valid chunk parsed from scratch, which may replace
// several old chunks, into chunks as buildState would cut its text
// (chunkFit found its tree to be the file's there): else each edit
// across a boundary, and each version derived from a distant one, would
// merge chunks for good, and a file's chunks grow over its history into
// one that every change reparses whole. The pieces keep no tree.
func resplit(l *language, ch *chunk, text []byte) []*chunk {
	rule, ok := ruleOf(l)
	if ch == nil || ch.tree == nil || !ok {
		return []*chunk{ch}
	}
	kids := topLevel(ch.tree.RootNode(), rule.junction)
	starts := chunkStarts(l, kids)
	if len(starts) < 2 {
		return []*chunk{ch}
	}
	closeTree(ch.tree)
	return splitFile(l, text, starts, kids, ch.items)
}

// reparseChunk reparses a chunk's new text from its old tree, given the
// edits in chunk coordinates.
func (p *Parser) reparseChunk(ctx context.Context, l *language, st *langState, old *chunk, edits []fileEdit, text []byte) (*chunk, error) {
	edited, lines := editedCopy(old, edits)
	defer closeTree(edited)
	tree, err := p.parseTree(ctx, st, edited, text)
	if err != nil {
		return nil, err
	}
	broken := tree.RootNode().HasError()
	if old.tainted && !broken {
		// The old tree may hold nodes that error recovery built otherwise
		// than a parse from scratch would; now that the text parses
		// without errors, start again from scratch.
		closeTree(tree)
		if tree, err = p.parseTree(ctx, st, nil, text); err != nil {
			return nil, err
		}
		return newChunk(l, len(text), lines, tree, p.queryItems(l, st, tree, text, nil)), nil
	}
	changed := changedSpans(edited, tree, nil)
	items := p.reuseItems(l, st, old, edits, tree, text, changed)
	ch := newChunk(l, len(text), lines, tree, items)
	ch.tainted = broken
	return ch, nil
}

// editedCopy returns a copy of a chunk's tree with the edits applied,
// and the chunk's lines after them. Edits made on a tree since its last
// parse accumulate: the next parse from it reparses all of them.
func editedCopy(old *chunk, edits []fileEdit) (*sitter.Tree, int) {
	edited := old.tree.Copy()
	liveTrees.Add(1)
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		editTree(edited, textEdit{start: e.start, oldEnd: e.oldEnd, newEnd: e.start + e.newLen,
			startPoint: e.startPt, oldEndPoint: e.oldEndPt, newEndPoint: e.newEndPt})
	}
	return edited, linesAfter(old, edits)
}

// linesAfter returns a chunk's lines after the edits.
func linesAfter(old *chunk, edits []fileEdit) int {
	lines := old.lines
	for _, e := range edits {
		lines += int(e.newEndPt.Row) - int(e.oldEndPt.Row)
	}
	return lines
}

// wholeParses counts the updates that parsed the file whole, for the
// tests.
var wholeParses atomic.Int64

// bodyEdits counts the edit groups that bodyEdit spared a parse, for
// the tests.
var bodyEdits atomic.Int64
