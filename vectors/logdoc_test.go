package vectors

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A document of the usual shape is written as op 5 and reads back with
// the very id and metadata it was written with; with replace, a delete of
// its commit comes first. Documents of another shape keep op 4.
func TestLogDocRoundTrip(t *testing.T) {
	vec := []float32{0, 0.5, 0, -0.25, 0, 0, 0, 0, 0.125}
	note := noteDoc(7, 12, "x")
	note.Rewritten = true
	note.Paths = nil
	note.Classification = ""
	old := commitDoc(3, "x", "bugfix", -20000) // before 1970
	for _, d := range []Doc{commitDoc(1, "x", "feature", 0), note, old} {
		for _, replace := range []bool{false, true} {
			var enc encoder
			enc.putDoc(d.ID(), d.metadata(), vec, replace)
			if enc.buf[0] != opPutDoc {
				t.Fatalf("%s: op %d, want %d", d.ID(), enc.buf[0], opPutDoc)
			}
			var got []record
			if err := decodePayload(enc.buf, func(r *record) error { got = append(got, *r); return nil }); err != nil {
				t.Fatal(err)
			}
			if replace {
				if len(got) != 2 || got[0].op != opDelCommit || got[0].commit != d.Commit {
					t.Fatalf("%s replacing: decoded %+v, want a delete of its commit first", d.ID(), got)
				}
				got = got[1:]
			}
			if len(got) != 1 || got[0].id != d.ID() || !maps.Equal(got[0].meta, d.metadata()) || !slices.Equal(got[0].vec, vec) {
				t.Fatalf("%s: decoded %+v, want %v", d.ID(), got, d.metadata())
			}
		}
	}
	usual := commitDoc(1, "x", "feature", 0)
	for name, change := range map[string]func(id string, m map[string]string) string{
		"short commit":   func(id string, m map[string]string) string { m[MetaCommit] = "c"; return "commit:c" },
		"upper-case hex": func(id string, m map[string]string) string { m[MetaCommit] = "A" + m[MetaCommit][1:]; return id },
		"another id":     func(id string, m map[string]string) string { return "doc" },
		"note id":        func(id string, m map[string]string) string { m[MetaKind] = KindNote; return id + ":07" },
		"time not canonical": func(id string, m map[string]string) string {
			m[MetaTime] = "0" + m[MetaTime]
			return id
		},
		"rewritten not a bool": func(id string, m map[string]string) string { m[MetaRewritten] = "1"; return id },
		"another key":          func(id string, m map[string]string) string { m["extra"] = "1"; return id },
		"a key missing":        func(id string, m map[string]string) string { delete(m, MetaPaths); m["x"] = ""; return id },
	} {
		meta := usual.metadata()
		id := change(usual.ID(), meta)
		var enc encoder
		enc.putDoc(id, meta, vec, true)
		var got []record
		if err := decodePayload(enc.buf, func(r *record) error { got = append(got, *r); return nil }); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if enc.buf[0] != opDelCommit || len(got) != 2 || got[1].id != id || !maps.Equal(got[1].meta, meta) {
			t.Errorf("%s: op %d, decoded %+v", name, enc.buf[0], got)
		}
	}
}

// A frame's recurring classifications are written once; a reference past
// the frame's table is corruption, not a panic.
func TestLogDocClassTable(t *testing.T) {
	var enc encoder
	for i := range 50 {
		d := commitDoc(i, "x", "bugfix", 0)
		d.Paths = []string{"a.go"}
		enc.putDoc(d.ID(), d.metadata(), []float32{1}, false)
	}
	var single encoder
	d := commitDoc(0, "x", "bugfix", 0)
	d.Paths = []string{"a.go"}
	single.putDoc(d.ID(), d.metadata(), []float32{1}, false)
	if len(enc.buf) > 50*len(single.buf)-49*len("bugfix") {
		t.Errorf("50 documents take %d bytes, one %d: the classification was repeated", len(enc.buf), len(single.buf))
	}
	var second encoder
	second.putDoc(d.ID(), d.metadata(), []float32{1}, false)
	second.reset()
	second.putDoc(d.ID(), d.metadata(), []float32{1}, false)
	if !slices.Equal(second.buf, single.buf) {
		t.Errorf("after reset a frame refers to the previous frame's strings")
	}
	bad := slices.Clone(single.buf)
	at := 1 + 1 + 20 + 5 // op, flags, hash, a time of five varint bytes
	if bad[at] != byte(2*len("bugfix")) {
		t.Fatalf("byte %d is %d, not the classification's length", at, bad[at])
	}
	bad[at] = 2*3 + 1 // the fourth string of a table that has none
	if err := decodePayload(bad, func(*record) error { return nil }); err == nil {
		t.Errorf("a reference past the frame's table decoded")
	}
}

