package indexer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/graph/graphtest"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/store"
)

// coupledHistory plants a pattern: a.go and b.go always change together
// (their functions A and B too), c.go changes alone, and one mass
// formatting commit touches 40 files, which must couple nothing. a_test.go
// tests A. It returns the commits' count.
func coupledHistory(t *testing.T) *gittest.Repo {
	repo := gittest.New(t)
	fn := func(name string, v int) string {
		return fmt.Sprintf("package p\n\nfunc %s() int {\n\treturn %d\n}\n", name, v)
	}
	repo.Write("a_test.go", "package p\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tA()\n}\n")
	for i := range 6 {
		repo.Write("a.go", fn("A", i))
		repo.Write("b.go", fn("B", i))
		repo.Commit(fmt.Sprintf("change A and B, step %d", i))
	}
	for i := range 6 {
		repo.Write("c.go", fn("C", i))
		repo.Commit(fmt.Sprintf("change C alone, step %d", i))
	}
	for i := range 37 {
		repo.Write(fmt.Sprintf("gen/f%02d.go", i), fn(fmt.Sprintf("F%d", i), 0))
	}
	repo.Write("a.go", fn("A", 99)+"\n")
	repo.Write("b.go", fn("B", 99)+"\n")
	repo.Write("c.go", fn("C", 99)+"\n")
	repo.Commit("format everything")
	return repo
}

func couplingRows(t *testing.T, st *store.Store) []string {
	t.Helper()
	rows, err := st.DB.Query(`SELECT a, b, shared, revs_a, revs_b, confidence FROM couplings ORDER BY a, b`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b string
		var s, ra, rb int
		var c float64
		if err := rows.Scan(&a, &b, &s, &ra, &rb, &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %s shared=%d revs=%d,%d conf=%.2f", a, b, s, ra, rb, c))
	}
	return out
}

func verifiedRows(t *testing.T, st *store.Store) []string {
	t.Helper()
	rows, err := st.DB.Query(`SELECT subject, test, basis, confidence FROM verified_by ORDER BY subject, test`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s, tt, b string
		var c float64
		if err := rows.Scan(&s, &tt, &b, &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s -> %s %s %.2f", s, tt, b, c))
	}
	return out
}

func TestCoEvolutionPlantedPattern(t *testing.T) {
	repo := coupledHistory(t)
	for _, be := range graphtest.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			g, err := graph.Open(context.Background(), be.Addr(t))
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			st := openStore(t)
			sync(t, repo.Dir, st, Options{Graph: g})
			got := couplingRows(t, st)
			want := []string{
				"entity:a.go#p.A entity:b.go#p.B shared=6 revs=6,6 conf=1.00",
				"file:a.go file:b.go shared=6 revs=6,6 conf=1.00",
			}
			if !slices.Equal(got, want) {
				t.Errorf("couplings:\n got %q\nwant %q", got, want)
			}
			es, err := g.Edges(context.Background(), "file:a.go", graph.Out, "CO_EVOLVES_WITH")
			if err != nil {
				t.Fatal(err)
			}
			if len(es) != 1 || es[0].To != "file:b.go" || es[0].Confidence != 1 {
				t.Errorf("graph co-evolution of a.go: %v", es)
			}
			ver := verifiedRows(t, st)
			wantVer := []string{
				"entity:a.go#p.A -> entity:a_test.go#p.TestA name 0.95",
				"file:a.go -> file:a_test.go name 0.90",
			}
			if !slices.Equal(ver, wantVer) {
				t.Errorf("verified_by:\n got %q\nwant %q", ver, wantVer)
			}
			vs, err := g.Edges(context.Background(), "entity:a.go#p.A", graph.Out, "VERIFIED_BY")
			if err != nil || len(vs) != 1 || vs[0].To != "entity:a_test.go#p.TestA" {
				t.Errorf("graph VERIFIED_BY of A: %v %v", vs, err)
			}
		})
	}
}

// TestCoEvolutionIncremental: syncing commit by commit (each sync
// recomputes only the pairs of the items it touched) ends with exactly the
// couplings and graph edges of one full computation.
func TestCoEvolutionIncremental(t *testing.T) {
	repo := coupledHistory(t)
	// More commits, so that late ones change earlier pairs' confidences.
	for i := range 3 {
		repo.Write("a.go", fmt.Sprintf("package p\n\nfunc A() int {\n\treturn %d\n}\n", 200+i))
		repo.Commit(fmt.Sprintf("A alone %d", i))
	}
	repo.Write("c.go", "package p\n\nfunc C() int {\n\treturn 7\n}\n")
	repo.Write("b.go", "package p\n\nfunc B() int {\n\treturn 7\n}\n")
	repo.Commit("B with C")
	commits := strings.Fields(repo.Git("rev-list", "--reverse", "HEAD"))

	full, fullGraph := openStore(t), openGraph(t)
	sync(t, repo.Dir, full, Options{Graph: fullGraph})

	inc, incGraph := openStore(t), openGraph(t)
	step := gittest.New(t)
	step.Git("fetch", "-q", repo.Dir, "main")
	for _, c := range commits {
		step.Git("update-ref", "refs/heads/main", c)
		sync(t, step.Dir, inc, Options{Graph: incGraph})
	}
	if a, b := couplingRows(t, full), couplingRows(t, inc); !slices.Equal(a, b) {
		t.Errorf("couplings differ:\nfull        %q\nincremental %q", a, b)
	}
	if a, b := verifiedRows(t, full), verifiedRows(t, inc); !slices.Equal(a, b) {
		t.Errorf("verified_by differ:\nfull        %q\nincremental %q", a, b)
	}
	for _, id := range []string{"file:a.go", "file:b.go", "entity:a.go#p.A", "entity:b.go#p.B"} {
		a := edgesText(t, fullGraph, id)
		if b := edgesText(t, incGraph, id); a != b {
			t.Errorf("graph edges of %s differ:\nfull        %s\nincremental %s", id, a, b)
		}
	}
}

func openGraph(t *testing.T) *graph.Graph {
	g, err := graph.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func edgesText(t *testing.T, g *graph.Graph, id string) string {
	es, err := g.Edges(context.Background(), id, graph.Out, "CO_EVOLVES_WITH", "VERIFIED_BY")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%s %s %.3f; ", e.Type, e.To, e.Confidence)
	}
	return b.String()
}
