package indexer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// Go's IMPLEMENTS, best effort: a struct type implements an interface of
// the repository when it has a method of each name the interface requires
// (its own and its embedded interfaces'), with as many parameters and
// results. Types are compared by their methods' names and arities only,
// not by their parameter types; an interface that embeds one from outside
// the repository (io.Reader) or is a type set is never matched. The
// methods an interface requires are kept as REQUIRES rows, so that a later
// sync can match a type's new method against an interface it did not see
// change.

// goTypes are the Go struct types and interfaces of the repository.
type goTypes struct {
	types  map[string]*goType // by directory and name
	ifaces map[string]*sym    // by key
}

// goType is a struct type of a directory. Build-tagged files can define
// one type, or one method, more than once (a renderer per platform); each
// definition is kept by its entity key, so that what a type has does not
// depend on the order its definitions were met or read from the store.
type goType struct {
	syms    map[string]*sym                          // the structs by key; empty while only methods are known
	methods map[string]map[string]entity.MethodShape // by name, then by the method's entity key
}

func typeKey(dir, name string) string { return dir + "\x00" + name }

func (g *goTypes) typ(k string) *goType {
	t := g.types[k]
	if t == nil {
		t = &goType{syms: map[string]*sym{}, methods: map[string]map[string]entity.MethodShape{}}
		g.types[k] = t
	}
	return t
}

func (g *goTypes) add(s *sym) {
	switch s.kind {
	case "struct":
		g.typ(typeKey(s.dir, s.name)).syms[s.key] = s
	case "method":
		if m, ok := entity.GoMethodShape(s.sig); ok {
			t := g.typ(typeKey(s.dir, s.class))
			if t.methods[s.name] == nil {
				t.methods[s.name] = map[string]entity.MethodShape{}
			}
			t.methods[s.name][s.key] = m
		}
	case "interface":
		g.ifaces[s.key] = s
	}
}

func (g *goTypes) remove(s *sym) {
	switch s.kind {
	case "struct":
		if t := g.types[typeKey(s.dir, s.name)]; t != nil && t.syms[s.key] == s {
			delete(t.syms, s.key)
		}
	case "method":
		if t := g.types[typeKey(s.dir, s.class)]; t != nil {
			delete(t.methods[s.name], s.key)
			if len(t.methods[s.name]) == 0 {
				delete(t.methods, s.name)
			}
		}
	case "interface":
		delete(g.ifaces, s.key)
	}
}

// has reports whether one of the type's definitions of a method has the
// shape m.
func (t *goType) has(m entity.MethodShape) bool {
	for _, shape := range t.methods[m.Name] {
		if shape == m {
			return true
		}
	}
	return false
}

// goTypesLoaded returns the Go types, built at first use from the live
// entities this sync knows and, for a store with history, the store's.
func (r *relater) goTypesLoaded() *goTypes {
	if r.gt != nil {
		return r.gt
	}
	g := &goTypes{types: map[string]*goType{}, ifaces: map[string]*sym{}}
	if !r.fresh {
		for _, kind := range []string{"struct", "method", "interface"} {
			es, err := r.st.LiveEntitiesOf(r.ctx, "Go", kind)
			if err != nil {
				r.err = err
				return g
			}
			for _, e := range es {
				// A name this sync read or changed is known here already.
				if !r.named[e.Name] && r.syms[e.Key] == nil && r.storedLive(e.Path) {
					r.addSym(newSym(e.Key, e.Path, e.Qualified, e.Name, e.Kind, e.Language, e.Signature))
				}
			}
		}
	}
	for _, s := range r.syms {
		if s.lang == "Go" {
			g.add(s)
		}
	}
	r.gt = g
	return g
}

