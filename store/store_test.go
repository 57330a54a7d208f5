package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gitmemory/gitmemory/model"
)

func openTest(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// --- schema -----------------------------------------------------------------

func TestOpenCreatesSchema(t *testing.T) {
	ctx := context.Background()
	st, dir := openTest(t)

	v, err := st.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != len(migrations) {
		t.Fatalf("SchemaVersion = %d, want %d", v, len(migrations))
	}
	for _, table := range []string{"repository", "commits", "commit_parents", "file_changes", "hunks",
		"issue_refs", "refs", "pruned", "blobs", "sync_state", "sync_runs", "queue", "schema_migrations"} {
		if n := count(t, st.DB, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, table); n != 1 {
			t.Errorf("table %s: %d entries in sqlite_master, want 1", table, n)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, DBFile)); err != nil {
		t.Errorf("database file: %v", err)
	}
	var mode string
	if err := st.DB.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
}

func TestOpenTwiceIsNoop(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Version, AppliedAt int64 }
	readRows := func(db *sql.DB) []row {
		rows, err := db.Query(`SELECT version, applied_at FROM schema_migrations ORDER BY version`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.Version, &r.AppliedAt); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := readRows(st.DB)
	if len(before) != len(migrations) {
		t.Fatalf("schema_migrations has %d rows, want %d", len(before), len(migrations))
	}
	if _, err := st.DB.Exec(`INSERT INTO sync_state(branch, last_head, updated_at) VALUES ('main', 'abc', 1)`); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2, err := Open(ctx, dir)
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	defer st2.Close()
	v, err := st2.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != len(migrations) {
		t.Errorf("SchemaVersion after reopen = %d, want %d", v, len(migrations))
	}
	if diff := cmp.Diff(before, readRows(st2.DB)); diff != "" {
		t.Errorf("schema_migrations changed on reopen (-before +after):\n%s", diff)
	}
	if n := count(t, st2.DB, `SELECT COUNT(*) FROM sync_state WHERE branch = 'main' AND last_head = 'abc'`); n != 1 {
		t.Errorf("data written before reopen: %d rows, want 1", n)
	}
}

func TestOpenTooNew(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB.Exec(`INSERT INTO schema_migrations VALUES (?, 0)`, len(migrations)+1); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st2, err := Open(ctx, dir)
	if err == nil {
		st2.Close()
		t.Fatal("Open of a database from a newer binary succeeded")
	}
	if !errors.Is(err, ErrTooNew) {
		t.Fatalf("Open error = %v, want one wrapping ErrTooNew", err)
	}
	if st2 != nil {
		t.Errorf("Open returned a store along with error %v", err)
	}
}

// --- blobs ------------------------------------------------------------------

func putBlobs(t *testing.T, st *Store, blobs map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	err := st.Tx(ctx, func(tx *sql.Tx) error {
		for k, v := range blobs {
			hash, _, err := parseKey(k)
			if err != nil {
				return err
			}
			if err := bareCommit(ctx, tx, hash); err != nil {
				return err
			}
			if err := PutBlob(ctx, tx, k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("put blobs: %v", err)
	}
}

// bareCommit stores a commit row with nothing else, for the blobs of the
// tests to belong to, unless one is stored.
func bareCommit(ctx context.Context, tx *sql.Tx, hash string) error {
	_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO commits(hash, author_name, author_email, author_time, author_tz,
		committer_name, committer_email, committer_time, committer_tz, subject, is_merge, files_changed, insertions,
		deletions, indexed_at) VALUES (?, '', '', 0, 0, '', '', 0, 0, '', 0, 0, 0, 0, 0)`, hash)
	return err
}

func TestBlobRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)

	allBytes := make([]byte, 256)
	for i := range allBytes {
		allBytes[i] = byte(i)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 5000)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	compressible := bytes.Repeat([]byte("func main() { fmt.Println(\"hello\") }\n"), 500)

	cases := map[string]struct {
		data  []byte
		codec int
	}{
		"small":          {[]byte("hello, world"), codecRaw},
		"empty":          {[]byte{}, codecRaw},
		"nil":            {nil, codecRaw}, // the driver binds nil as NULL
		"binary-small":   {[]byte{0, 0xff, 0xfe, '\n', 0, 1}, codecRaw},
		"at-threshold":   {bytes.Repeat([]byte("x"), compressAbove), codecRaw},
		"over-threshold": {bytes.Repeat([]byte("x"), compressAbove+1), codecZstd},
		"binary-256":     {allBytes, codecZstd},
		"random":         {random, codecZstd},
		"compressible":   {compressible, codecZstd},
		"unicode":        {[]byte(strings.Repeat("héllo wörld ✓ 日本語\n", 20)), codecZstd},
	}
	in := map[string][]byte{}
	keys := map[string]string{}
	for name, c := range cases {
		keys[name] = DiffKey(hashA, len(keys))
		in[keys[name]] = c.data
	}
	putBlobs(t, st, in)

	for name, c := range cases {
		k := keys[name]
		got, err := GetBlob(ctx, st.DB, k)
		if err != nil {
			t.Errorf("GetBlob(%s): %v", k, err)
			continue
		}
		if !bytes.Equal(got, c.data) {
			t.Errorf("GetBlob(%s) = %d bytes, want %d bytes (%q...)", k, len(got), len(c.data), c.data[:min(len(c.data), 16)])
		}
		var codec, size int
		if err := st.DB.QueryRow(`SELECT codec, size FROM blob_keys WHERE key = ?`, k).Scan(&codec, &size); err != nil {
			t.Fatal(err)
		}
		if codec != c.codec {
			t.Errorf("blob %s: codec %d, want %d", k, codec, c.codec)
		}
		if size != len(c.data) {
			t.Errorf("blob %s: size column %d, want %d", k, size, len(c.data))
		}
	}

	// A raw blob is stored as is; a large compressible one shrinks.
	var raw []byte
	if err := st.DB.QueryRow(`SELECT data FROM blob_keys WHERE key = ?`, keys["small"]).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if string(raw) != "hello, world" {
		t.Errorf("raw blob stored as %q", raw)
	}
	stored := count(t, st.DB, `SELECT length(data) FROM blob_keys WHERE key = ?`, keys["compressible"])
	if stored >= len(compressible)/4 {
		t.Errorf("compressible blob of %d bytes stored in %d bytes", len(compressible), stored)
	}

	// Replacing a value: the new one wins, codec included.
	putBlobs(t, st, map[string][]byte{keys["compressible"]: []byte("short now")})
	got, err := GetBlob(ctx, st.DB, keys["compressible"])
	if err != nil || string(got) != "short now" {
		t.Errorf("after replace GetBlob = %q, %v; want %q", got, err, "short now")
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM blob_keys WHERE key = ?`, keys["compressible"]); n != 1 {
		t.Errorf("%d rows for a replaced key, want 1", n)
	}
}

func TestGetBlobMissing(t *testing.T) {
	st, _ := openTest(t)
	got, err := GetBlob(context.Background(), st.DB, "msg:nope")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetBlob of a missing key = %q, %v; want ErrNotFound", got, err)
	}
	if !strings.Contains(err.Error(), "msg:nope") {
		t.Errorf("error %q does not name the key", err)
	}
}

func TestBlobKeys(t *testing.T) {
	if got := MessageKey("abc"); got != "msg:abc" {
		t.Errorf("MessageKey = %q", got)
	}
	if got := RawMessageKey("abc"); got != "rawmsg:abc" {
		t.Errorf("RawMessageKey = %q", got)
	}
	if got := DiffKey("abc", 12); got != "diff:abc:12" {
		t.Errorf("DiffKey = %q", got)
	}
	for _, k := range []string{MessageKey(hashA), RawMessageKey(hashA), DiffKey(hashA, 0), DiffKey(hashA, 4000)} {
		hash, slot, err := parseKey(k)
		if err != nil || hash != hashA || slotKey(hash, slot) != k {
			t.Errorf("parseKey(%s) = %s, %d, %v", k, hash, slot, err)
		}
	}
	st, _ := openTest(t)
	for _, k := range []string{"small", "diff:" + hashA, "diff:" + hashA + ":x", "diff:" + hashA + ":-1", "note:" + hashA} {
		if _, _, err := parseKey(k); err == nil {
			t.Errorf("parseKey(%q): no error", k)
		}
		if _, err := GetBlob(context.Background(), st.DB, k); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("GetBlob(%q): %v, want an error naming the key", k, err)
		}
	}
	// A blob belongs to a stored commit.
	err := st.Tx(context.Background(), func(tx *sql.Tx) error {
		return PutBlob(context.Background(), tx, MessageKey(hashQ), []byte("orphan"))
	})
	if err == nil || !strings.Contains(err.Error(), "no commit "+hashQ) {
		t.Errorf("PutBlob for a commit not stored: %v", err)
	}
}

// --- commits ----------------------------------------------------------------

const (
	hashA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
	hashP = "00112233445566778899aabbccddeeff00112233"
	hashQ = "ffeeddccbbaa99887766554433221100ffeeddcc"
)

func fullCommit(hash string) *model.Commit {
	cest := time.FixedZone("CEST", 2*3600)
	newfoundland := time.FixedZone("NST", -(3*3600 + 30*60))
	return &model.Commit{
		Hash:    hash,
		Parents: []string{hashP, hashQ},
		Author: model.Signature{Name: "Zoë Åström", Email: "zoe@example.org",
			When: time.Date(2024, 3, 5, 14, 7, 9, 0, cest)},
		Committer: model.Signature{Name: "Ci Bot", Email: "ci@example.org",
			When: time.Date(2024, 3, 6, 1, 2, 3, 0, newfoundland)},
		Message:    "Fix naïve parser 🚀\n\nFixes #12, refs PROJ-9 and acme/tools#3.\n",
		RawMessage: []byte("Fix na\xefve parser\n\nFixes #12, refs PROJ-9 and acme/tools#3.\n"),
		IsMerge:    true,
		Redactions: 2,
		Changes: []model.FileChange{
			{
				Path: "cmd/main.go", Status: model.Modified, Language: "Go", Insertions: 2, Deletions: 1,
				OldBlob: "1111111111111111111111111111111111111111", NewBlob: "2222222222222222222222222222222222222222",
				Hunks: []model.Hunk{
					{OldStart: 5, OldLines: 1, NewStart: 5, NewLines: 2, Text: "-a\n+b\n+c\n"},
					{OldStart: 40, OldLines: 3, NewStart: 41, NewLines: 3, Text: " x\n-y\n+ÿ\n z\n"},
				},
			},
			{
				Path: "docs/new.md", OldPath: "docs/old.md", Status: model.Renamed, Language: "Markdown",
				Insertions: 1, Deletions: 1, Similarity: 87,
				OldBlob: "3333333333333333333333333333333333333333", NewBlob: "4444444444444444444444444444444444444444",
				Hunks: []model.Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1,
					Text: "-old\n\\ No newline at end of file\n+new\n\\ No newline at end of file\n"}},
			},
			{
				Path: "added.txt", Status: model.Added, Insertions: 3,
				NewBlob: "5555555555555555555555555555555555555555",
				Hunks:   []model.Hunk{{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 3, Text: "+1\n+2\n+3\n"}},
			},
			{
				Path: "gone.txt", Status: model.Deleted, Deletions: 2,
				OldBlob: "6666666666666666666666666666666666666666",
				Hunks:   []model.Hunk{{OldStart: 1, OldLines: 2, NewStart: 0, NewLines: 0, Text: "-1\n-2\n"}},
			},
			{
				Path: "logo.png", Status: model.Added, Binary: true, Skipped: model.SkipBinary,
				NewBlob: "7777777777777777777777777777777777777777",
			},
			{
				Path: "vendor/x/y.go", OldPath: "third_party/x/y.go", Status: model.Copied, Language: "Go",
				Skipped: model.SkipVendor, Similarity: 100,
			},
		},
		// Deliberately not in key order: the stored order must be this one.
		IssueRefs: []model.IssueRef{
			{Key: "PROJ-9", Kind: "jira", Action: model.References, Raw: "PROJ-9"},
			{Key: "#12", Kind: "github", Action: model.Fixes, Raw: "Fixes #12"},
			{Key: "acme/tools#3", Kind: "github", Action: model.References, Raw: "acme/tools#3",
				URL: "https://github.com/acme/tools/issues/3"},
		},
	}
}

