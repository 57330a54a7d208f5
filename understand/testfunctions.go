package understand

import "strings"

// Test functions and what they test: the entity a test function or class
// is named after, by each language's conventions.

// TestFunctionTarget returns the entity a test function (or test class) is
// named after, by the conventions of lang (a go-enry language name such as
// "Go", "Python", "Java", "C#", or a common short form: "go", "py", "js",
// "cs", "rb", "rs", …):
//
//	Go      TestFoo, BenchmarkFoo, FuzzFoo, ExampleFoo → "Foo";
//	        TestFoo_bar → "Foo" (a lower-case suffix names a case);
//	        TestFoo_Bar, ExampleFoo_Bar → "Foo.Bar" (method Bar of Foo, the
//	        ExampleT_M convention); TestFooBar → "FooBar"; Test_foo → "foo".
//	Python  test_foo_bar → "foo_bar"; test_foo__case → "foo"; TestFoo,
//	        FooTest, FooTests, FooTestCase → "Foo"; testFoo → "foo".
//	Java, Kotlin, Scala, Groovy, PHP, Swift:
//	        testFoo, testFoo_whenX → "foo"; fooShouldBar, foo_whenX → "foo";
//	        FooTest, FooTests, FooIT, FooSpec, TestFoo → "Foo".
//	C#      Foo_ShouldBar, FooShouldBar → "Foo"; FooTests, TestFoo → "Foo".
//	Ruby    test_foo → "foo"; FooTest → "Foo".
//	Rust    test_foo → "foo".
//	C, C++  test_foo → "foo"; FooTest, TestFoo → "Foo".
//	JavaScript, TypeScript, Elixir, Dart: tests are strings (describe('Foo',
//	        …), test "…") that a name cannot show: ok is false.
//
// For other languages the Go, Python and Java forms are tried. ok is false
// when no convention applies (TestMain, shouldParse, it_works, …).
func TestFunctionTarget(lang, name string) (target string, ok bool) {
	name = strings.TrimSpace(name)
	if name == "" || !tfIsIdent(name) {
		return "", false
	}
	switch tfLangFamily(lang) {
	case "go":
		return tfGoTarget(name)
	case "python":
		if t, ok := tfSnakeTarget(name); ok {
			return t, true
		}
		if t, ok := tfClassTarget(name, "TestCase", "Tests", "Test"); ok {
			return t, true
		}
		return tfCamelTestTarget(name)
	case "java":
		return tfJavaTarget(name)
	case "csharp":
		return tfCSharpTarget(name)
	case "ruby":
		if t, ok := tfSnakeTarget(name); ok {
			return t, true
		}
		return tfClassTarget(name, "Test")
	case "rust":
		return tfSnakeTarget(name)
	case "c":
		if t, ok := tfSnakeTarget(name); ok {
			return t, true
		}
		return tfClassTarget(name, "Tests", "Test")
	case "none":
		return "", false
	}
	if t, ok := tfGoTarget(name); ok {
		return t, true
	}
	if t, ok := tfSnakeTarget(name); ok {
		return t, true
	}
	return tfJavaTarget(name)
}

func tfLangFamily(lang string) string {
	switch strings.ToLower(strings.TrimSpace(lang)) {
	case "go", "golang":
		return "go"
	case "python", "py", "python3", "cython":
		return "python"
	case "java", "kotlin", "kt", "scala", "groovy", "php", "swift", "objective-c", "objc":
		return "java"
	case "c#", "csharp", "cs", "f#", "fsharp", "visual basic .net", "vb.net":
		return "csharp"
	case "ruby", "rb":
		return "ruby"
	case "rust", "rs":
		return "rust"
	case "c", "c++", "cpp", "cc", "objective-c++", "cuda":
		return "c"
	case "javascript", "js", "typescript", "ts", "jsx", "tsx", "coffeescript", "elixir", "ex", "exs", "dart", "erlang":
		return "none"
	}
	return ""
}

func tfIsIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != "" && !(s[0] >= '0' && s[0] <= '9')
}

// tfValidTarget: a non-empty identifier that is not only underscores.
func tfValidTarget(t string) (string, bool) {
	if t == "" || strings.Trim(t, "_") == "" || t[0] >= '0' && t[0] <= '9' {
		return "", false
	}
	return t, true
}

func tfGoTarget(name string) (string, bool) {
	for _, prefix := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		rest := name[len(prefix):]
		if rest == "" || tfIsLower(rest[0]) || name == "TestMain" {
			return "", false // "Testing", "TestMain": not tests of anything
		}
		if rest[0] == '_' {
			if prefix == "Example" {
				return "", false // Example_suffix: the package example
			}
			rest = strings.TrimLeft(rest, "_") // Test_parse → parse
			head, _, _ := strings.Cut(rest, "_")
			return tfValidTarget(head)
		}
		head, tail, _ := strings.Cut(rest, "_")
		if tail != "" && tfIsUpper(tail[0]) {
			method, _, _ := strings.Cut(tail, "_")
			return head + "." + method, true
		}
		return tfValidTarget(head)
	}
	return "", false
}

