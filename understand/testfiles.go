package understand

// Test files and what they test, by each language's naming conventions.
//
// Decisions:
//   - "testing/" is not a test directory. In Go it is the standard library's
//     test framework (testing, testing/fstest, testing/quick), and elsewhere it
//     mostly holds test helpers and infrastructure, which are library code. A
//     file under testing/ is still a test when its name says so
//     (testing/quick/quick_test.go).
//   - "testdata/", "__snapshots__/" and "__mocks__/" are test directories:
//     their files exist only for the tests (fixtures, snapshots, mocks).
//   - "spec/" is a test directory for source files only: spec/openapi.yaml
//     or docs under spec/ are specifications, spec/models/user_spec.rb is not.
//   - Under src/main/ (Maven/Gradle main sources) directory names do not make
//     a test: src/main/java/com/acme/test/Helper.java is production code.

import (
	"path"
	"strings"
)

// IsTestFile reports whether path is a test file (or a test fixture) by the
// conventions of its language: Go foo_test.go; Python test_foo.py,
// foo_test.py, conftest.py, tests.py; JS/TS foo.test.ts, foo.spec.js,
// __tests__/; Java/Kotlin/Scala/Groovy FooTest, FooTests, FooIT, FooTestCase,
// TestFoo, src/test/; C# FooTests.cs, Foo.Tests/; Ruby foo_spec.rb,
// foo_test.rb, test_foo.rb; PHP FooTest.php, .phpt; Swift FooTests.swift;
// C/C++ test_foo.c, foo_test.cc, foo_unittest.cc; Elixir foo_test.exs; Dart
// foo_test.dart; Erlang foo_SUITE.erl; Perl *.t; Rust tests.rs; and the
// directories test/, tests/, __tests__/, spec/, e2e/, testdata/ (see the
// decisions at the top of this file for testing/ and spec/). Backslashes
// are read as slashes.
func IsTestFile(p string) bool {
	p = tfNorm(p)
	if p == "" {
		return false
	}
	dir, base := path.Split(p)
	if base == "" {
		return false
	}
	if tfIsTestBase(base) {
		return true
	}
	return tfTestDirIndex(tfSegments(dir), base) >= 0
}

