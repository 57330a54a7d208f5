package vectors

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	chromem "github.com/philippgille/chromem-go"
)

// Benchmarks (2-core machine; run one at a time):
//
//	go test ./vectors/ -run '^$' -bench . -benchtime 200x
//
// Query_* report the median and 99th percentile latency of one query
// (embedding included) over a loaded index; ColdLoad_* the time to open a
// persisted 50k-document index and answer the first query, and the heap
// the loaded vectors take.

var (
	benchWords = strings.Fields("sync daemon queue store lock cache tree diff pack reader delta " +
		"index vector query parser config loader retry backoff http client server timeout " +
		"race mutex goroutine deadlock memory leak blob commit message branch merge rebase " +
		"graph entity path rename symlink windows encoding utf8 secret redact token test " +
		"flaky benchmark readme docs cli flag json output progress shutdown signal schema " +
		"migration sqlite transaction connection webhook handler router regex rate limit")
	benchVerbs = strings.Fields("Fix Add Remove Speed up Refactor Document Handle Avoid Support Rename Simplify Cache Retry Close")
)

// benchDocs makes n commit-like documents, the same ones every run.
func benchDocs(n int) []Doc {
	r := rand.New(rand.NewPCG(1, 2))
	docs := make([]Doc, n)
	for i := range docs {
		var b strings.Builder
		b.WriteString(benchVerbs[r.IntN(len(benchVerbs))])
		for range 4 + r.IntN(8) {
			b.WriteByte(' ')
			b.WriteString(benchWords[r.IntN(len(benchWords))])
		}
		if r.IntN(3) == 0 {
			b.WriteString("\n\nThe previous ")
			b.WriteString(benchWords[r.IntN(len(benchWords))])
			b.WriteString(" did not handle ")
			b.WriteString(benchWords[r.IntN(len(benchWords))])
			b.WriteString(" when the ")
			b.WriteString(benchWords[r.IntN(len(benchWords))])
			b.WriteString(" was empty.")
		}
		docs[i] = commitDoc(i+1, b.String(), []string{"bugfix", "feature", "refactor", "performance"}[r.IntN(4)], i%3000)
		docs[i].Paths = []string{fmt.Sprintf("%s/%s.go", benchWords[r.IntN(len(benchWords))], benchWords[r.IntN(len(benchWords))])}
	}
	return docs
}

var benchQueries = []string{
	"why does the sync daemon deadlock on the store lock",
	"retry http requests after a timeout",
	"memory leak in the blob cache",
	"how are secrets redacted from commit messages",
	"flaky test in the pack reader",
	"speed up tree diff",
	"config loader fails on empty file",
	"schema migration for sqlite",
}

var (
	benchMu   sync.Mutex
	benchDirs = map[string]string{}
	benchRoot string
)

// benchIndex returns the directory of a persisted n-document index built
// once per test binary run.
func benchIndex(b *testing.B, n int) string {
	benchMu.Lock()
	defer benchMu.Unlock()
	key := fmt.Sprint("log", n)
	if d, ok := benchDirs[key]; ok {
		return d
	}
	dir := filepath.Join(benchTemp(b), key)
	ix, err := Open(dir, NewLocal(0), &Options{BatchSize: 1024})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := ix.Upsert(context.Background(), benchDocs(n)); err != nil {
		b.Fatal(err)
	}
	ix.Close()
	st, _ := os.Stat(filepath.Join(dir, collectionName(NewLocal(0).Name()), logFile))
	b.Logf("built %d documents in %v (%.0f docs/s), log %.1f MB", n, time.Since(start).Round(time.Millisecond),
		float64(n)/time.Since(start).Seconds(), float64(st.Size())/1e6)
	benchDirs[key] = dir
	return dir
}

