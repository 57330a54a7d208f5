package understand

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIsTestFile(t *testing.T) {
	yes := []string{
		// Go
		"store/sqlite_test.go", "main_test.go", "internal/x/export_test.go",
		"testing/quick/quick_test.go", "extract/testdata/fuzz/FuzzX/abc",
		// Python
		"tests/test_api.py", "pkg/test_api.py", "pkg/api_test.py", "conftest.py",
		"app/tests.py", "tests/helpers.py", "pkg/tests/unit/fixtures.json",
		// JS/TS
		"src/button.test.tsx", "src/button.spec.ts", "lib/util.test.js", "src/__tests__/util.js",
		"app/login.e2e-spec.ts", "src/__snapshots__/button.test.tsx.snap", "src/__mocks__/fs.js",
		"src/widget_spec.js", "e2e/login.cy.ts",
		// Java, Kotlin, Scala, Groovy
		"src/test/java/com/acme/FooTest.java", "core/FooTests.java", "it/src/x/FooIT.java",
		"src/main/java/com/acme/TestFoo.java", "FooTestCase.java", "src/test/kotlin/a/FooTest.kt",
		"app/src/androidTest/java/a/MainActivityTest.kt", "core/FooSpec.groovy", "core/FooSuite.scala",
		// C#
		"tests/App.Tests/ParserTests.cs", "App.Tests/Foo.cs", "src/FooTest.cs",
		// Ruby
		"spec/models/user_spec.rb", "test/models/user_test.rb", "test/test_helper.rb", "lib/test_x.rb",
		"spec/spec_helper.rb",
		// PHP
		"tests/Unit/FooTest.php", "src/FooTest.php", "tests/bootstrap.php", "ext/tests/bug123.phpt",
		// Rust
		"tests/integration.rs", "src/parser/tests.rs",
		// C/C++
		"test_buffer.c", "net/socket_test.cc", "base/strings/string_util_unittest.cc", "tests/main.c",
		"test/unit/parse.cpp", "src/ParserTest.cpp",
		// Elixir, Dart, Swift, Erlang, Haskell, Perl, R, shell
		"test/my_app/user_test.exs", "test/widget_test.dart", "Tests/AppTests/LoginTests.swift",
		"test/foo_SUITE.erl", "test/ParserSpec.hs", "t/basic.t", "tests/testthat/test-parse.R",
		"test/cli.bats",
		// Windows separators
		`src\test\java\FooTest.java`,
	}
	no := []string{
		"", "/", "main.go", "testing/testing.go", "testing/fstest/mapfs.go", "src/testing/helpers.py",
		"contest/solver.go", "latest.go", "attest.py", "testutil/assert.go", "internal/testutil/t.go",
		"test.go", "test.py", "src/main/java/com/acme/test/Helper.java", "src/main/java/a/Foo.java",
		"spec/openapi.yaml", "docs/spec/design.md", "app/models/user.rb", "lib/foo.ex",
		"GIT.java", "EXIT.java", "src/Contest.java", "README.md", ".github/workflows/test.yml",
		"Makefile", "protest.c", "src/testing.ts", "specification/foo.go", "src/Latest.cs",
	}
	for _, p := range yes {
		if !IsTestFile(p) {
			t.Errorf("IsTestFile(%q) = false, want true", p)
		}
	}
	for _, p := range no {
		if IsTestFile(p) {
			t.Errorf("IsTestFile(%q) = true, want false", p)
		}
	}
}

