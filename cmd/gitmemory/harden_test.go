package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDestructiveInputIsRefused: an empty name or home, and a token
// nobody can send, are errors that name what is wrong, and nothing is
// deleted or written.
func TestDestructiveInputIsRefused(t *testing.T) {
	home := t.TempDir()
	g := sample(t)
	mustCLI(t, home, "add", g.Dir, "--name", "demo")
	mustCLI(t, home, "sync", "demo")

	// Standing in the registered work tree, "" would resolve to it.
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	if err := os.Chdir(g.Dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "  "} {
		if _, stderr, code := cli(t, home, "remove", name); code == 0 || !strings.Contains(stderr, "name is empty") {
			t.Errorf("remove %q: exit %d, %q", name, code, stderr)
		}
	}
	if out := mustCLI(t, home, "list"); !strings.Contains(out, "demo") {
		t.Errorf("after the refused removals, list says %q", out)
	}

	cwd := t.TempDir()
	os.Chdir(cwd)
	var out, errb strings.Builder
	if code := run(t.Context(), []string{"--home", "", "list"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--home is empty") {
		t.Errorf("--home \"\": exit %d, %q", code, errb.String())
	}
	if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
		t.Errorf("--home \"\" wrote %d entries into the current directory", len(entries))
	}

	for _, tok := range []string{" ", "\t\n", "short", "has space inside the token!"} {
		t.Setenv("GITMEMORY_TOKEN", tok)
		if _, stderr, code := cli(t, home, "daemon", "--listen", "0.0.0.0:0"); code == 0 || !strings.Contains(stderr, "GITMEMORY_TOKEN") {
			t.Errorf("GITMEMORY_TOKEN=%q: exit %d, %q", tok, code, stderr)
		}
	}

	huge := strings.Repeat("x", 100_000)
	_, stderr, code := cli(t, home, "history", "--repo", huge, "a.go")
	if code == 0 || len(stderr) > 2000 {
		t.Errorf("a 100 KB repository name: exit %d, %d bytes of error", code, len(stderr))
	}
}

// TestDeletionsAreAudited: a removal from the CLI leaves a deletion
// record in the home's audit log.
func TestDeletionsAreAudited(t *testing.T) {
	home := t.TempDir()
	g := sample(t)
	mustCLI(t, home, "add", g.Dir, "--name", "demo")
	mustCLI(t, home, "remove", "demo")
	b, err := os.ReadFile(filepath.Join(home, auditFile))
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(b))), &rec); err != nil {
		t.Fatalf("audit log %q: %v", b, err)
	}
	if rec["msg"] != "deletion" || rec["op"] != "remove" || rec["repository"] != "demo" || rec["client"] != "cli" {
		t.Errorf("deletion record: %v", rec)
	}
}
