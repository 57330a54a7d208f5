package indexer

import (
	"context"
	"os/exec"
	"strconv"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
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