func insertCommit(t *testing.T, st *Store, c *model.Commit, branch string) {
	t.Helper()
	if err := tryInsertCommit(st, c, branch); err != nil {
		t.Fatalf("InsertCommit %s: %v", c.Hash, err)
	}
}

// tryInsertCommit writes c in a transaction of its own and returns the
// writer's error, for tests that feed it a bad commit.
func tryInsertCommit(st *Store, c *model.Commit, branch string) error {
	return withWriter(st, func(w *Writer) error {
		return w.InsertCommit(context.Background(), &model.Understood{Commit: c}, branch, time.Unix(1_700_000_000, 0))
	})
}

// withWriter runs f with a writer in a transaction of its own.
func withWriter(st *Store, f func(w *Writer) error) error {
	ctx := context.Background()
	return st.Tx(ctx, func(tx *sql.Tx) error {
		w, err := NewWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.Close()
		return f(w)
	})
}

func offset(tm time.Time) int {
	_, off := tm.Zone()
	return off
}

func TestCommitRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)
	want := fullCommit(hashA)
	insertCommit(t, st, want, "main")

	got, info, err := st.GetCommit(ctx, hashA)
	if err != nil {
		t.Fatalf("GetCommit: %v", err)
	}
	// cmp compares time.Time with its Equal method (the instant); the zone
	// offsets are checked separately below.
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetCommit mismatch (-want +got):\n%s", diff)
	}
	if got, want := offset(got.Author.When), 2*3600; got != want {
		t.Errorf("author zone offset = %d, want %d", got, want)
	}
	if got, want := offset(got.Committer.When), -(3*3600 + 30*60); got != want {
		t.Errorf("committer zone offset = %d, want %d", got, want)
	}
	if got.Author.When.Hour() != 14 || got.Committer.When.Hour() != 1 {
		t.Errorf("local hours = %d, %d; want 14, 1", got.Author.When.Hour(), got.Committer.When.Hour())
	}

	wantInfo := &CommitInfo{
		ID: info.ID, Hash: hashA, Parents: want.Parents, Author: want.Author, Committer: want.Committer,
		Subject: "Fix naïve parser 🚀", IsMerge: true, Files: 6, Insertions: 6, Deletions: 4,
		Redactions: 2, MessageRepaired: true, Branch: "main",
	}
	if diff := cmp.Diff(wantInfo, info); diff != "" {
		t.Errorf("CommitInfo mismatch (-want +got):\n%s", diff)
	}

	if _, _, err := st.GetCommit(ctx, hashQ); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetCommit of an unknown hash: %v, want ErrNotFound", err)
	}
}

