package entity

import (
	"bytes"

	sitter "github.com/smacker/go-tree-sitter"
)

// minChunk is the size from which a chunk ends at the next boundary. Each
// top-level definition could be a chunk; grouping small ones saves
// trees, while a reparse still costs little more than its edits. Tests
// lower it to cut files at every boundary.
var minChunk = 1024

// Estimates of the memory a chunk holds: the C memory of a tree per
// source byte (measured on large files: 26 for C, 27 for Go, 24 for
// TypeScript, 22 for JavaScript, 37 for C#) and the Go memory of an item.
const (
	treeBytesPerSourceByte = 27
	itemBytes              = 256
)

// chunked gives the languages whose files are split into chunks, with
// their rules. PHP (HTML around its code) and Ruby (heredoc bodies after
// their line) have lexer states that cross lines, so their files are one
// chunk.
var chunked = map[string]chunkRule{
	"C": {}, "C++": {}, "Go": {}, "Java": {}, "C#": {}, "Rust": {}, "Python": {indent: true},
	"JavaScript": {junction: true}, "TypeScript": {junction: true}, "TSX": {junction: true},
}

type chunkRule struct {
	// junction: a chunk must end with a statement that cannot go on.
	// JavaScript and TypeScript insert semicolons at line ends only where
	// the next line cannot continue the statement: "a = b\n(c)" is one
	// call.
	junction bool
	// indent: a chunk must start with a line that is not indented, or it
	// would continue the block before it in the file.
	indent bool
}

// ruleOf returns the chunking rule of a language, if it is chunked.
func ruleOf(l *language) (chunkRule, bool) {
	r, ok := chunkRules[l]
	return r, ok
}

var chunkRules = func() map[*language]chunkRule {
	m := make(map[*language]chunkRule, len(chunked))
	for name, r := range chunked {
		m[languages[name]] = r
	}
	return m
}()

// topNode is a top-level node of a tree: a child of its root.
type topNode struct {
	start, end         int
	startRow, startCol uint32
	endRow, endCol     uint32
	bad                bool // an ERROR or MISSING node
	broken             bool // it has a syntax error
	filler             bool // a comment or a token such as a line end, without error
	closed             bool // no text after it can continue it (junction rule)
}

// topLevel returns the children of a root node.
func topLevel(root *sitter.Node, junction bool) []topNode {
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	if !c.GoToFirstChild() {
		return nil
	}
	var out []topNode
	for {
		n := c.CurrentNode()
		sp, ep := n.StartPoint(), n.EndPoint()
		k := topNode{start: int(n.StartByte()), end: int(n.EndByte()),
			startRow: sp.Row, startCol: sp.Column, endRow: ep.Row, endCol: ep.Column,
			bad: n.IsError() || n.IsMissing(), broken: n.HasError()}
		k.filler = (n.IsExtra() || !n.IsNamed()) && !k.broken
		if junction && !k.filler {
			k.closed = closedStatement(n)
		}
		out = append(out, k)
		if !c.GoToNextSibling() {
			return out
		}
	}
}

// jsDeclarations end with a block that nothing can continue.
var jsDeclarations = map[string]bool{
	"function_declaration": true, "generator_function_declaration": true,
	"class_declaration": true, "abstract_class_declaration": true,
	"interface_declaration": true, "enum_declaration": true,
	"internal_module": true, "module": true,
}

// closedStatement reports whether a JavaScript or TypeScript statement
// ends with a semicolon or is a declaration ending with a block.
func closedStatement(n *sitter.Node) bool {
	if jsDeclarations[n.Type()] {
		return true
	}
	if d := n.ChildByFieldName("declaration"); d != nil && n.Type() == "export_statement" && jsDeclarations[d.Type()] {
		return true
	}
	last := n
	for last.ChildCount() > 0 {
		last = last.Child(int(last.ChildCount()) - 1)
	}
	return last.Type() == ";" && !last.IsMissing()
}

