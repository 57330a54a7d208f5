// Command xquery times the entity and graph queries on an indexed
// repository's data directory (gitmemory's home/repos/NAME): an entity's
// history from SQLite and from the graph, and 2-hop neighbourhoods. It
// reports medians and p99 over -n runs. The data directory must not be
// held by a running sync (the embedded graph is single-process).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"time"

	"strings"
	"syscall"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/vectors"
)

func main() {
	dir := flag.String("dir", "", "a repository's data directory")
	entity := flag.String("entity", "", "an entity key (path#qualified); default: the most changed one")
	file := flag.String("file", "", "a file path for the 2-hop walk; default: the most changed one")
	n := flag.Int("n", 200, "runs per query")
	questions := flag.String("questions", "", "also time hybrid searches, warm, of these questions (one per line)")
	path := flag.String("history", "", "also time history of this path")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the searches")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "xquery:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(*dir, *entity, *file, *n); err != nil {
		fmt.Fprintln(os.Stderr, "xquery:", err)
		os.Exit(1)
	}
	if err := searches(*dir, *questions, *path, *n); err != nil {
		fmt.Fprintln(os.Stderr, "xquery:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(dir, entity, file string, n int) error {
	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	g, err := graph.Open(ctx, filepath.Join(dir, "graph"))
	if err != nil {
		return err
	}
	defer g.Close()
	if entity == "" {
		err := st.DB.QueryRow(`SELECT e.key FROM entity_changes c JOIN entities e ON e.id = c.entity_id
			GROUP BY e.id ORDER BY COUNT(*) DESC LIMIT 1`).Scan(&entity)
		if err != nil {
			return fmt.Errorf("most changed entity: %w", err)
		}
	}
	if file == "" {
		if err := st.DB.QueryRow(`SELECT path FROM file_changes GROUP BY path ORDER BY COUNT(*) DESC LIMIT 1`).Scan(&file); err != nil {
			return fmt.Errorf("most changed file: %w", err)
		}
	}
	var size int
	time1 := func(name string, f func() (int, error)) error {
		var ds []time.Duration
		for range n {
			t := time.Now()
			k, err := f()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			ds = append(ds, time.Since(t))
			size = k
		}
		slices.Sort(ds)
		fmt.Printf("%-44s %6d results  p50 %8.3f ms  p99 %8.3f ms\n", name, size,
			ms(ds[len(ds)/2]), ms(ds[len(ds)*99/100]))
		return nil
	}
	fmt.Printf("entity %s, file %s, %d runs each\n", entity, file, n)
	steps := []struct {
		name string
		f    func() (int, error)
	}{
		{"entity history (SQLite, through renames)", func() (int, error) {
			h, err := st.EntityHistory(ctx, entity)
			return len(h), err
		}},
		{"entity history (graph, commits into it)", func() (int, error) {
			es, err := g.Edges(ctx, "entity:"+entity, graph.In, "INTRODUCES", "MODIFIES", "DELETES")
			return len(es), err
		}},
		{"entity 2-hop neighbourhood (graph)", func() (int, error) {
			hs, err := g.Neighbors(ctx, "entity:"+entity, nil, 2)
			return len(hs), err
		}},
		{"file 1-hop neighbourhood (graph)", func() (int, error) {
			hs, err := g.Neighbors(ctx, "file:"+file, nil, 1)
			return len(hs), err
		}},
		{"file 2-hop co-evolution/tests (graph)", func() (int, error) {
			hs, err := g.Neighbors(ctx, "file:"+file, []string{"CO_EVOLVES_WITH", "VERIFIED_BY", "CONTAINS"}, 2)
			return len(hs), err
		}},
	}
	for _, s := range steps {
		if err := time1(s.name, s.f); err != nil {
			return err
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// searches times warm hybrid searches (stores open, vectors loaded) and a
// file's history, as a daemon would serve them.
func searches(dir, questions, path string, n int) error {
	if questions == "" && path == "" {
		return nil
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	if path != "" {
		ds := timeN(n, func() error {
			_, err := retrieve.History(ctx, st, retrieve.HistoryQuery{Path: path, Limit: 50})
			return err
		})
		report("history "+path+" (50 newest, renames followed)", ds)
	}
	if questions == "" {
		return nil
	}
	data, err := os.ReadFile(questions)
	if err != nil {
		return err
	}
	vec, err := vectors.Open(filepath.Join(dir, "vectors"), vectors.NewLocal(0), nil)
	if err != nil {
		return err
	}
	defer vec.Close()
	g, err := graph.Open(ctx, filepath.Join(dir, "graph"))
	if err != nil {
		return err
	}
	defer g.Close()
	s := retrieve.NewSearcher(st, vec, g, retrieve.SearchOptions{})
	t := time.Now()
	if _, err := s.Search(ctx, retrieve.Request{Query: "warm up"}); err != nil {
		return err
	}
	fmt.Printf("first search (loads the vectors): %.0f ms\n", ms(time.Since(t)))
	var all []time.Duration
	cpu := cpuTime()
	for _, q := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		all = append(all, timeN(max(n/10, 3), func() error {
			_, err := s.Search(ctx, retrieve.Request{Query: q})
			return err
		})...)
	}
	report("hybrid search, warm", all)
	reportCPU(cpuTime()-cpu, len(all))
	qs := strings.Split(strings.TrimSpace(string(data)), "\n")
	keywords(ctx, st, qs, n)
	// As the daemon asks: with a term cache kept across questions.
	s = retrieve.NewSearcher(st, vec, g, retrieve.SearchOptions{Terms: retrieve.NewTermCache(0)})
	all = nil
	cpu = cpuTime()
	for _, q := range qs {
		all = append(all, timeN(max(n/10, 3), func() error {
			_, err := s.Search(ctx, retrieve.Request{Query: q})
			return err
		})...)
	}
	report("hybrid search, warm, term cache (daemon)", all)
	reportCPU(cpuTime()-cpu, len(all))
	return nil
}

// keywords times the BM25 stage alone: SQLite's bm25() over the whole
// disjunction, then the term cache's first and later answers.
func keywords(ctx context.Context, st *store.Store, qs []string, n int) {
	const limit = 200 // retrieve's perKeyword
	var plain, first, warm []time.Duration
	cache := retrieve.NewTermCache(0)
	for _, q := range qs {
		terms := retrieve.Normalize(q)
		plain = append(plain, timeN(max(n/10, 3), func() error {
			_, err := retrieve.Keyword(ctx, st, retrieve.KeywordQuery{Terms: terms, Limit: limit})
			return err
		})...)
		first = append(first, timeN(1, func() error {
			_, err := retrieve.Keyword(ctx, st, retrieve.KeywordQuery{Terms: terms, Limit: limit, Cache: cache})
			return err
		})...)
		warm = append(warm, timeN(max(n/10, 3), func() error {
			_, err := retrieve.Keyword(ctx, st, retrieve.KeywordQuery{Terms: terms, Limit: limit, Cache: cache})
			return err
		})...)
	}
	same := 0
	for _, q := range qs {
		terms := retrieve.Normalize(q)
		a, err1 := retrieve.Keyword(ctx, st, retrieve.KeywordQuery{Terms: terms, Limit: limit})
		b, err2 := retrieve.Keyword(ctx, st, retrieve.KeywordQuery{Terms: terms, Limit: limit, Cache: cache})
		if err1 == nil && err2 == nil && slices.EqualFunc(a, b, func(x, y retrieve.KeywordHit) bool { return x.Commit == y.Commit }) {
			same++
		}
	}
	fmt.Printf("keyword: the term cache ranks %d of %d questions' %d best exactly as SQLite\n", same, len(qs), limit)
	report("keyword (SQLite bm25)", plain)
	report("keyword (term cache, first time)", first)
	report("keyword (term cache, kept)", warm)
}

func timeN(n int, f func() error) []time.Duration {
	var ds []time.Duration
	for range n {
		t := time.Now()
		if err := f(); err != nil {
			fmt.Fprintln(os.Stderr, "xquery:", err)
			os.Exit(1)
		}
		ds = append(ds, time.Since(t))
	}
	return ds
}

// cpuTime is the process's CPU time so far, user and system: on a shared
// machine a search's CPU moves less with the load than its wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU prints the mean CPU of n searches, every goroutine and the
// garbage collector included.
func reportCPU(d time.Duration, n int) {
	fmt.Printf("%-44s %6d runs     CPU %8.3f ms a search (mean)\n", "", n, ms(d)/float64(n))
}

func report(name string, ds []time.Duration) {
	slices.Sort(ds)
	fmt.Printf("%-44s %6d runs     p50 %8.3f ms  p99 %8.3f ms\n", name, len(ds), ms(ds[len(ds)/2]), ms(ds[len(ds)*99/100]))
}