func TestCommitRoundTripMinimal(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)
	utc := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	want := &model.Commit{
		Hash:      hashP,
		Author:    model.Signature{Name: "A", Email: "a@x", When: utc},
		Committer: model.Signature{Name: "A", Email: "a@x", When: utc},
		Message:   "",
		Shallow:   true,
	}
	insertCommit(t, st, want, "")
	got, info, err := st.GetCommit(ctx, hashP)
	if err != nil {
		t.Fatalf("GetCommit: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetCommit mismatch (-want +got):\n%s", diff)
	}
	if info.MessageRepaired || info.IsMerge || !info.Shallow || info.Files != 0 {
		t.Errorf("info = %+v", info)
	}
	if offset(got.Author.When) != 0 {
		t.Errorf("UTC author came back with offset %d", offset(got.Author.When))
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM blob_keys WHERE key = ?`, RawMessageKey(hashP)); n != 0 {
		t.Errorf("raw message blob stored for a commit without RawMessage")
	}
}

func rowCounts(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"commits", "commit_parents", "file_changes", "hunks", "issue_refs", "blobs"} {
		out[table] = count(t, db, `SELECT COUNT(*) FROM `+table)
	}
	return out
}

func TestInsertCommitIdempotent(t *testing.T) {
	st, _ := openTest(t)
	c := fullCommit(hashA)
	insertCommit(t, st, c, "main")
	want := map[string]int{
		// One row of hunk spans per change with hunks (five hunks in four).
		"commits": 1, "commit_parents": 2, "file_changes": 6, "hunks": 4, "issue_refs": 3,
		// msg, rawmsg and one diff blob per change with hunks.
		"blobs": 2 + 4,
	}
	if diff := cmp.Diff(want, rowCounts(t, st.DB)); diff != "" {
		t.Fatalf("rows after first insert (-want +got):\n%s", diff)
	}
	insertCommit(t, st, c, "main")
	if diff := cmp.Diff(want, rowCounts(t, st.DB)); diff != "" {
		t.Errorf("rows after second insert (-want +got):\n%s", diff)
	}

	// A minimal commit with one of each.
	st2, _ := openTest(t)
	one := &model.Commit{
		Hash: hashQ, Parents: []string{hashP}, Message: "m",
		Changes: []model.FileChange{{Path: "f", Status: model.Modified, Insertions: 1,
			Hunks: []model.Hunk{{OldStart: 1, OldLines: 0, NewStart: 1, NewLines: 1, Text: "+x\n"}}}},
		IssueRefs: []model.IssueRef{{Key: "#1", Kind: "github", Action: model.Fixes, Raw: "#1"}},
	}
	insertCommit(t, st2, one, "")
	insertCommit(t, st2, one, "")
	for _, table := range []string{"commits", "commit_parents", "file_changes", "hunks", "issue_refs"} {
		if n := count(t, st2.DB, `SELECT COUNT(*) FROM `+table); n != 1 {
			t.Errorf("%s: %d rows after inserting twice, want 1", table, n)
		}
	}
}

func TestInsertCommitRevivesRewritten(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)
	c := fullCommit(hashA)
	insertCommit(t, st, c, "main")
	if _, err := st.DB.Exec(`UPDATE commits SET rewritten = 1 WHERE hash = ?`, hashA); err != nil {
		t.Fatal(err)
	}
	_, info, err := st.GetCommit(ctx, hashA)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Rewritten {
		t.Fatal("Rewritten = false after marking the row rewritten")
	}
	insertCommit(t, st, c, "main")
	if n := count(t, st.DB, `SELECT rewritten FROM commits WHERE hash = ?`, hashA); n != 0 {
		t.Errorf("rewritten = %d after re-inserting, want 0", n)
	}
	if _, info, err = st.GetCommit(ctx, hashA); err != nil || info.Rewritten {
		t.Errorf("GetCommit after revive: rewritten=%v err=%v", info != nil && info.Rewritten, err)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM commits`); n != 1 {
		t.Errorf("%d commit rows, want 1", n)
	}
}

