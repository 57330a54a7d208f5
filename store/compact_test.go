package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenCompactsAnOlderStore: the upgrade to a contentless keyword index
// and a rowid blobs table keeps every row searchable and readable, keeps
// deletion working, and gives the freed pages back to the file system.
func TestOpenCompactsAnOlderStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	all := migrations
	migrations = all[:compactedAt-1]
	old, err := Open(ctx, dir)
	migrations = all
	if err != nil {
		t.Fatal(err)
	}
	insertCommit(t, old, fullCommit(hashA), "main")
	// Bulk: enough text that the dropped copy is worth pages.
	big := map[string][]byte{}
	for i := range 400 {
		big["diff:"+strings.Repeat("e", 40)+":"+string(rune('a'+i%26))+strings.Repeat("x", i)] = []byte(strings.Repeat("line of a diff\n", 40+i%7))
		if _, err := old.DB.Exec(`INSERT INTO search(rowid, subject, body, summary, notes, paths, entities) VALUES (?, ?, ?, '', '', '', '')`,
			1000+i, "subject words", strings.Repeat("a body that repeats itself ", 60)); err != nil {
			t.Fatal(err)
		}
	}
	putBlobs(t, old, big)
	if n := count(t, old.DB, `SELECT COUNT(*) FROM search WHERE search MATCH 'parser'`); n != 1 {
		t.Fatalf("version %d store: %d rows match 'parser', want 1", compactedAt-1, n)
	}
	old.Close()
	before := fileSize(t, dir)

	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	defer st.Close()
	if n := count(t, st.DB, `SELECT COUNT(*) FROM search WHERE search MATCH 'parser'`); n != 1 {
		t.Errorf("after the upgrade %d rows match 'parser', want 1", n)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM search WHERE search MATCH 'repeats'`); n != 400 {
		t.Errorf("after the upgrade %d rows match 'repeats', want 400", n)
	}
	var subject any
	if err := st.DB.QueryRow(`SELECT subject FROM search WHERE rowid = 1000`).Scan(&subject); err != nil {
		t.Fatal(err)
	}
	if subject != nil {
		t.Errorf("the keyword index still keeps its text: subject %q", subject)
	}
	for k, v := range big {
		got, err := GetBlob(ctx, st.DB, k)
		if err != nil || string(got) != string(v) {
			t.Fatalf("blob %s after the upgrade: %d bytes, %v", k, len(got), err)
		}
	}
	if _, err := st.DB.Exec(`DELETE FROM commits WHERE hash = ?`, hashA); err != nil {
		t.Fatal(err)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM search WHERE search MATCH 'parser'`); n != 0 {
		t.Errorf("a deleted commit's row still matches: %d", n)
	}
	if after := fileSize(t, dir); after >= before*3/4 {
		t.Errorf("store file %d bytes before the upgrade, %d after: not compacted", before, after)
	}
}

func fileSize(t *testing.T, dir string) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestGetBlobs reads several blobs, raw and compressed, in one query;
// keys not stored are absent, and a compressed blob whose bytes are not
// zstd is an error naming it, in every reader alike.
func TestGetBlobs(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)
	want := map[string][]byte{"msg:a": []byte("short"), "msg:b": []byte(strings.Repeat("a longer message body ", 40))}
	putBlobs(t, st, want)
	got, err := GetBlobs(ctx, st.DB, []string{"msg:a", "msg:b", "msg:missing"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got["msg:a"]) != string(want["msg:a"]) || string(got["msg:b"]) != string(want["msg:b"]) {
		t.Fatalf("GetBlobs = %q", got)
	}
	if got, err := GetBlobs(ctx, st.DB, nil); err != nil || len(got) != 0 {
		t.Fatalf("no keys: %v, %v", got, err)
	}
	if _, err := st.DB.Exec(`INSERT INTO blobs(key, codec, size, data) VALUES ('msg:bad', 1, 100, x'00010203')`); err != nil {
		t.Fatal(err)
	}
	if _, err := GetBlobs(ctx, st.DB, []string{"msg:a", "msg:bad"}); err == nil || !strings.Contains(err.Error(), "msg:bad") {
		t.Errorf("GetBlobs of a corrupt blob: %v", err)
	}
	if _, err := GetBlob(ctx, st.DB, "msg:bad"); err == nil || !strings.Contains(err.Error(), "msg:bad") {
		t.Errorf("GetBlob of a corrupt blob: %v", err)
	}
	if _, err := GetBlobUpTo(ctx, st.DB, "msg:bad", 1000); err == nil || !strings.Contains(err.Error(), "msg:bad") {
		t.Errorf("GetBlobUpTo of a corrupt blob: %v", err)
	}
}
