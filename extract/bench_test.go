package extract

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
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
	dir := benchGitDir(b)
	out, err := exec.Command("git", "-C", dir, "log", "--reverse", "--no-merges", "--no-renames",
		"--diff-filter=A", "--format=%H", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	hashes := strings.Fields(string(out))
	loadEach(b, dir, hashes)
}

// BenchmarkLoadGit loads git/git's commits oldest first, as a sync does
// (GITMEMORY_BENCH_GIT names the repository; GITMEMORY_BENCH_GIT_FROM and
// _N choose a window of the history, by default its newest 20,000
// commits). It is the extract stage's reads alone: commits, trees, rename
// detection and the blobs to diff, without the line diffs.
//
// In a sync the collector marks 400 MB of other stages' live heap under a
// 530 MiB limit, so its work follows what extraction allocates;
// GITMEMORY_BENCH_BALLAST_MB holds that much live heap of small objects
// with pointers, to be run with GOMEMLIMIT as the sync sets it:
//
//	go test ./extract -run '^$' -bench LoadGit -benchmem -count 3
//	GOMEMLIMIT=530MiB GITMEMORY_BENCH_BALLAST_MB=350 go test ./extract -run '^$' -bench LoadGit
func BenchmarkLoadGit(b *testing.B) {
	dir := benchGitDir(b)
	out, err := exec.Command("git", "-C", dir, "rev-list", "--reverse", "--topo-order", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	hashes := strings.Fields(string(out))
	n, from := envInt("GITMEMORY_BENCH_GIT_N", 20000), envInt("GITMEMORY_BENCH_GIT_FROM", -1)
	if from < 0 {
		from = max(0, len(hashes)-n)
	}
	hashes = hashes[from:min(len(hashes), from+n)]
	ballast := makeBallast(envInt("GITMEMORY_BENCH_BALLAST_MB", 0) << 20)
	loadEach(b, dir, hashes)
	runtime.KeepAlive(ballast)
}

// ballastNode is 64 bytes, one pointer of which the collector follows.
type ballastNode struct {
	next *ballastNode
	_    [7]uintptr
}

// makeBallast links about n bytes of ballastNodes.
func makeBallast(n int) *ballastNode {
	var head *ballastNode
	for range n / 64 {
		head = &ballastNode{next: head}
	}
	return head
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// benchGitDir is the git/git repository the benchmarks read
// (GITMEMORY_BENCH_GIT), or skips the benchmark.
func benchGitDir(b *testing.B) string {
	dir := os.Getenv("GITMEMORY_BENCH_GIT")
	if dir == "" {
		dir = "/work/.mirror/git+git/repo"
	}
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("no git/git repository (GITMEMORY_BENCH_GIT): %v", err)
	}
	return dir
}

// loadEach loads hashes in order from a fresh Repo per round and reports
// commits a second.
func loadEach(b *testing.B, dir string, hashes []string) {
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
