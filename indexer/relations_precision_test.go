package indexer

import (
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// The cases below come from wrong relationships found by labelling
// samples of real repositories' relationships (docs/relationships.md).

// syncedRelations commits files into a new repository, syncs it and
// returns the relationships at the end.
func syncedRelations(t *testing.T, files map[string]string) []string {
	t.Helper()
	repo := gittest.New(t)
	for p, text := range files {
		repo.Write(p, text)
	}
	repo.Commit("add")
	st := openStore(t)
	sync(t, repo.Dir, st, Options{})
	return current(t, st)
}

func checkRelations(t *testing.T, got, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %q in %q", w, got)
		}
	}
	for _, w := range notWant {
		if slices.Contains(got, w) {
			t.Errorf("has %q, which is wrong", w)
		}
	}
}

// TestCallsOfNestedCFunctions: a C function nested in another (a GNU
// extension, or what tree-sitter's error recovery makes of a preprocessor
// tangle) makes its own calls; the enclosing one only calls it.
func TestCallsOfNestedCFunctions(t *testing.T) {
	got := syncedRelations(t, map[string]string{
		"a.c": "int helper(int x)\n{\n\treturn x;\n}\n\nint outer(void)\n{\n\tint inner(int x)\n\t{\n\t\treturn helper(x);\n\t}\n\treturn inner(1);\n}\n",
	})
	checkRelations(t, got,
		[]string{"CALLS a.c#outer -> a.c#outer.inner", "CALLS a.c#outer.inner -> a.c#helper"},
		[]string{"CALLS a.c#outer -> a.c#helper"})
}

// TestPythonImportScopes: in a package, "import types" is the standard
// library's, not a sibling module (Python 3 has no implicit relative
// imports); beside a script it is the sibling. "import pkg.sub" binds
// pkg, so pkg.f() is the package's f, never sub's; pathlib.Path() is
// pathlib's class, never the repository's only Path.
func TestPythonImportScopes(t *testing.T) {
	got := syncedRelations(t, map[string]string{
		"src/pkg/__init__.py": "from .term import pager as pager\n",
		"src/pkg/types.py":    "def kind():\n    return 1\n",
		"src/pkg/term.py":     "def pager():\n    return 2\n",
		"src/pkg/impl.py":     "from types import TracebackType\n\n\ndef pager():\n    return 3\n",
		"scripts/helper.py":   "def help():\n    return 4\n",
		"scripts/run.py":      "import helper\n\n\ndef main():\n    return helper.help()\n",
		"tests/test_pkg.py":   "import pkg\nimport pkg.impl\n\n\ndef test_pager():\n    return pkg.pager()\n",
		"src/pkg/paths.py":    "class Path:\n    def __init__(self, p):\n        self.p = p\n",
		"tests/test_paths.py": "import pathlib\n\n\ndef test_path():\n    return pathlib.Path(\"/tmp\")\n",
	})
	checkRelations(t, got,
		[]string{"IMPORTS file:src/pkg/impl.py -> module:types", "IMPORTS file:scripts/run.py -> file:scripts/helper.py",
			"CALLS scripts/run.py#main -> scripts/helper.py#help"},
		[]string{"IMPORTS file:src/pkg/impl.py -> file:src/pkg/types.py",
			"CALLS tests/test_pkg.py#test_pager -> src/pkg/impl.py#pager",
			"CALLS tests/test_paths.py#test_path -> src/pkg/paths.py#Path.__init__"})
}

// TestImportsOfDeletedFiles: a file deleted takes the imports of it
// along, also from files that do not change.
func TestImportsOfDeletedFiles(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("util.h", "int util(void);\n")
	repo.Write("main.c", "#include \"util.h\"\n\nint main(void)\n{\n\treturn 0;\n}\n")
	repo.Write("lib/rack.rb", "module Rack\nend\n")
	repo.Write("app.rb", "require 'rack'\n\ndef app\n  1\nend\n")
	repo.Commit("add")
	st := openStore(t)
	sync(t, repo.Dir, st, Options{})
	checkRelations(t, current(t, st), []string{"IMPORTS file:main.c -> file:util.h", "IMPORTS file:app.rb -> file:lib/rack.rb"}, nil)
	repo.Git("rm", "-q", "util.h", "lib/rack.rb")
	repo.Commit("drop util.h and the vendored rack")
	sync(t, repo.Dir, st, Options{})
	for _, r := range current(t, st) {
		if strings.HasSuffix(r, "file:util.h") || strings.HasSuffix(r, "file:lib/rack.rb") {
			t.Errorf("%q outlives its target", r)
		}
	}
}

// TestRubyScopes: ::Logger is the top-level Logger, not a nested class
// of that name; a top-level def of a file the caller does not require is
// not what a plain call means.
func TestRubyScopes(t *testing.T) {
	got := syncedRelations(t, map[string]string{
		"lib/app/logger.rb": "module App\n  class Logger\n    def initialize(app)\n      @app = app\n    end\n\n    def call(env)\n      ::Logger.new(env)\n    end\n  end\nend\n",
		"lib/app/maker.rb":  "module App\n  class Maker\n    def make\n      Logger.new(1)\n    end\n  end\nend\n",
		"spec/a_spec.rb":    "def use(*args)\n  args\nend\n",
		"spec/helpers.rb":   "module Helpers\n  def mock_app\n    use(1)\n  end\nend\n",
	})
	checkRelations(t, got,
		[]string{"CALLS lib/app/maker.rb#App.Maker.make -> lib/app/logger.rb#App.Logger.initialize"},
		[]string{"CALLS lib/app/logger.rb#App.Logger.call -> lib/app/logger.rb#App.Logger.initialize",
			"CALLS spec/helpers.rb#Helpers.mock_app -> spec/a_spec.rb#use"})
}