func TestDeleteCommit(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)

	var fk int
	if err := st.DB.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil {
		t.Fatal(err)
	}
	if fk != 1 {
		t.Fatalf("PRAGMA foreign_keys = %d, want 1", fk)
	}

	// victim has 12 changes, most with hunks, so diff keys with seq up to 11
	// (multi-digit seqs included).
	victim := fullCommit(hashA)
	for i := len(victim.Changes); i < 12; i++ {
		victim.Changes = append(victim.Changes, model.FileChange{Path: fmt.Sprintf("f%d", i), Status: model.Modified,
			Insertions: 1, Hunks: []model.Hunk{{OldStart: 1, OldLines: 0, NewStart: 1, NewLines: 1, Text: "+x\n"}}})
	}
	// Neighbours whose hashes share a prefix with the victim's.
	sameLen := hashA[:39] + "9"
	prefixOf := hashA[:12]
	longer := hashA + "0"
	neighbours := []string{sameLen, prefixOf, longer}
	insertCommit(t, st, victim, "main")
	for _, h := range neighbours {
		insertCommit(t, st, fullCommit(h), "main")
	}
	before := map[string]int{}
	for _, h := range neighbours {
		before[h] = count(t, st.DB, `SELECT COUNT(*) FROM blob_keys WHERE key IN (?, ?) OR key LIKE ?`,
			MessageKey(h), RawMessageKey(h), "diff:"+h+":%")
		if before[h] != 6 {
			t.Fatalf("neighbour %s has %d blobs before delete, want 6", h, before[h])
		}
	}
	var victimID int64
	if err := st.DB.QueryRow(`SELECT id FROM commits WHERE hash = ?`, hashA).Scan(&victimID); err != nil {
		t.Fatal(err)
	}
	// Changes 4 and 5 have no hunks, hence no diff blob.
	if n := count(t, st.DB, `SELECT COUNT(*) FROM blob_keys WHERE key LIKE ?`, "diff:"+hashA+":%"); n != 10 {
		t.Fatalf("victim has %d diff blobs, want 10", n)
	}
	if _, err := GetBlob(ctx, st.DB, DiffKey(hashA, 11)); err != nil {
		t.Fatalf("victim's diff blob 11: %v", err)
	}

	if err := st.Tx(ctx, func(tx *sql.Tx) error { return DeleteCommit(ctx, tx, hashA) }); err != nil {
		t.Fatalf("DeleteCommit: %v", err)
	}

	for _, table := range []string{"commit_parents", "file_changes", "hunks", "issue_refs"} {
		if n := count(t, st.DB, `SELECT COUNT(*) FROM `+table+` WHERE commit_id = ?`, victimID); n != 0 {
			t.Errorf("%s: %d rows of the deleted commit remain", table, n)
		}
		if n := count(t, st.DB, `SELECT COUNT(*) FROM `+table); n == 0 {
			t.Errorf("%s: the neighbours' rows were deleted too", table)
		}
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM commits WHERE hash = ?`, hashA); n != 0 {
		t.Errorf("commit row remains")
	}
	for _, k := range []string{MessageKey(hashA), RawMessageKey(hashA), DiffKey(hashA, 0), DiffKey(hashA, 11)} {
		if _, err := GetBlob(ctx, st.DB, k); !errors.Is(err, ErrNotFound) {
			t.Errorf("blob %s after delete: %v, want ErrNotFound", k, err)
		}
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM blob_keys WHERE instr(key, ?) > 0 AND instr(key, ?) = 0`,
		hashA, longer); n != 0 {
		t.Errorf("%d blobs of the deleted commit remain", n)
	}
	for _, h := range neighbours {
		after := count(t, st.DB, `SELECT COUNT(*) FROM blob_keys WHERE key IN (?, ?) OR key LIKE ?`,
			MessageKey(h), RawMessageKey(h), "diff:"+h+":%")
		if after != before[h] {
			t.Errorf("neighbour %s: %d blobs after delete, want %d", h, after, before[h])
		}
		if _, _, err := st.GetCommit(ctx, h); err != nil {
			t.Errorf("neighbour %s: GetCommit after delete: %v", h, err)
		}
	}
	if _, _, err := st.GetCommit(ctx, hashA); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetCommit of the deleted commit: %v, want ErrNotFound", err)
	}
}

