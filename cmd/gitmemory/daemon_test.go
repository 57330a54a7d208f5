package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/internal/gittest"
)

// TestMain lets a test run this binary as the gitmemory command, to send a
// real daemon real signals.
func TestMain(m *testing.M) {
	if os.Getenv("GITMEMORY_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

type daemonProc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startDaemon(t *testing.T, home string, args ...string) *daemonProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--home", home, "daemon", "--listen", "127.0.0.1:0", "--poll", "50ms"}, args...)...)
	cmd.Env = append(os.Environ(), "GITMEMORY_TEST_MAIN=1")
	p := &daemonProc{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(home, api.DaemonFile)); err == nil {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not start: %s", p.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *daemonProc) stop(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("daemon exit after SIGTERM: %v\n%s", err, p.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the daemon did not stop within 20 s of SIGTERM:\n%s", p.stderr)
	}
	return time.Since(start)
}

type counts struct {
	Indexed, FileChanges, Entities, EntityChanges, CoEvolving, TestLinks, DesignNotes int
	GraphQuads                                                                        int64
	Queued, Failed, GraphPending                                                      int
}

func statusCounts(t *testing.T, home string) counts {
	t.Helper()
	var c struct {
		Indexed       int   `json:"indexed"`
		FileChanges   int   `json:"file_changes"`
		Entities      int   `json:"entities"`
		EntityChanges int   `json:"entity_changes"`
		CoEvolving    int   `json:"co_evolving_pairs"`
		TestLinks     int   `json:"test_links"`
		DesignNotes   int   `json:"design_notes"`
		GraphQuads    int64 `json:"graph_quads"`
		Queued        int   `json:"queued"`
		Failed        int   `json:"failed"`
		GraphPending  int   `json:"graph_pending"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, home, "status", "gen", "--json")), &c); err != nil {
		t.Fatal(err)
	}
	return counts(c)
}

// TestDaemonSIGTERMLosesNothing: SIGTERM in the middle of a first sync
// stops the daemon cleanly; a restart resumes, and the result equals one
// uninterrupted sync, store for store.
func TestDaemonSIGTERMLosesNothing(t *testing.T) {
	g := gittest.Generate(t, 1500, 5)
	home := t.TempDir()
	mustCLI(t, home, "add", g.Dir, "--name", "gen")
	d := startDaemon(t, home)
	deadline := time.Now().Add(30 * time.Second)
	for statusCounts(t, home).Indexed < 100 {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon indexed nothing:\n%s", d.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := d.stop(t)
	t.Logf("stopped %s after SIGTERM", took)
	if _, err := os.Stat(filepath.Join(home, api.DaemonFile)); !os.IsNotExist(err) {
		t.Errorf("daemon.json left behind: %v", err)
	}
	mid := statusCounts(t, home) // in this process: no daemon
	if mid.Indexed >= 1500 {
		t.Fatalf("the sync finished before SIGTERM: nothing was tested")
	}
	d = startDaemon(t, home)
	deadline = time.Now().Add(60 * time.Second)
	for c := statusCounts(t, home); c.Indexed < 1500 || c.GraphPending > 0 || !synced(t, home); c = statusCounts(t, home) {
		if time.Now().After(deadline) {
			t.Fatalf("the restarted daemon did not finish:\n%s", d.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	resumed := statusCounts(t, home)
	d.stop(t)

	fresh := t.TempDir()
	mustCLI(t, fresh, "add", g.Dir, "--name", "gen")
	mustCLI(t, fresh, "sync", "gen", "-q")
	want := statusCounts(t, fresh)
	if resumed != want {
		t.Errorf("interrupted and resumed: %+v\nuninterrupted:          %+v", resumed, want)
	}
	if want.Indexed != 1500 || want.Entities == 0 || want.GraphQuads == 0 {
		t.Errorf("the reference sync is incomplete: %+v", want)
	}
}

// synced reports whether the daemon has finished a sync since it started.
func synced(t *testing.T, home string) bool {
	c := api.Discover(context.Background(), home)
	if c == nil {
		t.Fatal("the daemon is gone")
	}
	h, err := c.Health(context.Background())
	return err == nil && len(h.Repositories) == 1 && !h.Repositories[0].LastSync.IsZero() && !h.Repositories[0].Syncing
}

// TestCLIGoesThroughDaemon: with a daemon running, the commands answer
// through it (the stores are its), including sync and remove.
func TestCLIGoesThroughDaemon(t *testing.T) {
	g := sample(t)
	home := t.TempDir()
	mustCLI(t, home, "add", g.Dir, "--name", "app")
	d := startDaemon(t, home)
	out := mustCLI(t, home, "sync", "app", "--json")
	var res struct {
		Name    string `json:"name"`
		Indexed int    `json:"indexed"`
	}
	json.Unmarshal([]byte(out), &res)
	if res.Name != "app" {
		t.Fatalf("sync through the daemon: %s", out)
	}
	if _, stderr, code := cli(t, home, "sync", "app", "--all-branches"); code == 0 || !bytes.Contains([]byte(stderr), []byte("stop it")) {
		t.Errorf("a policy change while the daemon runs: exit %d, %s", code, stderr)
	}
	hist := mustCLI(t, home, "history", "main.go", "--repo", "app")
	if !strings.Contains(strings.ToLower(hist), "print something") {
		t.Errorf("history through the daemon: %s", hist)
	}
	q := mustCLI(t, home, "query", "why print something?", "--repo", "app", "--tokens", "600")
	if !bytes.Contains([]byte(q), []byte("print something")) {
		t.Errorf("query through the daemon: %s", q)
	}
	if st := mustCLI(t, home, "status", "app"); !strings.Contains(st, "daemon:") {
		t.Errorf("status through the daemon does not show the daemon's loop:\n%s", st)
	}
	mustCLI(t, home, "remove", "app")
	if out := mustCLI(t, home, "list"); !bytes.Contains([]byte(out), []byte("no repositories")) {
		t.Errorf("after remove through the daemon: %s", out)
	}
	d.stop(t)
	audit, err := os.ReadFile(filepath.Join(home, "audit.log"))
	if err != nil || !bytes.Contains(audit, []byte(`"request":"why print something?"`)) {
		t.Errorf("audit log: %s %v", audit, err)
	}
}

// TestDaemonRefusesToStart: each reason not to start is one clear line,
// and nothing is left announced.
func TestDaemonRefusesToStart(t *testing.T) {
	home := t.TempDir()
	empty := filepath.Join(t.TempDir(), "token")
	os.WriteFile(empty, []byte("  \n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"daemon", "--listen", "0.0.0.0:0"}, "set a token"},
		{[]string{"daemon", "--listen", "nonsense"}, "want host:port"},
		{[]string{"daemon", "--token-file", filepath.Join(home, "missing")}, "--token-file"},
		{[]string{"daemon", "--token-file", empty}, "is empty"},
		{[]string{"daemon", "--audit", filepath.Join(home, "no", "such", "dir", "audit.log")}, "audit log"},
	} {
		_, stderr, code := cli(t, home, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", c.args, code, stderr, c.want)
		}
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, stderr, code := cli(t, home, "daemon", "--listen", busy.Addr().String()); code == 0 || !strings.Contains(stderr, "choose another address") {
		t.Errorf("a busy address: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, api.DaemonFile)); !os.IsNotExist(err) {
		t.Errorf("a daemon that did not start left daemon.json: %v", err)
	}
	d := startDaemon(t, home)
	if _, stderr, code := cli(t, home, "daemon", "--listen", "127.0.0.1:0"); code == 0 || !strings.Contains(stderr, "another daemon serves") {
		t.Errorf("a second daemon on the same home: exit %d, %q", code, stderr)
	}
	d.stop(t)
}
