package understand

import (
	"path"
	"strings"

	"github.com/gitmemory/gitmemory/model"
)

// File evidence for Classify: what each changed file is for (test,
// documentation, configuration, manifest, source) and what a change made only
// or mostly of one kind says.

// clsKind is what a file is for, as far as classification cares.
type clsKind int

// The file kinds.
const (
	clsKindCode clsKind = iota
	clsKindDoc
	clsKindTest
	clsKindManifest
	clsKindConfig
)

// clsKindTypes is the change type a commit touching only one kind has.
var clsKindTypes = [...]model.ChangeType{
	clsKindDoc: model.Documentation, clsKindTest: model.Test,
	clsKindManifest: model.Dependency, clsKindConfig: model.Configuration,
}

// clsManifests are dependency manifests and lockfiles, by lower-case name.
var clsManifests = clsSet("go.mod go.sum go.work go.work.sum package.json package-lock.json npm-shrinkwrap.json " +
	"yarn.lock pnpm-lock.yaml bun.lockb bun.lock deno.lock cargo.toml cargo.lock pipfile pipfile.lock " +
	"poetry.lock pyproject.toml uv.lock pdm.lock constraints.txt gemfile gemfile.lock pom.xml build.gradle " +
	"build.gradle.kts gradle.lockfile libs.versions.toml composer.json composer.lock mix.exs mix.lock " +
	"podfile podfile.lock package.swift package.resolved pubspec.yaml pubspec.lock packages.config " +
	"packages.lock.json directory.packages.props gopkg.toml gopkg.lock glide.yaml glide.lock flake.lock " +
	"conanfile.txt vcpkg.json cartfile cartfile.resolved")

// clsManifestDirs hold vendored or installed dependencies.
var clsManifestDirs = clsSet("vendor node_modules third_party bower_components")

// clsTestDirs are directories that hold tests; "t" only at the top (git).
var clsTestDirs = clsSet("test tests __tests__ __mocks__ __snapshots__ spec specs testdata testing e2e cypress " +
	"androidtest")

// clsTestSuffixes end test file names (lower-cased).
var clsTestSuffixes = []string{
	"_test.go", "_test.py", "_test.rb", "_spec.rb", "_test.c", "_test.cc", "_test.cpp", "_unittest.cc",
	"_test.rs", "_test.exs", "_spec.js", "_spec.ts", ".snap",
	"test.java", "tests.java", "test.kt", "tests.kt", "test.scala", "spec.scala", "tests.cs", "test.cs",
	"test.php", "tests.swift", "test.swift",
}

// clsTestInfixes mark JavaScript-style test files: app.test.ts, app.spec.js.
var clsTestInfixes = []string{".test.", ".spec.", ".e2e.", ".cy."}

var clsDocExts = clsSet(".md .markdown .mdx .rst .adoc .asciidoc .txt .rdoc .pod .texi .texinfo")
var clsDocDirs = clsSet("doc docs documentation man manual wiki")
var clsDocNames = clsSet("readme changelog changes news history authors contributors contributing license " +
	"licence copying notice code_of_conduct security maintainers")

var clsConfigExts = clsSet(".yml .yaml .toml .ini .cfg .conf .json .json5 .jsonc .properties .env .tf " +
	".tfvars .hcl .cmake .editorconfig .plist .sln .csproj .vbproj .fsproj .vcxproj .props .targets")

// clsSourceExts are programming-language sources: in a docs directory they
// are code all the same (Go's and cobra's doc packages).
var clsSourceExts = clsSet(".go .c .h .cc .cpp .hpp .rs .java .kt .scala .py .rb .js .mjs .ts .tsx .jsx .cs " +
	".swift .php .m .mm .ex .exs .erl .hs .ml .zig .lua .pl .dart")
var clsConfigNames = clsSet("dockerfile containerfile makefile gnumakefile cmakelists.txt jenkinsfile procfile " +
	"vagrantfile .gitignore .gitattributes .gitmodules .dockerignore .editorconfig .npmrc .nvmrc .yarnrc " +
	".babelrc .browserslistrc .mailmap codeowners .clang-format .clang-tidy .flake8 .pylintrc .rubocop.yml " +
	"kconfig meson.build meson_options.txt .env .envrc")
var clsConfigDirs = clsSet(".github .circleci .gitlab .buildkite .husky .devcontainer .vscode .idea")

func clsSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// clsKindOf classifies one changed file. Manifests win over tests, tests
// over documentation, documentation over configuration: a YAML file in
// docs/ is documentation, a JSON fixture in testdata/ a test.
func clsKindOf(fc model.FileChange) clsKind {
	p := strings.ToLower(fc.Path)
	base := path.Base(p)
	dirs := strings.Split(path.Dir(p), "/")
	switch {
	case fc.Skipped == model.SkipVendor || clsManifests[base] || clsAnyIn(dirs, clsManifestDirs) ||
		clsIsRequirements(base) || strings.HasSuffix(base, ".gemspec"):
		return clsKindManifest
	case clsConfigNames[base]:
		return clsKindConfig // a Makefile in t/ builds tests, it is no test
	case clsIsTestFile(base, dirs):
		return clsKindTest
	case clsAnyIn(dirs, clsDocDirs) && !clsSourceExts[path.Ext(base)] || clsIsDocFile(base):
		return clsKindDoc
	case clsIsConfigFile(base) || clsAnyIn(dirs, clsConfigDirs):
		return clsKindConfig
	}
	return clsKindCode
}

func clsAnyIn(dirs []string, set map[string]bool) bool {
	for _, d := range dirs {
		if set[d] {
			return true
		}
	}
	return false
}

func clsIsRequirements(base string) bool {
	return strings.HasPrefix(base, "requirements") && (strings.HasSuffix(base, ".txt") || strings.HasSuffix(base, ".in"))
}

func clsIsTestFile(base string, dirs []string) bool {
	if clsAnyIn(dirs, clsTestDirs) || dirs[0] == "t" ||
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py") {
		return true
	}
	for _, s := range clsTestSuffixes {
		if strings.HasSuffix(base, s) {
			return true
		}
	}
	for _, s := range clsTestInfixes {
		if strings.Contains(base, s) {
			return true
		}
	}
	return false
}

func clsIsDocFile(base string) bool {
	ext := path.Ext(base)
	if ext == "" {
		return clsDocNames[base] // LICENSE, AUTHORS
	}
	return clsDocExts[ext] && !clsConfigNames[base]
}

func clsIsConfigFile(base string) bool {
	return clsConfigNames[base] || clsConfigExts[path.Ext(base)] ||
		strings.HasPrefix(base, "dockerfile") || strings.HasSuffix(base, ".dockerfile") ||
		strings.HasPrefix(base, "docker-compose") || strings.HasPrefix(base, ".env") ||
		strings.HasPrefix(base, ".eslintrc") || strings.HasPrefix(base, ".prettierrc") ||
		strings.HasPrefix(base, "tsconfig") || strings.HasPrefix(base, ".golangci")
}

// clsOnlyKind is the weight of a commit changing files of one kind only.
// Documentation and tests are defined as "docs only" and "tests only", so
// such a commit meets the definition; dependency and configuration changes
// are defined by purpose, so the files are a strong clue, not the answer.
var clsOnlyKind = [...]float64{
	clsKindDoc: 5, clsKindTest: 5, clsKindManifest: 2.5, clsKindConfig: 2.5,
}

// clsShareKind is the weight, times their share, of files of one kind in a
// commit that changes others too. Docs and tests accompany changes of any
// type, so their share says nothing.
var clsShareKind = [...]float64{clsKindManifest: 1, clsKindConfig: 1}

// When the message already says the change is a cleanup (cleanup evidence
// ≥ clsCleanupSaid: "typo", "chore: format", "fix lint"), the nature of the
// change outweighs its area for tests: a tests-only commit counts
// clsOnlyKindYield. Documentation keeps its weight (any edit of the docs
// is a documentation change), and so do configuration and manifests,
// where "lint" or "unused" name the linter configured or the dependency
// dropped.
const (
	clsCleanupSaid   = 2.0
	clsOnlyKindYield = 1.5
)

// clsScoreFiles adds the evidence of the kinds of files changed.
func clsScoreFiles(kinds []clsKind, cleanupSaid bool, s *clsScores) {
	if len(kinds) == 0 {
		return
	}
	var counts [len(clsKindTypes)]int
	for _, k := range kinds {
		counts[k]++
	}
	for k, n := range counts {
		if k == int(clsKindCode) || n == 0 {
			continue
		}
		switch {
		case n == len(kinds) && cleanupSaid && k == int(clsKindTest):
			s.add(clsKindTypes[k], clsOnlyKindYield)
		case n == len(kinds):
			s.add(clsKindTypes[k], clsOnlyKind[k])
		default:
			s.add(clsKindTypes[k], clsShareKind[k]*float64(n)/float64(len(kinds)))
		}
	}
}
