package entity

import "context"

// Span is the lines of an entity, 1-based and inclusive.
type Span struct{ StartLine, EndLine int32 }

// VersionSpans returns the lines of the entities of a file version that
// Changes or Entities has just handled, from the parser's caches when it
// holds them (in the order Entities returns them), else by parsing it
// whole: all that Calls needs of them. From a cached state it copies no
// entity and keeps no list of them on the state: the relater asks for
// most changed files of a C history, and copying their entities cost
// 0.8 GB of allocation over git/git's sync.
func (p *Parser) VersionSpans(ctx context.Context, lang string, v Version) ([]Span, error) {
	if _, ok := languages[lang]; !ok {
		return nil, ErrUnsupported
	}
	if v.Hash != "" {
		key := lang + "\x00" + v.Hash
		if p.inc != nil {
			if e, ok := p.inc.states.byKey[key]; ok {
				return e.Value.(*cacheEntry).state.spans(), nil
			}
		}
		if ents, ok := p.cache.cur[key]; ok {
			return spansOf(ents), nil
		}
		if ents, ok := p.cache.old[key]; ok {
			return spansOf(ents), nil
		}
	}
	ents, err := p.Entities(ctx, lang, v.Path, v.Hash, v.Src)
	return spansOf(ents), err
}

// spansOf returns the lines of entities.
func spansOf(ents []Entity) []Span {
	out := make([]Span, len(ents))
	for i, e := range ents {
		out[i] = Span{int32(e.StartLine), int32(e.EndLine)}
	}
	return out
}

// spans returns the lines of the state's entities, in the order of
// entities, from the chunks' entities (which the chunks keep).
func (s *fileState) spans() []Span {
	if s.ents != nil {
		return spansOf(s.ents)
	}
	pkg, key := s.prefix()
	var out []Span
	line := 0
	for _, ch := range s.chunks {
		for _, e := range ch.entities(s.lang, pkg, key) {
			out = append(out, Span{int32(e.StartLine + line), int32(e.EndLine + line)})
		}
		line += ch.lines
	}
	return out
}
