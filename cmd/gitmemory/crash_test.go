package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/gitmemory/gitmemory/internal/crashcheck"
	"github.com/gitmemory/gitmemory/internal/gittest"
)

// testLog writes crashcheck's lines to the test log.
type testLog struct {
	mu sync.Mutex
	t  *testing.T
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestKilledSyncsEndAsACleanOne kills real `gitmemory sync` processes
// (this test binary as the command) with SIGKILL at random moments of a
// generated history with renames, directory moves, same-second commits,
// clock skew and merges, in files with functions to track, resumes each,
// and requires every table, graph quad and vector document to be those of
// an uninterrupted sync: separately (one kill each) and chained (four
// kills of one sync in a row).
func TestKilledSyncsEndAsACleanOne(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and resumes a dozen syncs")
	}
	g := gittest.GenerateWith(t, 400, 21, gittest.GenerateOptions{SameSecond: true, DirMoves: true, RealCode: true})
	rep, err := crashcheck.Run(context.Background(), crashcheck.Config{
		Command: func(home string, args ...string) *exec.Cmd {
			cmd := exec.Command(os.Args[0], append([]string{"--home", home}, args...)...)
			// Small batches: many transactions for the kills to fall between.
			cmd.Env = append(os.Environ(), "GITMEMORY_TEST_MAIN=1", "GITMEMORY_BATCH_SIZE=16")
			return cmd
		},
		Repo: g.Dir, Dir: t.TempDir(), Separate: 8, Chained: 4, Seed: 3, Log: &testLog{t: t},
	})
	if err != nil {
		t.Fatal(err)
	}
	killed := 0
	for _, r := range rep.Results {
		killed += len(r.KilledAt)
		if r.Diff != "" {
			t.Errorf("%s, killed at %v, ended unlike the clean sync:\n%s", r.Name, r.KilledAt, r.Diff)
		}
	}
	if killed < 6 {
		t.Errorf("only %d kills landed before their sync ended (clean sync: %s)", killed, rep.Clean)
	}
	for _, section := range []string{"== entities (", "== graph (", "== vectors ("} {
		if !strings.Contains(rep.CleanDump, section) || strings.Contains(rep.CleanDump, section+"0 ") {
			t.Errorf("the clean sync's dump has no %s…): the fixture does not exercise it", section)
		}
	}
	fmt.Fprintf(&testLog{t: t}, "%d of %d resumed syncs identical, %d kills", rep.Identical(), len(rep.Results), killed)
}
