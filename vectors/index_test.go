package vectors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/model"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// sha makes a 40-hex commit hash from n.
func sha(n int) string { return fmt.Sprintf("%040x", n) }

// commitDoc and noteDoc build test documents.
func commitDoc(n int, text, class string, days int) Doc {
	return Doc{Kind: KindCommit, Commit: sha(n), Text: text, Classification: class,
		Time: t0.AddDate(0, 0, days), Paths: []string{fmt.Sprintf("pkg%d/file.go", n)}}
}

func noteDoc(n, idx int, text string) Doc {
	return Doc{Kind: KindNote, Commit: sha(n), Note: idx, Text: text, Classification: "bugfix",
		Time: t0, Paths: []string{"note.go"}}
}

var corpus = []Doc{
	commitDoc(1, "Fix data race between sync daemon and query handler", "bugfix", 0),
	commitDoc(2, "Retry HTTP requests with exponential backoff on 503 responses", "feature", 1),
	commitDoc(3, "Speed up tree diff by caching parsed tree objects", "performance", 2),
	commitDoc(4, "Document the --since flag in the README", "documentation", 3),
	commitDoc(5, "Close database transactions on error to avoid leaking connections", "bugfix", 4),
	noteDoc(1, 0, "the handler read the shared map without holding the mutex"),
	noteDoc(1, 1, "NOTE: keep the lock order store → queue to avoid deadlocks"),
}

func openTest(t *testing.T, dir string, e Embedder) *Index {
	t.Helper()
	ix, err := Open(dir, e, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func mustQuery(t *testing.T, ix *Index, q string, n int, f Filter) []Hit {
	t.Helper()
	hits, err := ix.Query(context.Background(), q, n, f)
	if err != nil {
		t.Fatalf("Query(%q): %v", q, err)
	}
	return hits
}

func TestIndexLazyPersistent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := openTest(t, dir, NewLocal(0))
	st, err := ix.Status()
	if err != nil || !st.NeedsRebuild || st.Reason != "no vector index" || !st.Empty {
		t.Fatalf("fresh status %+v, %v", st, err)
	}
	if hits := mustQuery(t, ix, "race", 3, Filter{}); len(hits) != 0 {
		t.Errorf("empty directory answered %v", hits)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a query created files: %v", entries)
	}
	if err := ix.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	if ix.Loaded() {
		t.Error("a write loaded the vectors")
	}
	st, _ = ix.Status()
	if st.NeedsRebuild || st.BuiltBy != NewLocal(0).Name() || st.Dims != NewLocal(0).Dims() || st.Empty || st.Loaded {
		t.Errorf("status after write %+v", st)
	}
	hits := mustQuery(t, ix, "concurrent map access bug in the daemon", 2, Filter{Kind: KindCommit})
	if !ix.Loaded() || len(hits) != 2 || hits[0].ID != CommitID(sha(1)) {
		t.Fatalf("hits %v", ids(hits))
	}
	h := hits[0]
	if h.Kind != KindCommit || h.Commit != sha(1) || h.Note != -1 || h.Classification != "bugfix" ||
		!h.Time.Equal(t0) || !slices.Equal(h.Paths, []string{"pkg1/file.go"}) || h.Rewritten || h.Score <= hits[1].Score {
		t.Errorf("hit %+v", h)
	}
	if n, _ := ix.Len(ctx); n != len(corpus) {
		t.Errorf("Len = %d", n)
	}
	ix.Close()
	if _, err := ix.Query(ctx, "x", 1, Filter{}); !errors.Is(err, ErrClosed) {
		t.Errorf("closed: %v", err)
	}

	re := openTest(t, dir, NewLocal(0))
	again := mustQuery(t, re, "concurrent map access bug in the daemon", 2, Filter{Kind: KindCommit})
	if !slices.Equal(ids(again), ids(hits)) || again[0].Score != hits[0].Score {
		t.Errorf("after reopen %v %v, before %v %v", ids(again), again[0].Score, ids(hits), hits[0].Score)
	}
	notes := mustQuery(t, re, "lock order deadlock", 1, Filter{Kind: KindNote})
	if len(notes) != 1 || notes[0].ID != NoteID(sha(1), 1) || notes[0].Note != 1 {
		t.Errorf("note hits %+v", notes)
	}
}

// A reader opened before a write sees it at its first query.
func TestIndexReaderSeesWrites(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, dir, NewLocal(0))
	r := openTest(t, dir, NewLocal(0))
	if err := w.Upsert(context.Background(), corpus[:2]); err != nil {
		t.Fatal(err)
	}
	if hits := mustQuery(t, r, "retry backoff", 1, Filter{}); len(hits) != 1 || hits[0].Commit != sha(2) {
		t.Errorf("reader: %v", ids(hits))
	}
}

func TestIndexUpsertReplacesCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := openTest(t, dir, NewLocal(0))
	if err := ix.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	mustQuery(t, ix, "x y", 1, Filter{}) // load, so both paths are checked
	// Commit 1 again, now with one note and a new message.
	again := []Doc{commitDoc(1, "Guard the shared map with a mutex", "bugfix", 0), noteDoc(1, 0, "maps are not safe for concurrent use")}
	if err := ix.Upsert(ctx, again); err != nil {
		t.Fatal(err)
	}
	check := func(ix *Index, when string) {
		hits := mustQuery(t, ix, "mutex", 10, Filter{Commit: sha(1)})
		got := ids(hits)
		slices.Sort(got)
		want := []string{CommitID(sha(1)), NoteID(sha(1), 0)}
		if !slices.Equal(got, want) {
			t.Errorf("%s: commit 1 holds %v, want %v", when, got, want)
		}
		if n, _ := ix.Len(ctx); n != len(corpus)-1 {
			t.Errorf("%s: Len %d, want %d", when, n, len(corpus)-1)
		}
	}
	check(ix, "in memory")
	check(openTest(t, dir, NewLocal(0)), "reopened")
}

func TestIndexDeleteCommits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// Deleting from a directory with no index creates nothing.
	empty := openTest(t, t.TempDir(), NewLocal(0))
	if err := empty.DeleteCommits(ctx, sha(1)); err != nil {
		t.Fatal(err)
	}
	if st, _ := empty.Status(); st.BuiltBy != "" {
		t.Errorf("delete created an index: %+v", st)
	}

	ix := openTest(t, dir, NewLocal(0))
	if err := ix.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	cold := openTest(t, dir, NewLocal(0)) // deletes before it loads
	mustQuery(t, ix, "x y", 1, Filter{})  // ix deletes after it loaded
	for _, w := range []*Index{ix, cold} {
		if err := w.DeleteCommits(ctx, sha(1), sha(99)); err != nil {
			t.Fatal(err)
		}
	}
	for name, r := range map[string]*Index{"loaded": ix, "cold": cold, "reopened": openTest(t, dir, NewLocal(0))} {
		hits := mustQuery(t, r, "race mutex lock deadlock handler", 10, Filter{})
		for _, h := range hits {
			if h.Commit == sha(1) {
				t.Errorf("%s: %s survived the delete", name, h.ID)
			}
		}
		if len(hits) != len(corpus)-3 {
			t.Errorf("%s: %d documents left, want %d", name, len(hits), len(corpus)-3)
		}
	}
}

func TestIndexFilters(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), NewLocal(0))
	docs := slices.Clone(corpus)
	rw := commitDoc(6, "Fix data race in the daemon (old history)", "bugfix", 5)
	rw.Rewritten = true
	docs = append(docs, rw)
	if err := ix.Upsert(ctx, docs); err != nil {
		t.Fatal(err)
	}
	const q = "fix race bug in daemon"
	for _, tc := range []struct {
		name string
		f    Filter
		want []string // sorted IDs of all hits
	}{
		{"kind", Filter{Kind: KindNote}, []string{NoteID(sha(1), 0), NoteID(sha(1), 1)}},
		{"classification", Filter{Classification: "bugfix", Kind: KindCommit}, []string{CommitID(sha(1)), CommitID(sha(5))}},
		{"commit", Filter{Commit: sha(3)}, []string{CommitID(sha(3))}},
		{"since", Filter{Since: t0.AddDate(0, 0, 3)}, []string{CommitID(sha(4)), CommitID(sha(5))}},
		{"until", Filter{Until: t0.AddDate(0, 0, 1), Kind: KindCommit}, []string{CommitID(sha(1))}},
		{"rewritten", Filter{IncludeRewritten: true, Since: t0.AddDate(0, 0, 5)}, []string{CommitID(sha(6))}},
	} {
		got := ids(mustQuery(t, ix, q, 20, tc.f))
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, h := range mustQuery(t, ix, q, 20, Filter{}) {
		if h.Rewritten {
			t.Errorf("rewritten %s returned by default", h.ID)
		}
	}
	// A time filter that keeps few of many documents still fills n.
	var many []Doc
	for i := 100; i < 400; i++ {
		many = append(many, commitDoc(i, "Fix data race in the sync daemon", "bugfix", i))
	}
	if err := ix.Upsert(ctx, many); err != nil {
		t.Fatal(err)
	}
	got := mustQuery(t, ix, q, 5, Filter{Until: t0.AddDate(0, 0, 103)})
	if len(got) != 5 {
		t.Errorf("time filter kept %d of 5: %v", len(got), ids(got))
	}
}