// goImplements updates the requirements of the Go interfaces a commit
// changed, and IMPLEMENTS for the types and interfaces it changed.
func (r *relater) goImplements(changes []model.EntityChange, byPath map[string]*fileFacts) {
	changedTypes := map[string]bool{}
	changedIfaces := map[string]bool{}
	for _, e := range changes {
		if e.Language != "Go" {
			continue
		}
		switch e.Kind {
		case "struct":
			changedTypes[typeKey(dirOf(e.Path), e.Name)] = true
		case "method":
			if s := newSym(e.Key(), e.Path, e.Qualified, e.Name, e.Kind, e.Language, ""); s.class != "" {
				changedTypes[typeKey(s.dir, s.class)] = true
			}
		case "interface":
			changedIfaces[e.Key()] = true
			if f := byPath[e.Path]; f != nil && e.Action != model.EntityDeleted {
				if spec, ok := f.ifaces[e.Key()]; ok {
					r.requirements(e.Key(), spec, f)
				}
			}
		}
	}
	if len(changedTypes) == 0 && len(changedIfaces) == 0 {
		return
	}
	g := r.goTypesLoaded()
	req := map[string][]entity.MethodShape{}
	required := func(key string) []entity.MethodShape {
		if m, ok := req[key]; ok {
			return m
		}
		m, _ := r.required(key, 0) // nil when not matched
		req[key] = m
		return m
	}
	for key := range changedIfaces {
		for _, t := range g.types {
			r.implements(t, key, required(key))
		}
	}
	for k := range changedTypes {
		t := g.types[k]
		if t == nil || len(t.syms) == 0 {
			continue
		}
		for key := range g.ifaces {
			r.implements(t, key, required(key))
		}
	}
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}

// implements records whether type t (each of its struct definitions)
// implements the interface with key, which requires methods (none: it is
// not matched).
func (r *relater) implements(t *goType, key string, methods []entity.MethodShape) {
	ok := len(methods) > 0 && r.gt.ifaces[key] != nil
	for _, m := range methods {
		if !t.has(m) {
			ok = false
			break
		}
	}
	for _, s := range t.syms {
		r.add(EntityNode(s.key), relKey{model.Implements, EntityNode(key)}, byScope, !ok)
	}
}

// requirements records what a Go interface requires: REQUIRES rows for
// its methods and for embedded interfaces outside the repository, EXTENDS
// for those inside.
func (r *relater) requirements(key string, spec goIface, f *fileFacts) {
	want := map[relKey]float64{}
	if !spec.ok {
		want[relKey{model.Requires, "embeds:~"}] = 1 // a type set
	}
	for _, m := range spec.methods {
		want[relKey{model.Requires, fmt.Sprintf("method:%s/%d/%d", m.Name, m.Params, m.Results)}] = 1
	}
	s := r.syms[key]
	if s != nil {
		fx := r.fileContext(f.fc.Path, "Go", f.header)
		for _, name := range spec.embeds {
			if t, conf := r.findType(name, "", s, fx, []string{"interface"}); t != nil && t != s {
				want[relKey{model.Extends, EntityNode(t.key)}] = conf
			} else {
				want[relKey{model.Requires, "embeds:" + name}] = 1
			}
		}
	}
	r.set(EntityNode(key), []string{model.Requires, model.Extends}, want)
}

// required returns the methods an interface requires with those of the
// interfaces it embeds; false when one of them is outside the repository
// or a type set.
func (r *relater) required(key string, depth int) ([]entity.MethodShape, bool) {
	if depth > 4 {
		return nil, false
	}
	var out []entity.MethodShape
	for _, e := range r.edges(EntityNode(key)) {
		kind, to := r.kinds[e.kind], r.nodeIDs[e.to]
		switch {
		case kind == model.Requires && strings.HasPrefix(to, "embeds:"):
			return nil, false
		case kind == model.Requires:
			if m, ok := parseShape(strings.TrimPrefix(to, "method:")); ok {
				out = append(out, m)
			}
		case kind == model.Extends:
			sub, ok := r.required(strings.TrimPrefix(to, entityNode), depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		}
	}
	return out, true
}

// parseShape reads "Name/params/results".
func parseShape(s string) (entity.MethodShape, bool) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return entity.MethodShape{}, false
	}
	p, err1 := strconv.Atoi(parts[1])
	n, err2 := strconv.Atoi(parts[2])
	return entity.MethodShape{Name: parts[0], Params: p, Results: n}, err1 == nil && err2 == nil
}