// --- hunks ------------------------------------------------------------------

func TestFormatHunks(t *testing.T) {
	hunks := []model.Hunk{
		{OldStart: 5, OldLines: 1, NewStart: 5, NewLines: 1, Text: "-a\n+b\n"},
		{OldStart: 10, OldLines: 0, NewStart: 11, NewLines: 2, Text: "+c\n+d\n"},
		{OldStart: 20, OldLines: 3, NewStart: 22, NewLines: 0, Text: "-e\n-f\n-g\n"},
		{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 1, Text: "+h\n\\ No newline at end of file\n"},
	}
	want := "@@ -5 +5 @@\n-a\n+b\n" +
		"@@ -10,0 +11,2 @@\n+c\n+d\n" +
		"@@ -20,3 +22,0 @@\n-e\n-f\n-g\n" +
		"@@ -0,0 +1 @@\n+h\n\\ No newline at end of file\n"
	got := FormatHunks(hunks)
	if got != want {
		t.Errorf("FormatHunks =\n%s\nwant\n%s", got, want)
	}
	if diff := cmp.Diff(hunks, ParseHunks(got)); diff != "" {
		t.Errorf("ParseHunks(FormatHunks) mismatch (-want +got):\n%s", diff)
	}
}

func TestParseHunksGitText(t *testing.T) {
	// As git prints it, section headings after the second @@ included.
	text := "@@ -1,3 +1,3 @@ func main() {\n" +
		" a\n" +
		"-b\n" +
		"\\ No newline at end of file\n" +
		"+B\n" +
		"\\ No newline at end of file\n" +
		"@@ -7 +7 @@\n" +
		"-x\n" +
		"+y\n" +
		"@@ -9,0 +10 @@\n" +
		"+z\n"
	want := []model.Hunk{
		{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3,
			Text: " a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n"},
		{OldStart: 7, OldLines: 1, NewStart: 7, NewLines: 1, Text: "-x\n+y\n"},
		{OldStart: 9, OldLines: 0, NewStart: 10, NewLines: 1, Text: "+z\n"},
	}
	if diff := cmp.Diff(want, ParseHunks(text)); diff != "" {
		t.Errorf("ParseHunks mismatch (-want +got):\n%s", diff)
	}
	if got := ParseHunks(""); len(got) != 0 {
		t.Errorf("ParseHunks(\"\") = %v", got)
	}
}

