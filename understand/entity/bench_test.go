package entity

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// goBlock and pyBlock are repeated, renamed by %[1]d, into large sources.
const goBlock = `
// Store%[1]d keeps things.
type Store%[1]d struct {
	mu    sync.Mutex
	items map[string]int
}

// Get%[1]d returns an item.
func (s *Store%[1]d) Get%[1]d(key string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.items[key]
	return v, ok
}

// Put%[1]d sets an item.
func (s *Store%[1]d) Put%[1]d(key string, v int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.items == nil {
		s.items = make(map[string]int)
	}
	s.items[key] = v
}

func helper%[1]d(xs []int) (sum int) {
	for i, x := range xs {
		if i%%2 == 0 {
			sum += x
		}
	}
	return sum
}
`

const pyBlock = `

class Store%[1]d:
    """Keeps things."""

    def __init__(self):
        self.items = {}

    def get%[1]d(self, key):
        return self.items.get(key)

    @property
    def size%[1]d(self):
        return len(self.items)


def helper%[1]d(xs):
    total = 0
    for i, x in enumerate(xs):
        if i %% 2 == 0:
            total += x
    return total
`

// source repeats block until the source has at least lines lines.
func source(header, block string, lines int) []byte {
	var b strings.Builder
	b.WriteString(header)
	for i := 0; strings.Count(b.String(), "\n") < lines; i++ {
		fmt.Fprintf(&b, block, i)
	}
	return []byte(b.String())
}

func benchEntities(b *testing.B, lang string, src []byte, cached bool) {
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	hash := ""
	if cached {
		hash = "blob"
	}
	ents, err := p.Entities(ctx, lang, "bench", hash, src)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Entities(ctx, lang, "bench", hash, src); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ents)), "entities")
}

// BenchmarkEntitiesGo parses a 2,000-line Go file (no cache).
func BenchmarkEntitiesGo(b *testing.B) {
	benchEntities(b, "Go", source("package bench\n\nimport \"sync\"\n", goBlock, 2000), false)
}

// BenchmarkEntitiesPython parses a 2,000-line Python file (no cache).
func BenchmarkEntitiesPython(b *testing.B) {
	benchEntities(b, "Python", source("import os\n", pyBlock, 2000), false)
}

// BenchmarkEntitiesCached returns the 2,000-line Go file's entities from
// the blob cache.
func BenchmarkEntitiesCached(b *testing.B) {
	benchEntities(b, "Go", source("package bench\n\nimport \"sync\"\n", goBlock, 2000), true)
}

// BenchmarkDiff maps a one-line change onto the 2,000-line Go file.
func BenchmarkDiff(b *testing.B) {
	p := NewParser()
	defer p.Close()
	old := source("package bench\n\nimport \"sync\"\n", goBlock, 2000)
	new := []byte(strings.Replace(string(old), "sum += x", "sum -= x", 1))
	ctx := context.Background()
	oldEnts, _ := p.Entities(ctx, "Go", "bench", "", old)
	newEnts, _ := p.Entities(ctx, "Go", "bench", "", new)
	hunks := fileHunks(old, new)
	b.ReportAllocs()
	for b.Loop() {
		if len(Diff(oldEnts, newEnts, hunks)) != 1 {
			b.Fatal("want one change")
		}
	}
}

// TestParseMemoryFlat parses 10,000 file versions and checks that neither
// the Go heap nor the process's resident memory grows: trees, nodes and
// cache entries are freed.
func TestParseMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 parses")
	}
	goSrc, pySrc := readFixture(t, "sample.go"), readFixture(t, "sample.py")
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	parse := func(n, offset int) {
		for i := range n {
			lang, src := "Go", goSrc
			if i%2 == 1 {
				lang, src = "Python", pySrc
			}
			// Distinct blob hashes: every call parses, and the cache
			// fills up to its bound.
			if _, err := p.Entities(ctx, lang, "f", strconv.Itoa(offset+i), src); err != nil {
				t.Fatal(err)
			}
		}
	}
	parse(cacheSize, 0) // warm up and fill the cache
	heap0, rss0 := memory(t)
	parse(10_000, cacheSize)
	heap1, rss1 := memory(t)
	t.Logf("after warm-up heap %d KiB, non-Go RSS %d KiB; after 10,000 parses heap %d KiB, non-Go RSS %d KiB",
		heap0>>10, rss0>>10, heap1>>10, rss1>>10)
	if heap1 > heap0+8<<20 {
		t.Errorf("Go heap grew from %d to %d KiB", heap0>>10, heap1>>10)
	}
	if rss0 > 0 && rss1 > rss0+4<<20 {
		t.Errorf("memory outside the Go heap grew from %d to %d KiB", rss0>>10, rss1>>10)
	}
}

// memory returns the live Go heap after a GC and the resident memory not
// held by the Go runtime (0 where /proc is missing).
func memory(t *testing.T) (heap, rss uint64) {
	// Return the Go heap's free pages to the OS first, and subtract what
	// the Go runtime still holds: what remains of the RSS is mostly C
	// memory (tree-sitter's), the part a missing tree.Close would grow.
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return ms.HeapAlloc, 0
	}
	f := strings.Fields(string(statm))
	if len(f) < 2 {
		return ms.HeapAlloc, 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	rss = pages * uint64(os.Getpagesize())
	if goHeld := ms.Sys - ms.HeapReleased; rss > goHeld {
		return ms.HeapAlloc, rss - goHeld
	}
	return ms.HeapAlloc, 1
}
