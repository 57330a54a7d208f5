package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// The lookup benchmark ladder: stores of 1k, 10k and 100k records built
// through store.Writer, each answering the same mix of candidate changes.
// Every iteration is one lookup, timed alone, so that p50 and p99 are
// reported beside the mean. "paths" is the common candidate (1 to 4
// paths), "paths-20" a wide one (up to 20), and "paths-fingerprint" the one
// query that scans the window (an explicit "paths:" fingerprint).
func BenchmarkLookup_1k(b *testing.B)   { benchLookup(b, 1_000) }
func BenchmarkLookup_10k(b *testing.B)  { benchLookup(b, 10_000) }
func BenchmarkLookup_100k(b *testing.B) { benchLookup(b, 100_000) }

// lkHistory is a generated history shaped like a real project's: a
// year of commits over n/10 files in nested directories, whose popularity
// follows a Zipf law (the busiest file is in about 5% of commits), 1 to 6
// files a commit, a few renames, issue references, CVEs and redactions.
type lkHistory struct {
	files []string
	recs  []lkRec
}

func lkSynthesize(n int, seed uint64) *lkHistory {
	r := rand.New(rand.NewPCG(seed, 7))
	h := &lkHistory{}
	nFiles := max(n/10, 100)
	for i := range nFiles {
		dir := fmt.Sprintf("pkg%d/sub%d", i/400, i/20)
		h.files = append(h.files, fmt.Sprintf("%s/file%d.go", dir, i))
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(seed, 8)), 1.1, 10, uint64(nFiles-1))
	classes := []model.ChangeType{model.Feature, model.Feature, model.Bugfix, model.Bugfix, model.Refactor,
		model.Documentation, model.Test, model.Dependency, model.Configuration, model.Cleanup, model.Performance,
		model.Security, model.Revert, ""}
	for i := range n {
		rc := lkRec{id: fmt.Sprintf("%08x%x", i, r.Uint64()), age: time.Duration(r.Int64N(int64(365 * 24 * time.Hour))),
			class: classes[r.IntN(len(classes))], summary: fmt.Sprintf("change %d", i)}
		for range 1 + min(r.IntN(4)+r.IntN(3), 5) {
			p := h.files[zipf.Uint64()]
			if r.IntN(33) == 0 {
				p = h.files[r.IntN(nFiles)] + "=>" + p
			}
			if !slices.Contains(rc.paths, p) {
				rc.paths = append(rc.paths, p)
			}
		}
		if r.IntN(5) == 0 {
			rc.refs = append(rc.refs, fmt.Sprintf("#%d", r.IntN(n/10+1)))
		}
		if r.IntN(100) == 0 {
			rc.refs = append(rc.refs, fmt.Sprintf("CVE-2024-%d", 1000+r.IntN(100)))
		}
		if r.IntN(200) == 0 {
			rc.redactions = 1
		}
		h.recs = append(h.recs, rc)
	}
	return h
}

// queries are candidate changes: one to width paths, most of them files
// drawn as commits draw them, some directories, some new files in an
// existing directory; one in ten carries a reason fingerprint too.
func (h *lkHistory) queries(k int, seed uint64, width int) []LookupQuery {
	r := rand.New(rand.NewPCG(seed, 9))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(seed, 10)), 1.1, 10, uint64(len(h.files)-1))
	out := make([]LookupQuery, k)
	for i := range out {
		for range 1 + r.IntN(width) {
			f := h.files[zipf.Uint64()]
			switch x := r.IntN(20); {
			case x < 2:
				f = path.Dir(f) // a directory of 20 files
			case x < 6:
				f = path.Dir(f) + "/new.go"
			}
			out[i].Paths = append(out[i].Paths, f)
		}
		if r.IntN(10) == 0 {
			out[i].Fingerprints = []string{fmt.Sprintf("#%d", r.IntN(len(h.recs)/10+1))}
		}
	}
	return out
}

