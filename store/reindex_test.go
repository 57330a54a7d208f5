package store

import (
	"context"
	"errors"
	"testing"

	"github.com/gitmemory/gitmemory/model"
)

// A store written before placeholder subjects were indexed under their
// headline lists those commits at the upgrade; Reindex writes their keyword
// rows again, hands the live ones to redo, resumes after a failure and
// drops a listed commit that was pruned.
func TestReindexPlaceholderSubjects(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := openVersion(t, dir, 17)
	placeholder := fullCommit(hashA)
	placeholder.Message = "upstream commit\n\nskip the ptrace test when running as root\n\nUpstream-ID: 1\n"
	placeholder.RawMessage = nil
	plain := fullCommit(hashP)
	plain.Parents = nil
	rewritten := fullCommit(hashQ)
	rewritten.Parents = nil
	rewritten.Message = "Upstream commit\n\nmake the agent refuse ptrace\n"
	rewritten.RawMessage = nil
	for _, c := range []*model.Commit{placeholder, plain, rewritten} {
		insertCommit(t, old, c, "main")
	}
	// The rows the old way made them: the subject column held the placeholder.
	for _, c := range []*model.Commit{placeholder, rewritten} {
		if _, err := old.DB.Exec(`INSERT OR REPLACE INTO search(rowid, subject, body, summary, notes, paths, entities)
			SELECT id, 'upstream commit', ?, '', '', '', '' FROM commits WHERE hash = ?`, c.Message, c.Hash); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.DB.Exec(`UPDATE commits SET rewritten = 1 WHERE hash = ?`, hashQ); err != nil {
		t.Fatal(err)
	}
	st := upgrade(t, old, dir)
	if n := count(t, st.DB, `SELECT COUNT(*) FROM reindex`); n != 2 {
		t.Fatalf("%d commits wait for reindex, want the 2 with a placeholder subject", n)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM search WHERE search MATCH 'subject:ptrace'`); n != 0 {
		t.Fatalf("before Reindex %d subjects match ptrace", n)
	}
	// A listed commit pruned before Reindex ran only leaves the list.
	if _, err := st.DB.Exec(`INSERT INTO reindex VALUES (999999)`); err != nil {
		t.Fatal(err)
	}

	boom := errors.New("embedder down")
	if _, err := st.Reindex(ctx, func(context.Context, []*model.Understood) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Reindex with a failing redo: %v", err)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM reindex`); n != 3 {
		t.Fatalf("a failed Reindex cleared the list: %d left", n)
	}

	var redone []string
	n, err := st.Reindex(ctx, func(_ context.Context, us []*model.Understood) error {
		for _, u := range us {
			redone = append(redone, u.Commit.Hash)
			u.Summary = "Skip the ptrace test as root"
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Fatalf("Reindex = %d, %v; want 2", n, err)
	}
	if len(redone) != 1 || redone[0] != hashA {
		t.Errorf("redo got %v, want only the live commit %s", redone, hashA)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM search WHERE search MATCH 'subject:ptrace'`); n != 2 {
		t.Errorf("after Reindex %d subjects match ptrace, want 2", n)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM search WHERE search MATCH 'subject:upstream'`); n != 0 {
		t.Errorf("after Reindex %d subjects still hold the placeholder", n)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM reindex`); n != 0 {
		t.Errorf("%d commits still wait", n)
	}
	if n := count(t, st.DB, `SELECT COUNT(*) FROM commits WHERE summary = 'Skip the ptrace test as root'`); n != 1 {
		t.Errorf("%d commits have the summary redo made, want 1", n)
	}
	if n, err := st.Reindex(ctx, nil); err != nil || n != 0 {
		t.Errorf("a second Reindex = %d, %v; want nothing to do", n, err)
	}
}
