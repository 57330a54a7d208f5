package understand

import (
	"testing"
)

func TestTestFunctionTarget(t *testing.T) {
	tests := []struct {
		lang, name, want string
	}{
		// Go
		{"Go", "TestFoo", "Foo"},
		{"Go", "TestFoo_bar", "Foo"},
		{"Go", "TestFoo_empty_input", "Foo"},
		{"Go", "TestFooBar", "FooBar"},
		{"Go", "TestParseConfig", "ParseConfig"},
		{"Go", "TestServer_Start", "Server.Start"},
		{"Go", "TestServer_Start_twice", "Server.Start"},
		{"Go", "Test_parseConfig", "parseConfig"},
		{"go", "BenchmarkEncode", "Encode"},
		{"golang", "FuzzParse", "Parse"},
		{"Go", "ExampleReader", "Reader"},
		{"Go", "ExampleReader_Read", "Reader.Read"},
		{"Go", "ExampleReader_second", "Reader"},
		{"Go", "TestMain", ""},
		{"Go", "Test", ""},
		{"Go", "Testing", ""},
		{"Go", "Example", ""},
		{"Go", "Example_suffix", ""},
		{"Go", "Test1", ""},
		{"Go", "helper", ""},
		// Python
		{"Python", "test_foo_bar", "foo_bar"},
		{"Python", "test_parse__empty", "parse"},
		{"Python", "TestFoo", "Foo"},
		{"Python", "FooTest", "Foo"},
		{"Python", "FooTestCase", "Foo"},
		{"py", "testParseConfig", "parseConfig"},
		{"Python", "test", ""},
		{"Python", "test_", ""},
		{"Python", "setUp", ""},
		// Java and friends
		{"Java", "testFoo", "foo"},
		{"Java", "testParseConfig_whenEmpty", "parseConfig"},
		{"Java", "fooShouldBar", "foo"},
		{"Java", "parseConfigShouldFailOnEmptyInput", "parseConfig"},
		{"Java", "parse_whenEmpty_thenThrows", "parse"},
		{"Java", "FooTest", "Foo"},
		{"Java", "FooTests", "Foo"},
		{"Java", "FooIT", "Foo"},
		{"Kotlin", "TestFoo", "Foo"},
		{"Java", "shouldParse", ""},
		{"Java", "whenEmpty_thenThrows", ""},
		{"Java", "givenX_whenY_thenZ", ""},
		{"Java", "parsesConfig", ""},
		{"Kotlin", "`parses config`", ""},
		{"PHP", "testLogin", "login"},
		{"Swift", "testURLParser", "URLParser"},
		{"Groovy", "FooSpec", "Foo"},
		// C#
		{"C#", "Foo_ShouldBar", "Foo"},
		{"C#", "Parse_WhenEmpty_Throws", "Parse"},
		{"csharp", "ParseShouldThrow", "Parse"},
		{"C#", "ParserTests", "Parser"},
		{"C#", "Should_Parse", ""},
		{"C#", "Parses", ""},
		// Ruby, Rust, C/C++
		{"Ruby", "test_foo", "foo"},
		{"Ruby", "UserTest", "User"},
		{"Rust", "test_foo", "foo"},
		{"Rust", "it_works", ""},
		{"C++", "FooTest", "Foo"},
		{"C", "test_buffer_grow", "buffer_grow"},
		// Not visible from a name.
		{"JavaScript", "describe", ""},
		{"TypeScript", "testFoo", ""},
		{"Elixir", "test_foo", ""},
		// Unknown language: Go, Python and Java forms.
		{"", "TestFoo", "Foo"},
		{"Zig", "test_foo", "foo"},
		{"Nim", "testFoo", "foo"},
		{"", "", ""},
		{"Go", "Test Foo", ""},
	}
	for _, tt := range tests {
		got, ok := TestFunctionTarget(tt.lang, tt.name)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("TestFunctionTarget(%q, %q) = %q, %v; want %q", tt.lang, tt.name, got, ok, tt.want)
		}
	}
}
