package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/store"
)

// cli runs gitmemory with a private home and returns stdout, stderr and
// the exit code.
func cli(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"--home", home}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

func mustCLI(t *testing.T, home string, args ...string) string {
	t.Helper()
	out, errOut, code := cli(t, home, args...)
	if code != 0 {
		t.Fatalf("gitmemory %v: exit %d: %s", args, code, errOut)
	}
	return out
}

func sample(t *testing.T) *gittest.Repo {
	g := gittest.New(t)
	g.Write("main.go", "package main\n\nfunc main() {}\n")
	g.Commit("feat: initial program")
	g.Write("main.go", "package main\n\nfunc main() { println(1) }\n")
	g.Commit("fix: print something (fixes #3)")
	return g
}

func TestAddSyncStatusRemove(t *testing.T) {
	home := t.TempDir()
	g := sample(t)
	out := mustCLI(t, home, "add", g.Dir, "--name", "demo")
	if !strings.Contains(out, "added demo") {
		t.Errorf("add: %q", out)
	}
	out = mustCLI(t, home, "sync", "demo")
	if !strings.Contains(out, "demo: 2 commits indexed") {
		t.Errorf("sync summary: %q", out)
	}
	var st struct {
		Name    string `json:"name"`
		Indexed int    `json:"indexed"`
		Queued  int    `json:"queued"`
		Failed  int    `json:"failed"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, home, "status", "demo", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Name != "demo" || st.Indexed != 2 || st.Queued != 0 || st.Failed != 0 {
		t.Errorf("status %+v", st)
	}
	// A path resolves to its registered name.
	if out := mustCLI(t, home, "status", g.Dir); !strings.Contains(out, "indexed:     2 commits") ||
		!strings.Contains(out, "1 bugfix, 1 feature") {
		t.Errorf("status by path: %q", out)
	}
	g.Write("new.go", "package main\n")
	g.Commit("feat: more")
	var res struct {
		Name    string `json:"name"`
		Indexed int    `json:"indexed"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, home, "sync", "demo", "--json")), &res); err != nil || res.Indexed != 1 {
		t.Errorf("incremental sync json %+v %v", res, err)
	}
	var ver struct {
		Reachable, Unindexed int
		Verified             bool
	}
	if err := json.Unmarshal([]byte(mustCLI(t, home, "status", "demo", "--verify", "--json")), &ver); err != nil ||
		!ver.Verified || ver.Reachable != 3 || ver.Unindexed != 0 {
		t.Errorf("status --verify: %+v %v", ver, err)
	}
	if out := mustCLI(t, home, "list"); !strings.Contains(out, "demo") || !strings.Contains(out, g.Dir) {
		t.Errorf("list: %q", out)
	}
	mustCLI(t, home, "remove", "demo")
	if entries, _ := os.ReadDir(filepath.Join(home, "repos")); len(entries) != 0 {
		t.Errorf("remove left %d entries", len(entries))
	}
}

func TestSyncPathRegisters(t *testing.T) {
	home := t.TempDir()
	g := sample(t)
	out, errOut, code := cli(t, home, "sync", g.Dir)
	if code != 0 || !strings.Contains(errOut, "registered") || !strings.Contains(out, "2 commits indexed") {
		t.Errorf("sync PATH: %d %q %q", code, out, errOut)
	}
	if _, errOut, code := cli(t, home, "add", g.Dir); code == 0 || !strings.Contains(errOut, "already registered") {
		t.Errorf("second add: %d %q", code, errOut)
	}
	// The same directory name elsewhere: taken, so it takes --name.
	other := sample(t)
	renamed := filepath.Join(t.TempDir(), filepath.Base(g.Dir))
	if err := os.Rename(other.Dir, renamed); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := cli(t, home, "sync", renamed); code == 0 || !strings.Contains(errOut, "--name NAME") {
		t.Errorf("sync of a second %s: %d %q, want advice to register under another name", filepath.Base(g.Dir), code, errOut)
	}
	if out, errOut, code := cli(t, home, "sync", renamed, "--name", "other"); code != 0 || !strings.Contains(errOut, `as "other"`) || !strings.Contains(out, "2 commits indexed") {
		t.Errorf("sync PATH --name: %d %q %q", code, out, errOut)
	}
	if _, errOut, code := cli(t, home, "sync", renamed, "--name", "third"); code == 0 || !strings.Contains(errOut, `registered as "other"`) {
		t.Errorf("sync of a registered path under another name: %d %q", code, errOut)
	}
	if _, errOut, code := cli(t, home, "sync", "--name", "x"); code == 0 || !strings.Contains(errOut, "give its PATH") {
		t.Errorf("sync --name without a path: %d %q", code, errOut)
	}
}