// TestRustUseOfItems: "use super::f" in a file's test module names an
// item of the file, and "use Token::*" the variants of an enum in scope,
// not modules; "use crate::a::b" the file a.rs.
func TestRustUseOfItems(t *testing.T) {
	got := syncedRelations(t, map[string]string{
		"src/main.rs": "mod walk;\n\nfn main() {\n    walk::scan();\n}\n",
		"src/walk.rs": "use crate::walk::scan as s;\n\nenum Token {\n    A,\n}\n\npub fn scan() {\n    use Token::*;\n    let _ = A;\n}\n\n#[cfg(test)]\nmod tests {\n    use super::scan;\n\n    #[test]\n    fn t() {\n        scan();\n    }\n}\n",
	})
	for _, r := range got {
		if strings.Contains(r, "module:super::") || strings.Contains(r, "module:crate::") || strings.Contains(r, "module:Token") {
			t.Errorf("%q names an item of the crate as a module", r)
		}
	}
	checkRelations(t, got, []string{"IMPORTS file:src/main.rs -> file:src/walk.rs"}, nil)
}

// TestPHPRequireOfDir: require __DIR__ . '/../vendor/autoload.php' names
// vendor/autoload.php, a file the repository does not hold.
func TestPHPRequireOfDir(t *testing.T) {
	got := syncedRelations(t, map[string]string{
		"tests/bootstrap.php": "<?php\n\n$loader = require __DIR__ . '/../vendor/autoload.php';\n\nfunction boot() { return 1; }\n",
	})
	checkRelations(t, got, []string{"IMPORTS file:tests/bootstrap.php -> module:vendor/autoload.php"},
		[]string{"IMPORTS file:tests/bootstrap.php -> module:/../vendor/autoload.php"})
}

// TestImportsOfMergeResolutions: a branch adds an import to a file and
// the merge keeps the mainline's version of it. Git's combined diff of
// the merge does not show the file (it equals one parent), so commit
// order leaves the branch's import; the sync's end reads the imports of
// the files whose last version it read is not the head's.
func TestImportsOfMergeResolutions(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("a.js", "var x = require('x');\n\nfunction a() {\n  return x;\n}\n")
	repo.Commit("add a")
	repo.Git("checkout", "-q", "-b", "topic")
	repo.Write("a.js", "var x = require('x');\nvar assert = require('assert');\n\nfunction a() {\n  assert(x);\n  return x;\n}\n")
	repo.Commit("assert in a")
	repo.Git("checkout", "-q", "main")
	repo.Write("b.js", "var a = require('./a');\n")
	repo.Commit("add b")
	repo.TryGit("merge", "-q", "--no-ff", "--no-commit", "topic")
	repo.Git("checkout", "main", "--", "a.js")
	repo.Commit("merge topic, keeping a.js")
	st := openStore(t)
	g := openGraph(t)
	sync(t, repo.Dir, st, Options{Graph: g})
	got := current(t, st)
	checkRelations(t, got, []string{"IMPORTS file:a.js -> module:x", "IMPORTS file:b.js -> file:a.js"},
		[]string{"IMPORTS file:a.js -> module:assert"})
	checkGraphMatches(t, st, g)
}

// TestCallsOfCPlusPlusHeadersReadAsC: a .h file that go-enry calls C but
// that holds C++ (past its first 8 KiB, which go-enry reads) is parsed
// with the C grammar, which makes a function of
// an enum class and the template after it: no calls come from it. A C
// header keeps its calls.
func TestCallsOfCPlusPlusHeadersReadAsC(t *testing.T) {
	got := syncedRelations(t, map[string]string{
		"lib.c": "#include \"lib.h\"\n\nvoid report_error(const char* m)\n{\n\t(void)m;\n}\n",
		// go-enry reads a header's first 8 KiB: a long licence keeps it C.
		"base.h": "/*\n" + strings.Repeat(" * Licence text.\n", 600) + " */\n#include <stdio.h>\n\nvoid report_error(const char* m);\n\nenum class state { start, align };\n\n" +
			"template <typename Char>\nint parse_specs(const Char* begin)\n{\n\treport_error(\"invalid\");\n\treturn 0;\n}\n",
		"plain.h": "#include <stdio.h>\n\nvoid report_error(const char* m);\n\nstatic inline int check(int x)\n{\n\tif (x < 0)\n\t\treport_error(\"negative\");\n\treturn x;\n}\n",
	})
	checkRelations(t, got, []string{"CALLS plain.h#check -> lib.c#report_error", "IMPORTS file:base.h -> module:stdio.h"}, nil)
	for _, r := range got {
		if strings.HasPrefix(r, "CALLS base.h#") {
			t.Errorf("%q comes from a C++ header parsed as C", r)
		}
	}
}
