package extract

import (
	"os"
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

// BenchmarkFollowGit loads, oldest first, every commit of git/git that
// creates files (3,691 non-merge commits; GITMEMORY_BENCH_GIT names the
// repository, by default this project's mirror). Most of their CPU is the
// follow search: each created file scored against every file of its
// parent's tree, as git log --follow does.
//
//	go test ./extract -run '^$' -bench FollowGit -count 5
func BenchmarkFollowGit(b *testing.B) {
	dir := os.Getenv("GITMEMORY_BENCH_GIT")
	if dir == "" {
		dir = "/work/.mirror/git+git/repo"
	}
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("no git/git repository (GITMEMORY_BENCH_GIT): %v", err)
	}
	out, err := exec.Command("git", "-C", dir, "log", "--reverse", "--no-merges", "--no-renames",
		"--diff-filter=A", "--format=%H", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	hashes := strings.Fields(string(out))
	for b.Loop() {
		r, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, h := range hashes {
			if _, err := r.Load(h); err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
	b.ReportMetric(float64(len(hashes)*b.N)/b.Elapsed().Seconds(), "commits/s")
}
