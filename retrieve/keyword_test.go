package retrieve

import (
	"context"
	"slices"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

func TestKeyword(t *testing.T) {
	g := gittest.New(t)
	g.Write("config/load.go", "package config\n\nfunc parseConfigFile(p string) error {\n\treturn nil\n}\n")
	cfg := g.Commit("Read settings from disk")
	g.Write("shell/complete.go", "package shell\n\nfunc Complete() {}\n")
	comp := g.Commit("Add shell completions for zsh")
	g.Write("README.md", "# demo\n")
	g.Commit("Document the project")
	st := indexRepo(t, g)
	ctx := context.Background()
	find := func(q KeywordQuery) []string {
		t.Helper()
		hits, err := Keyword(ctx, st, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Commit)
			if h.Score <= 0 || h.Score > 1 {
				t.Errorf("score %v out of (0, 1]", h.Score)
			}
		}
		return out
	}
	// A word of a function's name finds the commit that changed it.
	if got := find(KeywordQuery{Terms: []string{"config", "parser"}}); len(got) == 0 || got[0] != cfg {
		t.Errorf("config: %v, want %s first", got, cfg)
	}
	// Stemming: "completion" finds "completions".
	if got := find(KeywordQuery{Terms: []string{"completion"}}); len(got) != 1 || got[0] != comp {
		t.Errorf("completion: %v, want [%s]", got, comp)
	}
	// The baseline searches messages only: the function name is not there.
	if got := find(KeywordQuery{Terms: []string{"parseConfigFile"}, MessagesOnly: true}); len(got) != 0 {
		t.Errorf("messages-only found %v by a function name", got)
	}
	if got := find(KeywordQuery{Terms: []string{"parseConfigFile"}}); len(got) != 1 || got[0] != cfg {
		t.Errorf("parseConfigFile: %v", got)
	}
	// FTS syntax in a query is text, not syntax.
	if got := find(KeywordQuery{Terms: []string{`"NEAR(`, "OR", "*"}}); len(got) != 0 {
		t.Errorf("syntax-like terms matched %v", got)
	}
	if _, err := st.DB.Exec(`UPDATE commits SET rewritten = 1 WHERE hash = ?`, comp); err != nil {
		t.Fatal(err)
	}
	if got := find(KeywordQuery{Terms: []string{"completion"}}); len(got) != 0 {
		t.Errorf("rewritten commit found: %v", got)
	}
	if got := find(KeywordQuery{Terms: []string{"completion"}, IncludeRewritten: true}); len(got) != 1 {
		t.Errorf("rewritten commit not found when asked: %v", got)
	}
}

// TestKeywordRewrittenCrowdTheTop: when rewritten commits outrank more
// than the limit's worth of live ones, the live ones below still come.
func TestKeywordRewrittenCrowdTheTop(t *testing.T) {
	g := gittest.New(t)
	var live []string
	for i := range 8 {
		g.Write("f.txt", string(rune('a'+i)))
		if i < 5 {
			g.Commit("parser parser parser parser: rewrite the parser")
		} else {
			live = append(live, g.Commit("touch the parser once, among other things"))
		}
	}
	st := indexRepo(t, g)
	if _, err := st.DB.Exec(`UPDATE commits SET rewritten = 1 WHERE subject LIKE 'parser parser%'`); err != nil {
		t.Fatal(err)
	}
	hits, err := Keyword(context.Background(), st, KeywordQuery{Terms: []string{"parser"}, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("%d hits, want the 2 best live commits though 5 rewritten ones rank above them", len(hits))
	}
	for _, h := range hits {
		if h.Commit == "" || !slices.Contains(live, h.Commit) {
			t.Errorf("hit %s is not a live commit", h.Commit)
		}
	}
}
