package entity

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"

	sitter "github.com/smacker/go-tree-sitter"
)

// fileState is one version of a file as Parser.Changes keeps it: the
// chunks that make it up, in order.
type fileState struct {
	lang   *language
	chunks []*chunk
	size   int         // bytes, the sum of the chunks' sizes
	cache  *stateCache // accounts for the chunks' memory

	// Computed on first use:
	ents       []Entity // path-less
	pkg        []string // the package prefix
	pkgKey     string
	prefixDone bool
}

// chunk is a run of whole lines of a file version that tree-sitter parses
// on its own exactly as within the file: one or more top-level definitions
// (with the comments and blank lines after them), or the whole file. It
// holds the items the entity query finds in it and, once edited, its own
// tree, in chunk-relative bytes and lines. A chunk is shared by the
// versions that contain it and never changes but for its caches (tree and
// entities); refs counts the versions, and the last release frees the
// tree.
type chunk struct {
	size, lines int // bytes and newlines
	tree        *sitter.Tree
	items       []citem // sorted by start, then by end descending
	// tainted: the chunk has syntax errors, so error recovery may have
	// built its tree otherwise than a parse from scratch (rarely, when it
	// is reparsed incrementally), and so may the trees reparsed from it.
	tainted bool
	refs    int
	mem     int // estimated bytes, tree and items

	// The entities, resolved on first use under the package prefix
	// entsKey.
	ents     []Entity
	entsKey  string
	resolved bool

	inPrev, inNext uint64 // diffStates' marks
}

// citem is an item with the range it depends on: its definition and the
// wrappers around it, whose shape decides its lines and signature.
type citem struct {
	item
	ctxStart, ctxEnd uint32
}

func newChunk(l *language, size, lines int, tree *sitter.Tree, items []citem) *chunk {
	ch := &chunk{size: size, lines: lines, tree: tree, items: items, mem: itemBytes * len(items)}
	if tree != nil {
		ch.mem += treeBytesPerSourceByte * size
	}
	return ch
}

// newState returns a state holding chunks. A state is created holding its
// chunks; whoever ends up with it (the cache, or a call that does not cache
// it) releases it once. The cache's memory account covers every chunk that
// some state holds.
func newState(l *language, chunks []*chunk, c *stateCache) *fileState {
	s := &fileState{lang: l, chunks: chunks, cache: c}
	for _, ch := range chunks {
		s.size += ch.size
		if ch.refs == 0 {
			c.used += ch.mem
		}
		ch.refs++
	}
	return s
}

// release drops the state's hold on its chunks, freeing the trees no
// other state holds.
func (s *fileState) release() {
	for _, ch := range s.chunks {
		ch.refs--
		if ch.refs > 0 {
			continue
		}
		s.cache.used -= ch.mem
		if ch.tree != nil {
			closeTree(ch.tree)
			ch.tree = nil
		}
	}
	s.chunks = nil
}

// prefix returns the package prefix of the state's entities: that of its
// first package item, as resolve finds it in the whole file, and a key
// that tells prefixes apart.
func (s *fileState) prefix() ([]string, string) {
	if !s.prefixDone {
	find:
		for _, ch := range s.chunks {
			for _, it := range ch.items {
				if it.role == rolePackage {
					s.pkg = packagePrefix([]item{it.item})
					break find
				}
			}
		}
		s.pkgKey, s.prefixDone = strings.Join(s.pkg, "\x00"), true
	}
	return s.pkg, s.pkgKey
}

// entities returns the state's path-less entities, as Parser.parse finds
// them in the whole file: entities nest within the top-level node that
// holds them, so the chunks can be resolved one by one.
func (s *fileState) entities() []Entity {
	if s.ents != nil {
		return s.ents
	}
	pkg, key := s.prefix()
	s.ents = []Entity{}
	line := 0
	for _, ch := range s.chunks {
		for _, e := range ch.entities(s.lang, pkg, key) {
			e.StartLine += line
			e.EndLine += line
			s.ents = append(s.ents, e)
		}
		line += ch.lines
	}
	return s.ents
}

