// Package entity finds the code entities of a file version (functions,
// methods, classes, interfaces, structs, enums and modules) with
// tree-sitter, and maps a file change's diff hunks onto them: which entities
// a change introduces, modifies or deletes, and which deleted entities
// reappear elsewhere under another name or path (REPLACED_BY).
//
// # Languages
//
// The languages are named as go-enry names them: Go, Python, JavaScript,
// TypeScript, TSX, Rust, Java, C, C++, Ruby, C# and PHP. Any other name gives
// ErrUnsupported, so the caller can fall back to file-level tracking.
//
// # What is an entity
//
// Entities are definitions with a body. Prototypes, abstract methods,
// interface method signatures, TypeScript overload signatures and Rust trait
// method signatures are not entities of their own: they are part of the
// interface, class or trait that declares them. A function whose nearest
// enclosing definition is a type (class, struct, interface, enum, Rust impl
// block, Ruby module) is a method; a function nested in a function is a
// function. Go method declarations, JavaScript/TypeScript class methods and
// C++ out-of-line definitions (void Shape::draw() {...}) are methods too.
//
// # Qualified names
//
// Qualified joins the enclosing names with "." and has one of two forms:
//
//   - Go, Java and C#, whose source names its package or namespace:
//     package + enclosing types + name, e.g. "extract.Repo.Open" (Go: the
//     package clause, a method is qualified by its receiver's base type),
//     "com.example.Circle.area" (Java: the package declaration),
//     "Geo.Shapes.Circle.Area" (C#: the enclosing namespaces).
//   - All others: path + ":" + enclosing names + name, e.g.
//     "pkg/mod.py:Shape.area". Enclosing names include C++ namespaces,
//     PHP namespaces (App\Models becomes App.Models), Rust inline modules and
//     impl blocks (by the implementing type: "src/p.rs:Point.new"), Ruby
//     modules and TypeScript namespaces. C++ "Shape::draw" and Ruby
//     "Foo::Bar" become Shape.draw and Foo.Bar.
//
// Names are not unique in every language: overloads (Java, C#, C++) and
// methods of several Rust impl blocks of one type share a Qualified name.
// Diff pairs such entities by signature and then by order.
//
// # Body hashes
//
// BodyHash is a 64-bit FNV-1a hash of an entity's definition text with every
// whole-word occurrence of its name removed and each run of white space
// collapsed to one space. It ignores decorators, export keywords and C++
// template headers, which lie outside the definition node, so a function
// renamed, re-indented or moved to another file with an unchanged body keeps
// its hash. The hash is persisted by callers: changing its definition is a
// format change.
package entity
