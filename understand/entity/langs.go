package entity

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// A language's query names each definition node by one of these captures:
//
//	@function @method @class @interface @struct @enum @module  an entity
//	@scope    a namespace that qualifies names but is no entity
//	@impl     a Rust impl block: qualifies names by its type, makes methods
//	@package  the file's package or namespace declaration
//
// and its name by @name. Go methods capture their receiver as @receiver;
// C and C++ functions capture their declarator as @declarator instead of a
// name, because the name hides under pointer, reference and parenthesised
// declarators.

// language describes how to find the entities of one language.
type language struct {
	grammar func() *sitter.Language
	query   string
	// pathScoped languages prefix Qualified with the file's path.
	pathScoped bool
	// moduleIsType makes functions in a module methods (Ruby mixins).
	moduleIsType bool
	// wrappers are parent node types whose range an entity takes when it
	// is their only definition, mapped to whether the signature starts at
	// the wrapper (export const f = () => …) or at the definition (@decorator).
	wrappers map[string]bool
}

var jsWrappers = map[string]bool{
	"export_statement":     true,
	"lexical_declaration":  true,
	"variable_declaration": true,
	"expression_statement": true,
}

// languages maps go-enry language names to their entity grammars.
var languages = map[string]*language{
	"Go": {
		grammar: golang.GetLanguage,
		query: `
(package_clause (package_identifier) @name) @package
(function_declaration name: (identifier) @name) @function
(method_declaration receiver: (parameter_list) @receiver name: (field_identifier) @name) @method
(type_spec name: (type_identifier) @name type: (struct_type)) @struct
(type_spec name: (type_identifier) @name type: (interface_type)) @interface
`,
		wrappers: map[string]bool{"type_declaration": true},
	},
	"Python": {
		grammar: python.GetLanguage,
		query: `
(class_definition name: (identifier) @name) @class
(function_definition name: (identifier) @name) @function
`,
		pathScoped: true,
		wrappers:   map[string]bool{"decorated_definition": false},
	},
	"JavaScript": {
		grammar: javascript.GetLanguage,
		query: jsQuery + `
(class_declaration name: (identifier) @name) @class
(class_body (field_definition property: (_) @name value: [(arrow_function) (function_expression)]) @method)
`,
		pathScoped: true,
		wrappers:   jsWrappers,
	},
	"TypeScript": {
		grammar:    typescript.GetLanguage,
		query:      jsQuery + tsQuery,
		pathScoped: true,
		wrappers:   jsWrappers,
	},
	"TSX": {
		grammar:    tsx.GetLanguage,
		query:      jsQuery + tsQuery,
		pathScoped: true,
		wrappers:   jsWrappers,
	},
	"Rust": {
		grammar: rust.GetLanguage,
		query: `
(function_item name: (identifier) @name) @function
(struct_item name: (type_identifier) @name) @struct
(union_item name: (type_identifier) @name) @struct
(enum_item name: (type_identifier) @name) @enum
(trait_item name: (type_identifier) @name) @interface
(impl_item type: (_) @name) @impl
(mod_item name: (identifier) @name body: (declaration_list)) @module
`,
		pathScoped: true,
	},
	"Java": {
		grammar: java.GetLanguage,
		query: `
(package_declaration (_) @name) @package
(class_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class
(interface_declaration name: (identifier) @name) @interface
(annotation_type_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(method_declaration name: (identifier) @name body: (block)) @function
(constructor_declaration name: (identifier) @name) @function
`,
	},
	"C": {
		grammar:    c.GetLanguage,
		query:      cQuery,
		pathScoped: true,
	},
	"C++": {
		grammar: cpp.GetLanguage,
		query: cQuery + `
(class_specifier name: (type_identifier) @name body: (_)) @class
(namespace_definition name: (_) @name) @scope
`,
		pathScoped: true,
		wrappers:   map[string]bool{"template_declaration": true},
	},
	"Ruby": {
		grammar: ruby.GetLanguage,
		query: `
(method name: (_) @name) @function
(singleton_method name: (_) @name) @function
(class name: (_) @name) @class
(module name: (_) @name) @module
`,
		pathScoped:   true,
		moduleIsType: true,
	},
	"C#": {
		grammar: csharp.GetLanguage,
		query: `
(namespace_declaration name: (_) @name) @scope
(file_scoped_namespace_declaration name: (_) @name) @package
(class_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class
(struct_declaration name: (identifier) @name) @struct
(interface_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(method_declaration name: (identifier) @name body: (_)) @function
(constructor_declaration name: (identifier) @name body: (_)) @function
`,
	},
	"PHP": {
		grammar: php.GetLanguage,
		query: `
(namespace_definition name: (namespace_name) @name body: (_)) @scope
(namespace_definition name: (namespace_name) @name !body) @package
(function_definition name: (name) @name) @function
(class_declaration name: (name) @name) @class
(interface_declaration name: (name) @name) @interface
(trait_declaration name: (name) @name) @class
(enum_declaration name: (name) @name) @enum
(method_declaration name: (name) @name body: (_)) @function
`,
		pathScoped: true,
	},
}

// jsQuery is shared by JavaScript, TypeScript and TSX. Functions assigned
// to variables or properties count only at the top level, where they are
// the module's API; inside functions they are mostly callbacks.
const jsQuery = `
(function_declaration name: (identifier) @name) @function
(generator_function_declaration name: (identifier) @name) @function
(class_body (method_definition name: (_) @name) @method)
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @function))
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @function))
(export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @function))
(program (expression_statement (assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @function))
`

// tsQuery adds TypeScript's declarations to jsQuery.
const tsQuery = `
(class_declaration name: (type_identifier) @name) @class
(abstract_class_declaration name: (type_identifier) @name) @class
(interface_declaration name: (type_identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(internal_module name: (identifier) @name) @module
(class_body (public_field_definition name: (_) @name value: [(arrow_function) (function_expression)]) @method)
`

// cQuery is shared by C and C++. A typedef of an anonymous struct is named
// by the typedef.
const cQuery = `
(function_definition declarator: (_) @declarator) @function
(struct_specifier name: (type_identifier) @name body: (_)) @struct
(union_specifier name: (type_identifier) @name body: (_)) @struct
(enum_specifier name: (type_identifier) @name body: (_)) @enum
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @struct
`
