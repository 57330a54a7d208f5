package extract

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// BenchmarkExtract extracts every commit of a generated 2,000-commit
// history (several languages, renames, merges), oldest first as a sync
// does, beside git's own `git log --numstat -M` over the same history, and
// reports commits per second for both.
func BenchmarkExtract(b *testing.B) {
	g := gittest.Generate(b, 2000, 7)
	out, err := exec.Command("git", "-C", g.Dir, "rev-list", "--reverse", "main").Output()
	if err != nil {
		b.Fatal(err)
	}
	hashes := strings.Fields(string(out))
	b.Run("gitmemory", func(b *testing.B) {
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
	})
	b.Run("git-log-numstat", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("git", "-C", g.Dir, "log", "--numstat", "-M", "--format=%H", "main").Run(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(hashes)*b.N)/b.Elapsed().Seconds(), "commits/s")
	})
}
