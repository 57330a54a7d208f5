package retrieve

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func writeTestPack(query string) *Pack {
	return &Pack{Metadata: PackMetadata{Query: query, Repository: "r", GeneratedAt: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
		TokenCount: 42, Mode: ModeKeyword, Intent: "explain"},
		Summary:  "Most relevant: abc1234 (bugfix, 2025-05-01): fix <retry> & backoff.",
		KeyItems: []KeyItem{{Hash: strings.Repeat("a", 40), Summary: "fix", Classification: "bugfix", RelevanceScore: 0.5}}}
}

func readPackLog(t *testing.T, dir string) []PackLogRow {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, PackLogName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []PackLogRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r PackLogRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		rows = append(rows, r)
	}
	return rows
}

func readPackFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// packStrays lists files in dir that none of the steps should leave behind.
func packStrays(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".tmp") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestWritePackSequence follows seed 001's four steps through a recording
// file system, then checks what each left on disk.
func TestWritePackSequence(t *testing.T) {
	dir := t.TempDir()
	var steps []string
	fs := packFS{
		create: func(p string, b []byte) error {
			steps = append(steps, "create "+filepath.Base(p))
			return packCreateSynced(p, b)
		},
		rename: func(from, to string) error {
			steps = append(steps, "rename "+filepath.Base(to))
			return os.Rename(from, to)
		},
		append: func(p string, b []byte) error {
			steps = append(steps, "append "+filepath.Base(p))
			return packAppendSynced(p, b)
		},
	}
	p1 := writeTestPack("first")
	path, err := writePack(dir, p1, "c0ffee", fs)
	if err != nil {
		t.Fatal(err)
	}
	name := "context_pack.20250601T120000Z.c0ffee.json"
	if want := []string{"create " + name, "rename " + PackLatestName, "append " + PackLogName}; !slices.Equal(steps, want) {
		t.Errorf("steps %v, want %v", steps, want)
	}
	if path != filepath.Join(dir, PackDirName, name) {
		t.Errorf("path %s", path)
	}
	want, _ := RenderJSON(p1)
	if got := readPackFile(t, path); got != string(want) {
		t.Errorf("pack file:\n%s\nwant\n%s", got, want)
	}
	if got := readPackFile(t, filepath.Join(dir, PackLatestName)); got != string(want) {
		t.Errorf("latest differs from the pack")
	}
	// A pack quotes the repository's code and messages: readable by its
	// owner only, as the latest copy is.
	for _, p := range []string{path, filepath.Join(dir, PackLatestName), filepath.Join(dir, PackLogName)} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", filepath.Base(p), st.Mode().Perm(), err)
		}
	}
	rows := readPackLog(t, dir)
	if len(rows) != 1 || rows[0].CommitID != "c0ffee" || rows[0].Pack != PackDirName+"/"+name || rows[0].Query != "first" ||
		rows[0].TokenCount != 42 {
		t.Errorf("log %+v", rows)
	}

	// A second pack of the same second and commit gets its own file.
	p2 := writeTestPack("second")
	path2, err := WritePack(dir, p2, "c0ffee")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path2) != "context_pack.20250601T120000Z-1.c0ffee.json" || readPackFile(t, path) != string(want) {
		t.Errorf("second pack at %s, or the first was overwritten", path2)
	}
	want2, _ := RenderJSON(p2)
	if readPackFile(t, filepath.Join(dir, PackLatestName)) != string(want2) || len(readPackLog(t, dir)) != 2 {
		t.Errorf("latest or log not updated by the second pack")
	}

	// Step 3 fails before the rename: the previous latest stays, no row is
	// added, no temporary file is left.
	broken := fs
	broken.rename = func(from, to string) error { return errors.New("disk on fire") }
	if _, err := writePack(dir, writeTestPack("third"), "c0ffee", broken); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("failed rename: %v", err)
	}
	if readPackFile(t, filepath.Join(dir, PackLatestName)) != string(want2) {
		t.Error("a failed replace changed the latest pack")
	}
	if n := len(readPackLog(t, dir)); n != 2 {
		t.Errorf("a failed replace appended a row (%d rows)", n)
	}
	if s := packStrays(t, dir); len(s) > 0 {
		t.Errorf("temporary files left: %v", s)
	}

	// Step 2 catches a pack that does not read back, and removes it.
	torn := fs
	torn.create = func(p string, b []byte) error { return packCreateSynced(p, b[:len(b)/2]) }
	if _, err := writePack(dir, writeTestPack("fourth"), "beef", torn); !errors.Is(err, ErrPackInvalid) {
		t.Fatalf("torn write: %v, want ErrPackInvalid", err)
	}
	if ms, _ := filepath.Glob(filepath.Join(dir, PackDirName, "*beef*")); len(ms) > 0 {
		t.Errorf("invalid pack left: %v", ms)
	}
	if readPackFile(t, filepath.Join(dir, PackLatestName)) != string(want2) || len(readPackLog(t, dir)) != 2 {
		t.Error("an invalid pack reached latest or the log")
	}

	// Step 4: a row cut short by a crash does not swallow the next one.
	log := filepath.Join(dir, PackLogName)
	f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"commit_id":"cut`)
	f.Close()
	if _, err := WritePack(dir, writeTestPack("fifth"), "c0ffee"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(readPackFile(t, log), "\n"), "\n")
	var last PackLogRow
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Query != "fifth" {
		t.Errorf("row after a cut one: %q (%v)", lines[len(lines)-1], err)
	}
}

func TestWritePackBadCommitID(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"", "../up", "a/b", ".hidden", "x y"} {
		if _, err := WritePack(dir, writeTestPack("q"), id); !errors.Is(err, ErrBadCommitID) {
			t.Errorf("commit id %q: %v", id, err)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) > 0 {
		t.Errorf("refused writes left %d entries", len(es))
	}
}
