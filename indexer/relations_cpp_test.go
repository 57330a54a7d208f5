package indexer

import (
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// TestLooksLikeCPlusPlusLineByLine: matching the pattern on the lines
// that hold one of its words answers as matching it on the whole file,
// on each line form the pattern knows and on the near misses around it.
func TestLooksLikeCPlusPlusLineByLine(t *testing.T) {
	lines := []string{
		"template <typename T>", "  template<class T>", "int templated(void);", "namespace fmt {",
		"namespace detail", "\tclass buffer : public base", "class buffer;", "class f(int x)", "classify(x);",
		"public:", "  private :  ", "protected: int x;", "public:\r", "x = std::move(y);", "my_std::x", "std::",
		"/* a class of its own */", "static int classic;", "", "int main(void)", "{", "}",
	}
	whole := func(src string) bool {
		for _, w := range cPlusPlusWords {
			if strings.Contains(src, string(w)) {
				return cPlusPlusLine.MatchString(src)
			}
		}
		return false
	}
	n := 0
	for i := range lines {
		for j := range lines {
			for _, src := range []string{lines[i], lines[i] + "\n" + lines[j], lines[j] + "\n\n" + lines[i] + "\n",
				"#include <x.h>\n" + lines[i] + "\r\n" + lines[j]} {
				want := whole(src)
				if got := looksLikeCPlusPlus([]byte(src)); got != want {
					t.Errorf("looksLikeCPlusPlus(%q) = %v, the whole-file pattern says %v", src, got, want)
				}
				if want {
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no source looked like C++: the table tests nothing")
	}
}

// TestNoRelations: the benchmark baseline stores the commits and their
// entities but no code relationship, where the default sync stores them.
func TestNoRelations(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("a.go", "package a\n\nimport \"fmt\"\n\nfunc A() { B() }\n\nfunc B() { fmt.Println() }\n")
	repo.Commit("add a")
	with, without := openStore(t), openStore(t)
	sync(t, repo.Dir, with, Options{})
	res := sync(t, repo.Dir, without, Options{NoRelations: true})
	if res.Indexed != 1 {
		t.Fatalf("indexed %d commits without relationships, want 1", res.Indexed)
	}
	checkRelations(t, current(t, with), []string{"CALLS a.go#a.A -> a.go#a.B", "IMPORTS file:a.go -> module:fmt"}, nil)
	if got := current(t, without); len(got) != 0 {
		t.Errorf("relationships stored without them: %q", got)
	}
	var entities int
	if err := without.DB.QueryRow(`SELECT COUNT(*) FROM entity_changes`).Scan(&entities); err != nil || entities != 2 {
		t.Errorf("entity changes without relationships: %d (%v), want 2", entities, err)
	}
}