func TestHunksRoundTrip(t *testing.T) {
	cases := [][]model.Hunk{
		nil,
		{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1}},
		{{OldStart: 0, OldLines: 0, NewStart: 0, NewLines: 0, Text: "\n\n"}},
		{{OldStart: 3, OldLines: 2, NewStart: 3, NewLines: 2, Text: " @@ not a header\n+@@ neither\n-\r\n+\xff\n"}},
		{
			{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 0, Text: "-only\n\\ No newline at end of file\n"},
			{OldStart: 100000, OldLines: 12345, NewStart: 99999, NewLines: 1, Text: ""},
			{OldStart: 200000, OldLines: 1, NewStart: 200001, NewLines: 1, Text: "-p\n+q\n"},
		},
	}
	for i, hunks := range cases {
		got := ParseHunks(FormatHunks(hunks))
		if diff := cmp.Diff(hunks, got); diff != "" {
			t.Errorf("case %d: round trip mismatch (-want +got):\n%s", i, diff)
		}
	}
}

// hunkText turns arbitrary input into valid hunk text: complete lines,
// none of them starting with "@@ ".
func hunkText(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "@@ ") {
			b.WriteByte(' ')
		}
		b.WriteString(line)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	return b.String()
}

func FuzzHunksRoundTrip(f *testing.F) {
	f.Add(uint32(5), uint32(1), uint32(5), uint32(1), "-a\n+b\n", "+c\n", uint8(2))
	f.Add(uint32(0), uint32(0), uint32(1), uint32(3), "+1\n+2\n+3", "", uint8(1))
	f.Add(uint32(1), uint32(1), uint32(1), uint32(1), "-x\n\\ No newline at end of file\n", "@@ -1 +1 @@\n", uint8(3))
	f.Add(uint32(7), uint32(0), uint32(8), uint32(0), "\n\n\r\n", "@@\n@@@ x\n", uint8(0))
	f.Fuzz(func(t *testing.T, oldStart, ol, newStart, nl uint32, t1, t2 string, n uint8) {
		var hunks []model.Hunk
		for i := range int(n % 5) {
			text := t1
			if i%2 == 1 {
				text = t2
			}
			k := uint32(i)
			hunks = append(hunks, model.Hunk{
				OldStart: int(oldStart + k*ol), OldLines: int(ol >> k),
				NewStart: int(newStart + k*nl), NewLines: int(nl >> k),
				Text: hunkText(text),
			})
		}
		formatted := FormatHunks(hunks)
		got := ParseHunks(formatted)
		if diff := cmp.Diff(hunks, got); diff != "" {
			t.Errorf("round trip mismatch (-want +got):\n%s\nformatted:\n%q", diff, formatted)
		}
	})
}

