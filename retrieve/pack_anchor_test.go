package retrieve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLatestIndex(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := []Record{
		{ID: "a", Rev: 3, HasRev: true, Updated: t0.Add(time.Hour)}, // 0
		{ID: "a", Rev: 5, HasRev: true, Updated: t0},                // 1: highest rev, though older
		{ID: "b", Rev: 9, HasRev: true, Updated: t0},                // 2
		{ID: "b", Updated: t0.Add(time.Hour)},                       // 3: b lacks a rev: newest updated
		{ID: "c", Updated: t0},                                      // 4
		{ID: "c", Updated: t0},                                      // 5: tie: the later line
		{ID: "d", Rev: 2, HasRev: true, Updated: t0},                // 6
		{ID: "d", Rev: 2, HasRev: true, Updated: t0},                // 7: same rev: the later line
	}
	want := map[string]int{"a": 1, "b": 3, "c": 5, "d": 7}
	got := LatestIndex(recs)
	for id, i := range want {
		if got[id] != i {
			t.Errorf("%s: record %d, want %d", id, got[id], i)
		}
	}
}

func TestDeltaAnchor(t *testing.T) {
	dir := t.TempDir()
	if a, src, err := DeltaAnchor("", dir); err != nil || a != "" || src != "" {
		t.Errorf("no log: %q %q %v, want no anchor", a, src, err)
	}
	if a, src, _ := DeltaAnchor("v1.0", dir); a != "v1.0" || src != AnchorGiven {
		t.Errorf("given: %q %q", a, src)
	}
	log := strings.Join([]string{
		`{"commit_id":"aaa111","pack":"p1","generated_at":"2025-01-01T10:00:00Z","query":"q","token_count":1}`,
		`{"commit_id":"bbb222","pack":"p2","generated_at":"2025-01-01T12:00:00Z","query":"q","token_count":1}`,
		`{"commit_id":"aaa111","pack":"p3","generated_at":"2025-01-01T11:00:00Z","query":"q","token_count":1}`,
		``,
	}, "\n")
	os.WriteFile(filepath.Join(dir, PackLogName), []byte(log), 0o600)
	// The newest row is bbb222's (12:00), though aaa111 has a later line.
	if a, src, err := DeltaAnchor("", dir); err != nil || a != "bbb222" || src != AnchorLog {
		t.Errorf("from the log: %q %q %v, want bbb222", a, src, err)
	}
	if a, _, _ := DeltaAnchor("ccc333", dir); a != "ccc333" {
		t.Errorf("--commit-id comes first: %q", a)
	}
	os.WriteFile(filepath.Join(dir, PackLogName), []byte(log+"{not json\n"), 0o600)
	if _, _, err := DeltaAnchor("", dir); err == nil || !strings.Contains(err.Error(), PackLogName+":4") {
		t.Errorf("bad line: %v, want an error naming line 4", err)
	}
}