// A writer that opens a log older builds wrote (op 4 puts, each commit's
// preceded by a delete) rewrites it in op 5 once: smaller, the same
// documents and scores, and the layout recorded so that it is not
// rewritten again.
func TestIndexUpgradesOlderLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := openTest(t, dir, NewLocal(0))
	if err := ix.Upsert(ctx, corpus[:1]); err != nil { // creates the index
		t.Fatal(err)
	}
	ix.Close()
	path := logOf(t, dir)
	vecs, err := NewLocal(0).Embed(ctx, docTexts(corpus))
	if err != nil {
		t.Fatal(err)
	}
	var enc encoder // the older writer's frame
	for i, d := range corpus {
		if i == 0 || d.Commit != corpus[i-1].Commit {
			enc.delCommit(d.Commit)
		}
		enc.put(d.ID(), d.metadata(), vecs[i])
	}
	enc.delCommit(sha(4))
	if err := os.WriteFile(path, append([]byte(logMagic), enc.frame()...), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(path + ".end")
	m, _ := readMarker(dir)
	m.Layout = 0
	if err := writeMarker(dir, m); err != nil {
		t.Fatal(err)
	}
	want := replayed(t, path)
	old := openTest(t, dir, NewLocal(0))
	before := mustQuery(t, old, "race mutex lock", 10, Filter{})
	old.Close()

	ix = openTest(t, dir, NewLocal(0))
	if err := ix.DeleteCommits(ctx, sha(99)); err != nil { // a write: the log is upgraded first
		t.Fatal(err)
	}
	ix.Close()
	got := replayed(t, path)
	if len(got) != len(want)+1 || !slices.EqualFunc(got[:len(want)], want, sameRecord) {
		t.Fatalf("upgraded log reads %d records, want the %d it held and the new delete", len(got), len(want))
	}
	if m, _ := readMarker(dir); m.Layout != logLayout {
		t.Errorf("marker layout %d after the upgrade, want %d", m.Layout, logLayout)
	}
	fi, _ := os.Stat(path)
	if n := int64(len(logMagic) + len(enc.frame())); fi.Size() >= n {
		t.Errorf("upgraded log %d bytes, the older one %d", fi.Size(), n)
	}
	re := openTest(t, dir, NewLocal(0))
	after := mustQuery(t, re, "race mutex lock", 10, Filter{})
	if !slices.EqualFunc(before, after, func(a, b Hit) bool { return a.ID == b.ID && a.Score == b.Score }) {
		t.Errorf("answers before the upgrade %v, after %v", ids(before), ids(after))
	}
	size := fi.Size()
	if err := re.DeleteCommits(ctx, sha(98)); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Size() <= size || fi.Size() > size+64 {
		t.Errorf("a second writer rewrote the log again: %d bytes, then %d", size, fi.Size())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if e.Name() != logFile && e.Name() != logFile+".end" {
			t.Errorf("left %s beside the log", e.Name())
		}
	}
}

func docTexts(docs []Doc) []string {
	out := make([]string, len(docs))
	for i := range docs {
		out[i] = docs[i].Text
	}
	return out
}

func replayed(t *testing.T, path string) []record {
	t.Helper()
	var out []record
	if _, _, err := replayLog(path, func(r *record) error { out = append(out, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameRecord(a, b record) bool {
	return a.op == b.op && a.id == b.id && a.commit == b.commit && maps.Equal(a.meta, b.meta) && slices.Equal(a.vec, b.vec)
}
