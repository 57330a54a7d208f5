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

// lookupSample builds, registers and syncs a repository whose history is
// dated 2024 (gittest.Epoch): older than the default 90-day window, so
// tests pass --days or a configured window.
func lookupSample(t *testing.T, home string) (*gittest.Repo, map[string]string) {
	g := gittest.New(t)
	g.Git("remote", "add", "origin", "git@github.com:acme/demo.git")
	h := map[string]string{}
	g.Write("auth/token.go", "package auth\n\nfunc Parse() {}\n")
	h["feat"] = g.Commit("feat: add token parser")
	g.Write("http/header.go", "package http\n")
	h["sec"] = g.Commit("security: escape header values\n\nFixes CVE-2024-1234.")
	g.Write("auth/token.go", "package auth\n\nfunc Parse() { check() }\n")
	h["fix"] = g.Commit("fix: reject expired tokens (fixes #12)")
	mustCLI(t, home, "add", g.Dir, "--name", "demo")
	mustCLI(t, home, "sync", "demo", "-q")
	return g, h
}

// lookupJSON is the command's JSON answer.
type lookupJSON struct {
	Repository   string           `json:"repository"`
	Paths        []string         `json:"paths"`
	Fingerprints []string         `json:"fingerprints"`
	WindowDays   int              `json:"window_days"`
	Limit        int              `json:"limit"`
	More         bool             `json:"more"`
	Matches      []map[string]any `json:"matches"`
}

func lookupAsJSON(t *testing.T, home string, args ...string) lookupJSON {
	t.Helper()
	var res lookupJSON
	out := mustCLI(t, home, append([]string{"lookup", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("lookup %v: %v\n%s", args, err, out)
	}
	return res
}

func matchIDs(res lookupJSON) []string {
	var out []string
	for _, m := range res.Matches {
		out = append(out, m["id"].(string))
	}
	return out
}

func TestLookupText(t *testing.T) {
	home := t.TempDir()
	g, h := lookupSample(t, home)
	// The history is from 2024: outside the default window.
	if out := mustCLI(t, home, "lookup", "demo", "--path", "auth/token.go"); out != "demo: no related changes in the last 90 days\n" {
		t.Errorf("default window: %q", out)
	}
	out := mustCLI(t, home, "lookup", "demo", "--path", "./auth//token.go", "--path", "http/", "--days", "36500", "--limit", "2")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{
		"demo: the first 2 related changes in the last 36500 days",
		"critical  2024-03-01  security       " + h["sec"][:12] + "  ",
		"          https://github.com/acme/demo/commit/" + h["sec"],
		"medium    2024-03-01  bugfix         " + h["fix"][:12] + "  ",
		"          https://github.com/acme/demo/commit/" + h["fix"],
		"more match: --limit 10 shows more",
	}
	if len(lines) != len(want) {
		t.Fatalf("output:\n%s", out)
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("line %d: %q, want it to start with %q", i, lines[i], want[i])
		}
	}
	if !strings.Contains(strings.ToLower(lines[3]), "reject expired tokens") {
		t.Errorf("no summary in %q", lines[3])
	}
	// An absolute path inside the work tree is made relative.
	res := lookupAsJSON(t, home, "demo", "--path", filepath.Join(g.Dir, "auth", "token.go"), "--days", "36500")
	if !slices.Equal(res.Paths, []string{"auth/token.go"}) || !slices.Equal(matchIDs(res), []string{h["fix"], h["feat"]}) {
		t.Errorf("absolute path: %+v", res)
	}
}

func TestLookupJSONAndConfig(t *testing.T) {
	home := t.TempDir()
	_, h := lookupSample(t, home)
	res := lookupAsJSON(t, home, "demo", "--path", "auth", "--fingerprint", "cve-2024-1234", "--days", "36500")
	if res.Repository != "demo" || res.More || res.Limit != 3 || res.WindowDays != 36500 ||
		!slices.Equal(matchIDs(res), []string{h["sec"], h["fix"], h["feat"]}) {
		t.Errorf("json: %+v", res)
	}
	if len(res.Fingerprints) != 2 || !strings.HasPrefix(res.Fingerprints[0], "paths:") || res.Fingerprints[1] != "CVE-2024-1234" {
		t.Errorf("fingerprints %q", res.Fingerprints)
	}
	// Seed 000's fields, and no others.
	m := res.Matches[1]
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"date", "id", "link", "summary", "type"}) {
		t.Errorf("match fields %v", keys)
	}
	if m["type"] != "bugfix" || m["link"] != "https://github.com/acme/demo/commit/"+h["fix"] ||
		!strings.HasPrefix(m["date"].(string), "2024-03-01T") || !strings.Contains(strings.ToLower(m["summary"].(string)), "expired tokens") {
		t.Errorf("match %v", m)
	}

	// The configuration file sets the defaults; flags override it.
	cfg := "[lookup]\nmax_matches = 1\nwindow_days = 36500\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := lookupAsJSON(t, home, "demo", "--path", "auth"); res.Limit != 1 || !res.More || len(res.Matches) != 1 {
		t.Errorf("configured: %+v", res)
	}
	if res := lookupAsJSON(t, home, "demo", "--path", "auth", "--limit", "5"); len(res.Matches) != 2 {
		t.Errorf("--limit over the configuration: %+v", res)
	}
	if res := lookupAsJSON(t, home, "demo", "--path", "auth", "--days", "30"); res.More || res.Matches == nil || len(res.Matches) != 0 {
		t.Errorf("--days over the configuration: %+v", res)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[lookup]\nmax_matchs = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := cli(t, home, "lookup", "demo", "--path", "auth"); code == 0 || !strings.Contains(errOut, "unknown key lookup.max_matchs") {
		t.Errorf("bad config: %d %q", code, errOut)
	}
}