// chunkStarts returns where a file's chunks start: 0, then the line start
// of each top-level node that begins a line after the previous node ended,
// when the chunk so far is long enough, boundaryOK, and (for the junction
// rule) the chunk is closed. It returns nil for a file of one chunk.
func chunkStarts(l *language, kids []topNode) []int {
	rule, ok := ruleOf(l)
	if !ok || len(kids) < 2 {
		return nil
	}
	starts := []int{0}
	closed := true
	for i := 1; i < len(kids); i++ {
		prev, k := kids[i-1], kids[i]
		if !prev.filler {
			closed = !rule.junction || prev.closed
		}
		lineStart := k.startCol == 0 && (prev.endRow < k.startRow || prev.endCol == 0)
		if lineStart && closed && k.start-starts[len(starts)-1] >= minChunk && boundaryOK(kids, i) &&
			(!rule.indent || unindented(kids, i)) {
			starts = append(starts, k.start)
		}
	}
	return starts
}

// unindented reports whether the first node other than fillers from
// top-level node i on starts a line: else, in Python, a chunk starting at
// a comment before an indented line would take from the chunk before it
// a line that continues that chunk's last block once an edit makes it a
// block (class K: added before "# note\n    return y").
func unindented(kids []topNode, i int) bool {
	for _, k := range kids[i:] {
		if !k.filler {
			return k.startCol == 0
		}
	}
	return true
}

// boundaryOK reports whether a chunk may start at top-level node i: the
// nearest nodes other than fillers on both sides have no syntax error.
// Tree-sitter recovers from an error by trying several parses, which may
// run on past the erroneous node and be decided by the text after it (or
// take back nodes before it): a correct node on each side of a boundary
// keeps the recovery within the chunk.
func boundaryOK(kids []topNode, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if !kids[j].filler {
			if kids[j].broken {
				return false
			}
			break
		}
	}
	for j := i; j < len(kids); j++ {
		if !kids[j].filler {
			return !kids[j].broken
		}
	}
	return true
}

// sides names what must be parsed with a reparsed group of chunks for
// its tree to be the whole file's there: none when it already is.
type sides uint8

const (
	before sides = 1 << iota // the chunk before the group
	after                    // the chunk after it
	whole                    // the whole file
)

// chunkFit reports what must be parsed with a reparsed chunk for its tree
// to be one that the whole file's parse would contain: nothing when its
// root is no error, no line continuation ends it, its first and last nodes
// keep the boundaries with the chunks before and after it (see
// boundaryOK), its language's rules hold, and it assumes no missing
// closing token. A broken boundary asks for the neighbour on its side, an
// error root for both; a missing token, whose place depends on the text
// after it (a missing #endif goes at the end of the chunk, or of the
// file), asks for the whole file, as growing seldom drops it.
//
// Error nodes at the top level between correct nodes are accepted: on
// git/git, where C macros such as GIT_PATH_FUNC(...) make them, every one
// of 77,700 versions derived so came out as a whole parse finds it, and
// refusing them cost 23 MB of whole-file parses. In Python they are
// refused: an indented line that the error holds may belong to the block
// before the chunk.
func chunkFit(l *language, tree *sitter.Tree, text []byte, first, last bool) sides {
	rule, _ := ruleOf(l)
	root := tree.RootNode()
	if root.IsError() {
		return before | after
	}
	if !last && (bytes.HasSuffix(text, []byte("\\\n")) || bytes.HasSuffix(text, []byte("\\\r\n"))) {
		return after
	}
	if !root.HasError() && (last || !rule.junction) && (first || !rule.indent) {
		return 0
	}
	kids := topLevel(root, rule.junction && !last)
	var code []topNode
	for _, k := range kids {
		if !k.filler {
			code = append(code, k)
		}
	}
	if len(code) == 0 {
		return 0
	}
	head, tail := code[0], code[len(code)-1]
	var need sides
	if !first && (head.broken || rule.indent && head.startCol != 0) {
		need |= before
	}
	if !last && (tail.broken || rule.junction && !tail.closed) {
		need |= after
	}
	if need != 0 {
		return need
	}
	for _, k := range code {
		if k.bad && rule.indent {
			return whole
		}
	}
	if root.HasError() && hasMissing(root) {
		return whole
	}
	return 0
}

// hasMissing reports whether a node with errors holds a MISSING node
// other than a semicolon: a closing token the parser assumed, whose place
// depends on the text after it (a missing #endif goes at the end of the
// chunk, or of the file). A missing semicolon goes where it is missed.
func hasMissing(n *sitter.Node) bool {
	if n.IsMissing() {
		return n.Type() != ";"
	}
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		if k := c.CurrentNode(); k.HasError() && hasMissing(k) {
			return true
		}
	}
	return false
}