func TestErrorsAreOneClearLine(t *testing.T) {
	home := t.TempDir()
	g := sample(t)
	mustCLI(t, home, "add", g.Dir, "--name", "demo")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"add", t.TempDir()}, "not a git repository"},
		{[]string{"add", "/no/such/path"}, "no such file or directory"},
		{[]string{"sync", "/no/such/path"}, "no such file or directory"},
		{[]string{"sync", "dmeo"}, `did you mean "demo"`},
		{[]string{"status", "nothing-like-it"}, "unknown repository"},
		{[]string{"remove", "nope"}, "unknown repository"},
		{[]string{"add", g.Dir, "--name", "../escape"}, "invalid repository name"},
		{[]string{"sync", "demo", "--branch", "nope"}, "no such branch"},
	}
	for _, tc := range cases {
		_, errOut, code := cli(t, home, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestLockedByAnotherProcess(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Fatal("flock(1) is needed to hold the lock from another process")
	}
	home := t.TempDir()
	g := sample(t)
	mustCLI(t, home, "add", g.Dir, "--name", "demo")
	lock := filepath.Join(home, "repos", "demo", store.LockFile)
	holder := exec.Command("flock", lock, "sleep", "30")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	// Wait until the other process holds the lock.
	deadline := time.Now().Add(5 * time.Second)
	for {
		l, err := store.AcquireLock(filepath.Join(home, "repos", "demo"))
		if err != nil {
			break
		}
		l.Release()
		if time.Now().After(deadline) {
			t.Fatal("flock never took the lock")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, args := range [][]string{{"sync", "demo"}, {"remove", "demo"}} {
		_, errOut, code := cli(t, home, args...)
		if code == 0 || !strings.Contains(errOut, "locked by another process") {
			t.Errorf("%v while locked: exit %d %q", args, code, errOut)
		}
	}
	// Reading is allowed while another process writes.
	if out := mustCLI(t, home, "status", "demo"); !strings.Contains(out, "demo") {
		t.Errorf("status while locked: %q", out)
	}
	if _, err := os.Stat(filepath.Join(home, "repos", "demo", store.DBFile)); err != nil {
		t.Errorf("a refused remove deleted data: %v", err)
	}
}

func TestRenderProgress(t *testing.T) {
	line := renderProgress("demo", indexer.Progress{Done: 50, Total: 200, Elapsed: 10 * time.Second}, 10)
	for _, want := range []string{"[==        ]", "50/200", "25%", "5 commits/s", "ETA 0:30"} {
		if !strings.Contains(line, want) {
			t.Errorf("progress %q lacks %q", line, want)
		}
	}
}

// TestInterruptedSyncResumes cancels a sync as Ctrl-C does (main turns
// SIGINT and SIGTERM into a cancelled context), then runs it again.
func TestInterruptedSyncResumes(t *testing.T) {
	home := t.TempDir()
	g := gittest.Generate(t, 1500, 3)
	mustCLI(t, home, "add", g.Dir, "--name", "gen")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var out, errb bytes.Buffer
	code := run(ctx, []string{"--home", home, "sync", "gen"}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "interrupted") || !strings.Contains(errb.String(), "to resume") {
		t.Fatalf("interrupted sync: exit %d, stderr %q", code, errb.String())
	}
	var st struct{ Indexed int }
	json.Unmarshal([]byte(mustCLI(t, home, "status", "gen", "--json")), &st)
	total := strings.Count(g.Git("rev-list", "main"), "\n") + 1
	if st.Indexed >= total {
		t.Fatalf("the sync finished before the interrupt (%d commits): nothing was tested", st.Indexed)
	}
	mustCLI(t, home, "sync", "gen")
	json.Unmarshal([]byte(mustCLI(t, home, "status", "gen", "--json")), &st)
	if st.Indexed != total {
		t.Errorf("after resuming %d commits indexed, want %d", st.Indexed, total)
	}
}
