package indexer

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// relater resolves the commits' relationship facts in commit order, each
// against the repository as the commits before it left it, and keeps the
// code's current relationships, so that each commit records what it added
// and removed.
//
// Everything it knows about the repository (live entities by name, live
// paths, each node's relationships) starts empty for a store that held no
// commit when the sync began, and is otherwise read from the store at its
// first use. That read is exact: only a commit that touches an entity
// name, a path or a node changes what the store says of it, and every
// commit of this sync passes here, in order, before it is written.
type relater struct {
	ctx   context.Context
	st    *store.Store
	fresh bool  // nothing to read from the store
	err   error // the first read that failed; relationships stop there

	syms   map[string]*sym   // live entities by key
	byName map[string][]*sym // live entities by name
	named  map[string]bool   // names read from the store
	byPath map[string][]*sym // live entities by path (of the paths read, for a store with history)
	pathed map[string]bool   // paths whose entities were read from the store
	stored map[string]bool   // whether a path is live at the store's newest version (storedLive)

	// files are the paths known, live (1), gone (-1) or, for a store
	// with history, not yet looked up (0); byBase and byLowerBase index
	// them by file name.
	files        map[string]int8
	byBase       map[string][]string
	byLowerBase  map[string][]string
	filesLoaded  bool
	pending      map[string]bool        // paths this sync changed before the known ones were read
	touched      map[string]bool        // paths this sync made live
	merged       bool                   // the sync met a merge (see reconcile)
	seen         map[string]seenVersion // the version of each path whose facts were read last
	goMod        string                 // the module path in the repository's go.mod
	goPkgs       map[string]string      // Go package name by directory
	goPkgsLoaded bool

	// The relationships, their ends numbered (relations_nodes.go).
	nodeIdx map[string]nodeCode // the code of each node id that out and in name
	nodeIDs []string            // the node id of each code, "" for a free one
	free    []nodeCode          // codes to number new nodes with (sweep)
	kinds   []string            // the kind of each kindCode
	out     []relSet            // current relationships by source node; nil: none known
	in      []sourceSet         // the sources in out of each target node
	loaded  map[string]bool     // sources read from the store

	// What the commit being resolved changed: the relationships it
	// touched, with their state before it.
	before map[relCode]before

	gt *goTypes // Go method sets, on first use
}

// sym is a live entity.
type sym struct {
	key, path, dir, name, kind, lang string
	// class is the enclosing type's name for a method; scope the
	// qualified name without the entity's own.
	class, scope string
	static       bool // a C or C++ function of its file only
	// member: a JavaScript function assigned to a property (res.send =
	// function send …), which no plain call reaches.
	member bool
	sig    string // a Go method's signature (goTypes), else empty
}

// seenVersion is a file version whose facts the relater read.
type seenVersion struct{ blob, lang string }

// relKey is a relationship from a known source, by name.
type relKey struct{ kind, to string }

// relCode is a relationship, by codes.
type relCode struct {
	from nodeCode
	edgeKey
}

type before struct {
	had  bool
	conf float64
}