// tfSnakeTarget: test_foo_bar → foo_bar, test_foo__case → foo.
func tfSnakeTarget(name string) (string, bool) {
	if !strings.HasPrefix(name, "test_") {
		return "", false
	}
	rest := strings.TrimLeft(name[len("test_"):], "_")
	if i := strings.Index(rest, "__"); i > 0 {
		rest = rest[:i]
	}
	return tfValidTarget(strings.TrimRight(rest, "_"))
}

// tfClassTarget: FooTest → Foo for the given class suffixes, and TestFoo.
func tfClassTarget(name string, suffixes ...string) (string, bool) {
	if len(name) > 4 && strings.HasPrefix(name, "Test") && tfIsUpper(name[4]) {
		return tfValidTarget(strings.TrimRight(name[4:], "_"))
	}
	if !tfIsUpper(name[0]) {
		return "", false
	}
	if t := tfTrimAnySuffix(name, suffixes...); t != name {
		return tfValidTarget(t)
	}
	return "", false
}

// tfCamelTestTarget: testFoo → foo, testFooBar_whenX → fooBar.
func tfCamelTestTarget(name string) (string, bool) {
	if len(name) > 4 && strings.HasPrefix(name, "test") && tfIsUpper(name[4]) {
		rest, _, _ := strings.Cut(name[4:], "_")
		return tfValidTarget(tfLowerFirst(rest))
	}
	if strings.HasPrefix(name, "test_") {
		rest, _, _ := strings.Cut(strings.TrimLeft(name[5:], "_"), "_")
		return tfValidTarget(rest)
	}
	return "", false
}

func tfLowerFirst(s string) string {
	if s == "" || !tfIsUpper(s[0]) {
		return s
	}
	// Keep acronyms: testURLParser → URLParser.
	if len(s) > 1 && tfIsUpper(s[1]) {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// BDD words that end the subject part of a method name.
var tfBDDWords = []string{"Should", "Must", "When", "Given", "Returns", "Throws", "Fails",
	"Succeeds", "Does", "Can", "Cannot", "Will", "Is", "Has"}

var tfBDDPrefixes = tfSet("should", "must", "when", "given", "it", "test", "then", "can",
	"does", "is", "has", "verify", "check", "ensure", "expect")

func tfJavaTarget(name string) (string, bool) {
	if t, ok := tfClassTarget(name, "TestCase", "Tests", "Test", "IT", "Spec"); ok {
		return t, true
	}
	if tfIsUpper(name[0]) {
		return "", false
	}
	if t, ok := tfCamelTestTarget(name); ok {
		return t, true
	}
	// foo_whenBar_thenBaz → foo
	if head, _, found := strings.Cut(name, "_"); found && head != "" && !tfBDDPrefixes[strings.ToLower(head)] {
		return tfValidTarget(tfCutBDD(head))
	}
	// fooShouldBar → foo
	if t := tfCutBDD(name); t != name {
		return tfValidTarget(t)
	}
	return "", false
}

// tfCutBDD cuts a camelCase name before its first BDD word: "parseConfig
// ShouldFail" → "parseConfig". A name starting with one yields "".
func tfCutBDD(name string) string {
	for i := 1; i < len(name); i++ {
		if !tfIsUpper(name[i]) {
			continue
		}
		for _, w := range tfBDDWords {
			if strings.HasPrefix(name[i:], w) && (i+len(w) == len(name) || !tfIsLower(name[i+len(w)])) {
				return name[:i]
			}
		}
	}
	if tfBDDPrefixes[tfFirstCamelWord(name)] {
		return ""
	}
	return name
}

func tfFirstCamelWord(name string) string {
	for i := 1; i < len(name); i++ {
		if tfIsUpper(name[i]) || name[i] == '_' {
			return strings.ToLower(name[:i])
		}
	}
	return strings.ToLower(name)
}

func tfCSharpTarget(name string) (string, bool) {
	if t, ok := tfClassTarget(name, "Tests", "Test", "Specs", "Spec"); ok {
		return t, true
	}
	if head, _, found := strings.Cut(name, "_"); found && head != "" {
		if tfBDDPrefixes[strings.ToLower(head)] {
			return "", false
		}
		return tfValidTarget(tfCutBDD(head))
	}
	if t := tfCutBDD(name); t != name && t != "" {
		return tfValidTarget(t)
	}
	return "", false
}
