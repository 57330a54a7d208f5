package indexer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/store"
)

// childSync is the body of the subprocess that TestKilledSyncResumes
// kills: a sync with small batches, so that kills land mid-way.
func childSync() int {
	ctx := context.Background()
	st, err := store.Open(ctx, os.Getenv("GITMEMORY_TEST_STORE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	st.DB.Exec(`INSERT OR IGNORE INTO repository(id, name, path, created_at) VALUES (1, 't', '', 0)`)
	s, err := New(os.Getenv("GITMEMORY_TEST_REPO"), st, Options{BatchSize: 5, Workers: 2})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := s.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func runChild(t *testing.T, repo, storeDir string, killAfter time.Duration) (killed bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GITMEMORY_TEST_CHILD=1", "GITMEMORY_TEST_REPO="+repo, "GITMEMORY_TEST_STORE="+storeDir)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if killAfter <= 0 {
		if err := <-done; err != nil {
			t.Fatalf("child sync: %v", err)
		}
		return false
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("child sync: %v", err)
		}
		return false
	case <-time.After(killAfter):
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		return true
	}
}

// TestKilledSyncResumes kills sync subprocesses with SIGKILL at random
// instants, then lets one finish, and requires exactly the commits and
// per-commit file changes of an uninterrupted sync.
func TestKilledSyncResumes(t *testing.T) {
	g := history(t, 150)
	refDir := t.TempDir()
	start := time.Now()
	runChild(t, g.Dir, refDir, 0)
	full := time.Since(start)
	ref, err := store.Open(context.Background(), refDir)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	want := dump(t, ref)

	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	kills := 0
	for i := 0; i < 6; i++ {
		// Kill points spread over the whole run, including start-up.
		if runChild(t, g.Dir, dir, time.Duration(rng.Int64N(int64(full)))) {
			kills++
		}
	}
	runChild(t, g.Dir, dir, 0)
	got, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if d := dump(t, got); d != want {
		t.Errorf("after %d kills the store differs from an uninterrupted sync:\n got %d bytes\nwant %d bytes", kills, len(d), len(want))
	}
	if kills == 0 {
		t.Errorf("no child was killed mid-sync (full sync took %s)", full)
	}
	var queued int
	got.DB.QueryRow(`SELECT COUNT(*) FROM queue`).Scan(&queued)
	if queued != 0 {
		t.Errorf("%d items left in the queue", queued)
	}
}
