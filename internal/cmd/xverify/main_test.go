package main

import (
	"context"
	"os"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// TestNoUnexplainedMismatchOnGenerated runs every check of xverify on a
// generated history with renames, directory moves, same-second commits,
// clock skew, merges and code in seven languages: CI's run of the checker.
func TestNoUnexplainedMismatchOnGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("syncs and runs git log per path")
	}
	g := gittest.GenerateWith(t, 300, 17, gittest.GenerateOptions{SameSecond: true, DirMoves: true, RealCode: true})
	c := &config{repo: g.Dir, top: 100, sample: 2000, entities: 60, jobs: 2, dirs: true}
	ctx := context.Background()
	if err := c.setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(c.tmpHome)
	cleanup, err := c.prepareGit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if c.gitDir == c.repo {
		t.Errorf("git runs in %s, which has no commit graph, not in a clone with one", c.gitDir)
	}
	for name, check := range map[string]func(context.Context) (int, error){
		"history": c.history, "numstat": c.numstat, "graph": c.graph, "entity": c.entity,
	} {
		n, err := check(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n != 0 {
			t.Errorf("%s: %d unexplained mismatches (printed above)", name, n)
		}
	}
}
