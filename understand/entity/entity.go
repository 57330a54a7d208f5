package entity

import "errors"

// Kind is the kind of a code entity.
type Kind string

// The entity kinds.
const (
	KindFunction  Kind = "function"
	KindMethod    Kind = "method"
	KindClass     Kind = "class"
	KindInterface Kind = "interface"
	KindStruct    Kind = "struct"
	KindEnum      Kind = "enum"
	KindModule    Kind = "module"
)

// Entity is one definition in one file version.
type Entity struct {
	Kind Kind
	// Name is the entity's own name, e.g. "Open".
	Name string
	// Qualified locates the entity in its file or package; see the package
	// documentation for the scheme of each language.
	Qualified string
	// Signature is the definition's text up to its body (for a type: its
	// header), white space collapsed, at most 200 runes.
	Signature string
	// StartLine and EndLine are 1-based and inclusive. The range includes
	// decorators, export keywords and C++ template headers.
	StartLine, EndLine int
	// BodyHash is equal for entities whose text differs only by the
	// entity's name and by white space.
	BodyHash uint64
}

// Errors returned by Parser.Entities.
var (
	// ErrUnsupported means the language has no entity grammar: track the
	// file as a whole.
	ErrUnsupported = errors.New("entity: unsupported language")
	// ErrTooLarge means the source exceeds MaxSourceSize.
	ErrTooLarge = errors.New("entity: source too large")
)

// MaxSourceSize is the largest source Entities parses. Bigger files are
// almost always generated or minified, and tree-sitter's time and memory
// grow with the size.
const MaxSourceSize = 2 << 20
