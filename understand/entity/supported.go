package entity

// Supported reports whether lang (a go-enry language name) has an entity
// grammar; files in other languages are tracked as whole files.
func Supported(lang string) bool {
	_, ok := languages[lang]
	return ok
}

// LocalName strips the path prefix that Entities puts on the qualified
// names of path-scoped languages.
func LocalName(qualified string) string { return localName(qualified) }