// TestSubject returns the source file a test file tests by naming
// convention, the most conventional candidate when there are several:
//
//	foo_test.go                              → foo.go (same directory)
//	pkg/tests/test_foo.py, tests/pkg/test_foo.py → pkg/foo.py
//	src/foo.test.ts, src/__tests__/foo.ts    → src/foo.ts
//	test/foo.spec.js (top-level test dir)    → src/foo.js
//	src/test/java/a/FooTest.java             → src/main/java/a/Foo.java
//	tests/App.Tests/FooTests.cs              → src/App/Foo.cs
//	spec/models/user_spec.rb (Rails)         → app/models/user.rb
//	spec/foo/bar_spec.rb (gem)               → lib/foo/bar.rb
//	tests/Unit/FooTest.php                   → src/Foo.php
//	test/foo/bar_test.exs                    → lib/foo/bar.ex
//	test/foo_test.dart                       → lib/foo.dart
//	Tests/AppTests/FooTests.swift            → Sources/App/Foo.swift
//	src/foo/tests.rs, tests/foo.rs           → src/foo.rs
//	foo_unittest.cc, test_foo.c              → foo.cc, foo.c
//
// ok is false for a path that is not a test file, for one whose name follows
// no convention (conftest.py, export_test.go, spec/requests/…), and when the
// candidate would itself be a test file (a Go test under test/).
func TestSubject(p string) (subject string, ok bool) {
	p = tfNorm(p)
	if !IsTestFile(p) {
		return "", false
	}
	dir, base := path.Split(p)
	segs := tfSegments(dir)
	stem, ext := tfSplitExt(base)
	if stem == "" {
		return "", false
	}
	lext := strings.ToLower(ext)
	var s string
	var newSegs []string
	// dirOnly: the directory alone names the convention (Jest's __tests__/,
	// mocha's test/, Rust's tests/), so the file name needs no test affix.
	dirOnly := false
	switch {
	case lext == "go":
		s = tfTrimSuffix(stem, "_test")
		for _, x := range []string{"_internal", "_external", "_whitebox", "_blackbox"} {
			if t := strings.TrimSuffix(s, x); t != "" {
				s = t
			}
		}
		if s == stem || s == "export" {
			return "", false
		}
		newSegs = segs

	case lext == "py" || lext == "pyi":
		if base == "conftest.py" || base == "tests.py" || base == "__init__.py" {
			return "", false
		}
		s = tfTrimPrefix(stem, "test_")
		if s == stem {
			s = tfTrimSuffix(tfTrimSuffix(stem, "_tests"), "_test")
		}
		newSegs = tfMoveOutOfTestDir(segs, "", base)

	case tfJSExt[lext]:
		s = stem
		for _, x := range []string{".test", ".spec", "_test", "_spec", ".e2e-spec", ".e2e"} {
			if strings.HasSuffix(s, x) && len(s) > len(x) {
				s = s[:len(s)-len(x)]
				break
			}
		}
		dirOnly = true
		if i := tfIndexOf(segs, "__tests__", "__test__"); i >= 0 {
			newSegs = tfWithout(segs, i)
			break
		}
		newSegs = tfMoveOutOfTestDir(segs, "src", base)

	case tfJVMExt[lext]:
		s = tfTrimAnySuffix(stem, "TestCase", "Tests", "Test", "IT", "Spec", "Suite")
		if s == stem && len(stem) > 4 && strings.HasPrefix(stem, "Test") && tfIsUpper(stem[4]) {
			s = stem[4:]
		}
		if i := tfIndexOf(segs, "test", "androidTest", "integrationTest", "functionalTest", "intTest"); i > 0 && segs[i-1] == "src" {
			newSegs = tfReplace(segs, i, "main")
		} else {
			newSegs = tfMoveOutOfTestDir(segs, "src", base)
		}

	case lext == "cs":
		s = tfTrimAnySuffix(stem, "Tests", "Test")
		newSegs = append([]string(nil), segs...)
		for i, sg := range newSegs {
			for _, x := range []string{".UnitTests", ".IntegrationTests", ".FunctionalTests", ".Tests", ".Test", ".Specs"} {
				if strings.HasSuffix(sg, x) && len(sg) > len(x) {
					newSegs[i] = sg[:len(sg)-len(x)]
					if i > 0 && tfIsTestDirName(newSegs[i-1]) {
						newSegs[i-1] = "src"
					}
					break
				}
			}
		}
		newSegs = tfMoveOutOfTestDir(newSegs, "src", base)

	case lext == "php":
		s = tfTrimSuffix(stem, "Test")
		newSegs = tfMoveOutOfTestDir(segs, "src", base)

	case lext == "rb":
		s = tfTrimSuffix(tfTrimSuffix(stem, "_spec"), "_test")
		if s == stem {
			s = tfTrimPrefix(stem, "test_")
		}
		i := tfTestDirIndex(segs, base)
		if i < 0 {
			newSegs = segs
			break
		}
		rest := segs[i+1:]
		var next string
		if len(rest) > 0 {
			next = rest[0]
		}
		switch {
		case tfRailsApp[next]:
			newSegs = tfReplace(segs, i, "app")
		case tfRailsNoSubject[next]:
			return "", false
		case next == "lib":
			newSegs = tfWithout(segs, i)
		default:
			newSegs = tfReplace(segs, i, "lib")
		}

	case lext == "rs":
		if stem == "tests" || stem == "test" {
			// src/foo/tests.rs is the tests module of src/foo.rs; src/tests.rs
			// the one of the crate root.
			if len(segs) == 0 {
				return "", false
			}
			if len(segs) == 1 && segs[0] == "src" {
				return "src/lib.rs", !IsTestFile("src/lib.rs")
			}
			s, newSegs, dirOnly = segs[len(segs)-1], segs[:len(segs)-1], true
			break
		}
		s = tfTrimSuffix(tfTrimSuffix(stem, "_tests"), "_test")
		dirOnly = len(segs) > 0 && segs[0] == "tests"
		newSegs = tfMoveOutOfTestDir(segs, "src", base)

	case tfCExt[lext]:
		s = tfTrimPrefix(stem, "test_")
		if s == stem {
			s = tfTrimAnySuffix(stem, "_unittests", "_unittest", "_tests", "_test", "Tests", "Test")
		}
		newSegs = tfMoveOutOfTestDir(segs, "src", base)

	case lext == "exs":
		s, ext = tfTrimSuffix(stem, "_test"), "ex"
		newSegs = tfMoveOutOfTestDir(segs, "lib", base)

	case lext == "dart":
		s = tfTrimSuffix(stem, "_test")
		newSegs = tfMoveOutOfTestDir(segs, "lib", base)

	case lext == "swift":
		s = tfTrimAnySuffix(stem, "Tests", "Test")
		newSegs = append([]string(nil), segs...)
		if i := tfIndexOf(newSegs, "Tests"); i >= 0 {
			newSegs[i] = "Sources"
			if i+1 < len(newSegs) {
				newSegs[i+1] = tfTrimAnySuffix(newSegs[i+1], "Tests", "Test")
			}
		} else {
			newSegs = tfMoveOutOfTestDir(newSegs, "", base)
		}

	case lext == "erl":
		s = tfTrimAnySuffix(stem, "_SUITE", "_tests")
		newSegs = tfMoveOutOfTestDir(segs, "src", base)

	case lext == "hs":
		s = tfTrimAnySuffix(stem, "Spec", "Test")
		newSegs = tfMoveOutOfTestDir(segs, "src", base)

	case lext == "r":
		s = tfTrimPrefix(tfTrimPrefix(stem, "test-"), "test_")
		if i := tfIndexOf(segs, "tests"); i >= 0 {
			newSegs = append(append([]string(nil), segs[:i]...), "R")
			break
		}
		newSegs = segs

	default:
		if !tfCodeExt[lext] {
			return "", false
		}
		s = tfTrimPrefix(stem, "test_")
		if s == stem {
			s = tfTrimSuffix(stem, "_test")
		}
		newSegs = tfMoveOutOfTestDir(segs, "", base)
	}
	if s == "" || strings.HasPrefix(s, ".") || s == stem && !dirOnly {
		return "", false
	}
	name := s
	if ext != "" {
		name += "." + ext
	}
	subject = strings.Join(append(append([]string(nil), newSegs...), name), "/")
	if strings.HasPrefix(p, "/") {
		subject = "/" + subject
	}
	if subject == p || IsTestFile(subject) {
		return "", false
	}
	return subject, true
}

