package indexer

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// TestEntityHistoryMatchesGitLogL edits the bodies of a Go file's functions
// at random (adding functions on the way) and checks that each function's
// history is the commit list `git log -L /^func name(/,/^}/:file` gives.
func TestEntityHistoryMatchesGitLogL(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	repo := gittest.New(t)
	type fn struct {
		name string
		body []string
	}
	fns := []*fn{{name: "alpha", body: []string{"x := 1", "_ = x"}}, {name: "beta", body: []string{"return"}}}
	render := func() string {
		var b strings.Builder
		b.WriteString("package p\n")
		for _, f := range fns {
			fmt.Fprintf(&b, "\n// %s does things.\nfunc %s() {\n", f.name, f.name)
			for _, l := range f.body {
				fmt.Fprintf(&b, "\t%s\n", l)
			}
			b.WriteString("}\n")
		}
		return b.String()
	}
	repo.Write("p.go", render())
	repo.Commit("start")
	for i := range 40 {
		switch k := r.Intn(10); {
		case k == 0:
			pos := r.Intn(len(fns) + 1)
			fns = slices.Insert(fns, pos, &fn{name: fmt.Sprintf("gen%d", i), body: []string{"return"}})
		default:
			f := fns[r.Intn(len(fns))]
			line := fmt.Sprintf("_ = %d", i)
			if j := r.Intn(len(f.body) + 1); r.Intn(3) == 0 && len(f.body) > 1 {
				f.body = slices.Delete(f.body, j%len(f.body), j%len(f.body)+1)
			} else {
				f.body = slices.Insert(f.body, j, line)
			}
		}
		repo.Write("p.go", render())
		repo.Commit(fmt.Sprintf("edit %d", i))
	}
	st := openStore(t)
	sync(t, repo.Dir, st, Options{})
	for _, f := range fns {
		out := repo.Git("log", "-L", fmt.Sprintf("/^func %s(/,/^}/:p.go", f.name), "--format=COMMIT %H")
		var want []string
		for _, l := range strings.Split(out, "\n") {
			if h, ok := strings.CutPrefix(l, "COMMIT "); ok {
				want = append(want, h)
			}
		}
		hist, err := st.EntityHistory(context.Background(), "p.go#p."+f.name)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range hist {
			got = append(got, e.Commit)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: history has %d commits, git log -L %d:\n got %v\nwant %v", f.name, len(got), len(want), got, want)
		}
	}
}
