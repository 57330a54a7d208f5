package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/model"
)

// TestOpenCompactsAnOlderStore: the upgrades to a contentless keyword
// index and to blobs keyed by their commits keep every row searchable and
// readable, keep deletion working, and give the freed pages back to the
// file system.
func TestOpenCompactsAnOlderStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := openVersion(t, dir, 10)
	id := oldCommit(t, old, hashA)
	if _, err := old.DB.Exec(`INSERT INTO search(rowid, subject, body, summary, notes, paths, entities) VALUES (?, ?, '', '', '', '', '')`,
		id, "a parser for configuration"); err != nil {
		t.Fatal(err)
	}
	// Bulk: enough text that the dropped copy is worth pages.
	big := map[string][]byte{}
	for i := range 400 {
		big[DiffKey(hashA, i)] = []byte(strings.Repeat("line of a diff\n", 40+i%7))
		if _, err := old.DB.Exec(`INSERT INTO search(rowid, subject, body, summary, notes, paths, entities) VALUES (?, ?, ?, '', '', '', '')`,
			1000+i, "subject words", strings.Repeat("a body that repeats itself ", 60)); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range big {
		oldBlob(t, old, k, v)
	}
	if n := count(t, old.DB, `SELECT COUNT(*) FROM search WHERE search MATCH 'parser'`); n != 1 {
		t.Fatalf("version 10 store: %d rows match 'parser', want 1", n)
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
	if err := st.Tx(ctx, func(tx *sql.Tx) error { return DeleteCommit(ctx, tx, hashA) }); err != nil {
		t.Fatal(err)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM search WHERE search MATCH 'parser'`); n != 0 {
		t.Errorf("a deleted commit's row still matches: %d", n)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM blobs`); n != 0 {
		t.Errorf("a deleted commit's %d blobs remain", n)
	}
	if after := fileSize(t, dir); after >= before*3/4 {
		t.Errorf("store file %d bytes before the upgrade, %d after: not compacted", before, after)
	}
}

// TestOpenKeysBlobsByCommit: a version 11 store's blobs, keyed by text,
// are each read back by the same key after the upgrade, from a table with
// no key text and no index; a blob of no stored commit is not kept.
func TestOpenKeysBlobsByCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := openVersion(t, dir, 11)
	idA, idP := oldCommit(t, old, hashA), oldCommit(t, old, hashP)
	want := map[string][]byte{
		MessageKey(hashA):    []byte(strings.Repeat("a message long enough to be compressed ", 10)),
		RawMessageKey(hashA): {0xff, 0xfe, 'x'},
		DiffKey(hashA, 0):    []byte("@@ -1 +1 @@\n-a\n+b\n"),
		DiffKey(hashA, 11):   []byte(strings.Repeat("+a line of diff\n", 30)),
		MessageKey(hashP):    []byte("short"),
		DiffKey(hashP, 3):    []byte("@@ -0,0 +1 @@\n+x\n"),
	}
	for k, v := range want {
		oldBlob(t, old, k, v)
	}
	oldBlob(t, old, MessageKey(hashQ), []byte("of no stored commit"))
	st := upgrade(t, old, dir)
	for k, v := range want {
		if got, err := GetBlob(ctx, st.DB, k); err != nil || string(got) != string(v) {
			t.Errorf("blob %s after the upgrade: %q, %v; want %q", k, got, err, v)
		}
	}
	if _, err := GetBlob(ctx, st.DB, MessageKey(hashQ)); !errors.Is(err, ErrNotFound) {
		t.Errorf("blob of no stored commit: %v, want ErrNotFound", err)
	}
	ids, err := Strings(ctx, st.DB, `SELECT id FROM blobs ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	wantIDs := []string{fmt.Sprint(idA << 32), fmt.Sprint(idA<<32 + 1), fmt.Sprint(idA<<32 + 2), fmt.Sprint(idA<<32 + 13),
		fmt.Sprint(idP << 32), fmt.Sprint(idP<<32 + 5)}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("blob ids %v, want %v", ids, wantIDs)
	}
	keys, err := Strings(ctx, st.DB, `SELECT key FROM blob_keys ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != len(want) {
		t.Errorf("blob_keys shows %v, want the %d keys", keys, len(want))
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = 'blobs' AND type = 'index'`); n != 0 {
		t.Errorf("blobs has %d indexes, want none", n)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM pragma_table_info('blobs') WHERE name = 'key'`); n != 0 {
		t.Error("blobs still has a key column")
	}
}

// openVersion creates a store at schema version v.
func openVersion(t *testing.T, dir string, v int) *Store {
	t.Helper()
	all := migrations
	migrations = all[:v]
	st, err := Open(context.Background(), dir)
	migrations = all
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// upgrade closes a store of an older version and opens its directory
// again, which upgrades it; the upgraded store closes when the test ends.
func upgrade(t *testing.T, old *Store, dir string) *Store {
	t.Helper()
	old.Close()
	st, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// oldCommit stores a bare commit row in a store of any version; its id.
func oldCommit(t *testing.T, st *Store, hash string) int64 {
	t.Helper()
	err := st.Tx(context.Background(), func(tx *sql.Tx) error { return bareCommit(context.Background(), tx, hash) })
	if err != nil {
		t.Fatal(err)
	}
	return int64(count(t, st.DB, `SELECT id FROM commits WHERE hash = ?`, hash))
}

// oldBlob stores a blob under its key text, as versions before 12 did.
func oldBlob(t *testing.T, st *Store, key string, data []byte) {
	t.Helper()
	b := encodeBlob(data)
	if _, err := st.DB.Exec(`INSERT INTO blobs(key, codec, size, data) VALUES (?, ?, ?, ?)`, key, b.codec, b.size, b.data); err != nil {
		t.Fatal(err)
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
	putBlobs(t, st, map[string][]byte{"msg:bad": []byte("x")})
	if _, err := st.DB.Exec(`UPDATE blobs SET codec = 1, size = 100, data = x'00010203'
		WHERE id = (SELECT id FROM commits WHERE hash = 'bad') << 32`); err != nil {
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

// TestCompactIfGrown: a store is compacted when it has doubled since its
// last compaction, and not before; the compaction gives back at least the
// store's free pages, the file on disk is the size it reports, and what
// the store holds reads the same after.
func TestCompactIfGrown(t *testing.T) {
	ctx := context.Background()
	st, dir := openTest(t)
	if b, a, err := st.CompactIfGrown(ctx); err != nil || b != 0 || a != 0 {
		t.Fatalf("under the minimum: compacted %d -> %d, %v", b, a, err)
	}
	defer func(m int64) { compactMinBytes = m }(compactMinBytes)
	compactMinBytes = 0
	fill := func(from, n int) map[string][]byte {
		blobs := map[string][]byte{}
		for i := from; i < from+n; i++ {
			// Keys in no order, as an index takes them.
			blobs[MessageKey(fmt.Sprintf("%040x", uint64(i)*0x9e3779b97f4a7c15))] = []byte(strings.Repeat(fmt.Sprint(i, " words "), 30))
		}
		putBlobs(t, st, blobs)
		return blobs
	}
	blobs := fill(0, 3000)
	// Rows inserted in random order alone leave SQLite's b-trees so nearly
	// full that a VACUUM gave back 0 to 3 of 140 pages, as the insertion
	// order fell: too little to tell a compaction from none. Deleting the
	// oldest third, as a retention policy does, leaves pages only a VACUUM
	// returns.
	free := pruneOldest(t, st, 1000, blobs)
	if free == 0 {
		t.Fatal("pruning a third of the commits freed no page")
	}
	b, a, err := st.CompactIfGrown(ctx)
	if err != nil || b == 0 || a <= 0 || a > b-free {
		t.Fatalf("first compaction: %d -> %d bytes, %v; want at most %d (the %d free bytes given back)", b, a, err, b-free, free)
	}
	if size := fileSize(t, dir); size != a {
		t.Errorf("after the compaction the file holds %d bytes; it reported %d", size, a)
	}
	if b, a, err := st.CompactIfGrown(ctx); err != nil || b != 0 || a != 0 {
		t.Errorf("not grown since: compacted %d -> %d, %v", b, a, err)
	}
	for k, v := range fill(3000, 100) {
		blobs[k] = v
	}
	if b, _, err := st.CompactIfGrown(ctx); err != nil || b != 0 {
		t.Errorf("grown a little: compacted %d, %v", b, err)
	}
	for k, v := range fill(3100, 6000) {
		blobs[k] = v
	}
	if b, _, err := st.CompactIfGrown(ctx); err != nil || b == 0 {
		t.Errorf("doubled: not compacted (%d), %v", b, err)
	}
	for k, v := range blobs {
		if got, err := GetBlob(ctx, st.DB, k); err != nil || string(got) != string(v) {
			t.Fatalf("blob %s after compaction: %d bytes, %v", k, len(got), err)
		}
	}
}

// pruneOldest deletes the n commits stored first, with their blobs, from
// the store and from blobs; it returns the bytes of the store's free pages.
func pruneOldest(t *testing.T, st *Store, n int, blobs map[string][]byte) int64 {
	t.Helper()
	ctx := context.Background()
	hashes, err := Strings(ctx, st.DB, `SELECT hash FROM commits ORDER BY id LIMIT ?`, n)
	if err != nil || len(hashes) != n {
		t.Fatalf("the %d oldest commits: %d, %v", n, len(hashes), err)
	}
	err = st.Tx(ctx, func(tx *sql.Tx) error {
		for _, h := range hashes {
			if err := DeleteCommit(ctx, tx, h); err != nil {
				return err
			}
			delete(blobs, MessageKey(h))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var free int64
	if err := st.DB.QueryRow(`SELECT (SELECT freelist_count FROM pragma_freelist_count()) * (SELECT page_size FROM pragma_page_size())`).Scan(&free); err != nil {
		t.Fatal(err)
	}
	return free
}

// TestOpenStoresObjectIDsAsBytes: a version 13 store's object ids, hex
// text, are bytes after the upgrade and read back as the same hex; none
// stays none. A writer refuses an id that is not hex, naming it.
func TestOpenStoresObjectIDsAsBytes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := openVersion(t, dir, 13)
	id := oldCommit(t, old, hashA)
	for seq, ids := range [][2]string{{"", "5555555555555555555555555555555555555555"},
		{"3333333333333333333333333333333333333333", "abcdef0123456789abcdef0123456789abcdef01"}, {"6666666666666666666666666666666666666666", ""}} {
		if _, err := old.DB.Exec(`INSERT INTO file_changes(commit_id, seq, path, status, insertions, deletions, old_blob, new_blob)
			VALUES (?, ?, ?, 'modified', 1, 1, ?, ?)`, id, seq, fmt.Sprint("f", seq), ids[0], ids[1]); err != nil {
			t.Fatal(err)
		}
	}
	putBlobs(t, old, map[string][]byte{MessageKey(hashA): []byte("a message")})
	st := upgrade(t, old, dir)
	got, err := Strings(ctx, st.DB, `SELECT typeof(old_blob) || ' ' || length(old_blob) || ' ' || lower(hex(old_blob)) || ' ' ||
		typeof(new_blob) || ' ' || length(new_blob) || ' ' || lower(hex(new_blob)) FROM file_changes ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"blob 0  blob 20 5555555555555555555555555555555555555555",
		"blob 20 3333333333333333333333333333333333333333 blob 20 abcdef0123456789abcdef0123456789abcdef01",
		"blob 20 6666666666666666666666666666666666666666 blob 0 "}
	if !slices.Equal(got, want) {
		t.Errorf("object ids after the upgrade:\n%q\nwant\n%q", got, want)
	}
	c, _, err := st.GetCommit(ctx, hashA)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Changes) != 3 || c.Changes[1].NewBlob != "abcdef0123456789abcdef0123456789abcdef01" || c.Changes[0].OldBlob != "" {
		t.Errorf("GetCommit's changes: %+v", c.Changes)
	}

	bad := fullCommit(hashP)
	bad.Changes[0].NewBlob = "not-hex"
	err = tryInsertCommit(st, bad, "main")
	if err == nil || !strings.Contains(err.Error(), `"not-hex"`) {
		t.Errorf("a change with object id not-hex: %v", err)
	}
}

// TestCompactIfGrownWhileRead: in WAL mode a VACUUM runs while another
// connection reads; the reader keeps its snapshot and reads on, and the
// store keeps every blob.
func TestCompactIfGrownWhileRead(t *testing.T) {
	ctx := context.Background()
	st, dir := openTest(t)
	defer func(m int64) { compactMinBytes = m }(compactMinBytes)
	compactMinBytes = 0
	blobs := map[string][]byte{}
	for i := range 500 {
		blobs[MessageKey(fmt.Sprintf("%040x", i))] = []byte(strings.Repeat("some words ", 40))
	}
	putBlobs(t, st, blobs)
	other, err := sql.Open("sqlite", filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id FROM blobs`)
	if err != nil || !rows.Next() {
		t.Fatalf("reader: %v", err)
	}
	if b, _, err := st.CompactIfGrown(ctx); err != nil || b == 0 {
		t.Fatalf("under a reader: compacted %d, %v", b, err)
	}
	n := 1
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil || n != len(blobs) {
		t.Errorf("the reader read %d of %d rows across the compaction: %v", n, len(blobs), err)
	}
	for k, v := range blobs {
		if got, err := GetBlob(ctx, st.DB, k); err != nil || string(got) != string(v) {
			t.Fatalf("blob %s after compaction under a reader: %v", k, err)
		}
	}
}

// A new store has pages of pageBytes in WAL mode; an older store of 4 KiB
// pages is given them when opened, keeps every row and its compaction
// mark, and stays in WAL mode. A store another process holds open keeps
// its pages until a later opening.
func TestStorePageSize(t *testing.T) {
	ctx := context.Background()
	st, dir := openTest(t)
	pragmas := func(db *sql.DB) (size int, mode string) {
		t.Helper()
		if err := db.QueryRow(`SELECT (SELECT page_size FROM pragma_page_size()), (SELECT journal_mode FROM pragma_journal_mode())`).Scan(&size, &mode); err != nil {
			t.Fatal(err)
		}
		return size, mode
	}
	if size, mode := pragmas(st.DB); size != pageBytes || mode != "wal" {
		t.Fatalf("new store: page size %d, journal mode %s", size, mode)
	}
	blobs := map[string][]byte{}
	for i := range 300 {
		blobs[MessageKey(fmt.Sprintf("%040x", i))] = []byte(strings.Repeat(fmt.Sprint("words ", i), 50))
	}
	putBlobs(t, st, blobs)
	st.Close()
	old, err := sql.Open("sqlite", filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	old.SetMaxOpenConns(1)
	for _, q := range []string{`PRAGMA journal_mode = DELETE`, `PRAGMA page_size = 4096`, `VACUUM`,
		`PRAGMA journal_mode = WAL`, `UPDATE compaction SET pages = 7`} {
		if _, err := old.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if size, _ := pragmas(old); size != 4096 {
		t.Fatalf("could not make an older store: page size %d", size)
	}
	// Held open by another process's read: the store opens as it is.
	tx, err := old.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM blobs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	held, err := Open(ctx, dir)
	if err != nil {
		t.Fatalf("open while read: %v", err)
	}
	if size, mode := pragmas(held.DB); size != 4096 || mode != "wal" {
		t.Errorf("store held open: page size %d, journal mode %s; want it left at 4096, wal", size, mode)
	}
	held.Close()
	tx.Rollback()
	old.Close()

	st, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if size, mode := pragmas(st.DB); size != pageBytes || mode != "wal" {
		t.Errorf("upgraded store: page size %d, journal mode %s", size, mode)
	}
	var pages, mark int
	if err := st.DB.QueryRow(`SELECT (SELECT page_count FROM pragma_page_count()), pages FROM compaction`).Scan(&pages, &mark); err != nil || pages != mark {
		t.Errorf("compaction mark %d, the store has %d pages (%v)", mark, pages, err)
	}
	for k, v := range blobs {
		if got, err := GetBlob(ctx, st.DB, k); err != nil || string(got) != string(v) {
			t.Fatalf("blob %s after the new page size: %q, %v", k, got, err)
		}
	}
}

// TestOpenStoresParentsAsBytes: a version 14 store's parent hashes, hex
// text, are bytes after the upgrade and read back as the same hex, in
// order. A writer refuses a parent hash that is not hex, naming it.
func TestOpenStoresParentsAsBytes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := openVersion(t, dir, 14)
	id := oldCommit(t, old, hashA)
	parents := []string{"abcdef0123456789abcdef0123456789abcdef01", "5555555555555555555555555555555555555555"}
	for i, p := range parents {
		if _, err := old.DB.Exec(`INSERT INTO commit_parents VALUES (?, ?, ?)`, id, i, p); err != nil {
			t.Fatal(err)
		}
	}
	putBlobs(t, old, map[string][]byte{MessageKey(hashA): []byte("a message")})
	st := upgrade(t, old, dir)
	got, err := Strings(ctx, st.DB, `SELECT typeof(parent_hash) || ' ' || length(parent_hash) FROM commit_parents ORDER BY idx`)
	if err != nil || !slices.Equal(got, []string{"blob 20", "blob 20"}) {
		t.Errorf("parents after the upgrade: %q, %v", got, err)
	}
	c, _, err := st.GetCommit(ctx, hashA)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Parents, parents) {
		t.Errorf("GetCommit's parents %q, want %q", c.Parents, parents)
	}
	var child string
	if err := st.DB.QueryRow(`SELECT c.hash FROM commit_parents p JOIN commits c ON c.id = p.commit_id
		WHERE p.parent_hash = unhex(?)`, parents[1]).Scan(&child); err != nil || child != hashA {
		t.Errorf("child of %s by the parents' index: %q, %v", parents[1], child, err)
	}

	bad := fullCommit(hashP)
	bad.Parents = []string{"not-hex"}
	err = tryInsertCommit(st, bad, "main")
	if err == nil || !strings.Contains(err.Error(), `"not-hex"`) {
		t.Errorf("a commit with parent not-hex: %v", err)
	}
}

// TestOpenPacksHunks: a version 15 store's hunk rows are one row of spans
// per file change after the upgrade, and decode to the same numbers in
// the same order, varints of one to five bytes among them; the writer's
// spans decode alike.
func TestOpenPacksHunks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := openVersion(t, dir, 15)
	id := oldCommit(t, old, hashA)
	want := map[int][]Span{
		0: {{1, 0, 1, 3}, {127, 128, 16383, 16384}, {2097151, 2097152, 1<<28 - 1, 1 << 28}},
		1: {{5, 2, 6, 2}},
		3: {{1 << 34, 0, 0, 1}},
	}
	for seq, spans := range want {
		for i, h := range spans {
			if _, err := old.DB.Exec(`INSERT INTO hunks VALUES (?, ?, ?, ?, ?, ?, ?)`,
				id, seq, i, h.OldStart, h.OldLines, h.NewStart, h.NewLines); err != nil {
				t.Fatal(err)
			}
		}
	}
	st := upgrade(t, old, dir)
	got := map[int][]Span{}
	err := EachRow(ctx, st.DB, `SELECT seq, spans FROM hunks WHERE commit_id = ?`, []any{id}, func(r *sql.Rows) error {
		var seq int
		var b []byte
		if err := r.Scan(&seq, &b); err != nil {
			return err
		}
		spans, err := DecodeSpans(b)
		got[seq] = spans
		return err
	})
	if err != nil || !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("spans after the upgrade %v, %v; want %v", got, err, want)
	}
	hunks := []model.Hunk{{OldStart: 300, OldLines: 2, NewStart: 301, NewLines: 70000}, {OldStart: 9, NewStart: 1}}
	spans, err := DecodeSpans(EncodeSpans(hunks))
	if err != nil || !slices.Equal(spans, []Span{{300, 2, 301, 70000}, {9, 0, 1, 0}}) {
		t.Errorf("written spans decode to %v, %v", spans, err)
	}
	if _, err := DecodeSpans([]byte{0x80}); err == nil {
		t.Errorf("a truncated varint decoded")
	}
}
