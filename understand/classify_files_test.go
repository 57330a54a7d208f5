package understand

import (
	"testing"

	"github.com/gitmemory/gitmemory/model"
)

func TestClassifyFileKinds(t *testing.T) {
	cases := map[string]clsKind{
		"extract/walk_test.go":              clsKindTest,
		"tests/test_api.py":                 clsKindTest,
		"pkg/test_helpers.py":               clsKindTest,
		"src/app.spec.ts":                   clsKindTest,
		"src/__tests__/App.tsx":             clsKindTest,
		"src/test/java/com/x/FooTest.java":  clsKindTest,
		"t/t0001-init.sh":                   clsKindTest,
		"spec/models/user_spec.rb":          clsKindTest,
		"README.md":                         clsKindDoc,
		"docs/guide/setup.rst":              clsKindDoc,
		"Documentation/git-log.txt":         clsKindDoc,
		"LICENSE":                           clsKindDoc,
		"notes.txt":                         clsKindDoc,
		"go.mod":                            clsKindManifest,
		"web/package-lock.json":             clsKindManifest,
		"requirements-dev.txt":              clsKindManifest,
		"Cargo.lock":                        clsKindManifest,
		"Gemfile.lock":                      clsKindManifest,
		"vendor/github.com/x/y/y.go":        clsKindManifest,
		"build.gradle":                      clsKindManifest,
		".github/workflows/ci.yml":          clsKindConfig,
		"Dockerfile":                        clsKindConfig,
		"deploy/Dockerfile.prod":            clsKindConfig,
		"config/app.yaml":                   clsKindConfig,
		"tsconfig.json":                     clsKindConfig,
		".gitignore":                        clsKindConfig,
		"Makefile":                          clsKindConfig,
		"CMakeLists.txt":                    clsKindConfig,
		"setup.cfg":                         clsKindConfig,
		"extract/walk.go":                   clsKindCode,
		"src/components/Footer.css":         clsKindCode,
		"contest/main.go":                   clsKindCode,
		"latest/handler.go":                 clsKindCode,
		"internal/testutil/fixtures_gen.go": clsKindCode,
	}
	for p, want := range cases {
		if got := clsKindOf(model.FileChange{Path: p}); got != want {
			t.Errorf("clsKindOf(%q) = %v, want %v", p, got, want)
		}
	}
}