func newRelater(ctx context.Context, st *store.Store, root string) *relater {
	r := &relater{ctx: ctx, st: st, syms: map[string]*sym{}, byName: map[string][]*sym{}, named: map[string]bool{},
		byPath: map[string][]*sym{}, pathed: map[string]bool{}, stored: map[string]bool{},
		files: map[string]int8{}, byBase: map[string][]string{}, byLowerBase: map[string][]string{}, goPkgs: map[string]string{},
		seen:    map[string]seenVersion{},
		nodeIdx: map[string]nodeCode{}, kinds: slices.Clone(relKindCodes), loaded: map[string]bool{}}
	var n int
	if err := st.DB.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM commits)`).Scan(&n); err != nil {
		r.err = err
	}
	r.fresh = n == 0
	r.filesLoaded = r.fresh
	r.goMod = goModulePath(root)
	return r
}

// commit resolves one commit's facts and sets its Relations. A merge
// has no facts (its code changes belong to the commits it merges), but
// the files its own diff deletes take their relationships along.
func (r *relater) commit(u *model.Understood, facts []*fileFacts) {
	if r == nil || r.err != nil {
		return
	}
	r.before = map[relCode]before{}
	r.updatePaths(u.Commit)
	if u.IsMerge {
		r.merged = true
		facts = nil
	}
	r.updateEntities(u.Entities)
	changes := slices.Concat(u.Entities, r.vanished(u.Commit))
	byPath := map[string]*fileFacts{}
	for _, f := range facts {
		if f != nil {
			byPath[f.fc.Path] = f
			r.seen[f.fc.Path] = seenVersion{f.fc.NewBlob, f.fc.Language}
			r.fileRelations(f)
		}
	}
	for _, e := range changes {
		r.entityRelations(e, byPath[e.Path])
	}
	r.retarget(changes)
	r.goImplements(changes, byPath)
	if r.err != nil {
		return
	}
	u.Relations = r.changed()
	r.sweep()
}

// updatePaths applies a commit's file changes to the live paths.
func (r *relater) updatePaths(c *model.Commit) {
	for _, fc := range c.Changes {
		switch fc.Status {
		case model.Deleted:
			r.setPath(fc.Path, false)
		case model.Renamed:
			r.setPath(fc.OldPath, false)
			r.setPath(fc.Path, true)
		default:
			r.setPath(fc.Path, true)
		}
	}
}

func (r *relater) setPath(p string, live bool) {
	if live {
		if r.touched == nil {
			r.touched = map[string]bool{}
		}
		r.touched[p] = true
	}
	if !r.filesLoaded {
		if r.pending == nil {
			r.pending = map[string]bool{}
		}
		r.pending[p] = live // applied over the store's paths when they are read
		return
	}
	state := int8(-1)
	if live {
		state = 1
	}
	r.notePath(p, state)
}

// notePath records a path's state, indexing it at first sight.
func (r *relater) notePath(p string, state int8) {
	if _, ok := r.files[p]; !ok {
		base := path.Base(p)
		r.byBase[base] = append(r.byBase[base], p)
		lower := strings.ToLower(base)
		r.byLowerBase[lower] = append(r.byLowerBase[lower], p)
	}
	r.files[p] = state
}

// isLive reports whether a path exists now, looking it up in the store
// the first time for a path this sync has not changed.
func (r *relater) isLive(p string) bool {
	r.loadFiles()
	state, ok := r.files[p]
	if !ok {
		return false
	}
	if state == 0 {
		live, err := r.st.PathLive(r.ctx, p)
		if err != nil {
			r.err = err
			return false
		}
		state = -1
		if live {
			state = 1
		}
		r.files[p] = state
	}
	return state == 1
}

// updateEntities applies a commit's entity changes to the live entities.
func (r *relater) updateEntities(changes []model.EntityChange) {
	for _, e := range changes {
		r.loadName(e.Name)
		key := e.Key()
		if old := r.syms[key]; old != nil {
			r.removeSym(old)
		}
		if e.Action != model.EntityDeleted {
			r.addSym(newSym(key, e.Path, e.Qualified, e.Name, e.Kind, e.Language, e.Signature))
		}
	}
}

// newSym makes a live entity. Its path, scope and name are taken from its
// key, which holds them, rather than kept as the strings of the entity
// change or row it came from: the symbols live for the whole sync, and
// each string of its own was one more object for every collection to
// mark.
func newSym(key, p, qualified, name, kind, lang, sig string) *sym {
	if len(key) == len(p)+1+len(qualified) && key[len(p)] == '#' && strings.HasPrefix(key, p) && strings.HasSuffix(key, qualified) {
		p, qualified = key[:len(p)], key[len(p)+1:]
		if strings.HasSuffix(qualified, name) {
			name = qualified[len(qualified)-len(name):]
		}
	}
	s := &sym{key: key, path: p, dir: path.Dir(p), name: name, kind: kind, lang: lang}
	if lang == "Go" && kind == string(entity.KindMethod) {
		s.sig = sig // goTypes reads a method's shape; holding every live entity's signature cost memory for nothing
	}
	if i := strings.LastIndexByte(qualified, '.'); i >= 0 {
		s.scope = qualified[:i]
		if kind == string(entity.KindMethod) {
			s.class = s.scope[strings.LastIndexByte(s.scope, '.')+1:]
		}
	}
	if (lang == "C" || lang == "C++") && kind == string(entity.KindFunction) {
		s.static = strings.HasPrefix(sig, "static ") || strings.Contains(sig, " static ")
	}
	if group(lang) == "JavaScript" && kind == string(entity.KindFunction) {
		lhs, _, ok := strings.Cut(sig, "=")
		s.member = ok && strings.Contains(lhs, ".") && !strings.ContainsAny(strings.TrimSpace(lhs), "( ")
	}
	return s
}

func (r *relater) addSym(s *sym) {
	r.syms[s.key] = s
	r.byName[s.name] = append(r.byName[s.name], s)
	r.byPath[s.path] = append(r.byPath[s.path], s)
	if s.lang == "Go" {
		if i := strings.IndexByte(s.scope+".", '.'); i > 0 {
			r.goPkgs[s.dir] = (s.scope + ".")[:i]
		}
		if r.gt != nil {
			r.gt.add(s)
		}
	}
}

func (r *relater) removeSym(s *sym) {
	delete(r.syms, s.key)
	deleteSym(r.byName, s.name, s)
	deleteSym(r.byPath, s.path, s)
	if s.lang == "Go" && r.gt != nil {
		r.gt.remove(s)
	}
}

// deleteSym removes s from an index's entry, and the entry once empty:
// the names and paths of a long history that no live entity has would
// otherwise stay for the whole sync.
func deleteSym(index map[string][]*sym, k string, s *sym) {
	if rest := slices.DeleteFunc(index[k], func(x *sym) bool { return x == s }); len(rest) > 0 {
		index[k] = rest
	} else {
		delete(index, k)
	}
}

// loadName reads the live entities with a name from the store, once.
func (r *relater) loadName(name string) {
	if r.fresh || r.named[name] || r.err != nil {
		return
	}
	r.named[name] = true
	es, err := r.st.LiveEntitiesNamed(r.ctx, name)
	if err != nil {
		r.err = err
		return
	}
	for _, e := range es {
		if r.syms[e.Key] == nil && r.storedLive(e.Path) {
			r.addSym(newSym(e.Key, e.Path, e.Qualified, e.Name, e.Kind, e.Language, e.Signature))
		}
	}
}

// storedLive reports whether a path the store's live entities name exists
// at the store's newest version. An entity whose file an earlier sync saw
// renamed to a path the entity stage does not read (vanished) has no
// change that deletes it, but that sync removed it, as a sync of the
// whole history does: a later one must not revive it. The store's view,
// not this sync's: vanished reads the entities of a file this sync has
// just renamed away, which the store does not know yet.
func (r *relater) storedLive(p string) bool {
	live, ok := r.stored[p]
	if !ok {
		var err error
		if live, err = r.st.PathLive(r.ctx, p); err != nil {
			r.err = err
			return false
		}
		r.stored[p] = live
	}
	return live
}

// vanished drops the imports of the files a commit deleted or renamed
// away, and the imports of them (a file that does not change keeps its
// import statement, but it names nothing any more; one the commit
// changes is read again after this), and returns, as deletions, the
// entities still live in them that its entity changes did not delete:
// those of a file renamed to a path whose language has no grammar (or that
// is vendored), whose entities the entity stage no longer sees. They are
// gone from the code, so are their relationships; the symbols go too.
func (r *relater) vanished(c *model.Commit) []model.EntityChange {
	var out []model.EntityChange
	for _, fc := range c.Changes {
		gone := fc.Path
		switch fc.Status {
		case model.Deleted:
		case model.Renamed:
			gone = fc.OldPath
		default:
			continue
		}
		r.drop(FileNode(gone))
		r.dropTo(FileNode(gone))
		for _, s := range slices.Clone(r.entitiesIn(gone)) {
			r.removeSym(s)
			out = append(out, model.EntityChange{Path: s.path, Language: s.lang, Kind: s.kind, Name: s.name,
				Qualified: strings.TrimPrefix(s.key, s.path+"#"), Action: model.EntityDeleted})
		}
	}
	return out
}

// entitiesIn returns the live entities of a path.
func (r *relater) entitiesIn(p string) []*sym {
	if !r.fresh && !r.pathed[p] && r.err == nil {
		r.pathed[p] = true
		es, err := r.st.LiveEntitiesIn(r.ctx, p)
		if err != nil {
			r.err = err
			return nil
		}
		for _, e := range es {
			// A name this sync changed is known here already, with this
			// sync's changes to the path.
			if !r.named[e.Name] && r.syms[e.Key] == nil {
				r.loadName(e.Name)
			}
		}
	}
	return r.byPath[p]
}

// entitiesNamed returns the live entities with a name.
func (r *relater) entitiesNamed(name string) []*sym {
	r.loadName(name)
	return r.byName[name]
}

// retarget moves the relationships to an entity that a commit deleted:
// to the entity that replaces it under the same name (a move, which
// leaves the callers as they were), else nowhere.
func (r *relater) retarget(changes []model.EntityChange) {
	moved := map[string]string{}
	for _, e := range changes {
		if e.Action != model.EntityDeleted && e.Replaces != "" && lastName(e.Replaces) == e.Name {
			moved[e.Replaces] = e.Key()
		}
	}
	for _, e := range changes {
		if e.Action != model.EntityDeleted || r.syms[e.Key()] != nil {
			continue
		}
		old := EntityNode(e.Key())
		for _, src := range r.incoming(old) {
			if key, ok := strings.CutPrefix(src, entityNode); ok && !r.live(key) {
				continue // the source is gone too
			}
			oc := r.nodeIdx[old] // incoming read src's relationships, which name old
			var ks []relEdge     // add changes the set
			for _, x := range r.edges(src) {
				if x.to == oc {
					ks = append(ks, x)
				}
			}
			for _, x := range ks {
				kind, c := r.kinds[x.kind], x.conf
				r.add(src, relKey{kind, old}, c, true)
				if to, ok := moved[e.Key()]; ok && EntityNode(to) != src {
					r.add(src, relKey{kind, EntityNode(to)}, c, false)
				}
			}
		}
	}
}

// live reports whether the entity with a key is live.
func (r *relater) live(key string) bool {
	r.loadName(lastName(key))
	return r.syms[key] != nil
}

// lastName is the entity name at the end of a key.
func lastName(key string) string {
	return key[strings.LastIndexAny(key, "#.:")+1:]
}