func TestLookupStaged(t *testing.T) {
	home := t.TempDir()
	g, h := lookupSample(t, home)
	// Without NAME|PATH: the repository containing the current directory.
	t.Chdir(filepath.Join(g.Dir, "auth"))
	if _, errOut, code := cli(t, home, "lookup", "--staged"); code == 0 || !strings.Contains(errOut, "nothing is staged") {
		t.Errorf("nothing staged: %d %q", code, errOut)
	}
	g.Write("http/header.go", "package http\n\n// changed\n")
	g.Write("notes.txt", "new\n")
	g.Git("add", "http/header.go", "notes.txt")
	g.Write("auth/token.go", "unstaged\n")
	res := lookupAsJSON(t, home, "--staged", "--days", "36500")
	if !slices.Equal(res.Paths, []string{"http/header.go", "notes.txt"}) || !slices.Equal(matchIDs(res), []string{h["sec"]}) {
		t.Errorf("staged: %+v", res)
	}
	// --staged and --path add up.
	res = lookupAsJSON(t, home, "--staged", "--path", "auth/token.go", "--days", "36500", "--limit", "9")
	if !slices.Equal(matchIDs(res), []string{h["sec"], h["fix"], h["feat"]}) {
		t.Errorf("staged and path: %+v", res)
	}

	bare := filepath.Join(t.TempDir(), "bare.git")
	g.Git("clone", "-q", "--bare", g.Dir, bare)
	mustCLI(t, home, "add", bare, "--name", "bare")
	if _, errOut, code := cli(t, home, "lookup", "bare", "--staged"); code == 0 || !strings.Contains(errOut, "bare repository") {
		t.Errorf("bare: %d %q", code, errOut)
	}
}

func TestLookupErrors(t *testing.T) {
	home := t.TempDir()
	lookupSample(t, home)
	other := gittest.New(t)
	other.Write("a", "a\n")
	other.Commit("first")
	mustCLI(t, home, "add", other.Dir, "--name", "other")
	t.Chdir(t.TempDir())
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"lookup", "demo"}, "nothing to look up"},
		{[]string{"lookup", "demo", "--path", "."}, "repository root"},
		{[]string{"lookup", "demo", "--fingerprint", "paths:zz"}, "16 hex digits"},
		{[]string{"lookup", "demo", "--path", "a", "--head", "xyz"}, "not a commit hash"},
		{[]string{"lookup", "demo", "--path", "a", "--limit", "-2"}, "positive"},
		{[]string{"lookup", "dmeo", "--path", "a"}, `did you mean "demo"`},
		{[]string{"lookup", "--path", "a"}, "(demo, other): choose one with --repo NAME"},
		{[]string{"lookup", "demo", "--repo", "other", "--path", "a"}, "named twice"},
	}
	for _, tc := range cases {
		_, errOut, code := cli(t, home, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, code, errOut, tc.want)
		}
	}
	help := mustCLI(t, home, "lookup", "--help")
	for _, want := range []string{"--staged", "--fingerprint", "critical", "[lookup]", "max_matches = 3", "window_days = 90"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}