// Equal scores come back in ID order, the same every time.
func TestIndexTies(t *testing.T) {
	ix := openTest(t, t.TempDir(), NewLocal(0))
	var docs []Doc
	for i := 300; i > 0; i-- {
		docs = append(docs, commitDoc(i, "Merge branch 'main' into feature", "merge", 0))
	}
	docs = append(docs, commitDoc(1000, "Speed up tree diff by caching parsed tree objects", "performance", 0))
	if err := ix.Upsert(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	want := []string{CommitID(sha(1)), CommitID(sha(2)), CommitID(sha(3)), CommitID(sha(4)), CommitID(sha(5))}
	for range 20 {
		if got := ids(mustQuery(t, ix, "merge branch main", 5, Filter{})); !slices.Equal(got, want) {
			t.Fatalf("ties: %v, want %v", got, want)
		}
	}
}

func TestIndexRebuildOnEmbedderChange(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := openTest(t, dir, NewLocal(384))
	if err := old.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	ix := openTest(t, dir, NewLocal(256))
	st, err := ix.Status()
	if err != nil || !st.NeedsRebuild || st.BuiltBy != NewLocal(384).Name() || st.Embedder != NewLocal(256).Name() ||
		!strings.Contains(st.Reason, "built by "+NewLocal(384).Name()) {
		t.Fatalf("status %+v, %v", st, err)
	}
	if _, err := ix.Query(ctx, "race", 1, Filter{}); !errors.Is(err, ErrNeedsRebuild) {
		t.Errorf("query: %v", err)
	}
	if err := ix.Upsert(ctx, corpus[:1]); !errors.Is(err, ErrNeedsRebuild) {
		t.Errorf("upsert: %v", err)
	}
	if err := ix.DeleteCommits(ctx, sha(1)); !errors.Is(err, ErrNeedsRebuild) {
		t.Errorf("delete: %v", err)
	}
	if err := ix.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	st, _ = ix.Status()
	if st.NeedsRebuild || !st.Empty || st.BuiltBy != NewLocal(256).Name() {
		t.Errorf("after reset %+v", st)
	}
	if err := ix.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	if hits := mustQuery(t, ix, "retry backoff", 1, Filter{}); len(hits) != 1 || hits[0].Commit != sha(2) {
		t.Errorf("rebuilt index: %v", ids(hits))
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"index.json", collectionName(NewLocal(256).Name())}) {
		t.Errorf("directory holds %v: the old collection should be gone", names)
	}
	// The old embedder now finds the index is not its own.
	if _, err := openTest(t, dir, NewLocal(384)).Query(ctx, "race", 1, Filter{}); !errors.Is(err, ErrNeedsRebuild) {
		t.Errorf("old embedder: %v", err)
	}
}

// shifty keeps its name but changes its size: a remote model replaced
// under the same name.
type shifty struct {
	*Local
	name string
}

func (s shifty) Name() string { return s.name }

func TestIndexDimensionsChange(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := openTest(t, dir, shifty{NewLocal(64), "ollama:m"})
	if err := a.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	b := openTest(t, dir, shifty{NewLocal(32), "ollama:m"})
	if err := b.Upsert(ctx, corpus[:1]); !errors.Is(err, ErrDimensions) {
		t.Errorf("upsert: %v", err)
	}
	if _, err := b.Query(ctx, "race", 1, Filter{}); !errors.Is(err, ErrDimensions) {
		t.Errorf("query: %v", err)
	}
}

// failing fails its n-th call.
type failing struct {
	*Local
	mu    sync.Mutex
	calls int
	n     int
}

func (f *failing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	f.calls++
	fail := f.calls == f.n
	f.mu.Unlock()
	if fail {
		return nil, errors.New("embedding server down")
	}
	return f.Local.Embed(ctx, texts)
}

func TestIndexErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := &failing{Local: NewLocal(0), n: 2}
	ix, err := Open(dir, e, &Options{BatchSize: 3, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	// The second step fails: the first is stored, the rest is not.
	err = ix.Upsert(ctx, corpus[:5])
	if err == nil || !strings.Contains(err.Error(), "embedding server down") {
		t.Fatalf("upsert: %v", err)
	}
	if n, _ := ix.Len(ctx); n != 3 {
		t.Errorf("stored %d documents, want the first step's 3", n)
	}
	for name, doc := range map[string]Doc{
		"blank text": {Kind: KindCommit, Commit: sha(1), Text: " \n"},
		"bad kind":   {Kind: "file", Commit: sha(1), Text: "x"},
		"no commit":  {Kind: KindCommit, Text: "x"},
		"bad commit": {Kind: KindNote, Commit: "a:b", Text: "x"},
	} {
		if err := ix.Upsert(ctx, []Doc{doc}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ix.Query(ctx, "  ", 3, Filter{}); !errors.Is(err, ErrEmptyText) {
		t.Errorf("blank query: %v", err)
	}
	if _, err := ix.Query(ctx, "race", 0, Filter{}); err == nil {
		t.Error("n = 0 accepted")
	}
	if _, err := Open("", NewLocal(0), nil); err == nil {
		t.Error("no directory accepted")
	}
	if _, err := Open(dir, nil, nil); err == nil {
		t.Error("no embedder accepted")
	}
}

func logOf(t *testing.T, dir string) string {
	t.Helper()
	m, err := readMarker(dir)
	if err != nil || m == nil {
		t.Fatalf("marker: %v", err)
	}
	return filepath.Join(dir, m.Collection, logFile)
}

func appendBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// A writer killed mid-frame leaves a torn tail: readers ignore it, the
// next writer cuts it and appends after the last good frame.
func TestIndexTornTail(t *testing.T) {
	ctx := context.Background()
	for name, tail := range map[string]func(frame []byte) []byte{
		"short header":  func(f []byte) []byte { return f[:5] },
		"short payload": func(f []byte) []byte { return f[:len(f)-7] },
		"bad checksum": func(f []byte) []byte {
			g := slices.Clone(f)
			g[len(g)-1] ^= 0xff
			return g
		},
		"zeros": func(f []byte) []byte { return make([]byte, len(f)) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ix := openTest(t, dir, NewLocal(0))
			if err := ix.Upsert(ctx, corpus[:3]); err != nil {
				t.Fatal(err)
			}
			// The torn frame is larger than the write that repairs it, so
			// anything not cut would be left behind.
			var enc encoder
			v, _ := NewLocal(0).Embed(ctx, []string{"torn"})
			for i := range 8 {
				d := commitDoc(50+i, "torn", "bugfix", 0)
				enc.put(d.ID(), d.metadata(), v[0])
			}
			appendBytes(t, logOf(t, dir), tail(enc.frame()))

			r := openTest(t, dir, NewLocal(0))
			if n, err := r.Len(ctx); err != nil || n != 3 {
				t.Fatalf("reader: %d documents, %v", n, err)
			}
			w := openTest(t, dir, NewLocal(0))
			if err := w.Upsert(ctx, corpus[3:5]); err != nil {
				t.Fatal(err)
			}
			if n, err := openTest(t, dir, NewLocal(0)).Len(ctx); err != nil || n != 5 {
				t.Errorf("after repair: %d documents, %v", n, err)
			}
			if valid, size, err := replayLog(logOf(t, dir), func(*record) error { return nil }); err != nil || valid != size {
				t.Errorf("after repair the log has %d valid bytes of %d: %v", valid, size, err)
			}
		})
	}
}

// Damage before the end is corruption: the index must be rebuilt.
func TestIndexCorrupt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := openTest(t, dir, NewLocal(0))
	if err := ix.Upsert(ctx, corpus[:2]); err != nil {
		t.Fatal(err)
	}
	if err := ix.Upsert(ctx, corpus[2:4]); err != nil {
		t.Fatal(err)
	}
	path := logOf(t, dir)
	data, _ := os.ReadFile(path)
	data[len(logMagic)+20] ^= 0xff // inside the first frame
	os.WriteFile(path, data, 0o600)
	r := openTest(t, dir, NewLocal(0))
	if _, err := r.Query(ctx, "race", 1, Filter{}); !errors.Is(err, ErrNeedsRebuild) || !errors.Is(err, ErrCorrupt) {
		t.Errorf("query: %v", err)
	}
	if err := r.Upsert(ctx, corpus[:1]); !errors.Is(err, ErrCorrupt) {
		t.Errorf("upsert: %v", err)
	}
	if err := r.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, markerFile), []byte("{"), 0o600)
	if st, err := openTest(t, dir, NewLocal(0)).Status(); err != nil || !st.NeedsRebuild || !strings.Contains(st.Reason, "marker") {
		t.Errorf("bad marker: %+v, %v", st, err)
	}
}