// benchStore writes a synthetic history into a new store.
func lkBenchStore(b *testing.B, h *lkHistory) *store.Store {
	b.Helper()
	st := openStore(b, "https://github.com/acme/bench.git")
	for chunk := range slices.Chunk(h.recs, 5000) {
		lkInsert(b, st, chunk...)
	}
	return st
}

func benchLookup(b *testing.B, n int) {
	h := lkSynthesize(n, uint64(n))
	start := time.Now()
	st := lkBenchStore(b, h)
	b.Logf("%d records stored in %v", n, time.Since(start).Round(time.Millisecond))
	l := NewLookup(st, LookupConfig{}, func() time.Time { return lkNow })
	defer l.Close()
	b.Run("paths", func(b *testing.B) { benchLookupQueries(b, l, h.queries(1000, 1, 4)) })
	// A wide candidate, as --staged gives for a change of 20 files.
	b.Run("paths-20", func(b *testing.B) { benchLookupQueries(b, l, h.queries(200, 2, 20)) })
	// Explicit paths fingerprints of records in the window, so that each
	// finds one: the query that scans the window.
	b.Run("paths-fingerprint", func(b *testing.B) {
		var qs []LookupQuery
		for _, rc := range h.recs {
			if rc.age >= lkDays(90) || len(qs) == 100 {
				continue
			}
			var paths []string
			for _, p := range rc.paths {
				_, nw, _ := strings.Cut(p, "=>")
				paths = append(paths, cmp.Or(nw, p))
			}
			qs = append(qs, LookupQuery{Fingerprints: []string{PathsFingerprint(paths)}})
		}
		benchLookupQueries(b, l, qs)
	})
}

// benchQueries runs the queries in turn, one per iteration, and reports
// the latency percentiles and the mean number of matches.
func benchLookupQueries(b *testing.B, l *Lookup, qs []LookupQuery) {
	ctx := context.Background()
	var took []time.Duration
	matched := 0
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		res, err := l.Run(ctx, qs[i%len(qs)])
		took = append(took, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		matched += len(res.Matches)
	}
	lkReportLatency(b, took)
	b.ReportMetric(float64(matched)/float64(len(took)), "matches/op")
}

// reportLatency reports the median and the 99th percentile of the lookups.
func lkReportLatency(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	at := func(q float64) float64 {
		return float64(took[min(len(took)-1, int(q*float64(len(took))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}

// BenchmarkWriteOverhead measures what store migration 5's triggers (the
// lookup index) add to writing commits: 2,000 records into a fresh store,
// with the triggers and with them dropped.
func BenchmarkWriteOverhead(b *testing.B) {
	h := lkSynthesize(2000, 3)
	for _, name := range []string{"with-lookup-index", "without"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				st := openStore(b, "")
				if name == "without" {
					dropLookupTriggers(b, st)
				}
				b.StartTimer()
				lkInsert(b, st, h.recs...)
			}
			b.ReportMetric(float64(len(h.recs)*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkSyncOverhead is BenchmarkWriteOverhead on a real sync: a
// generated 1,000-commit history (diffs, renames, merges) indexed from
// scratch, with and without the lookup index's triggers.
func BenchmarkSyncOverhead(b *testing.B) {
	g := gittest.Generate(b, 1000, 5)
	for _, name := range []string{"with-lookup-index", "without"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				st := openStore(b, "")
				if name == "without" {
					dropLookupTriggers(b, st)
				}
				s, err := indexer.New(g.Dir, st, indexer.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := s.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "commits/s")
		})
	}
}

func dropLookupTriggers(b *testing.B, st *store.Store) {
	for _, tr := range []string{"commits_severity", "commits_reclassified", "commits_rewritten",
		"file_changes_lookup", "issue_refs_lookup"} {
		if _, err := st.DB.Exec(`DROP TRIGGER ` + tr); err != nil {
			b.Fatal(err)
		}
	}
}
