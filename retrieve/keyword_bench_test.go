package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/store"
)

// BenchmarkKeyword times the keyword stage of a hybrid question (200
// hits) on an indexed repository's data directory, the benchmark
// questions in turn: SQLite's bm25() against the term cache the daemon
// keeps, warmed by one pass. It needs a large index:
//
//	GITMEMORY_BENCH_DIR=/tmp/gm-bench/repos/bench go test ./retrieve -run '^$' -bench Keyword -count 5
func BenchmarkKeyword(b *testing.B) {
	dir := os.Getenv("GITMEMORY_BENCH_DIR")
	if dir == "" {
		b.Skip("GITMEMORY_BENCH_DIR names no indexed data directory")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	data, err := os.ReadFile(filepath.Join("..", "bench", "questions-git.txt"))
	if err != nil {
		b.Fatal(err)
	}
	var qs [][]string
	for _, q := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		qs = append(qs, Normalize(q))
	}
	run := func(b *testing.B, c *TermCache) {
		for _, q := range qs { // warm: the page cache, and c
			if _, err := Keyword(ctx, st, KeywordQuery{Terms: q, Limit: perKeyword, Cache: c}); err != nil {
				b.Fatal(err)
			}
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := Keyword(ctx, st, KeywordQuery{Terms: qs[i%len(qs)], Limit: perKeyword, Cache: c}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("sqlite", func(b *testing.B) { run(b, nil) })
	b.Run("termcache", func(b *testing.B) { run(b, NewTermCache(0)) })
}
