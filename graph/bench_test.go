package graph

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/graph/graphtest"
)

// synthetic is a generated history of about quadsPerCommit*commits quads:
// commits in a chain, each with an author and a few modified entities; files
// containing entities; co-evolution, replacement and test edges.
type synthetic struct {
	batches  [][2]any // {[]Node, []Edge}, one per 500 commits
	quads    int
	entities []string
}

func generate(commits int) synthetic {
	r := rand.New(rand.NewSource(1))
	nEnt, nFiles, nAuthors := commits*8/5, commits/10+1, 50
	var s synthetic
	ent := func(i int) string { return fmt.Sprintf("entity:pkg/f%d.go#Func%d", i%nFiles, i) }
	for i := range nEnt {
		s.entities = append(s.entities, ent(i))
	}
	var nodes []Node
	var edges []Edge
	flush := func() {
		for _, n := range nodes {
			s.quads += 1 + len(n.Props)
		}
		s.quads += len(edges)
		s.batches = append(s.batches, [2]any{nodes, edges})
		nodes, edges = nil, nil
	}
	nodes = append(nodes, Node{ID: "repo:bench", Type: "Repository"})
	for f := range nFiles {
		id := fmt.Sprintf("file:pkg/f%d.go", f)
		nodes = append(nodes, Node{ID: id, Type: "File", Props: map[string]string{"lang": "Go"}})
		edges = append(edges, Edge{"repo:bench", "CONTAINS", id, 1})
	}
	for i := range nEnt {
		nodes = append(nodes, Node{ID: ent(i), Type: "Function", Props: map[string]string{"name": fmt.Sprintf("Func%d", i)}})
		edges = append(edges, Edge{fmt.Sprintf("file:pkg/f%d.go", i%nFiles), "CONTAINS", ent(i), 1})
		edges = append(edges, Edge{ent(i), "CO_EVOLVES_WITH", ent(r.Intn(nEnt)), 0.5 + r.Float64()/2})
		if i%4 == 0 {
			test := fmt.Sprintf("test:pkg/f%d_test.go#TestFunc%d", i%nFiles, i)
			nodes = append(nodes, Node{ID: test, Type: "TestCase"})
			edges = append(edges, Edge{ent(i), "VERIFIED_BY", test, 0.8})
		}
		if i%8 == 0 && i > 0 {
			edges = append(edges, Edge{ent(i - 1), "REPLACED_BY", ent(i), 0.9})
		}
	}
	flush()
	for c := range commits {
		id := fmt.Sprintf("commit:%040x", c)
		nodes = append(nodes, Node{ID: id, Type: "Commit", Props: map[string]string{
			"subject": fmt.Sprintf("change %d", c), "date": time.Unix(int64(1.7e9)+int64(c)*3600, 0).UTC().Format(time.RFC3339)}})
		if c > 0 {
			edges = append(edges, Edge{fmt.Sprintf("commit:%040x", c-1), "PARENT_OF", id, 1})
		}
		edges = append(edges, Edge{id, "AUTHORED_BY", fmt.Sprintf("author:a%d@example.com", r.Intn(nAuthors)), 1})
		for range 4 {
			edges = append(edges, Edge{id, "MODIFIES", ent(r.Intn(nEnt)), 1})
		}
		if c%10 == 0 {
			edges = append(edges, Edge{id, "FIXES", fmt.Sprintf("issue:GH-%d", c/10), 0.9})
		}
		if c%500 == 499 {
			flush()
		}
	}
	flush()
	return s
}

func load(tb testing.TB, g *Graph, s synthetic) time.Duration {
	start := time.Now()
	for _, b := range s.batches {
		if err := g.Write(context.Background(), b[0].([]Node), b[1].([]Edge)); err != nil {
			tb.Fatal(err)
		}
	}
	return time.Since(start)
}

// benchCommits gives ~100k quads.
const benchCommits = 6000

var bench struct {
	once sync.Once
	dir  string
	data synthetic
	took time.Duration
	err  error
}

// benchGraph opens the shared ~100k-quad bolt store, generating it once per process.
func benchGraph(b *testing.B) (*Graph, synthetic) {
	bench.once.Do(func() {
		bench.data = generate(benchCommits)
		bench.dir, bench.err = os.MkdirTemp("", "gitmemory-graph-bench")
		if bench.err != nil {
			return
		}
		g, err := Open(context.Background(), bench.dir)
		if err != nil {
			bench.err = err
			return
		}
		bench.took = load(b, g, bench.data)
		bench.err = g.Close()
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	b.Logf("bolt store: %d quads written in %v (%.0f quads/s)", bench.data.quads, bench.took,
		float64(bench.data.quads)/bench.took.Seconds())
	return open(b, bench.dir), bench.data
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

func BenchmarkEntityEdges(b *testing.B) {
	g, s := benchGraph(b)
	ctx := context.Background()
	n := 0
	for i := 0; b.Loop(); i++ {
		id := s.entities[i*7919%len(s.entities)]
		out, err := g.Edges(ctx, id, Out)
		if err != nil {
			b.Fatal(err)
		}
		in, err := g.Edges(ctx, id, In)
		if err != nil {
			b.Fatal(err)
		}
		n += len(out) + len(in)
	}
	b.ReportMetric(float64(n)/float64(b.N), "edges/op")
}

func BenchmarkNeighbors2Hop(b *testing.B) {
	g, s := benchGraph(b)
	ctx := context.Background()
	n := 0
	for i := 0; b.Loop(); i++ {
		hits, err := g.Neighbors(ctx, s.entities[i*7919%len(s.entities)], nil, 2)
		if err != nil {
			b.Fatal(err)
		}
		n += len(hits)
	}
	b.ReportMetric(float64(n)/float64(b.N), "hits/op")
}

func BenchmarkNode(b *testing.B) {
	g, s := benchGraph(b)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if _, ok, err := g.Node(ctx, s.entities[i*7919%len(s.entities)]); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkWrite loads the synthetic history into an empty store of every
// backend and reports quads/s. PostgreSQL gets a tenth of the size.
func BenchmarkWrite(b *testing.B) {
	for _, be := range graphtest.Backends(b) {
		commits := benchCommits
		if be.Name == "postgres" {
			commits /= 10
		}
		s := generate(commits)
		b.Run(be.Name, func(b *testing.B) {
			var took time.Duration
			for b.Loop() {
				g := open(b, be.Addr(b))
				took += load(b, g, s)
				g.Close()
			}
			b.ReportMetric(float64(s.quads)*float64(b.N)/took.Seconds(), "quads/s")
			b.ReportMetric(float64(s.quads), "quads")
		})
	}
}

// BenchmarkPostgresReads measures Edges and 2-hop Neighbors on PostgreSQL
// over the same (smaller) synthetic history as BenchmarkWrite.
func BenchmarkPostgresReads(b *testing.B) {
	dsn := os.Getenv("GITMEMORY_TEST_PG")
	if dsn == "" {
		b.Skip("GITMEMORY_TEST_PG is not set")
	}
	s := generate(benchCommits / 10)
	g := open(b, graphtest.FreshDatabase(b, dsn))
	load(b, g, s)
	ctx := context.Background()
	b.Run("EntityEdges", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := g.Edges(ctx, s.entities[i*7919%len(s.entities)], Out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Neighbors2Hop", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := g.Neighbors(ctx, s.entities[i*7919%len(s.entities)], nil, 2); err != nil {
				b.Fatal(err)
			}
		}
	})
}
