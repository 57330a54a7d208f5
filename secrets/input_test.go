package secrets

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// testInput builds the realistic, secret-free texts the tests and
// benchmarks scan, from this repository's own sources, so that no
// third-party code needs to live in testdata:
//   - clean.diff: ~20 KB of Go code as an added file in a unified diff;
//   - auth.diff: ~20 KB of code full of the words key, token, secret and
//     private that gitleaks' keyword prefilter reacts to (this package);
//   - commit.txt: a made-up commit message (testdata/commit.txt).
func testInput(tb testing.TB, name string) []byte {
	tb.Helper()
	var sources []string
	switch name {
	case "clean.diff":
		sources = []string{"../extract/linediff.go"}
	case "auth.diff":
		sources = []string{"window.go", "matcher.go", "../store/blobs.go"}
	default:
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	var b strings.Builder
	for _, src := range sources {
		data, err := os.ReadFile(src)
		if err != nil {
			tb.Fatal(err)
		}
		b.WriteString("diff --git a/" + src + " b/" + src + "\n--- /dev/null\n+++ b/" + src + "\n")
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		b.WriteString("@@ -0,0 +1," + strconv.Itoa(len(lines)) + " @@\n")
		for _, l := range lines {
			b.WriteString("+" + l + "\n")
		}
	}
	out := b.String()
	if len(out) > 20<<10 {
		out = out[:strings.LastIndexByte(out[:20<<10], '\n')+1]
	}
	return []byte(out)
}
