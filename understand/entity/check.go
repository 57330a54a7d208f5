package entity

import (
	"context"
	"slices"
)

// CheckCounts says how the versions that Changes derived from others
// compared with whole parses (see SetCheck).
type CheckCounts struct {
	// Derived is the number of versions Changes derived from another
	// version's state instead of parsing them whole.
	Derived int
	// Differing is the number of those whose entities differ from a whole
	// parse's; Broken counts the ones among them with syntax errors,
	// where tree-sitter's error recovery may rarely differ (see Changes).
	Differing, Broken int
}

// SetCheck makes Changes parse every version it derives whole too and
// compare the entities, for measuring the incremental parse on a real
// history (the indexer's GITMEMORY_ENTITY_CHECK). It costs a whole parse
// per changed file.
func (p *Parser) SetCheck(on bool) { p.check = on }

// Checked returns the counts of the comparisons SetCheck asked for.
func (p *Parser) Checked() CheckCounts { return p.checked }

// checkDerived compares a derived state's entities with a whole parse of
// its source, when SetCheck asked for it.
func (p *Parser) checkDerived(ctx context.Context, l *language, s *fileState, src []byte) {
	if !p.check {
		return
	}
	st, err := p.state(l)
	if err != nil {
		return
	}
	tree, err := st.parser.ParseCtx(ctx, nil, src)
	if err != nil {
		st.parser.Reset()
		return
	}
	defer tree.Close()
	p.checked.Derived++
	if !slices.Equal(p.treeEntities(l, st, tree, src), s.entities()) {
		p.checked.Differing++
		if tree.RootNode().HasError() {
			p.checked.Broken++
		}
	}
}
