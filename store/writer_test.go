package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/model"
)

// A row the database refuses fails Flush with the table's name, and the
// rows it held are dropped, not retried by Close.
func TestFlushRefusedRow(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)
	var flushErr error
	err := withWriter(st, func(w *Writer) error {
		if err := w.InsertCommit(ctx, &model.Understood{Commit: fullCommit(hashA)}, "main", time.Unix(0, 0)); err != nil {
			return err
		}
		// The same (commit, index) twice: design_notes' primary key.
		note := []any{1, 0, "message", "", 0, "because", "why", "[]"}
		w.notes = append(append(w.notes, note...), note...)
		flushErr = w.Flush(ctx)
		if len(w.notes) != 0 {
			t.Errorf("%d arguments left after a failed Flush", len(w.notes))
		}
		return flushErr
	})
	if err == nil || !strings.Contains(flushErr.Error(), "insert design notes") {
		t.Fatalf("Tx = %v, Flush = %v; want the design notes refused", err, flushErr)
	}
	if n := count(t, st.DB, `SELECT count(*) FROM commits`); n != 0 {
		t.Errorf("%d commits stored by a failed transaction", n)
	}
}

// A writer given the ids a committed writer saw stores its entity changes
// under them, without a row of its own.
func TestWriterKnownEntities(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)
	change := model.EntityChange{Path: "a.go", Language: "Go", Kind: "function", Name: "F", Qualified: "F",
		Action: model.EntityModified, StartLine: 1, EndLine: 3}
	write := func(hash string, known map[string]int64) map[string]int64 {
		var seen map[string]int64
		err := withWriter(st, func(w *Writer) error {
			w.KnownEntities(known)
			seen = w.SeenEntities()
			u := &model.Understood{Commit: &model.Commit{Hash: hash, Message: "m"}, Entities: []model.EntityChange{change}}
			return w.InsertCommit(ctx, u, "main", time.Unix(0, 0))
		})
		if err != nil {
			t.Fatal(err)
		}
		return seen
	}
	first := write(hashA, nil)
	id, ok := first[change.Key()]
	if !ok || len(first) != 1 {
		t.Fatalf("first writer saw %v, want the id of %s", first, change.Key())
	}
	// A stale id in the cache would be used as it is: the second commit's
	// change must carry exactly the id the cache gives.
	if second := write(hashP, map[string]int64{change.Key(): id}); len(second) != 0 {
		t.Errorf("second writer looked up %v despite the cache", second)
	}
	if n := count(t, st.DB, `SELECT count(*) FROM entities`); n != 1 {
		t.Errorf("%d entities, want 1", n)
	}
	if n := count(t, st.DB, `SELECT count(*) FROM entity_changes WHERE entity_id = ?`, id); n != 2 {
		t.Errorf("%d entity changes use entity %d, want both", n, id)
	}
}

// TestWriterKnownNodes: a code node's id comes from the cache's current
// generation without counting as seen, from the older one counting as
// seen (so that the caller keeps it), and from SQLite, the same id, when
// neither holds it.
func TestWriterKnownNodes(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)
	const node = "entity:a.c#f"
	lookup := func(known, older map[string]int64) (int64, map[string]int64) {
		var id int64
		var seen map[string]int64
		err := withWriter(st, func(w *Writer) error {
			w.KnownNodes(known, older)
			seen = w.SeenNodes()
			var err error
			id, err = w.nodeID(ctx, node)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return id, seen
	}
	id, seen := lookup(nil, nil)
	if seen[node] != id || len(seen) != 1 {
		t.Fatalf("a fresh node: id %d, seen %v", id, seen)
	}
	if got, seen := lookup(map[string]int64{node: id}, nil); got != id || len(seen) != 0 {
		t.Errorf("from the current generation: id %d (want %d), seen %v (want none)", got, id, seen)
	}
	if got, seen := lookup(nil, map[string]int64{node: id}); got != id || seen[node] != id || len(seen) != 1 {
		t.Errorf("from the older generation: id %d (want %d), seen %v (want it)", got, id, seen)
	}
	if got, _ := lookup(map[string]int64{}, map[string]int64{}); got != id {
		t.Errorf("in neither generation: id %d, want SQLite's %d", got, id)
	}
	if n := count(t, st.DB, `SELECT count(*) FROM code_nodes`); n != 1 {
		t.Errorf("%d code nodes stored, want 1", n)
	}
}
