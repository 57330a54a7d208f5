// Package graph stores gitmemory's knowledge graph (repositories, commits,
// files, code entities, issues, design notes, tests, authors and the
// relationships between them) in Cayley v0.7.7, on its embedded bolt backend
// by default or on PostgreSQL through Cayley's SQL backend.
//
// # Quad representation
//
// Node IDs carry a type prefix ("commit:<sha>", "entity:<path>#<qualified>",
// ...) and are stored as IRIs, so they can never collide with a property
// value, which is stored as a plain string.
//
//	node type:   <id> <gm:type>   "Commit"                (no label)
//	property:    <id> <prop:key>  "value"                 (no label)
//	edge:        <from> <TYPE>    <to>    "0.75"          (label = confidence)
//	hidden mark: <id> <gm:state>  <gm:hidden>             (no label)
//
// An edge is exactly one quad: its confidence is the quad's label, so reading
// an edge costs one index entry and no second lookup (a reified edge would
// cost three to five quads and a join per hop). A quad with a label is an
// edge; a quad without one describes its subject node. Changing an edge's
// confidence removes the old quad and adds the new one in the same
// transaction. A Confidence of 0 in a written Edge means "not given" and is
// stored as 1.
//
// Hidden nodes are found through the object index of <gm:hidden>: one prefix
// scan per read loads the (small) set of hidden nodes.
//
// # Reads
//
// Multi-node Cayley path queries scan whole predicates and are orders of
// magnitude slower than walking one hop at a time with the low-level
// QuadStore API, so every read here is a bounded hop-by-hop walk over
// qs.QuadIterator(quad.Subject|quad.Object, ref), comparing refs rather
// than names wherever it can.
//
// # Concurrency
//
// Write reads the current quads before it builds its transaction, outside
// that transaction, so it assumes one writer per store (DESIGN.md decision 4).
// A bolt store is single-process: a second Open of the same directory fails
// with ErrLocked after a timeout instead of blocking forever.
package graph