// entities returns the chunk's entities under a package prefix, with
// lines counted from the chunk's start.
func (ch *chunk) entities(l *language, pkg []string, key string) []Entity {
	if ch.resolved && ch.entsKey == key {
		return ch.ents
	}
	items := make([]item, len(ch.items))
	for i, it := range ch.items {
		items[i] = it.item
	}
	ch.ents, ch.entsKey, ch.resolved = nest(l, sortItems(items), pkg), key, true
	return ch.ents
}

// buildState parses a file version whole and splits it into chunks where
// chunkStarts allows, with the items of the whole file's query. The chunks
// keep no tree: a chunk's first edit parses its new text from scratch,
// which costs what parsing its old text to reparse it would. A file of one
// chunk keeps the tree of its parse.
func (p *Parser) buildState(ctx context.Context, l *language, src []byte) (*fileState, error) {
	st, err := p.state(l)
	if err != nil {
		return nil, err
	}
	tree, err := p.parseTree(ctx, st, nil, src)
	if err != nil {
		return nil, err
	}
	items := p.queryItems(l, st, tree, src, nil)
	var kids []topNode
	var starts []int
	if rule, ok := ruleOf(l); ok && !tree.RootNode().IsError() {
		kids = topLevel(tree.RootNode(), rule.junction)
		starts = chunkStarts(l, kids)
	}
	if len(starts) < 2 {
		ch := newChunk(l, len(src), bytes.Count(src, newline), tree, items)
		ch.tainted = tree.RootNode().HasError()
		return newState(l, []*chunk{ch}, p.incremental().states), nil
	}
	closeTree(tree)
	return newState(l, splitFile(l, src, starts, kids, items), p.incremental().states), nil
}

var newline = []byte{'\n'}

// splitFile returns the chunks of a file that start at starts, without
// trees, with their share of the file's items; a chunk whose top-level
// nodes have syntax errors is tainted.
func splitFile(l *language, src []byte, starts []int, kids []topNode, items []citem) []*chunk {
	var chunks []*chunk
	line := 0
	for i, start := range starts {
		end := len(src)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		var own []citem
		for len(items) > 0 && int(items[0].start) < end {
			it := items[0]
			items = items[1:]
			it.start, it.end = it.start-uint32(start), it.end-uint32(start)
			it.ctxStart, it.ctxEnd = it.ctxStart-uint32(start), it.ctxEnd-uint32(start)
			if it.role == roleEntity {
				it.startLine, it.endLine = it.startLine-line, it.endLine-line
			}
			own = append(own, it)
		}
		lines := bytes.Count(src[start:end], newline)
		ch := newChunk(l, end-start, lines, nil, own)
		for len(kids) > 0 && kids[0].start < end {
			ch.tainted = ch.tainted || kids[0].broken
			kids = kids[1:]
		}
		chunks = append(chunks, ch)
		line += lines
	}
	return chunks
}

// parseTree parses src, incrementally from old if not nil.
func (p *Parser) parseTree(ctx context.Context, st *langState, old *sitter.Tree, src []byte) (*sitter.Tree, error) {
	tree, err := st.parser.ParseCtx(ctx, old, src)
	if err != nil {
		// A halted parse resumes on the next call unless reset.
		st.parser.Reset()
		return nil, err
	}
	liveTrees.Add(1)
	treeParses.Add(1)
	return tree, nil
}

// treeParses counts tree-sitter's parses, for the tests.
var treeParses atomic.Int64

// liveTrees counts the trees that Changes made and has not closed, for
// tests that check it frees them all.
var liveTrees atomic.Int64

// closeTree frees a tree's C memory.
func closeTree(t *sitter.Tree) {
	t.Close()
	liveTrees.Add(-1)
}
