package indexer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/graph"
	xdump "github.com/gitmemory/gitmemory/internal/dump"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/vectors"
)

// syncInto syncs repo into the data directory dir (meta.db, graph/,
// vectors/ as a home lays them out), batchSize commits at a time, and
// returns the dump.
func syncInto(t *testing.T, repo, dir string, batchSize int) string {
	t.Helper()
	st := openStoreIn(t, dir)
	g, err := graph.Open(context.Background(), filepath.Join(dir, "graph"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := vectors.Open(filepath.Join(dir, "vectors"), vectors.NewLocal(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	sync(t, repo, st, Options{Graph: g, Vectors: v, BatchSize: batchSize})
	g.Close()
	v.Close()
	return dumpDir(t, dir)
}

func dumpDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	if err := xdump.Dump(context.Background(), dir, &b, xdump.Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGraphIsSQLiteReplayed: the graph edges and vector documents a sync
// writes from the commits it has in memory are exactly those a replay
// from SQLite writes (a store whose graph and vectors are dropped and
// rebuilt), on a history with renames, directory moves and code whose
// entities share qualified names. Before, a commit that changed two
// definitions of one name got INTRODUCES and MODIFIES edges to the entity
// where SQLite kept one change.
func TestGraphIsSQLiteReplayed(t *testing.T) {
	g := gittest.GenerateWith(t, 250, 5, gittest.GenerateOptions{SameSecond: true, DirMoves: true, RealCode: true})
	// Two definitions of one qualified name in one file, one changed, one added.
	g.Write("dup/out.rs", "struct Out;\nimpl Out { fn new() -> Out { Out } }\n")
	g.Commit("add out")
	g.Write("dup/out.rs", "struct Out;\nimpl Out { fn new() -> Out { Out {} } }\n#[cfg(windows)]\nimpl Out { fn new() -> Out { Out } }\n")
	g.Commit("two news")
	// A file whose functions no commit introduced: git/git's
	// builtin/notes.c first appears in the diff of the merge that moved
	// builtin-notes.c under builtin/, and a merge's own diff records no
	// entity changes. Then one is renamed in place to a name that sorts
	// first, so the change that replaces it is written before its
	// deletion, which is the first row of its key.
	g.Git("checkout", "-q", "-b", "notes-side")
	g.Write("side.txt", "side\n")
	g.Commit("side")
	g.Git("checkout", "-q", "main")
	g.Tick()
	g.Git("merge", "-q", "--no-ff", "--no-commit", "notes-side")
	notes := "static void write_note_data(int fd)\n{\n\twrite_or_die(fd);\n}\n"
	g.Write("notes.c", notes+"\nint main(void)\n{\n\twrite_note_data(1);\n\treturn 0;\n}\n")
	g.Commit("merge notes-side, with notes.c")
	g.Write("notes.c", strings.ReplaceAll(notes, "write_note_data", "copy_obj_to_fd")+
		"\nint main(void)\n{\n\tcopy_obj_to_fd(1);\n\treturn 0;\n}\n")
	g.Commit("notes: rename write_note_data")
	dir := t.TempDir()
	want := syncInto(t, g.Dir, dir, 32)
	if got := replayFrom(t, g.Dir, dir); got != want {
		t.Errorf("the replay from SQLite differs from what the sync wrote:\n%s", diffLines(want, got))
	}
	if !strings.Contains(want, "notes.c#write_note_data\tnotes.c\twrite_note_data\twrite_note_data\t") {
		t.Errorf("the renamed function's entity is not named by its own name:\n%s", grepLines(want, "notes.c#"))
	}
	for _, s := range []string{"== graph (0 ", "== vectors (none)", "== entity_changes (0 "} {
		if strings.Contains(want, s) {
			t.Fatalf("the fixture has %s", s)
		}
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for l := range strings.Lines(s) {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// replayFrom copies the store of a synced data directory with its graph,
// vectors and relations dropped, syncs it again (which rebuilds them from
// SQLite) and returns the dump.
func replayFrom(t *testing.T, repo, dir string) string {
	t.Helper()
	replay := t.TempDir()
	for _, f := range []string{"meta.db", "meta.db-wal", "meta.db-shm"} {
		copyFile(t, filepath.Join(dir, f), filepath.Join(replay, f))
	}
	st := openStoreIn(t, replay)
	if _, err := st.DB.Exec(`UPDATE commits SET graphed = 0; DELETE FROM couplings; DELETE FROM verified_by;
		UPDATE relations_state SET stale = 1, last_commit = 0`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	return syncInto(t, repo, replay, 32)
}

// TestRelabelledCallsReplayed: a graph write that raises the confidence
// of calls (their file now includes the callee's header: 0.8 to 1) beside
// a new call at 0.8 stores that call whole. Cayley netted the label's
// references over the write and stored the new call without its label,
// so the sync's graph (a write every 8 commits here) differed from a
// replay's (one write).
func TestRelabelledCallsReplayed(t *testing.T) {
	g := gittest.New(t)
	callers := func(include bool, v int) string {
		var b strings.Builder
		if include {
			b.WriteString("#include \"f.h\"\n")
		}
		for _, name := range []string{"a1", "a2", "a3"} {
			fmt.Fprintf(&b, "\nint %s(void)\n{\n\treturn f() + %d;\n}\n", name, v)
		}
		return b.String()
	}
	g.Write("f.c", "int f(void)\n{\n\treturn 1;\n}\n")
	g.Write("f.h", "int f(void);\n")
	g.Write("a.c", callers(false, 1))
	g.Commit("callers")
	for i := range 9 {
		g.Write("notes.txt", fmt.Sprintf("note %d\n", i))
		g.Commit("notes")
	}
	g.Write("a.c", callers(true, 2))
	g.Write("c.c", "int c(void)\n{\n\treturn f();\n}\n")
	g.Commit("include f.h")
	dir := t.TempDir()
	want := syncInto(t, g.Dir, dir, 1)
	for _, q := range []string{`<entity:a.c#a1> <CALLS> <entity:f.c#f> "1" .`, `<entity:c.c#c> <CALLS> <entity:f.c#f> "0.8" .`} {
		if !strings.Contains(want, q) {
			t.Errorf("the sync's graph lacks %s:\n%s", q, grepLines(want, "CALLS"))
		}
	}
	if got := replayFrom(t, g.Dir, dir); got != want {
		t.Errorf("the replay from SQLite differs from what the sync wrote:\n%s", diffLines(want, got))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err == nil {
		err = os.WriteFile(to, data, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func diffLines(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range la {
		if !slices.Contains(lb, l) && len(out) < 10 {
			out = append(out, "- "+l)
		}
	}
	for _, l := range lb {
		if !slices.Contains(la, l) && len(out) < 20 {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

// TestCanonicalEntities: one change per key, in the order the store reads
// them back, differing actions merged into "modifies".
func TestCanonicalEntities(t *testing.T) {
	in := []model.EntityChange{
		{Path: "b.rs", Qualified: "Out.new", Action: model.EntityModified, StartLine: 9},
		{Path: "a.rs", Qualified: "f", Action: model.EntityIntroduced, StartLine: 3},
		{Path: "b.rs", Qualified: "Out.new", Action: model.EntityIntroduced, StartLine: 2, Replaces: "c.rs#Out.new"},
		{Path: "b.rs", Qualified: "Out", Action: model.EntityModified, StartLine: 2},
		{Path: "a.rs", Qualified: "g", Action: model.EntityDeleted, StartLine: 1},
	}
	got := canonicalEntities(in)
	var keys []string
	for _, c := range got {
		keys = append(keys, c.Key()+" "+c.Action+" "+c.Replaces)
	}
	want := []string{"a.rs#g deletes ", "a.rs#f introduces ", "b.rs#Out modifies ", "b.rs#Out.new modifies c.rs#Out.new"}
	if !slices.Equal(keys, want) {
		t.Errorf("got %q\nwant %q", keys, want)
	}
}

// TestGraphWritesSplitByEdges: a graph write cut by maxGraphEdges, before
// its commits fill graphBatches batches, stores what one write of them
// stores, and marks every commit graphed.
func TestGraphWritesSplitByEdges(t *testing.T) {
	g := gittest.GenerateWith(t, 120, 5, gittest.GenerateOptions{RealCode: true, DirMoves: true})
	want := syncInto(t, g.Dir, t.TempDir(), 64)
	defer func(n int) { maxGraphEdges = n }(maxGraphEdges)
	maxGraphEdges = 7 // a write every two or three commits
	dir := t.TempDir()
	got := syncInto(t, g.Dir, dir, 64)
	if got != want {
		t.Errorf("graph writes split by edges store another graph:\n%s", diffLines(want, got))
	}
	st := openStoreIn(t, dir)
	var left int
	if err := st.DB.QueryRow(`SELECT COUNT(*) FROM commits WHERE graphed = 0`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d commits left ungraphed", left)
	}
	if !strings.Contains(want, "CONTAINS") {
		t.Fatalf("the fixture writes no entity edges:\n%.2000s", want)
	}
}