// ---------------------------------------------------------------------------

func tfNorm(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, "\\", "/"))
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

func tfSegments(dir string) []string {
	var segs []string
	for _, s := range strings.Split(dir, "/") {
		if s != "" && s != "." {
			segs = append(segs, s)
		}
	}
	return segs
}

// tfSplitExt splits "foo.test.ts" into "foo.test" and "ts"; a leading dot
// is part of the stem (".eslintrc" has no extension).
func tfSplitExt(base string) (stem, ext string) {
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return base, ""
	}
	return base[:i], base[i+1:]
}

var (
	tfJSExt  = tfSet("js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts", "coffee", "vue", "svelte")
	tfJVMExt = tfSet("java", "kt", "kts", "scala", "groovy")
	tfCExt   = tfSet("c", "cc", "cpp", "cxx", "c++", "h", "hh", "hpp", "hxx", "m", "mm", "cu")
	// tfCodeExt: source files, for the generic test_foo / foo_test rule and
	// for spec/ directories.
	tfCodeExt = tfSet("go", "py", "pyi", "js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts",
		"coffee", "vue", "svelte", "java", "kt", "kts", "scala", "groovy", "cs", "fs", "vb", "php",
		"rb", "rs", "c", "cc", "cpp", "cxx", "c++", "h", "hh", "hpp", "hxx", "m", "mm", "swift",
		"ex", "exs", "erl", "hs", "dart", "lua", "sh", "bash", "zsh", "pl", "pm", "t", "r", "jl",
		"clj", "cljs", "el", "ml", "nim", "zig", "cr", "sql", "ps1", "bats")
	// tfTestDirs are directory names that hold tests (lower-cased).
	tfTestDirs = tfSet("test", "tests", "__tests__", "__test__", "spec", "specs", "testdata",
		"__snapshots__", "__mocks__", "e2e", "androidtest", "integrationtest", "functionaltest",
		"inttest", "unittests", "unittest")
	// tfTestGroups sit right below a test directory and group tests by kind;
	// they have no counterpart among the sources.
	tfTestGroups = tfSet("unit", "integration", "functional", "e2e", "acceptance", "feature",
		"unittests", "testthat")
	tfRailsApp = tfSet("models", "controllers", "helpers", "mailers", "jobs", "views", "channels",
		"services", "serializers", "policies", "workers", "decorators", "presenters", "forms",
		"validators", "uploaders", "queries", "interactors", "components", "graphql", "javascript")
	tfRailsNoSubject = tfSet("requests", "features", "system", "routing", "integration", "support",
		"factories", "fixtures", "acceptance", "feature", "shared_examples", "test_helpers")
)

func tfSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func tfIsTestDirName(seg string) bool {
	l := strings.ToLower(seg)
	if tfTestDirs[l] {
		return true
	}
	for _, x := range []string{".Tests", ".Test", ".UnitTests", ".IntegrationTests", ".FunctionalTests", ".Specs"} {
		if strings.HasSuffix(seg, x) && len(seg) > len(x) {
			return true
		}
	}
	return false
}

