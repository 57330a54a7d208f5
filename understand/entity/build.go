package entity

import (
	"cmp"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// role is what a query capture marks.
type role uint8

const (
	roleOther      role = iota
	roleName            // the definition's name
	roleReceiver        // a Go method's receiver
	roleDeclarator      // a C or C++ function's declarator
	rolePackage         // the file's package: qualifies every name
	roleScope           // a namespace: qualifies the names inside
	roleImpl            // a Rust impl block: qualifies by type, holds methods
	roleEntity          // an entity definition of some Kind
)

// capture is the meaning of one capture name of a query.
type capture struct {
	role role
	kind Kind
}

func roleOf(name string) capture {
	switch name {
	case "name":
		return capture{role: roleName}
	case "receiver":
		return capture{role: roleReceiver}
	case "declarator":
		return capture{role: roleDeclarator}
	case "package":
		return capture{role: rolePackage}
	case "scope":
		return capture{role: roleScope}
	case "impl":
		return capture{role: roleImpl}
	}
	switch k := Kind(name); k {
	case KindFunction, KindMethod, KindClass, KindInterface, KindStruct, KindEnum, KindModule:
		return capture{role: roleEntity, kind: k}
	}
	return capture{}
}

// item is one definition found by a query, before nesting is resolved.
type item struct {
	capture
	start, end         uint32   // the definition node's bytes
	startLine, endLine int      // 1-based, inclusive, wrappers included
	quals              []string // qualifiers written in the name or receiver
	name               string
	sig                string
	hash               uint64
}

// newItem reads one query match. It reports false for a match without a
// definition or a name (syntax errors can produce both).
func newItem(l *language, caps []capture, m *sitter.QueryMatch, src []byte) (item, bool) {
	var def, name, recv *sitter.Node
	var it item
	for _, c := range m.Captures {
		switch cp := caps[c.Index]; cp.role {
		case roleName:
			name = c.Node
		case roleReceiver:
			recv = c.Node
		case roleDeclarator:
			name = declaratorName(c.Node)
		case rolePackage, roleScope, roleImpl, roleEntity:
			def, it.capture = c.Node, cp
		}
	}
	if def == nil || name == nil || def.EndByte() <= def.StartByte() || int(def.EndByte()) > len(src) {
		return item{}, false
	}
	if !it.setName(name.Content(src)) {
		return item{}, false
	}
	if recv != nil {
		if t := receiverType(recv, src); t != "" {
			it.quals = []string{t}
		}
	}
	it.start, it.end = def.StartByte(), def.EndByte()
	if it.role != roleEntity {
		return it, true
	}
	outer, sigStart := wrap(l, def)
	it.startLine = int(outer.StartPoint().Row) + 1
	it.endLine = endLine(outer)
	it.sig = signature(src, sigStart, def)
	it.hash = bodyHash(src[it.start:it.end], it.name)
	return it, true
}

// setName splits a written name into qualifiers and the name proper.
func (it *item) setName(text string) bool {
	var segs []string
	switch it.role {
	case rolePackage, roleScope:
		segs = splitPath(text, ".", "::", `\`)
	case roleImpl:
		segs = []string{implType(text)}
	default:
		segs = splitPath(text, "::")
	}
	if len(segs) == 0 || segs[len(segs)-1] == "" {
		return false
	}
	it.quals, it.name = segs[:len(segs)-1], segs[len(segs)-1]
	return true
}

// splitPath splits a qualified name on any of the separators, collapsing
// white space and dropping template arguments and empty segments.
func splitPath(text string, seps ...string) []string {
	text = strings.Join(strings.Fields(text), " ")
	for _, s := range seps[1:] {
		text = strings.ReplaceAll(text, s, seps[0])
	}
	var segs []string
	for seg := range strings.SplitSeq(text, seps[0]) {
		seg = strings.TrimSpace(seg)
		if i := strings.IndexByte(seg, '<'); i > 0 && !strings.HasPrefix(seg, "operator") {
			seg = strings.TrimSpace(seg[:i])
		}
		if seg != "" {
			segs = append(segs, seg)
		}
	}
	return segs
}

// implType reduces a Rust impl's type (&'a mut foo::Bar<T>) to its base
// name (Bar).
func implType(text string) string {
	if i := strings.IndexByte(text, '<'); i >= 0 {
		text = text[:i]
	}
	if i := strings.LastIndex(text, "::"); i >= 0 {
		text = text[i+2:]
	}
	f := strings.Fields(strings.TrimLeft(text, "&*('"))
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[len(f)-1], "&*()[]")
}

// receiverType returns the base type name of a Go receiver: T for
// (t *T[K]).
func receiverType(recv *sitter.Node, src []byte) string {
	p := recv.NamedChild(0)
	if p == nil {
		return ""
	}
	t := p.ChildByFieldName("type")
	if t == nil {
		return ""
	}
	s := strings.TrimLeft(t.Content(src), "*( \t")
	if i := strings.IndexAny(s, "[) \t"); i >= 0 {
		s = s[:i]
	}
	return s
}

// declaratorName finds the name under a C or C++ function declarator,
// through pointer, reference, parenthesised and function declarators.
func declaratorName(n *sitter.Node) *sitter.Node {
	for range 32 {
		if n == nil {
			return nil
		}
		switch n.Type() {
		case "function_declarator", "pointer_declarator", "reference_declarator",
			"parenthesized_declarator", "attributed_declarator":
		default:
			return n
		}
		next := n.ChildByFieldName("declarator")
		if next == nil && n.NamedChildCount() > 0 {
			next = n.NamedChild(int(n.NamedChildCount()) - 1)
		}
		n = next
	}
	return nil
}

// wrap returns the node whose range the entity takes (the definition or a
// wrapper such as a decorated definition or an export statement) and the
// byte where its signature starts.
func wrap(l *language, def *sitter.Node) (*sitter.Node, uint32) {
	outer, sigStart, moving := def, def.StartByte(), true
	for range 4 {
		p := outer.Parent()
		if p == nil {
			break
		}
		sig, ok := l.wrappers[p.Type()]
		if !ok || !soleDefinition(p) {
			break
		}
		outer, moving = p, moving && sig
		if moving {
			sigStart = p.StartByte()
		}
	}
	return outer, sigStart
}

// soleDefinition reports whether a wrapper holds one definition: one named
// child besides comments, decorators and template parameters.
func soleDefinition(p *sitter.Node) bool {
	n := 0
	for i := range int(p.NamedChildCount()) {
		switch p.NamedChild(i).Type() {
		case "comment", "decorator", "template_parameter_list":
		default:
			n++
		}
	}
	return n == 1
}

// endLine is the 1-based last line of a node; a node ending with a newline
// ends on the line before.
func endLine(n *sitter.Node) int {
	start, end := n.StartPoint(), n.EndPoint()
	if end.Column == 0 && end.Row > start.Row {
		return int(end.Row)
	}
	return int(end.Row) + 1
}

// resolve nests the items, names them and returns the entities in order.
func resolve(l *language, items []item) []Entity {
	items = sortItems(items)
	return nest(l, items, packagePrefix(items))
}

// sortItems sorts items by start, then by end descending, and drops
// duplicates.
func sortItems(items []item) []item {
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	return slices.CompactFunc(items, func(a, b item) bool {
		return a.start == b.start && a.end == b.end && a.capture == b.capture
	})
}

// packagePrefix returns the qualifiers of the first package item.
func packagePrefix(items []item) []string {
	for _, it := range items {
		if it.role == rolePackage {
			return append(slices.Clip(it.quals), it.name)
		}
	}
	return nil
}

// nest nests sorted items under the package prefix and names them.
func nest(l *language, items []item, prefix []string) []Entity {
	type frame struct {
		end      uint32
		path     []string
		typeLike bool
	}
	var stack []frame
	ents := make([]Entity, 0, len(items))
	for _, it := range items {
		if it.role == rolePackage {
			continue
		}
		for len(stack) > 0 && it.end > stack[len(stack)-1].end {
			stack = stack[:len(stack)-1]
		}
		parent := frame{path: prefix}
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		path := make([]string, 0, len(parent.path)+len(it.quals)+1)
		path = append(append(append(path, parent.path...), it.quals...), it.name)
		kind := it.kind
		if kind == KindFunction && (len(it.quals) > 0 || parent.typeLike) {
			kind = KindMethod
		}
		stack = append(stack, frame{end: it.end, path: path, typeLike: isTypeLike(l, it.role, kind)})
		if it.role != roleEntity {
			continue
		}
		ents = append(ents, Entity{
			Kind:      kind,
			Name:      it.name,
			Qualified: strings.Join(path, "."),
			Signature: it.sig,
			StartLine: it.startLine,
			EndLine:   it.endLine,
			BodyHash:  it.hash,
		})
	}
	slices.SortStableFunc(ents, func(a, b Entity) int {
		return cmp.Or(cmp.Compare(a.StartLine, b.StartLine), cmp.Compare(b.EndLine, a.EndLine))
	})
	return ents
}

// isTypeLike reports whether functions directly inside a definition are
// its methods.
func isTypeLike(l *language, r role, k Kind) bool {
	switch {
	case r == roleImpl:
		return true
	case r != roleEntity:
		return false
	case k == KindModule:
		return l.moduleIsType
	}
	return k == KindClass || k == KindStruct || k == KindInterface || k == KindEnum
}
