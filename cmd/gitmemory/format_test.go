package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// formatFixture is one synced repository for the output-format tests:
// a function changed three times, a renamed file, a fix naming an issue.
type formatFixture struct {
	home string
	g    *gittest.Repo
	hash map[string]string
}

func newFormatFixture(t *testing.T) *formatFixture {
	t.Helper()
	f := &formatFixture{home: t.TempDir(), g: gittest.New(t), hash: map[string]string{}}
	g := f.g
	g.Write("upload.go", "package up\n\nfunc Upload(b []byte) error {\n\treturn send(b)\n}\n")
	f.hash["feat"] = g.Commit("feat: upload files")
	g.Write("upload.go", "package up\n\nfunc Upload(b []byte) error {\n\tfor i := 0; i < 3; i++ {\n\t\tif send(b) == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn errFailed\n}\n")
	f.hash["fix"] = g.Commit("fix: retry uploads because flaky proxies drop connections (fixes #7)")
	g.Git("mv", "upload.go", "transfer.go")
	f.hash["mv"] = g.Commit("refactor: rename upload.go to transfer.go")
	mustCLI(t, f.home, "add", g.Dir, "--name", "demo")
	mustCLI(t, f.home, "sync", "demo", "-q")
	return f
}

// decode unmarshals out into v and checks that every object the
// documented shape names carries its documented keys: a renamed or
// dropped field breaks this test, an added one does not (docs/json.md).
func decode(t *testing.T, out string, v any, keys ...string) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var raw any
	json.Unmarshal([]byte(out), &raw)
	obj, ok := raw.(map[string]any)
	if list, isList := raw.([]any); isList {
		if len(list) == 0 {
			t.Fatalf("empty list, nothing to check:\n%s", out)
		}
		obj, ok = list[0].(map[string]any)
	}
	if !ok {
		t.Fatalf("want an object or a list of objects:\n%s", out)
	}
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("JSON lacks the documented key %q:\n%s", k, out)
		}
	}
}

