package extract

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// BenchmarkExtract extracts every commit of a generated 2,000-commit
// history (several languages, renames, merges), oldest first, as a sync
// does, and reports commits per second.
func BenchmarkExtract(b *testing.B) {
	g := gittest.Generate(b, 2000, 7)
	out, err := exec.Command("git", "-C", g.Dir, "rev-list", "--reverse", "main").Output()
	if err != nil {
		b.Fatal(err)
	}
	hashes := strings.Fields(string(out))
	b.ResetTimer()
	for b.Loop() {
		r, err := Open(g.Dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, h := range hashes {
			if _, err := r.Extract(h); err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
	b.ReportMetric(float64(len(hashes)*b.N)/b.Elapsed().Seconds(), "commits/s")
}
