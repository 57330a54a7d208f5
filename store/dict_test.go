package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/gitmemory/gitmemory/model"
)

// dictCommit is a commit of a history whose messages and diffs resemble
// each other, as a project's do.
func dictCommit(i int) (hash, msg, diff string) {
	hash = fmt.Sprintf("%040x", uint64(i)*0x9e3779b97f4a7c15)
	msg = fmt.Sprintf("parser: handle case %d in the tokenizer\n\nThe tokenizer dropped the trailing state when case %d\n"+
		"followed a quoted string; keep it.\n\nSigned-off-by: Ann Example <ann@example.org>\n", i, i*7)
	diff = fmt.Sprintf("@@ -%d,7 +%d,8 @@ static int next_token(struct tokenizer *t)\n"+
		" \tif (t->state == STATE_QUOTED) {\n-\t\treturn finish_quoted(t, %d);\n+\t\tint r = finish_quoted(t, %d);\n"+
		"+\t\tt->state = STATE_PLAIN;\n+\t\treturn r;\n \t}\n \treturn next_plain(t);\n }\n", i, i+1, i, i)
	return hash, msg, diff
}

func storeDictHistory(t *testing.T, st *Store, from, to int) map[string][]byte {
	t.Helper()
	blobs := map[string][]byte{}
	for i := from; i < to; i++ {
		hash, msg, diff := dictCommit(i)
		blobs[MessageKey(hash)] = []byte(msg)
		blobs[DiffKey(hash, 0)] = []byte(diff)
		blobs[DiffKey(hash, 1)] = []byte(strings.ReplaceAll(diff, "tokenizer", "lexer"))
	}
	putBlobs(t, st, blobs)
	return blobs
}

// TestTrainDictionaries: once the store holds enough commits, it trains a
// dictionary for messages and one for diffs, re-encodes the blobs stored
// before, smaller, and encodes later ones with them; every blob reads
// back the same, also in a process that has not seen the dictionaries.
func TestTrainDictionaries(t *testing.T) {
	ctx := context.Background()
	defer func(n int) { dictMinCommits = n }(dictMinCommits)
	dictMinCommits = 300
	st, _ := openTest(t)
	blobs := storeDictHistory(t, st, 0, 200)
	if trained, err := st.TrainDictionaries(ctx); err != nil || trained {
		t.Fatalf("200 commits: trained %v, %v; want not yet", trained, err)
	}
	for k, v := range storeDictHistory(t, st, 200, 400) {
		blobs[k] = v
	}
	before := count(t, st.DB, `SELECT SUM(length(data)) FROM blobs`)
	trained, err := st.TrainDictionaries(ctx)
	if err != nil || !trained {
		t.Fatalf("400 commits: trained %v, %v", trained, err)
	}
	if n := count(t, st.DB, `SELECT COUNT(DISTINCT kind) FROM blob_dicts`); n != 2 {
		t.Errorf("%d kinds of dictionaries, want 2", n)
	}
	after := count(t, st.DB, `SELECT SUM(length(data)) FROM blobs`)
	if after*10 > before*9 {
		t.Errorf("re-encoded with dictionaries: %d bytes, before %d; want a tenth less", after, before)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM blobs WHERE codec = ?`, codecZstd); n != 0 {
		t.Errorf("%d blobs still without a dictionary", n)
	}
	if trained, err := st.TrainDictionaries(ctx); err != nil || trained {
		t.Errorf("trained again: %v, %v", trained, err)
	}

	codec, err := st.BlobCodec(ctx)
	if err != nil || !codec.Complete() {
		t.Fatalf("codec: %v, complete %v", err, codec.Complete())
	}
	hash, msg, diff := dictCommit(1000)
	c := &model.Commit{Hash: hash, Message: msg, Changes: []model.FileChange{{Path: "tokenizer.c", Status: model.Modified,
		Insertions: 3, Deletions: 1, Hunks: ParseHunks(diff)}}}
	p := codec.Prepare(&model.Understood{Commit: c})
	if p.blobs[slotMessage].codec != codecDict || p.blobs[slotDiff].codec != codecDict {
		t.Errorf("prepared with the codec: codecs %d and %d, want %d", p.blobs[slotMessage].codec, p.blobs[slotDiff].codec, codecDict)
	}
	insertPrepared(t, st, c, p)
	blobs[MessageKey(hash)], blobs[DiffKey(hash, 0)] = []byte(msg), []byte(FormatHunks(ParseHunks(diff)))

	dictDecoders.Lock()
	dictDecoders.m = nil // as a new process
	dictDecoders.Unlock()
	for k, v := range blobs {
		if got, err := GetBlob(ctx, st.DB, k); err != nil || string(got) != string(v) {
			t.Fatalf("blob %s: %q, %v; want %q", k, got, err, v)
		}
	}
	keys := []string{MessageKey(hash), MessageKey(dictHash(3)), DiffKey(dictHash(5), 1)}
	got, err := GetBlobs(ctx, st.DB, keys)
	if err != nil || len(got) != 3 {
		t.Fatalf("GetBlobs: %d, %v", len(got), err)
	}
	for _, k := range keys {
		if string(got[k]) != string(blobs[k]) {
			t.Errorf("GetBlobs %s: %q", k, got[k])
		}
	}
}

func dictHash(i int) string { h, _, _ := dictCommit(i); return h }

func insertPrepared(t *testing.T, st *Store, c *model.Commit, p *Prepared) {
	t.Helper()
	ctx := context.Background()
	err := st.Tx(ctx, func(tx *sql.Tx) error {
		w, err := NewWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.Close()
		return w.InsertPrepared(ctx, &model.Understood{Commit: c}, p, "main", c.Committer.When)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDecodeBlobErrors: a codec this build does not know, and a frame
// naming a dictionary the store does not hold, are errors naming the
// blob.
func TestDecodeBlobErrors(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)
	if _, err := decodeBlob(ctx, st.DB, "msg:x", 9, 10, []byte("whatever")); err == nil ||
		!strings.Contains(err.Error(), "msg:x") || !strings.Contains(err.Error(), "unknown codec 9") {
		t.Errorf("unknown codec: %v", err)
	}
	d, id, err := buildDict(func() [][]byte {
		var s [][]byte
		for i := range 200 {
			_, msg, diff := dictCommit(i)
			s = append(s, []byte(msg), []byte(diff))
		}
		return s
	}())
	if err != nil {
		t.Fatal(err)
	}
	enc, err := dictEncoder(d, zstd.SpeedFastest)
	if err != nil {
		t.Fatal(err)
	}
	_, msg, _ := dictCommit(7)
	frame := enc.EncodeAll([]byte(msg), nil)
	_, err = decodeBlob(ctx, st.DB, "msg:y", codecDict, len(msg), frame)
	if err == nil || !strings.Contains(err.Error(), "msg:y") || !strings.Contains(err.Error(), fmt.Sprintf("dictionary %d is not stored", id)) {
		t.Errorf("dictionary not stored: %v", err)
	}
}