// --- lock -------------------------------------------------------------------

func TestLockSameProcess(t *testing.T) {
	dir := t.TempDir()
	l1, err := AcquireLock(dir)
	if err != nil {
		t.Fatalf("first AcquireLock: %v", err)
	}
	l2, err := AcquireLock(dir)
	if err == nil {
		l2.Release()
		l1.Release()
		t.Fatal("second AcquireLock succeeded while the first is held")
	}
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second AcquireLock: %v, want ErrLocked", err)
	}
	if pid := "pid " + strconv.Itoa(os.Getpid()); !strings.Contains(err.Error(), pid) {
		t.Errorf("error %q does not name %q", err, pid)
	}
	if err := l1.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := l1.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	l3, err := AcquireLock(dir)
	if err != nil {
		t.Fatalf("AcquireLock after Release: %v", err)
	}
	if err := l3.Release(); err != nil {
		t.Error(err)
	}
	var nilLock *Lock
	if err := nilLock.Release(); err != nil {
		t.Errorf("Release of a nil lock: %v", err)
	}
}

func TestLockOtherProcess(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) not installed")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)
	cmd := exec.Command("flock", path, "sh", "-c", "echo locked; exec sleep 30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	killed := false
	kill := func() {
		if !killed {
			killed = true
			syscall.Kill(-pgid, syscall.SIGKILL)
			cmd.Wait()
		}
	}
	t.Cleanup(kill)

	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		if strings.TrimSpace(line) != "locked" {
			t.Fatalf("flock printed %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("flock did not take the lock")
	}

	l, err := AcquireLock(dir)
	if err == nil {
		l.Release()
		t.Fatal("AcquireLock succeeded while flock(1) holds the lock")
	}
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("AcquireLock: %v, want ErrLocked", err)
	}

	kill()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l, err = AcquireLock(dir)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("AcquireLock after the holder died: %v", err)
	}
	defer l.Release()
	pid, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(pid)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want our pid %d", pid, os.Getpid())
	}
}