// TestEveryCommandDecodes runs each result-printing command with
// --format json and decodes what it prints.
func TestEveryCommandDecodes(t *testing.T) {
	f := newFormatFixture(t)
	run := func(args ...string) string {
		return mustCLI(t, f.home, append(args, "--format", "json")...)
	}
	t.Run("list", func(t *testing.T) {
		var repos []struct{ Name, Path string }
		decode(t, run("list"), &repos, "name", "path", "default_branch", "branch_mode", "created_at", "last_synced_at", "languages")
		if len(repos) != 1 || repos[0].Name != "demo" || repos[0].Path != f.g.Dir {
			t.Errorf("list: %+v", repos)
		}
	})
	t.Run("status", func(t *testing.T) {
		var st struct {
			Name    string
			Indexed int
		}
		decode(t, run("status", "demo"), &st, "name", "path", "indexed", "queued", "failed", "rewritten", "branches", "classes")
		if st.Name != "demo" || st.Indexed != 3 {
			t.Errorf("status: %+v", st)
		}
		var all []struct{ Name string }
		decode(t, run("status"), &all, "name", "indexed")
		if len(all) != 1 || all[0].Name != "demo" {
			t.Errorf("status of all: %+v", all)
		}
	})
	t.Run("sync", func(t *testing.T) {
		var rep struct {
			Name    string
			Indexed int
		}
		decode(t, run("sync", "demo"), &rep, "name", "indexed", "branches")
		if rep.Name != "demo" || rep.Indexed != 0 {
			t.Errorf("sync with nothing new: %+v", rep)
		}
	})
	t.Run("history", func(t *testing.T) {
		var cs []struct {
			Commit, Path, Status, Classification string
			OldPath                              string `json:"old_path"`
		}
		decode(t, run("history", "transfer.go", "--repo", "demo"), &cs, "commit", "when", "author", "subject", "classification", "path", "status", "insertions", "deletions")
		if len(cs) != 3 || cs[0].Commit != f.hash["mv"] || cs[0].OldPath != "upload.go" || cs[1].Classification != "bugfix" {
			t.Errorf("history: %+v", cs)
		}
	})
	t.Run("recent", func(t *testing.T) {
		var cs []struct{ Commit string }
		decode(t, run("recent", "--repo", "demo", "--days", "100000"), &cs, "commit", "when", "subject", "classification")
		if len(cs) != 3 || cs[2].Commit != f.hash["feat"] {
			t.Errorf("recent: %+v", cs)
		}
	})
	t.Run("entity", func(t *testing.T) {
		var r struct {
			Entity  struct{ Key, Kind, Qualified string }
			History []struct{ Commit, Action string }
		}
		decode(t, run("entity", "Upload", "--repo", "demo"), &r, "entity", "history", "deleted")
		if r.Entity.Qualified != "up.Upload" || len(r.History) < 2 || r.History[len(r.History)-1].Commit != f.hash["feat"] {
			t.Errorf("entity: %+v", r)
		}
	})
	t.Run("lookup", func(t *testing.T) {
		var r struct {
			Repository string
			Matches    []struct{ ID, Type string }
		}
		decode(t, run("lookup", "demo", "--fingerprint", "#7", "--days", "100000"), &r, "repository", "paths", "fingerprints", "window_days", "limit", "more", "matches")
		if r.Repository != "demo" || len(r.Matches) != 1 || r.Matches[0].ID != f.hash["fix"] {
			t.Errorf("lookup: %+v", r)
		}
	})
	t.Run("query", func(t *testing.T) {
		var pack struct {
			KeyItems []struct{ Hash string } `json:"key_items"`
		}
		decode(t, run("query", "why do uploads retry?", "--repo", "demo"), &pack, "metadata", "summary", "key_items")
		if len(pack.KeyItems) == 0 || pack.KeyItems[0].Hash != f.hash["fix"] {
			t.Errorf("query pack: %+v", pack)
		}
		var ans struct {
			Mode  string
			Items []struct {
				Commit     string
				Score      float64
				Components map[string]float64
			}
		}
		decode(t, run("query", "why do uploads retry?", "--repo", "demo", "--list", "--debug"), &ans, "query", "intent", "mode", "degraded", "items")
		if len(ans.Items) == 0 || ans.Items[0].Commit != f.hash["fix"] || ans.Items[0].Components["relevance"] == 0 {
			t.Errorf("query --list: %+v", ans)
		}
	})
	t.Run("query --full", func(t *testing.T) {
		var pack struct {
			KeyItems []struct{ Hash, Tier, Confidence, Message, Diff, Verify string } `json:"key_items"`
		}
		decode(t, run("query", "why do uploads retry?", "--repo", "demo", "--full", "--max-results", "2"), &pack, "metadata", "key_items")
		if len(pack.KeyItems) == 0 || len(pack.KeyItems) > 2 {
			t.Fatalf("--max-results 2: %d key items", len(pack.KeyItems))
		}
		k := pack.KeyItems[0]
		// Soft: it states a reason, but its only file was renamed away since.
		if k.Hash != f.hash["fix"] || k.Tier != "soft" || k.Confidence != "S1" || !strings.Contains(k.Message, "flaky proxies") ||
			!strings.Contains(k.Diff, "send(b) == nil") || k.Verify != "git show "+f.hash["fix"]+" -- upload.go" {
			t.Errorf("--full key item: %+v", k)
		}
	})
	t.Run("query --out --commit-id", func(t *testing.T) {
		out := t.TempDir()
		mustCLI(t, f.home, "query", "why do uploads retry?", "--repo", "demo", "--out", out, "--commit-id", f.hash["feat"][:12])
		mustCLI(t, f.home, "query", "why was upload.go renamed?", "--repo", "demo", "--out", out)
		data, err := os.ReadFile(filepath.Join(out, "post_response_commits.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		var rows []struct {
			CommitID string `json:"commit_id"`
			Anchor   string
			Deltas   []string
		}
		for _, l := range lines {
			var r struct {
				CommitID string `json:"commit_id"`
				Anchor   string
				Deltas   []string
			}
			decode(t, l, &r, "commit_id", "pack", "generated_at", "anchor", "deltas")
			rows = append(rows, r)
		}
		// The first names its commit and anchors there; the second anchors
		// at the log's latest row, the first.
		want := []string{f.hash["mv"], f.hash["fix"]}
		if len(rows) != 2 || rows[0].CommitID != f.hash["feat"][:12] || rows[0].Anchor != f.hash["feat"][:12] ||
			!slices.Equal(rows[0].Deltas, want) || rows[1].Anchor != f.hash["feat"][:12] || !slices.Equal(rows[1].Deltas, want) {
			t.Errorf("pack log rows: %+v", rows)
		}
		if _, errOut, code := cli(t, f.home, "query", "why?", "--repo", "demo", "--commit-id", "abc"); code == 0 || !strings.Contains(errOut, "give --out too") {
			t.Errorf("--commit-id without --out: exit %d, %q", code, errOut)
		}
	})
	t.Run("health", func(t *testing.T) {
		var r struct{ Repository string }
		decode(t, run("health", "demo"), &r, "repository", "entries", "hard_entries", "queued", "failed", "stale",
			"stale_checked", "stale_eligible", "stale_days", "source_warnings")
		if r.Repository != "demo" {
			t.Errorf("health: %+v", r)
		}
	})
	t.Run("show", func(t *testing.T) {
		var c struct {
			Hash   string
			Issues []string
		}
		decode(t, run("show", f.hash["fix"][:8], "--repo", "demo"), &c, "hash", "parents", "author", "committer", "subject",
			"message", "classification", "merge", "rewritten", "files", "issues", "design_notes", "entities")
		if c.Hash != f.hash["fix"] || !slices.Equal(c.Issues, []string{"#7"}) {
			t.Errorf("show: %+v", c)
		}
		decode(t, run("show", "HEAD", "--repo", "demo"), &c, "hash")
		if c.Hash != f.hash["mv"] {
			t.Errorf("show HEAD: %s, want the default branch's head %s", c.Hash, f.hash["mv"])
		}
	})
	t.Run("log", func(t *testing.T) {
		var es []struct{ Commit string }
		decode(t, run("log", f.hash["feat"]+".."+f.hash["mv"], "--repo", "demo"), &es, "commit", "when", "author", "email", "subject", "classification")
		if len(es) != 2 || es[0].Commit != f.hash["mv"] || es[1].Commit != f.hash["fix"] {
			t.Errorf("log feat..mv: %+v", es)
		}
	})
	t.Run("entity --search", func(t *testing.T) {
		var hits []struct{ Key string }
		decode(t, run("entity", "--search", "upl", "--repo", "demo"), &hits, "key", "path", "qualified", "name", "kind", "language", "changes", "last_changed")
		if len(hits) == 0 || !strings.HasSuffix(hits[0].Key, "#up.Upload") {
			t.Errorf("entity --search upl: %+v", hits)
		}
	})
	t.Run("eval", func(t *testing.T) {
		set := filepath.Join(t.TempDir(), "set.jsonl")
		os.WriteFile(set, []byte(`{"id":"q1","kind":"why","question":"why do uploads retry?","expected":["`+f.hash["fix"]+`"]}`+"\n"), 0o600)
		var reps []struct {
			Ranker string
			All    struct{ Cases int }
		}
		decode(t, run("eval", set, "--repo", "demo"), &reps, "ranker", "split", "all", "by_kind")
		if len(reps) != 3 || reps[0].Ranker != "gitmemory" || reps[0].All.Cases != 1 {
			t.Errorf("eval: %+v", reps)
		}
	})
	t.Run("add", func(t *testing.T) {
		other := gittest.New(t)
		other.Write("a", "a\n")
		other.Commit("first")
		var r struct{ Name string }
		decode(t, mustCLI(t, t.TempDir(), "add", other.Dir, "--name", "x", "--format", "json"), &r, "name", "path")
		if r.Name != "x" {
			t.Errorf("add: %+v", r)
		}
	})
}

// TestJSONAliasAndFormatErrors: --json is --format json, and a wrong
// or contradictory format is one clear error.
func TestJSONAliasAndFormatErrors(t *testing.T) {
	f := newFormatFixture(t)
	for _, args := range [][]string{{"list"}, {"status", "demo"}, {"history", "transfer.go", "--repo", "demo"}, {"entity", "Upload", "--repo", "demo"}} {
		alias := mustCLI(t, f.home, append(args, "--json")...)
		long := mustCLI(t, f.home, append(args, "--format", "json")...)
		if alias != long || !json.Valid([]byte(alias)) {
			t.Errorf("%v: --json and --format json differ:\n%s\n%s", args, alias, long)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "--format", "yaml"}, `--format "yaml": want text, json or markdown`},
		{[]string{"sync", "demo", "--format", "markdown"}, "want text or json"},
		{[]string{"history", "transfer.go", "--repo", "demo", "--json", "--format", "markdown"}, "disagree"},
	} {
		_, errOut, code := cli(t, f.home, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestMarkdownOutput: --format markdown prints tables that keep a
// subject's pipe inside its cell.
func TestMarkdownOutput(t *testing.T) {
	f := newFormatFixture(t)
	f.g.Write("transfer.go", "package up\n\nfunc Upload(b []byte) error { return nil }\n")
	f.g.Commit("perf: drop retries | they hid errors")
	mustCLI(t, f.home, "sync", "demo", "-q")
	hist := mustCLI(t, f.home, "history", "transfer.go", "--repo", "demo", "--format", "markdown")
	for _, want := range []string{"| commit | date | type | summary | renamed |", "|---|---|---|---|---|", `retries \| they`, "upload.go → transfer.go"} {
		if !strings.Contains(hist, want) {
			t.Errorf("history markdown lacks %q:\n%s", want, hist)
		}
	}
	for _, args := range [][]string{{"list"}, {"status", "demo"}, {"entity", "Upload", "--repo", "demo"},
		{"lookup", "demo", "--path", "transfer.go", "--days", "100000"}, {"query", "why retry uploads?", "--repo", "demo", "--list"}} {
		out := mustCLI(t, f.home, append(args, "--format", "markdown")...)
		if !strings.Contains(out, "|---|") {
			t.Errorf("%v --format markdown has no table:\n%s", args, out)
		}
	}
}

// TestDebugTable: --debug prints a row per result with each component
// and the total, not a Go map.
func TestDebugTable(t *testing.T) {
	f := newFormatFixture(t)
	out := mustCLI(t, f.home, "query", "why do uploads retry?", "--repo", "demo", "--list", "--debug")
	if strings.Contains(out, "map[") {
		t.Errorf("--debug prints a Go map:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	hdr := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "commit") && strings.Contains(l, "total") })
	if hdr < 0 {
		t.Fatalf("no component table:\n%s", out)
	}
	for _, col := range []string{"relevance", "relationship", "bonus", "prior_scale", "bm25", "vector"} {
		if !strings.Contains(lines[hdr], col) {
			t.Errorf("table header lacks %q: %q", col, lines[hdr])
		}
	}
	if row := strings.Fields(lines[hdr+1]); len(row) != len(strings.Fields(lines[hdr])) || row[1] != short(f.hash["fix"]) {
		t.Errorf("first row %q does not line up with %q or is not the fix", lines[hdr+1], lines[hdr])
	}
	if !strings.Contains(out, "total = (relevance + relationship + bonus) × prior_scale") {
		t.Errorf("no legend saying how the total is made:\n%s", out)
	}
	// Beside a pack, the table goes to stderr so the pack stays pipeable.
	stdout, stderr, code := cli(t, f.home, "query", "why do uploads retry?", "--repo", "demo", "--debug")
	if code != 0 || !strings.Contains(stderr, "prior_scale") || strings.Contains(stdout, "prior_scale") {
		t.Errorf("--debug with a pack: stdout %q stderr %q", stdout, stderr)
	}
}

// TestWorksFromAnywhere: outside any work tree the only registered
// repository is used; with several, the error names them and --repo.
func TestWorksFromAnywhere(t *testing.T) {
	f := newFormatFixture(t)
	t.Chdir(t.TempDir())
	for _, args := range [][]string{{"history", "transfer.go"}, {"recent", "--days", "100000"}, {"entity", "Upload"},
		{"query", "why do uploads retry?", "--list"}, {"lookup", "--fingerprint", "#7", "--days", "100000"}} {
		if out := mustCLI(t, f.home, args...); !strings.Contains(out, short(f.hash["fix"])) && !strings.Contains(out, f.hash["fix"][:7]) {
			t.Errorf("%v from outside a work tree:\n%s", args, out)
		}
	}
	other := gittest.New(t)
	other.Write("a.go", "package a\n")
	other.Commit("feat: a")
	mustCLI(t, f.home, "add", other.Dir, "--name", "second")
	for _, args := range [][]string{{"history", "transfer.go"}, {"entity", "Upload"}, {"lookup", "--path", "a.go"}} {
		_, errOut, code := cli(t, f.home, args...)
		if code == 0 || !strings.Contains(errOut, "demo, second") || !strings.Contains(errOut, "--repo") {
			t.Errorf("%v with two registered: exit %d, %q", args, code, errOut)
		}
	}
	// Inside a work tree that is not registered, nothing answers from
	// another repository.
	stranger := gittest.New(t)
	stranger.Write("s", "s\n")
	stranger.Commit("s")
	t.Chdir(stranger.Dir)
	mustCLI(t, f.home, "remove", "second")
	if _, errOut, code := cli(t, f.home, "history", "transfer.go"); code == 0 || !strings.Contains(errOut, "is not registered") {
		t.Errorf("inside an unregistered work tree: exit %d, %q", code, errOut)
	}
}

// TestQueryLimitFromConfig: without --limit, [search] limit in
// config.toml decides; --limit overrides it.
func TestQueryLimitFromConfig(t *testing.T) {
	f := newFormatFixture(t)
	os.WriteFile(filepath.Join(f.home, configFile), []byte("[search]\nlimit = 1\n"), 0o600)
	count := func(args ...string) int {
		var ans struct{ Items []json.RawMessage }
		decode(t, mustCLI(t, f.home, append([]string{"query", "upload retry rename", "--repo", "demo", "--list", "--json"}, args...)...), &ans, "items")
		return len(ans.Items)
	}
	if n := count(); n != 1 {
		t.Errorf("config limit 1: %d items", n)
	}
	if n := count("--limit", "3"); n < 2 {
		t.Errorf("--limit 3 over config limit 1: %d items", n)
	}
}