func benchTemp(b *testing.B) string {
	if benchRoot == "" {
		d, err := os.MkdirTemp("", "vectors-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchRoot = d
	}
	return benchRoot
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

func benchmarkQuery(b *testing.B, n int) {
	ctx := context.Background()
	ix, err := Open(benchIndex(b, n), NewLocal(0), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Query(ctx, "warm up", 10, Filter{}); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		hits, err := ix.Query(ctx, benchQueries[i%len(benchQueries)], 10, Filter{})
		lat = append(lat, time.Since(start))
		if err != nil || len(hits) != 10 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
}

func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / 1e6 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

func BenchmarkQuery_10k(b *testing.B) { benchmarkQuery(b, 10_000) }
func BenchmarkQuery_50k(b *testing.B) { benchmarkQuery(b, 50_000) }

// The same queries with a metadata filter and a time window.
func BenchmarkQueryFiltered_50k(b *testing.B) {
	ctx := context.Background()
	ix, err := Open(benchIndex(b, 50_000), NewLocal(0), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	f := Filter{Kind: KindCommit, Classification: "bugfix", Since: t0.AddDate(0, 0, 1000)}
	if _, err := ix.Query(ctx, "warm up", 10, f); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := ix.Query(ctx, benchQueries[i%len(benchQueries)], 10, f); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportLatency(b, lat)
}

func heapMB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// Open a persisted 50k index and answer the first query: the cold CLI path.
func BenchmarkColdLoad_50k(b *testing.B) {
	ctx := context.Background()
	dir := benchIndex(b, 50_000)
	var heap float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := heapMB()
		b.StartTimer()
		ix, err := Open(dir, NewLocal(0), nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Query(ctx, benchQueries[0], 10, Filter{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		heap = heapMB() - before
		ix.Close()
	}
	b.ReportMetric(heap, "heap-MB")
}

// The first write of a process verifies the log's checksums once.
func BenchmarkFirstWrite_50k(b *testing.B) {
	ctx := context.Background()
	dir := benchIndex(b, 50_000)
	for i := 0; i < b.N; i++ {
		ix, err := Open(dir, NewLocal(0), nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := ix.DeleteCommits(ctx, sha(1<<40)); err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
}

// chromem-go's own persistence (one gob file per document), for comparison.
func BenchmarkColdLoad_ChromemFiles_50k(b *testing.B) {
	ctx := context.Background()
	dir := filepath.Join(benchTemp(b), "chromem50k")
	benchMu.Lock()
	if _, ok := benchDirs["chromem50k"]; !ok {
		db, err := chromem.NewPersistentDB(dir, false)
		if err != nil {
			b.Fatal(err)
		}
		l := NewLocal(0)
		col, err := db.CreateCollection("c", nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		docs := benchDocs(50_000)
		cds := make([]chromem.Document, len(docs))
		for i := range docs {
			v, _ := l.Embed(ctx, []string{docs[i].Text})
			cds[i] = chromem.Document{ID: docs[i].ID(), Metadata: docs[i].metadata(), Embedding: v[0]}
		}
		if err := col.AddDocuments(ctx, cds, runtime.NumCPU()); err != nil {
			b.Fatal(err)
		}
		benchDirs["chromem50k"] = dir
	}
	benchMu.Unlock()
	var heap float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := heapMB()
		b.StartTimer()
		db, err := chromem.NewPersistentDB(dir, false)
		if err != nil {
			b.Fatal(err)
		}
		col := db.GetCollection("c", nil)
		v, _ := NewLocal(0).Embed(ctx, []string{benchQueries[0]})
		if _, err := col.QueryEmbedding(ctx, v[0], 10, nil, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		heap = heapMB() - before
		runtime.KeepAlive(db)
	}
	b.ReportMetric(heap, "heap-MB")
}

// Embedding and appending, documents per second: commit documents with
// their subject as the lead, as CommitDocs makes them, and without, what
// the lead costs.
func BenchmarkUpsert_Local(b *testing.B) {
	for _, lead := range []bool{true, false} {
		b.Run(fmt.Sprintf("lead=%v", lead), func(b *testing.B) {
			ctx := context.Background()
			docs := benchDocs(2000)
			for i := range docs {
				if lead {
					docs[i].Lead, _, _ = strings.Cut(docs[i].Text, "\n")
				}
			}
			ix, err := Open(b.TempDir(), NewLocal(0), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := ix.Upsert(ctx, docs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

func BenchmarkLocalEmbed(b *testing.B) {
	ctx := context.Background()
	docs := benchDocs(1000)
	texts := make([]string, len(docs))
	for i := range docs {
		texts[i] = docs[i].Text
	}
	e := NewLocal(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Embed(ctx, texts[i%len(texts):i%len(texts)+1]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWordvecParse is the word-vector table's share of a cold
// process's first query: gunzip, decode and SIF-weight the shipped table.
func BenchmarkWordvecParse(b *testing.B) {
	for b.Loop() {
		if _, err := parseWordVectors(wordvecTable); err != nil {
			b.Fatal(err)
		}
	}
}