func TestIndexCompact(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := openTest(t, dir, NewLocal(0))
	var docs []Doc
	for i := 0; i < 200; i++ {
		docs = append(docs, commitDoc(i, fmt.Sprintf("change %d to the tree diff cache", i), "refactor", i))
	}
	for range 3 { // every version but the last is garbage
		if err := ix.Upsert(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	var gone []string
	for i := 0; i < 200; i += 2 {
		gone = append(gone, sha(i))
	}
	if err := ix.DeleteCommits(ctx, gone...); err != nil {
		t.Fatal(err)
	}
	before := mustQuery(t, ix, "tree diff cache change 17", 10, Filter{})
	st0, _ := ix.Status()
	if err := ix.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	st1, _ := ix.Status()
	// Each of the 100 live documents keeps at least its dense word-vector
	// half: 100 bytes.
	if st1.LogBytes*5 > st0.LogBytes || st1.LogBytes < int64(100*100) {
		t.Errorf("log %d bytes before, %d after compaction of 100 live of 600 written", st0.LogBytes, st1.LogBytes)
	}
	// Writes after the compaction go to the new log.
	extra := commitDoc(1000, "unrelated readme typo", "documentation", 0)
	if err := ix.Upsert(ctx, []Doc{extra}); err != nil {
		t.Fatal(err)
	}
	re := openTest(t, dir, NewLocal(0))
	after := mustQuery(t, re, "tree diff cache change 17", 10, Filter{})
	if !slices.Equal(ids(before), ids(after)) {
		t.Errorf("compaction changed answers: %v → %v", ids(before), ids(after))
	}
	if n, _ := re.Len(ctx); n != 101 {
		t.Errorf("Len after compaction %d, want 101", n)
	}
}

// Queries, writes and deletes from many goroutines (run with -race).
func TestIndexConcurrent(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), NewLocal(0))
	if err := ix.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 4 {
		wg.Add(3)
		go func() {
			defer wg.Done()
			for i := range 20 {
				if err := ix.Upsert(ctx, []Doc{commitDoc(100*g+i, "Fix race in the sync daemon", "bugfix", i)}); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := range 20 {
				if err := ix.DeleteCommits(ctx, sha(100*g+i)); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 20 {
				if _, err := ix.Query(ctx, "race in daemon", 5, Filter{Kind: KindCommit}); err != nil {
					errs <- err
				}
				if _, err := ix.Status(); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n, _ := ix.Len(ctx)
	re := openTest(t, ix.dir, NewLocal(0))
	if m, _ := re.Len(ctx); m != n {
		t.Errorf("memory holds %d documents, the log %d", n, m)
	}
}

func TestCommitDocs(t *testing.T) {
	u := &model.Understood{
		Commit: &model.Commit{
			Hash:      sha(7),
			Message:   "Fix deadlock in queue.Dequeue\n\nTake the store lock first.\n\nSigned-off-by: A Dev <a@example.com>\nChange-Id: I0123\n",
			Committer: model.Signature{When: t0},
			Changes:   []model.FileChange{{Path: "queue/queue.go"}, {Path: "store/lock.go"}},
		},
		Classification: model.Classification{Primary: model.Label{Type: model.Bugfix, Confidence: 0.9}},
		Summary:        "Fix deadlock in queue.Dequeue",
		Notes: []model.DesignNote{
			{Commit: sha(7), Source: "message", Marker: "first", Text: "Take the store lock first."},
			{Commit: sha(7), Source: "comment", Path: "queue/queue.go", Line: 10, Marker: "NOTE", Text: "NOTE: lock order matters", Entities: []string{"Dequeue"}},
		},
		Entities: []model.EntityChange{{Path: "queue/queue.go", Name: "Dequeue", Qualified: "queue.Dequeue"}},
	}
	docs := CommitDocs(u)
	if len(docs) != 3 {
		t.Fatalf("%d docs", len(docs))
	}
	c := docs[0]
	wantText := "Fix deadlock in queue.Dequeue\nTake the store lock first.\nDequeue\nqueue/queue.go store/lock.go"
	if c.ID() != CommitID(sha(7)) || c.Text != wantText || c.Lead != "Fix deadlock in queue.Dequeue" || docs[1].Lead != "" || c.Classification != "bugfix" || !c.Time.Equal(t0) ||
		!slices.Equal(c.Paths, []string{"queue/queue.go", "store/lock.go"}) {
		t.Errorf("commit doc %+v", c)
	}
	if n := docs[2]; n.ID() != NoteID(sha(7), 1) || n.Text != "NOTE: lock order matters\nDequeue\nqueue/queue.go" ||
		!slices.Equal(n.Paths, []string{"queue/queue.go"}) {
		t.Errorf("note doc %+v", n)
	}
	if docs[1].Paths[0] != "queue/queue.go" || len(docs[1].Paths) != 2 {
		t.Errorf("message note paths %v", docs[1].Paths)
	}
}

// A placeholder subject ("upstream commit") leads with the body's first
// paragraph instead, and the text does not repeat it.
func TestCommitDocsPlaceholderSubject(t *testing.T) {
	u := &model.Understood{Commit: &model.Commit{
		Hash:    sha(8),
		Message: "upstream commit\n\nskip if running as root; many systems\nallow root to ptrace\n\nUpstream-Regress-ID: be2b\n",
		Changes: []model.FileChange{{Path: "regress/agent-ptrace.sh"}},
	}}
	c := CommitDocs(u)[0]
	if c.Lead != "skip if running as root; many systems allow root to ptrace" {
		t.Errorf("lead %q", c.Lead)
	}
	if want := "skip if running as root; many systems allow root to ptrace\nUpstream-Regress-ID: be2b\nregress/agent-ptrace.sh"; c.Text != want {
		t.Errorf("text %q, want %q", c.Text, want)
	}
}

// The index end to end over a real HTTP embedder (the Ollama test server).
func TestIndexWithOllama(t *testing.T) {
	ctx := context.Background()
	s := &ollamaServer{dims: func(int) int { return 16 }}
	e := newOllamaTest(t, s, RemoteConfig{BatchSize: 4})
	ix := openTest(t, t.TempDir(), e)
	if err := ix.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	if got := s.calls.Load(); got != 2 {
		t.Errorf("%d requests for 7 documents in batches of 4", got)
	}
	if _, err := ix.Query(ctx, "race", 3, Filter{}); err != nil {
		t.Fatal(err)
	}
	st, _ := ix.Status()
	if st.BuiltBy != "ollama:nomic-embed-text" || st.Dims != 16 {
		t.Errorf("status %+v", st)
	}
	last := s.seen[len(s.seen)-1]
	if !slices.Equal(last, []string{"race"}) {
		t.Errorf("query sent %v", last)
	}
}

// A commit document's lead (its subject) weighs as much as the rest of its
// text: of two commits whose texts hold the same words, each question
// finds first the one whose subject it asks about.
func TestIndexLeadWeighsSubject(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, t.TempDir(), NewLocal(0))
	a := commitDoc(1, "Refactor the config loader\nAlso retry HTTP requests with exponential backoff", "refactor", 0)
	a.Lead = "Refactor the config loader"
	b := commitDoc(2, "Retry HTTP requests with exponential backoff\nAlso refactor the config loader", "feature", 0)
	b.Lead = "Retry HTTP requests with exponential backoff"
	if err := ix.Upsert(ctx, []Doc{a, b}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"refactor config loader": sha(1), "retry http backoff": sha(2)} {
		if hits := mustQuery(t, ix, q, 2, Filter{}); len(hits) != 2 || hits[0].Commit != want || hits[0].Score <= hits[1].Score {
			t.Errorf("%q: %v, want %s first by a margin", q, hits, want[:7])
		}
	}
}

// An index whose documents were made into vectors by an older build (its
// marker records no documents version) is rebuilt, as one another
// embedder built would be.
func TestIndexRebuildOnDocsVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := openTest(t, dir, NewLocal(0))
	if err := ix.Upsert(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	path := filepath.Join(dir, "index.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(b), fmt.Sprintf(`"docs": %d,`, docsVersion), "", 1)
	if old == string(b) {
		t.Fatalf("marker %s records no documents version", b)
	}
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	ix = openTest(t, dir, NewLocal(0))
	st, err := ix.Status()
	if err != nil || !st.NeedsRebuild || !strings.Contains(st.Reason, "version 0") {
		t.Fatalf("status %+v, %v", st, err)
	}
	if _, err := ix.Query(ctx, "race", 1, Filter{}); !errors.Is(err, ErrNeedsRebuild) {
		t.Errorf("query: %v", err)
	}
}
