package entity

import (
	"context"
	"fmt"
	"slices"

	"github.com/gitmemory/gitmemory/model"
	sitter "github.com/smacker/go-tree-sitter"
)

// The bounds of a Parser's cache of parsed blobs: the number of blobs and
// their total number of entities (about 50 MB).
const (
	cacheSize     = 4096
	cacheEntities = 1 << 18
)

// parseTimeout bounds one parse, in microseconds of tree-sitter's clock:
// a pathological input must not stall the indexer.
const parseTimeout = 10_000_000

// Parser parses file versions into entities. It keeps one tree-sitter
// parser and compiled query per language and remembers the entities of
// recently parsed blobs, so each blob is parsed once. A Parser is not safe
// for concurrent use: use one per goroutine.
type Parser struct {
	langs  map[*language]*langState
	cursor *sitter.QueryCursor
	cache  *blobCache
	inc    *incState // for Changes, created on first use
	// lineDiff, if set, gives the hunks between two versions of a file
	// (see SetLineDiff).
	lineDiff func(old, new []byte) []model.Hunk
	check    bool        // see SetCheck
	checked  CheckCounts // what check found
	source   *Source     // the latest of Source's, whose buffers the next takes
}

// SetLineDiff gives Changes a line diff (git's, with any context), which
// it uses to derive a version it never saw from a related one it keeps:
// without it, the edit between them is taken as one run from the first
// byte that differs to the last, which may reparse much more.
func (p *Parser) SetLineDiff(diff func(old, new []byte) []model.Hunk) {
	p.lineDiff = diff
}

// langState is a language's parser and compiled query.
type langState struct {
	parser *sitter.Parser
	query  *sitter.Query
	caps   []capture // by capture index
}

// NewParser returns a Parser. Call Close to free its C memory.
func NewParser() *Parser {
	return &Parser{
		langs:  make(map[*language]*langState),
		cursor: sitter.NewQueryCursor(),
		cache:  newBlobCache(cacheSize, cacheEntities),
	}
}

// Close frees the parsers, queries and cursor. The Parser must not be used
// afterwards.
func (p *Parser) Close() {
	for _, st := range p.langs {
		st.parser.Close()
		st.query.Close()
	}
	clear(p.langs)
	p.cursor.Close()
	if p.inc != nil {
		p.inc.close()
		p.inc = nil
	}
}

// Entities returns the entities of src, a version of the file at path in
// language lang (a go-enry name), ordered by start line with enclosing
// entities before the entities they contain. blobHash identifies src: a
// blob seen before under the same language is not parsed again (the path
// may differ). An empty blobHash disables the cache.
//
// It returns ErrUnsupported for a language without an entity grammar and
// ErrTooLarge for a source over MaxSourceSize. Syntax errors are not
// errors: the entities tree-sitter recovers are returned.
func (p *Parser) Entities(ctx context.Context, lang, path, blobHash string, src []byte) ([]Entity, error) {
	l, ok := languages[lang]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnsupported, lang)
	}
	if len(src) > MaxSourceSize {
		return nil, fmt.Errorf("%w: %s is %d bytes", ErrTooLarge, path, len(src))
	}
	key := lang + "\x00" + blobHash
	if blobHash != "" {
		if ents, ok := p.cache.get(key); ok {
			return localize(ents, l, path), nil
		}
	}
	ents, err := p.parse(ctx, l, src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if blobHash != "" {
		p.cache.put(key, ents)
	}
	return localize(ents, l, path), nil
}

// localize returns a copy of cached entities with the path prefixed to the
// qualified names of path-scoped languages.
func localize(ents []Entity, l *language, path string) []Entity {
	out := slices.Clone(ents)
	if l.pathScoped && path != "" {
		for i := range out {
			out[i].Qualified = path + ":" + out[i].Qualified
		}
	}
	return out
}

// state returns the language's parser and query, creating them on first use.
func (p *Parser) state(l *language) (*langState, error) {
	if st, ok := p.langs[l]; ok {
		return st, nil
	}
	grammar := l.grammar()
	q, err := sitter.NewQuery([]byte(l.query), grammar)
	if err != nil {
		return nil, fmt.Errorf("compile entity query: %w", err)
	}
	st := &langState{parser: sitter.NewParser(), query: q}
	st.parser.SetLanguage(grammar)
	st.parser.SetOperationLimit(parseTimeout)
	for i := range q.CaptureCount() {
		st.caps = append(st.caps, roleOf(q.CaptureNameForId(i)))
	}
	p.langs[l] = st
	return st, nil
}

// parse parses src and collects its entities with path-less qualified names.
func (p *Parser) parse(ctx context.Context, l *language, src []byte) ([]Entity, error) {
	st, err := p.state(l)
	if err != nil {
		return nil, err
	}
	tree, err := st.parser.ParseCtx(ctx, nil, src)
	if err != nil {
		// A halted parse resumes on the next call unless reset, and would
		// then return a tree of this source for the next one.
		st.parser.Reset()
		return nil, err
	}
	defer tree.Close()
	return p.treeEntities(l, st, tree, src), nil
}

// treeEntities collects the entities of a file's tree with path-less
// qualified names.
func (p *Parser) treeEntities(l *language, st *langState, tree *sitter.Tree, src []byte) []Entity {
	p.cursor.Exec(st.query, tree.RootNode())
	var items []item
	for {
		m, ok := p.cursor.NextMatch()
		if !ok {
			break
		}
		if it, ok := newItem(l, st.caps, m, src); ok {
			items = append(items, it)
		}
	}
	return resolve(l, items)
}