// TestOpenOddDirectory: a data directory whose name holds URI syntax
// ('#', '?', '%', space) must get its own database file, not one at a
// truncated path.
func TestOpenOddDirectory(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"C#", "a?b", "50%25", "with space"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		st, err := Open(ctx, dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		st.Close()
		if _, err := os.Stat(filepath.Join(dir, DBFile)); err != nil {
			t.Errorf("%s: database not in its directory: %v", name, err)
		}
	}
}

// A store written by the release whose last migration added the code
// relationships (version 9) upgrades in place: its rows stay, and the
// file changes gain the followed path.
func TestOpenUpgradesTheCodeRelationsSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	all := migrations
	migrations = all[:9]
	old, err := Open(ctx, dir)
	migrations = all
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.DB.Exec(`INSERT INTO code_nodes(node) VALUES ('fn:a.go#A')`); err != nil {
		t.Fatalf("version 9 is not the code relationships schema: %v", err)
	}
	if n := count(t, old.DB, `SELECT COUNT(*) FROM pragma_table_info('file_changes') WHERE name = 'follow'`); n != 0 {
		t.Fatalf("version 9 already has file_changes.follow")
	}
	st := upgrade(t, old, dir)
	if v, _ := st.SchemaVersion(ctx); v != len(migrations) || v < 10 {
		t.Fatalf("SchemaVersion after upgrade = %d, want %d", v, len(migrations))
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM code_nodes WHERE node = 'fn:a.go#A'`); n != 1 {
		t.Errorf("code_nodes row lost in the upgrade")
	}
	want := fullCommit(hashA)
	want.Changes[0].Follow = "old/name.go"
	insertCommit(t, st, want, "main")
	got, _, err := st.GetCommit(ctx, hashA)
	if err != nil {
		t.Fatal(err)
	}
	if got.Changes[0].Follow != "old/name.go" {
		t.Errorf("Follow after upgrade = %q, want old/name.go", got.Changes[0].Follow)
	}
}
