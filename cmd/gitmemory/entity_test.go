package main

import (
	"encoding/json"
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
	_, errOut, code := cli(t, home, "entity", "Summ", "--repo", g.Dir)
	if code == 0 || !strings.Contains(errOut, `unknown entity "Summ": the closest indexed name is "Sum"`) {
		t.Errorf("unknown entity: exit %d, %q", code, errOut)
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
