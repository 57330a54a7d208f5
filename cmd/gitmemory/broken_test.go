package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A damaged store is named, left as it is, keeps no other repository from
// being listed or synced, and can be removed.
func TestBrokenStoreIsIsolated(t *testing.T) {
	home := t.TempDir()
	good, bad := sample(t), sample(t)
	mustCLI(t, home, "add", good.Dir, "--name", "good")
	mustCLI(t, home, "add", bad.Dir, "--name", "bad")
	mustCLI(t, home, "sync", "good")
	db := filepath.Join(home, "repos", "bad", "meta.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(db + suffix)
	}
	if err := os.WriteFile(db, nil, 0o600); err != nil { // truncated to 0 bytes
		t.Fatal(err)
	}

	out, errOut, code := cli(t, home, "list")
	if code == 0 || !strings.Contains(out, "good") || !strings.Contains(errOut, "repository bad") || !strings.Contains(errOut, db) {
		t.Errorf("list: exit %d, out %q, err %q: want good listed, bad named with its file, a failing exit", code, out, errOut)
	}
	if st, err := os.Stat(db); err != nil || st.Size() != 0 {
		t.Fatalf("a read-only command rewrote the damaged store: %v %v", st, err)
	}
	_, errOut, code = cli(t, home, "sync")
	if code == 0 || !strings.Contains(errOut, "bad") {
		t.Errorf("sync of all: exit %d, err %q: want bad's failure reported", code, errOut)
	}
	if out := mustCLI(t, home, "status", "good"); !strings.Contains(out, "good") {
		t.Errorf("status good after the sync of all: %q", out)
	}
	mustCLI(t, home, "remove", "bad")
	if _, err := os.Stat(filepath.Dir(db)); !os.IsNotExist(err) {
		t.Errorf("remove left the damaged store's directory: %v", err)
	}
	if out := mustCLI(t, home, "list"); !strings.Contains(out, "good") || strings.Contains(out, "bad") {
		t.Errorf("list after remove: %q", out)
	}
}