// tfTestDirIndex returns the index of the first test directory among segs,
// or -1; under src/main/ nothing counts, and spec/ only for source files.
func tfTestDirIndex(segs []string, base string) int {
	_, ext := tfSplitExt(base)
	for i, sg := range segs {
		if sg == "src" && i+1 < len(segs) && segs[i+1] == "main" {
			return -1
		}
		if !tfIsTestDirName(sg) {
			continue
		}
		if l := strings.ToLower(sg); (l == "spec" || l == "specs") && !tfCodeExt[strings.ToLower(ext)] {
			continue
		}
		return i
	}
	return -1
}

func tfIsTestBase(base string) bool {
	stem, ext := tfSplitExt(base)
	if stem == "" {
		return false
	}
	lext := strings.ToLower(ext)
	switch base {
	case "conftest.py", "tests.py", "tests.rs":
		return true
	}
	has := func(suffixes ...string) bool {
		for _, x := range suffixes {
			if strings.HasSuffix(stem, x) {
				return true
			}
		}
		return false
	}
	switch {
	case lext == "go":
		return has("_test")
	case lext == "py" || lext == "pyi":
		return strings.HasPrefix(stem, "test_") || has("_test", "_tests")
	case tfJSExt[lext]:
		return has(".test", ".spec", "_test", "_spec", ".e2e-spec", ".e2e")
	case tfJVMExt[lext]:
		if has("Test", "Tests", "TestCase") || tfHasITSuffix(stem) {
			return true
		}
		if lext != "java" && has("Spec", "Suite") {
			return true
		}
		return len(stem) > 4 && strings.HasPrefix(stem, "Test") && tfIsUpper(stem[4])
	case lext == "cs":
		return has("Test", "Tests")
	case lext == "rb":
		return has("_spec", "_test") || strings.HasPrefix(stem, "test_")
	case lext == "php":
		return has("Test")
	case lext == "phpt", lext == "bats", lext == "t":
		return true
	case lext == "swift":
		return has("Tests", "Test")
	case tfCExt[lext]:
		return strings.HasPrefix(stem, "test_") || has("_test", "_tests", "_unittest", "_unittests") ||
			(lext != "c" && lext != "h" && has("Test", "Tests"))
	case lext == "exs", lext == "dart":
		return has("_test")
	case lext == "erl":
		return has("_SUITE", "_tests")
	case lext == "hs":
		return has("Spec")
	case lext == "r":
		return strings.HasPrefix(stem, "test-") || strings.HasPrefix(stem, "test_")
	case lext == "snap":
		return true
	case tfCodeExt[lext]:
		return strings.HasPrefix(stem, "test_") || has("_test")
	}
	return false
}

// tfHasITSuffix: FooIT (Maven failsafe), not EXIT or GIT.
func tfHasITSuffix(stem string) bool {
	n := len(stem)
	if n < 3 || !strings.HasSuffix(stem, "IT") {
		return false
	}
	c := stem[n-3]
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

func tfIsUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func tfIsLower(c byte) bool { return c >= 'a' && c <= 'z' }

func tfTrimSuffix(s, x string) string {
	if len(s) > len(x) && strings.HasSuffix(s, x) {
		return s[:len(s)-len(x)]
	}
	return s
}

func tfTrimPrefix(s, x string) string {
	if len(s) > len(x) && strings.HasPrefix(s, x) {
		return s[len(x):]
	}
	return s
}

// tfTrimAnySuffix trims the first of suffixes that s ends with.
func tfTrimAnySuffix(s string, suffixes ...string) string {
	for _, x := range suffixes {
		if t := tfTrimSuffix(s, x); t != s {
			return t
		}
	}
	return s
}

func tfIndexOf(segs []string, names ...string) int {
	for i, sg := range segs {
		for _, n := range names {
			if sg == n {
				return i
			}
		}
	}
	return -1
}

func tfWithout(segs []string, i int) []string {
	out := append([]string(nil), segs[:i]...)
	return append(out, segs[i+1:]...)
}

func tfReplace(segs []string, i int, with string) []string {
	out := append([]string(nil), segs...)
	out[i] = with
	return out
}

// tfMoveOutOfTestDir maps a test's directory to its subject's: the first
// test directory is replaced by root ("src", "lib") when it is the
// top-level one and root is set, and dropped otherwise (a tests/ directory
// next to the sources, or a mirrored tests/ tree); a grouping directory
// right below it (unit/, integration/) is dropped too.
func tfMoveOutOfTestDir(segs []string, root, base string) []string {
	i := tfTestDirIndex(segs, base)
	if i < 0 {
		return segs
	}
	out := append([]string(nil), segs[:i]...)
	if i == 0 && root != "" {
		out = append(out, root)
	}
	rest := segs[i+1:]
	if len(rest) > 0 && tfTestGroups[strings.ToLower(rest[0])] {
		rest = rest[1:]
	}
	return append(out, rest...)
}
