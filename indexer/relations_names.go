package indexer

import (
	"path"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// Resolving a call, best effort and on the side of precision: a name is
// resolved only where the language's scoping rules, the file's imports or
// a declared type point at one definition, or, in the languages whose
// functions share one global namespace (C, C++, PHP, Ruby), where one
// definition in the repository has the name. A call that may mean several
// definitions, or a method of a receiver whose type the definition does
// not declare, stays unresolved. docs/relationships.md has the rules and
// the precision measured on real repositories.

// Confidences of a resolution.
const (
	byScope  = 1.0 // same class, file or package, an import, a declared type
	byUnique = 0.8 // the only definition with the name in the repository
)

var classKinds = []string{"class", "struct", "interface", "enum", "module"}

// fileCtx is what a file's imports say about the names it uses.
type fileCtx struct {
	path, dir, lang string
	files           []string            // the repository files it imports
	aliases         map[string][]string // a module alias → its files (Go: "dir/" of its package)
	names           map[string]string   // an imported name → the file defining it
	external        map[string]bool     // names that imports from outside the repository bind
}

// group is the family of languages whose code may call each other's.
func group(lang string) string {
	switch lang {
	case "C++":
		return "C"
	case "TypeScript", "TSX":
		return "JavaScript"
	}
	return lang
}

func callable(s *sym) bool { return s.kind == "function" || s.kind == "method" }

// fileContext resolves a file's header imports.
func (r *relater) fileContext(p, lang string, header []entity.Import) *fileCtx {
	fx := &fileCtx{path: p, dir: path.Dir(p), lang: lang, aliases: map[string][]string{}, names: map[string]string{},
		external: map[string]bool{}}
	for _, im := range header {
		node, files := r.resolveImport(p, lang, im)
		if lang == "Go" {
			if node == "module:." {
				fx.aliases[im.Alias] = []string{"./"}
			} else if dir, ok := strings.CutPrefix(node, "module:./"); ok {
				fx.aliases[im.Alias] = []string{dir + "/"}
			}
			continue
		}
		fx.files = append(fx.files, files...)
		if top, ok := pythonTopName(lang, im); ok {
			// import a.b binds a: a.f() is package a's f, never a.b's.
			_, files = r.resolveImport(p, lang, entity.Import{Path: top})
			im.Alias = top
		}
		if len(files) == 0 {
			for _, n := range boundNames(im) {
				fx.external[n] = true
			}
			continue
		}
		if im.Alias != "" {
			fx.aliases[im.Alias] = files
		}
		for _, n := range im.Names {
			local := n
			if i := strings.Index(n, " as "); i >= 0 {
				n, local = n[:i], n[i+4:]
			}
			if n == "*" {
				continue
			}
			// from pkg import mod: a module of its own
			if sub, ok := r.moduleFile(files[0], n, lang); ok {
				fx.aliases[local] = []string{sub}
				continue
			}
			fx.names[local] = files[0]
		}
	}
	return fx
}

// pythonTopName returns the package that a Python "import a.b" (without
// "as") binds: a.
func pythonTopName(lang string, im entity.Import) (string, bool) {
	if lang != "Python" || im.Level > 0 || len(im.Names) > 0 {
		return "", false
	}
	top, _, dotted := strings.Cut(im.Path, ".")
	return top, dotted && im.Alias == top
}

// boundNames are the local names an import binds.
func boundNames(im entity.Import) []string {
	var out []string
	if im.Alias != "" {
		out = append(out, im.Alias)
	}
	for _, n := range im.Names {
		if i := strings.Index(n, " as "); i >= 0 {
			n = n[i+4:]
		}
		out = append(out, n)
	}
	return out
}

// resolveCall returns the definition a call means, and how sure that is.
func (r *relater) resolveCall(caller *sym, c entity.Call, fx *fileCtx) (*sym, float64) {
	if c.New {
		if c.Qual != "" && fx.external[c.Qual] && caller.lang != "Ruby" {
			return nil, 0 // pathlib.Path(…): a class of an outside module
		}
		return r.constructor(caller, c, fx)
	}
	cands := r.callables(c.Name, caller.lang)
	if len(cands) == 0 || fx.external[c.Qual] || c.Qual == "" && fx.external[c.Name] {
		return nil, 0 // no definition; or the name, or its qualifier, comes from outside
	}
	switch {
	case c.Chained:
		if c.Static && c.Qual != "" {
			return r.inModule(c.Qual, cands, caller) // a::b::f()
		}
		return nil, 0 // f().g(), a[i].g(), a.b.g(): the receiver's type is unknown
	case c.Qual == "":
		return r.unqualified(caller, c.Name, cands, fx)
	case isSelf(c.Qual):
		if caller.class == "" {
			if caller.lang == "JavaScript" || caller.lang == "TypeScript" || caller.lang == "TSX" {
				// this.f() in a function assigned to a prototype or an
				// exported object: a function of the same file.
				return unique(filter(cands, func(s *sym) bool { return s.path == caller.path && s.kind == "function" }), byUnique)
			}
			return nil, 0
		}
		return r.method(r.classOf(caller, fx), caller.class, c.Name, caller, 0)
	case isSuper(c.Qual):
		if cls := r.classOf(caller, fx); cls != nil {
			for _, b := range r.bases(cls) {
				if m, conf := r.method(b, b.name, c.Name, caller, 1); m != nil {
					return m, conf
				}
			}
		}
		return nil, 0
	case c.Type != "":
		if t, _ := r.findType(c.Type, "", caller, fx, classKinds); t != nil {
			return r.method(t, t.name, c.Name, caller, 0)
		}
		return nil, 0
	}
	if files, ok := fx.aliases[c.Qual]; ok {
		return unique(filter(cands, func(s *sym) bool { return inFiles(s, files) && s.kind == "function" }), byScope)
	}
	if t, _ := r.findType(c.Qual, "", caller, fx, classKinds); t != nil {
		if !rootedOK(c, t) {
			return nil, 0
		}
		return r.method(t, t.name, c.Name, caller, 0)
	}
	if c.Static {
		return r.inModule(c.Qual, cands, caller)
	}
	return nil, 0
}

// rootedOK reports whether a type found for a call's qualifier may be
// the one it names: ::Logger names a top-level Logger only.
func rootedOK(c entity.Call, t *sym) bool {
	return !c.Rooted || t.scope == ""
}

// callables returns the live functions and methods with a name, in the
// caller's language family.
func (r *relater) callables(name, lang string) []*sym {
	g := group(lang)
	return filter(r.entitiesNamed(name), func(s *sym) bool { return callable(s) && group(s.lang) == g })
}

// unqualified resolves f(): a method of the caller's class where the
// language calls them so, a function of the same file, package or
// imports, or, where functions share one namespace, the only one.
func (r *relater) unqualified(caller *sym, name string, cands []*sym, fx *fileCtx) (*sym, float64) {
	lang := caller.lang
	if caller.class != "" && (lang == "Java" || lang == "C#" || lang == "C++" || lang == "Ruby") {
		if m, conf := r.method(r.classOf(caller, fx), caller.class, name, caller, 0); m != nil {
			return m, conf
		}
	}
	funcs := filter(cands, func(s *sym) bool {
		return s.kind == "function" && !s.member || lang == "Ruby" && s.kind == "method" && s.class == ""
	})
	if lang == "Go" {
		return unique(filter(funcs, func(s *sym) bool { return s.dir == caller.dir }), byScope)
	}
	if s, conf := unique(filter(funcs, func(s *sym) bool { return s.path == caller.path }), byScope); s != nil {
		return s, conf
	}
	if f, ok := fx.names[name]; ok {
		return unique(filter(funcs, func(s *sym) bool { return s.path == f }), byScope)
	}
	if lang == "C" || lang == "C++" {
		// A function of a header the file includes, or of its .c.
		inc := filter(funcs, func(s *sym) bool { return !s.static && includes(fx, s.path) })
		if s, conf := unique(inc, byScope); s != nil {
			return s, conf
		}
	}
	switch lang {
	case "C", "C++", "PHP":
		return unique(filter(funcs, func(s *sym) bool { return !s.static }), byUnique)
	case "Ruby":
		// A top-level def is global once its file is loaded, but the
		// repository's only one of a name is as often a spec's helper
		// that the caller never loads (a DSL method such as use, or a
		// method its class mixes in, is what the call means): only one
		// of a file the caller requires counts.
		return unique(filter(funcs, func(s *sym) bool { return includes(fx, s.path) }), byUnique)
	}
	return nil, 0
}

// includes reports whether a file's imports name p, or the header of
// the same stem as p.
func includes(fx *fileCtx, p string) bool {
	stem := strings.TrimSuffix(p, path.Ext(p))
	for _, f := range fx.files {
		if f == p || strings.TrimSuffix(f, path.Ext(f)) == stem {
			return true
		}
	}
	return false
}

// method resolves a method of class cls, and then of its bases, up to
// depth 4. With cls unknown, it resolves by the class's name, near the
// caller.
func (r *relater) method(cls *sym, class, name string, caller *sym, depth int) (*sym, float64) {
	if class == "" || depth > 4 {
		return nil, 0
	}
	near := caller
	if cls != nil {
		near = cls
	}
	ms := filter(r.callables(name, caller.lang), func(s *sym) bool {
		return s.kind == "method" && s.class == class &&
			(s.path == near.path || s.dir == near.dir || cls != nil && s.scope == qualifiedOf(cls))
	})
	if len(ms) > 1 {
		ms = nearest(ms, near)
	}
	if len(ms) == 1 {
		return ms[0], byScope
	}
	if len(ms) > 1 || cls == nil {
		return nil, 0
	}
	for _, b := range r.bases(cls) {
		if m, conf := r.method(b, b.name, name, caller, depth+1); m != nil {
			return m, conf
		}
	}
	return nil, 0
}

// qualifiedOf is an entity's qualified name within its file.
func qualifiedOf(s *sym) string {
	if s.scope == "" {
		return s.name
	}
	return s.scope + "." + s.name
}

// nearest keeps the candidates in near's file, else in its directory.
func nearest(cands []*sym, near *sym) []*sym {
	if same := filter(cands, func(s *sym) bool { return s.path == near.path }); len(same) > 0 {
		return same
	}
	if same := filter(cands, func(s *sym) bool { return s.dir == near.dir }); len(same) > 0 {
		return same
	}
	return cands
}

// classOf returns the class entity of a method's caller.
func (r *relater) classOf(caller *sym, fx *fileCtx) *sym {
	if caller.class == "" {
		return nil
	}
	t, _ := r.findType(caller.class, "", caller, fx, classKinds)
	return t
}

// bases returns the classes and interfaces a type extends or implements.
func (r *relater) bases(cls *sym) []*sym {
	var out []*sym
	for _, k := range r.edges(EntityNode(cls.key)) {
		if kind := r.kinds[k.kind]; kind != model.Extends && kind != model.Implements {
			continue
		}
		// live reads the base from the store if this sync has not met it.
		if key := strings.TrimPrefix(r.nodeIDs[k.to], entityNode); r.live(key) {
			out = append(out, r.syms[key])
		}
	}
	slices.SortFunc(out, func(a, b *sym) int { return strings.Compare(a.key, b.key) })
	return out
}

// findType resolves a type name near an entity: in its file, its
// directory, the files its file imports, or the only one of the kinds in
// the repository. qual, when given, is what qualifies the name (a module
// alias narrows the search to its files).
func (r *relater) findType(name, qual string, near *sym, fx *fileCtx, kinds []string) (*sym, float64) {
	g := group(near.lang)
	cands := filter(r.entitiesNamed(name), func(s *sym) bool { return slices.Contains(kinds, s.kind) && group(s.lang) == g })
	if len(cands) == 0 {
		return nil, 0
	}
	if files, ok := fx.aliases[qual]; qual != "" && ok {
		return unique(filter(cands, func(s *sym) bool { return inFiles(s, files) }), byScope)
	}
	if s, conf := unique(filter(cands, func(s *sym) bool { return s.path == near.path }), byScope); s != nil {
		return s, conf
	}
	if f, ok := fx.names[name]; ok {
		return unique(filter(cands, func(s *sym) bool { return s.path == f }), byScope)
	}
	if s, conf := unique(filter(cands, func(s *sym) bool { return s.dir == near.dir }), byScope); s != nil {
		return s, conf
	}
	if s, conf := unique(filter(cands, func(s *sym) bool { return includes(fx, s.path) }), byScope); s != nil {
		return s, conf
	}
	return unique(cands, byUnique)
}

// constructor resolves new Foo(…) (Foo(…) in Python, Foo.new in Ruby) to
// the class's constructor.
func (r *relater) constructor(caller *sym, c entity.Call, fx *fileCtx) (*sym, float64) {
	class, qual := c.Name, c.Qual
	if caller.lang == "Ruby" {
		class, qual = c.Qual, ""
	}
	t, _ := r.findType(class, qual, caller, fx, []string{"class", "struct"})
	if t == nil || !rootedOK(c, t) {
		return nil, 0
	}
	var names []string
	switch caller.lang {
	case "Python":
		names = []string{"__init__"}
	case "JavaScript", "TypeScript", "TSX":
		names = []string{"constructor"}
	case "PHP":
		names = []string{"__construct"}
	case "Ruby":
		names = []string{"initialize"}
	default:
		names = []string{t.name}
	}
	for _, n := range names {
		if m, conf := r.method(t, t.name, n, caller, 0); m != nil {
			return m, conf
		}
	}
	return nil, 0
}

// inModule resolves mod::f() (Rust, C++): a function whose scope ends in
// the module or namespace, or one of a Rust file named after it.
func (r *relater) inModule(mod string, cands []*sym, caller *sym) (*sym, float64) {
	in := filter(cands, func(s *sym) bool {
		return s.kind == "function" && (s.scope == mod || strings.HasSuffix(s.scope, "."+mod) ||
			strings.TrimSuffix(path.Base(s.path), ".rs") == mod || strings.HasSuffix(s.dir, "/"+mod) && path.Base(s.path) == "mod.rs")
	})
	if len(in) > 1 {
		in = nearest(in, caller)
	}
	return unique(in, byScope)
}

func isSelf(q string) bool {
	switch q {
	case "this", "self", "$this", "Self", "static", "cls", "@":
		return true
	}
	return false
}

func isSuper(q string) bool { return q == "super" || q == "parent" || q == "base" }

// inFiles reports whether s is defined in one of files, or under one of
// the directories ("dir/") among them.
func inFiles(s *sym, files []string) bool {
	for _, f := range files {
		if dir, ok := strings.CutSuffix(f, "/"); ok {
			if s.dir == dir || dir == "." && s.dir == "." {
				return true
			}
		} else if s.path == f {
			return true
		}
	}
	return false
}

func filter(in []*sym, keep func(*sym) bool) []*sym {
	var out []*sym
	for _, s := range in {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// unique returns the one candidate, with conf, or nothing for none or
// several.
func unique(cands []*sym, conf float64) (*sym, float64) {
	if len(cands) != 1 {
		return nil, 0
	}
	return cands[0], conf
}
