package indexer

import (
	"path"
	"slices"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// fileRelations records a changed file's imports, its functions' calls
// and (Rust) its impl blocks.
func (r *relater) fileRelations(f *fileFacts) {
	fc := f.fc
	node := FileNode(fc.Path)
	switch fc.Status {
	case model.Deleted:
		r.drop(node)
	case model.Renamed:
		r.drop(FileNode(fc.OldPath))
	}
	if f.importsRead {
		want := map[relKey]float64{}
		for _, im := range f.imports {
			if to, _ := r.resolveImport(fc.Path, fc.Language, im); to != "" {
				want[relKey{model.Imports, to}] = 1
			}
		}
		r.set(node, []string{model.Imports}, want)
	}
	if f.implsRead {
		r.rustImpls(f)
	}
	if len(f.calls) == 0 {
		return
	}
	fx := r.fileContext(fc.Path, fc.Language, f.header)
	for key, calls := range f.calls {
		caller := r.syms[key]
		if caller == nil {
			continue
		}
		want := map[relKey]float64{}
		for _, c := range calls {
			if to, conf := r.resolveCall(caller, c, fx); to != nil && to != caller {
				k := relKey{model.Calls, EntityNode(to.key)}
				want[k] = max(want[k], conf)
			}
		}
		r.set(EntityNode(key), []string{model.Calls}, want)
	}
}

// entityRelations records what a changed entity's header says: a deleted
// entity loses its relationships; a class, interface or trait gets the
// bases its signature declares.
func (r *relater) entityRelations(e model.EntityChange, f *fileFacts) {
	node := EntityNode(e.Key())
	if e.Action == model.EntityDeleted {
		if r.syms[e.Key()] == nil {
			r.drop(node)
		}
		return
	}
	s := r.syms[e.Key()]
	if s == nil || e.Language == "Go" || e.Language == "C" {
		return
	}
	kinds := []string{model.Extends, model.Implements}
	if e.Language == "Rust" {
		kinds = kinds[:1] // a Rust type's IMPLEMENTS come from impl blocks
	}
	bases := entity.Bases(e.Language, entity.Kind(e.Kind), e.Signature)
	if len(bases) == 0 && len(r.edges(node)) == 0 {
		return
	}
	var header []entity.Import
	if f != nil {
		header = f.header
	}
	fx := r.fileContext(e.Path, e.Language, header)
	want := map[relKey]float64{}
	for _, b := range bases {
		t, conf := r.findType(b.Name, b.Qual, s, fx, classKinds)
		if t == nil || t == s {
			continue
		}
		kind := model.Extends
		switch {
		case b.Implements, t.kind == string(entity.KindInterface) && s.kind != string(entity.KindInterface):
			kind = model.Implements
		}
		want[relKey{kind, EntityNode(t.key)}] = conf
	}
	r.set(node, kinds, want)
}

// rustImpls records the impl Trait for Type blocks a file added and
// removed.
func (r *relater) rustImpls(f *fileFacts) {
	fx := r.fileContext(f.fc.Path, f.fc.Language, f.header)
	near := &sym{path: f.fc.Path, dir: path.Dir(f.fc.Path), lang: "Rust"}
	apply := func(im entity.Impl, remove bool) {
		typ, _ := r.findType(im.Type, "", near, fx, []string{"struct", "enum"})
		trait, conf := r.findType(im.Trait, "", near, fx, []string{"interface"})
		if typ != nil && trait != nil {
			r.add(EntityNode(typ.key), relKey{model.Implements, EntityNode(trait.key)}, conf, remove)
		}
	}
	for _, im := range f.impls[0] {
		if !slices.Contains(f.impls[1], im) {
			apply(im, true)
		}
	}
	for _, im := range f.impls[1] {
		if !slices.Contains(f.impls[0], im) {
			apply(im, false)
		}
	}
}