func TestTestSubject(t *testing.T) {
	tests := []struct{ in, want string }{
		// Go: same directory.
		{"store/sqlite_test.go", "store/sqlite.go"},
		{"main_test.go", "main.go"},
		{"store/sqlite_internal_test.go", "store/sqlite.go"},
		{"internal/x/export_test.go", ""},
		{"_test.go", ""},
		{"test/fixedbugs/issue1_test.go", ""}, // the candidate would be under test/ too
		// Python: tests/ directories are dropped (mirrored or sibling layout).
		{"test_foo.py", "foo.py"},
		{"pkg/test_foo.py", "pkg/foo.py"},
		{"pkg/foo_test.py", "pkg/foo.py"},
		{"tests/test_foo.py", "foo.py"},
		{"src/pkg/tests/test_foo.py", "src/pkg/foo.py"},
		{"tests/pkg/sub/test_foo.py", "pkg/sub/foo.py"},
		{"tests/unit/test_foo.py", "foo.py"},
		{"conftest.py", ""},
		{"tests/helpers.py", ""},
		// JS/TS
		{"src/foo.test.ts", "src/foo.ts"},
		{"src/components/Button.spec.tsx", "src/components/Button.tsx"},
		{"src/__tests__/foo.test.js", "src/foo.js"},
		{"src/__tests__/foo.js", "src/foo.js"},
		{"test/foo.spec.js", "src/foo.js"},
		{"packages/core/test/foo.test.ts", "packages/core/foo.ts"},
		// JVM
		{"src/test/java/a/FooTest.java", "src/main/java/a/Foo.java"},
		{"core/src/test/kotlin/a/b/FooTests.kt", "core/src/main/kotlin/a/b/Foo.kt"},
		{"src/test/java/a/FooIT.java", "src/main/java/a/Foo.java"},
		{"src/test/groovy/a/FooSpec.groovy", "src/main/groovy/a/Foo.groovy"},
		{"app/src/androidTest/java/a/MainActivityTest.java", "app/src/main/java/a/MainActivity.java"},
		{"src/main/java/a/TestFoo.java", "src/main/java/a/Foo.java"},
		// C#
		{"tests/App.Tests/Services/ParserTests.cs", "src/App/Services/Parser.cs"},
		{"App.Tests/ParserTests.cs", "App/Parser.cs"},
		// Ruby
		{"spec/models/user_spec.rb", "app/models/user.rb"},
		{"test/controllers/users_controller_test.rb", "app/controllers/users_controller.rb"},
		{"spec/foo/bar_spec.rb", "lib/foo/bar.rb"},
		{"spec/lib/foo_spec.rb", "lib/foo.rb"},
		{"spec/user_spec.rb", "lib/user.rb"},
		{"test/test_foo.rb", "lib/foo.rb"},
		{"spec/requests/users_spec.rb", ""},
		{"spec/spec_helper.rb", ""},
		// PHP
		{"tests/Unit/FooTest.php", "src/Foo.php"},
		{"tests/Http/Controllers/UserControllerTest.php", "src/Http/Controllers/UserController.php"},
		// Rust
		{"src/parser/tests.rs", "src/parser.rs"},
		{"src/tests.rs", "src/lib.rs"},
		{"tests/parser.rs", "src/parser.rs"},
		// C/C++
		{"base/strings/string_util_unittest.cc", "base/strings/string_util.cc"},
		{"net/socket_test.cc", "net/socket.cc"},
		{"test_buffer.c", "buffer.c"},
		{"tests/test_buffer.c", "src/buffer.c"},
		{"src/ParserTest.cpp", "src/Parser.cpp"},
		// Elixir, Dart, Swift, Erlang, Haskell, R
		{"test/my_app/user_test.exs", "lib/my_app/user.ex"},
		{"test/widget_test.dart", "lib/widget.dart"},
		{"Tests/AppTests/LoginTests.swift", "Sources/App/Login.swift"},
		{"test/foo_SUITE.erl", "src/foo.erl"},
		{"test/ParserSpec.hs", "src/Parser.hs"},
		{"tests/testthat/test-parse.R", "R/parse.R"},
		// Not test files, or no convention.
		{"main.go", ""},
		{"src/foo.ts", ""},
		{"testdata/input.json", ""},
		{"", ""},
		// Separators and absolute paths.
		{`src\test\java\a\FooTest.java`, "src/main/java/a/Foo.java"},
		{"./pkg/foo_test.go", "pkg/foo.go"},
		{"/abs/pkg/foo_test.go", "/abs/pkg/foo.go"},
	}
	for _, tt := range tests {
		got, ok := TestSubject(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("TestSubject(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
		if ok && IsTestFile(got) {
			t.Errorf("TestSubject(%q) = %q is a test file", tt.in, got)
		}
	}
}

func FuzzIsTestFile(f *testing.F) {
	for _, s := range []string{"a/b_test.go", "tests/test_x.py", "src/test/java/FooTest.java",
		"spec/models/u_spec.rb", "Tests/ATests/BTests.swift", "x.Tests/y.Tests/zTests.cs", "",
		"src/__tests__/a.test.js", "\xff/_test.go", "tests/tests.rs", "/", "./././"} {
		f.Add(s, "Go", "TestFoo_Bar")
	}
	f.Add("a.py", "Java", "fooShouldBar")
	f.Add("a.cs", "C#", "Foo_Should")
	f.Fuzz(func(t *testing.T, p, lang, name string) {
		isTest := IsTestFile(p)
		subj, ok := TestSubject(p)
		if ok {
			if subj == "" || IsTestFile(subj) {
				t.Fatalf("TestSubject(%q) = %q, a test file or empty", p, subj)
			}
			if !isTest {
				t.Fatalf("TestSubject(%q) = %q for a non-test file", p, subj)
			}
		} else if subj != "" {
			t.Fatalf("TestSubject(%q) = %q with ok=false", p, subj)
		}
		target, ok := TestFunctionTarget(lang, name)
		if ok != (target != "") {
			t.Fatalf("TestFunctionTarget(%q, %q) = %q, %v", lang, name, target, ok)
		}
		if ok && (!utf8.ValidString(target) || strings.ContainsAny(target, " \t\n")) {
			t.Fatalf("TestFunctionTarget(%q, %q) = %q", lang, name, target)
		}
	})
}

func FuzzTestSubject(f *testing.F) {
	for _, s := range []string{"a/b_test.go", "tests/unit/test_x.py", "src/test/java/FooTest.java",
		"spec/lib/u_spec.rb", "Tests/ATests/BTests.swift", "tests/a.Tests/b.Tests/zTests.cs",
		"test/test/test_test.exs", "src/__tests__/__tests__/a.test.js", "spec/spec/x_spec.rb",
		"tests/testthat/test-x.R", "src/tests.rs", "tests/tests/a.rs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		subj, ok := TestSubject(p)
		if !ok {
			return
		}
		if IsTestFile(subj) {
			t.Fatalf("TestSubject(%q) = %q is a test file", p, subj)
		}
		if subj == tfNorm(p) {
			t.Fatalf("TestSubject(%q) = itself", p)
		}
		if again, _ := TestSubject(p); again != subj {
			t.Fatal("not deterministic")
		}
	})
}
