package entity

import "context"

// VersionEntities returns the entities of a file version that Changes or
// Entities has just handled, from the parser's caches when it holds them
// (without touching their order), else by parsing it whole. The qualified
// names carry the path as Entities puts it.
func (p *Parser) VersionEntities(ctx context.Context, lang string, v Version) ([]Entity, error) {
	l, ok := languages[lang]
	if !ok {
		return nil, ErrUnsupported
	}
	if v.Hash != "" {
		key := lang + "\x00" + v.Hash
		if p.inc != nil {
			if e, ok := p.inc.states.byKey[key]; ok {
				return localize(e.Value.(*cacheEntry).state.entities(), l, v.Path), nil
			}
		}
		if ents, ok := p.cache.cur[key]; ok {
			return localize(ents, l, v.Path), nil
		}
		if ents, ok := p.cache.old[key]; ok {
			return localize(ents, l, v.Path), nil
		}
	}
	return p.Entities(ctx, lang, v.Path, v.Hash, v.Src)
}
