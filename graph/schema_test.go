package graph

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/graph/graphtest"
)

func TestRepositoryDSN(t *testing.T) {
	got, err := RepositoryDSN("postgres://u:p@db:5432/gm?sslmode=disable", "My.Repo-2")
	if err != nil || !strings.Contains(got, "search_path=gitmemory_my_repo_2") || !strings.Contains(got, "sslmode=disable") {
		t.Errorf("RepositoryDSN: %q %v", got, err)
	}
	own := "postgres://db/gm?search_path=mine"
	if got, _ := RepositoryDSN(own, "x"); got != own {
		t.Errorf("a DSN choosing its search_path was changed: %q", got)
	}
}

// TestRepositoriesShareADatabase: two repositories' graphs in one
// PostgreSQL database stay apart.
func TestRepositoriesShareADatabase(t *testing.T) {
	base := os.Getenv("GITMEMORY_TEST_PG")
	if base == "" {
		t.Skip("GITMEMORY_TEST_PG is not set (CI sets it in .ci/run)")
	}
	db := graphtest.FreshDatabase(t, base)
	ctx := context.Background()
	open := func(repo string) *Graph {
		dsn, err := RepositoryDSN(db, repo)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	a, b := open("alpha"), open("beta")
	if err := a.Write(ctx, nil, []Edge{{From: "commit:1", Type: "MODIFIES", To: "file:README.md"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(ctx, nil, []Edge{{From: "commit:2", Type: "MODIFIES", To: "file:README.md"}}); err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*Graph{"alpha": a, "beta": b} {
		es, err := g.Edges(ctx, "file:README.md", In)
		if err != nil || len(es) != 1 {
			t.Errorf("%s: README.md has %d incoming edges (%v), want its own 1", name, len(es), err)
		}
	}
}
