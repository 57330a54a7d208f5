package retrieve

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// "How did X evolve?" starts where X was written, even when X has moved
// since and later commits name it in their messages while the first does
// not.
func TestSearchEvolutionFindsOrigin(t *testing.T) {
	g := gittest.New(t)
	body := "def render_table(rows):\n    out = []\n    for r in rows:\n        out.append(str(r))\n    return out\n"
	g.Write("app/helpers.py", body)
	origin := g.Commit("Initial import of the app")
	g.Git("mv", "app/helpers.py", "app/tables.py")
	g.Commit("Move helpers into their own module")
	for i, msg := range []string{"render_table: pad columns", "render_table: right-align numbers", "render_table: handle empty rows"} {
		body = strings.Replace(body, "    return out\n", "    out.append("+strings.Repeat("'-'", i+1)+")\n    return out\n", 1)
		g.Write("app/tables.py", body)
		g.Commit(msg)
	}
	for i := range 4 {
		g.Write("app/other.py", "x = "+strings.Repeat("1", i+1)+"\n")
		g.Commit("render_table docs tweak")
	}
	s := newSearcher(t, g, true)
	ask := func(q string) *Answer {
		t.Helper()
		a, err := s.Search(context.Background(), Request{Query: q, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := ask("How did render_table evolve?")
	i := slices.IndexFunc(a.Items, func(it Item) bool { return it.Commit == origin })
	if i < 0 || !slices.ContainsFunc(a.Items[i].Why, func(w string) bool { return strings.HasPrefix(w, "origin of ") }) {
		t.Fatalf("items %+v: want the origin %s among them, found as the origin", a.Items, origin)
	}
	// A question that does not ask how it evolved gets no origin.
	for _, it := range ask("why does render_table pad columns?").Items {
		if slices.ContainsFunc(it.Why, func(w string) bool { return strings.HasPrefix(w, "origin of ") }) {
			t.Errorf("origin given to a question that does not ask for it: %+v", it)
		}
	}
}
