package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

func TestEntityCommand(t *testing.T) {
	home := t.TempDir()
	g := gittest.New(t)
	g.Write("calc.go", "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n")
	g.Write("calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n")
	first := g.Commit("feat: add Add")
	g.Write("calc.go", "package calc\n\n// Sum adds.\nfunc Sum(a, b int) int {\n\treturn a + b\n}\n")
	renamed := g.Commit("refactor: rename Add to Sum")
	g.Write("calc.go", "package calc\n\n// Sum adds.\nfunc Sum(a, b int) int {\n\treturn b + a\n}\n")
	fixed := g.Commit("fix: commutative order in Sum because callers rely on it")
	mustCLI(t, home, "sync", g.Dir)

	var r struct {
		Entity struct {
			Key, Kind string
		} `json:"entity"`
		History []struct {
			Commit, Action, Classification, Entity, Replaces string
		} `json:"history"`
		Renames []string `json:"renames"`
		Tests   []struct {
			ID string `json:"id"`
		} `json:"tests"`
	}
	out := mustCLI(t, home, "entity", "Sum", "--repo", g.Dir, "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Entity.Key != "calc.go#calc.Sum" || r.Entity.Kind != "function" {
		t.Errorf("entity = %+v", r.Entity)
	}
	var got []string
	for _, e := range r.History {
		got = append(got, e.Commit[:7]+" "+e.Action+" "+e.Classification+" "+e.Entity)
	}
	want := []string{
		fixed[:7] + " modifies bugfix calc.go#calc.Sum",
		renamed[:7] + " introduces refactor calc.go#calc.Sum",
		first[:7] + " introduces feature calc.go#calc.Add",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("history:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(r.Renames) != 1 || r.Renames[0] != "calc.go#calc.Add → calc.go#calc.Sum" {
		t.Errorf("renames = %q", r.Renames)
	}
	if len(r.Tests) == 0 || r.Tests[0].ID != "file:calc_test.go" {
		t.Errorf("tests = %+v, want calc_test.go", r.Tests)
	}

	text := mustCLI(t, home, "entity", "calc.Sum", "--repo", g.Dir)
	for _, s := range []string{"function calc.Sum", "introduced: " + first[:12], "renamed:    calc.go#calc.Add → calc.go#calc.Sum", "calc_test.go"} {
		if !strings.Contains(text, s) {
			t.Errorf("text output lacks %q:\n%s", s, text)
		}
	}
	// Seed 002: a misspelt name matches the closest at or above
	// MATCH_THRESHOLD (0.4): Summ → Sum scores 0.7 × 0.75 + 0.3 × 0.
	text = mustCLI(t, home, "entity", "Summ", "--repo", g.Dir)
	if !strings.Contains(text, "function calc.Sum") || !strings.Contains(text, `matched:    "Summ" is no entity; Sum scores 0.53 (threshold 0.40)`) {
		t.Errorf("fuzzy match of Summ:\n%s", text)
	}
	t.Setenv("MATCH_THRESHOLD", "0.99")
	_, errOut, code := cli(t, home, "entity", "Summ", "--repo", g.Dir)
	if code == 0 || !strings.Contains(errOut, `unknown entity "Summ": no name scores 0.99 or more (MATCH_THRESHOLD); closest: Sum (0.53)`) {
		t.Errorf("MATCH_THRESHOLD=0.99: exit %d, %q", code, errOut)
	}
	t.Setenv("MATCH_THRESHOLD", "")
	t.Setenv("MATCH_KEYWORD_WEIGHT", "0.9") // Summ shares no name part with Sum: 0.1 × 0.75
	if _, errOut, code := cli(t, home, "entity", "Summ", "--repo", g.Dir); code == 0 || !strings.Contains(errOut, "no name scores 0.40 or more") || !strings.Contains(errOut, "closest: Sum (0.07)") {
		t.Errorf("MATCH_KEYWORD_WEIGHT=0.9 (no shared name parts): exit %d, %q", code, errOut)
	}
	for env, val := range map[string]string{"MATCH_THRESHOLD": "high", "MATCH_FUZZY_WEIGHT": "1.5"} {
		t.Setenv("MATCH_KEYWORD_WEIGHT", "")
		t.Setenv(env, val)
		if _, errOut, code := cli(t, home, "entity", "Sum", "--repo", g.Dir); code == 0 || !strings.Contains(errOut, env+`="`+val+`": want a number from 0 to 1`) {
			t.Errorf("%s=%s: exit %d, %q", env, val, code, errOut)
		}
		t.Setenv(env, "")
	}
	t.Setenv("MATCH_FUZZY_WEIGHT", "0.5")
	t.Setenv("MATCH_KEYWORD_WEIGHT", "0.3")
	if _, errOut, code := cli(t, home, "entity", "Sum", "--repo", g.Dir); code == 0 || !strings.Contains(errOut, "must add up to 1") {
		t.Errorf("weights 0.5 + 0.3: exit %d, %q", code, errOut)
	}
}

func TestHistoryAndRecentCommands(t *testing.T) {
	home := t.TempDir()
	g := sample(t)
	g.Git("mv", "main.go", "app.go")
	renamed := g.Commit("refactor: rename main.go to app.go")
	mustCLI(t, home, "sync", g.Dir)
	var cs []struct {
		Commit, Path, OldPath, Status, Classification string
	}
	out := mustCLI(t, home, "history", "app.go", "--repo", g.Dir, "--json")
	if err := json.Unmarshal([]byte(out), &cs); err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(g.Git("log", "--follow", "--format=%H", "--", "app.go"))
	if len(cs) != len(want) || len(cs) != 3 || cs[0].Commit != renamed || cs[0].Status != "renamed" || cs[2].Path != "main.go" {
		t.Errorf("history = %+v, want %v", cs, want)
	}
	text := mustCLI(t, home, "history", "app.go", "--repo", g.Dir, "--since", "2024-03-01", "--limit", "1")
	if n := strings.Count(strings.TrimSpace(text), "\n") + 1; n != 1 || !strings.Contains(text, "(main.go → app.go)") {
		t.Errorf("history --limit 1:\n%s", text)
	}
	if _, errOut, code := cli(t, home, "history", "app.go", "--repo", g.Dir, "--since", "yesterday-ish"); code == 0 || !strings.Contains(errOut, "--since") {
		t.Errorf("bad --since: exit %d %q", code, errOut)
	}
	out = mustCLI(t, home, "recent", "--repo", g.Dir, "--days", "100000", "--json")
	if err := json.Unmarshal([]byte(out), &cs); err != nil || len(cs) != 3 {
		t.Errorf("recent: %d commits (%v)", len(cs), err)
	}
	if out := mustCLI(t, home, "recent", "--repo", g.Dir, "--days", "1"); !strings.Contains(out, "no indexed commit in the last 1 days") {
		t.Errorf("recent nothing: %q", out)
	}
}

func TestQueryAndEvalCommands(t *testing.T) {
	home := t.TempDir()
	g := sample(t)
	g.Write("upload.go", "package main\n\nfunc retryUpload() {}\n")
	retry := g.Commit("Retry uploads because flaky proxies drop connections")
	mustCLI(t, home, "sync", g.Dir)

	md := mustCLI(t, home, "query", "why do uploads retry?", "--repo", g.Dir, "--tokens", "800")
	for _, s := range []string{"# Context pack: why do uploads retry?", "[hybrid]", retry[:7], "## Key commits"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown pack lacks %q:\n%s", s, md)
		}
	}
	var pack struct {
		Metadata struct {
			TokenCount int    `json:"token_count"`
			Mode       string `json:"mode"`
		} `json:"metadata"`
		KeyItems []struct {
			Hash string `json:"hash"`
		} `json:"key_items"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, home, "query", "why do uploads retry?", "--repo", g.Dir, "--json")), &pack); err != nil {
		t.Fatal(err)
	}
	if len(pack.KeyItems) == 0 || pack.KeyItems[0].Hash != retry || pack.Metadata.TokenCount > 4000 || pack.Metadata.TokenCount == 0 {
		t.Errorf("json pack: %+v", pack)
	}
	for _, bad := range [][]string{{"--format", "yaml"}, {"--mode", "fast"}, {"--intent", "guess"}} {
		args := append([]string{"query", "retry", "--repo", g.Dir}, bad...)
		if _, errOut, code := cli(t, home, args...); code == 0 || errOut == "" {
			t.Errorf("query %v: exit %d, stderr %q", bad, code, errOut)
		}
	}

	evalFile := filepath.Join(t.TempDir(), "cases.jsonl")
	os.WriteFile(evalFile, []byte(`{"id": "q1", "kind": "why", "question": "why do uploads retry?", "expected": ["`+retry+`"]}`+"\n"+
		`{"id": "h1", "path": "upload.go", "expected": ["`+retry+`"]}`+"\n"), 0o600)
	var reps []struct {
		Ranker string
		All    struct {
			Cases int
			MRR   float64 `json:"mrr"`
		}
	}
	if err := json.Unmarshal([]byte(mustCLI(t, home, "eval", evalFile, "--repo", g.Dir, "--json")), &reps); err != nil {
		t.Fatal(err)
	}
	if len(reps) != 3 || reps[0].Ranker != "gitmemory" || reps[0].All.Cases != 2 || reps[0].All.MRR != 1 {
		t.Errorf("eval: %+v", reps)
	}
	os.WriteFile(evalFile, []byte(`{"id": "q1", "question": "x", "expected": ["abc"]}`+"\n"), 0o600)
	if _, errOut, code := cli(t, home, "eval", evalFile, "--repo", g.Dir); code == 0 || !strings.Contains(errOut, "line 1") {
		t.Errorf("bad eval file: exit %d, %q", code, errOut)
	}
}
