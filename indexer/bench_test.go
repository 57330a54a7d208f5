package indexer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/vectors"
)

// BenchmarkSync is a full initial sync of a generated 5,000-commit history
// (several languages, renames, merges) into a fresh store: discovery,
// extraction, secret scanning and writes, beside `git log --numstat -M`
// over the same history. It reports commits per second for both.
func BenchmarkSync(b *testing.B) {
	g := gittest.Generate(b, 5000, 11)
	b.Run("gitmemory", func(b *testing.B) { benchSync(b, g) })
	commits, _ := strconv.Atoi(g.Git("rev-list", "--count", "main"))
	b.Run("git-log-numstat", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("git", "-C", g.Dir, "log", "--numstat", "-M", "--format=%H", "main").Run(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(commits*b.N)/b.Elapsed().Seconds(), "commits/s")
	})
}

func benchSync(b *testing.B, g *gittest.Repo) {
	var indexed int
	for b.Loop() {
		b.StopTimer()
		st := openStore(b)
		b.StartTimer()
		s, err := New(g.Dir, st, Options{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		indexed += res.Indexed
		st.Close()
	}
	b.ReportMetric(float64(indexed)/b.Elapsed().Seconds(), "commits/s")
}

// BenchmarkIncrementalSync measures the sync of one new commit on top of a
// fully indexed 5,000-commit history.
func BenchmarkIncrementalSync(b *testing.B) {
	g := gittest.Generate(b, 5000, 11)
	st := openStore(b)
	sync := func() *Result {
		s, err := New(g.Dir, st, Options{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	sync()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		g.Write("bench.txt", gittest.Lines("bench", i+1))
		g.Commit("bench commit")
		b.StartTimer()
		if res := sync(); res.Indexed != 1 {
			b.Fatalf("indexed %d", res.Indexed)
		}
	}
}

// BenchmarkPipeline is the pipeline-to-extraction ratio in go test form: a whole initial
// sync (understanding, tree-sitter entities, the bolt graph, the local
// vectors, co-evolution and tests) beside an extraction-only sync of the
// same history in the same run, reporting the whole sync's time as a
// multiple of the extraction-only one (x-extract-only). The history is the
// repository GITMEMORY_BENCH_REPO names, e.g. a bare clone of git/git
// (then run it with -benchtime=1x), or else this project's own. (The
// generated histories of the other benchmarks put C-like lines in every
// language: their Java and Rust files are syntax errors throughout, which
// no real history is.) bench/compare-builds.sh is the same measurement
// through the CLI.
func BenchmarkPipeline(b *testing.B) {
	dir := os.Getenv("GITMEMORY_BENCH_REPO")
	if dir == "" {
		out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
		if err != nil {
			b.Skipf("not in a git checkout and GITMEMORY_BENCH_REPO is not set: %v", err)
		}
		dir = strings.TrimSpace(string(out))
	}
	var extractOnly time.Duration
	b.Run("extract-only", func(b *testing.B) {
		extractOnly = benchPipeline(b, dir, true)
	})
	b.Run("pipeline", func(b *testing.B) {
		whole := benchPipeline(b, dir, false)
		if extractOnly > 0 {
			b.ReportMetric(whole.Seconds()/extractOnly.Seconds(), "x-extract-only")
		}
	})
}

// benchPipeline syncs dir into fresh stores b.N times and returns the mean
// time of one sync.
func benchPipeline(b *testing.B, dir string, extractOnly bool) time.Duration {
	ctx := context.Background()
	var took time.Duration
	for b.Loop() {
		b.StopTimer()
		tmp := b.TempDir()
		st := openStoreIn(b, tmp)
		g, err := graph.Open(ctx, filepath.Join(tmp, "graph"))
		if err != nil {
			b.Fatal(err)
		}
		v, err := vectors.Open(filepath.Join(tmp, "vectors"), vectors.NewLocal(0), nil)
		if err != nil {
			b.Fatal(err)
		}
		s, err := New(dir, st, Options{Graph: g, Vectors: v, ExtractOnly: extractOnly})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if _, err := s.Run(ctx); err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
		b.StopTimer()
		v.Close()
		g.Close()
		st.Close()
		b.StartTimer()
	}
	return took / time.Duration(b.N)
}
