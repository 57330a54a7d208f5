package model

// The kinds of code relationship (seed 003's RelationshipType). A
// relationship's ends are graph node ids: "entity:<path>#<qualified>",
// "file:<path>" or "module:<name>".
const (
	// Calls: a function or method calls another (entity to entity).
	Calls = "CALLS"
	// Imports: a file imports another file, or a module or package
	// ("module:fmt"; a Go package of the repository is "module:./dir").
	Imports = "IMPORTS"
	// Implements: a class or type implements an interface or trait.
	Implements = "IMPLEMENTS"
	// Extends: a class, interface or trait extends another.
	Extends = "EXTENDS"
	// Requires records a method that a Go interface requires, to
	// "method:Name/params/results", or an embedded interface that is not
	// in the repository, to "embeds:Name": what later syncs match method
	// sets against. It is stored beside the others but is no graph edge
	// and no relationship of the code.
	Requires = "REQUIRES"
)

// RelationKinds are the kinds of code relationship, in the order status
// and reports list them.
var RelationKinds = []string{Calls, Imports, Implements, Extends}

// Relation is a relationship that a commit added to the code or removed
// from it: the code at each version holds the relationships added and
// not removed since, in commit order.
type Relation struct {
	Kind string `json:"kind"`
	From string `json:"from"`
	To   string `json:"to"`
	// Confidence is how sure the resolution of the target's name is: 1
	// by scope (same class, file or package, an import, a declared type),
	// less for a name unique in the repository.
	Confidence float64 `json:"confidence"`
	// Removed marks a relationship the commit removed.
	Removed bool `json:"removed,omitempty"`
}
