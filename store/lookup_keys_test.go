package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/model"
)

// lookupKeysDump renders lookup_keys and commits.severity canonically.
func lookupKeysDump(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT k.key, k.live, k.severity, k.time, c.hash, c.severity FROM lookup_keys k
		JOIN commits c ON c.id = k.commit_id ORDER BY 1, 5`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var key, hash string
		var live, sev, when, csev int64
		if err := rows.Scan(&key, &live, &sev, &when, &hash, &csev); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %d %d %.4s %d\n", key, live, sev, when, hash, csev)
	}
	return b.String()
}

// TestLookupKeysBackfill: migration 5's backfill of an existing history
// must write what the writer (path keys, since migration 7) and the
// triggers (severity, issue keys) write for the same commits as sync
// stores them.
func TestLookupKeysBackfill(t *testing.T) {
	ctx := context.Background()
	st, _ := openTest(t)
	when := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	commit := func(hash string, class model.ChangeType, secondary []model.Label, redactions int, refs []model.IssueRef, changes ...model.FileChange) *model.Understood {
		c := &model.Commit{Hash: strings.Repeat(hash, 40), Message: "m", Redactions: redactions, IssueRefs: refs, Changes: changes,
			Author: model.Signature{When: when}, Committer: model.Signature{When: when}}
		u := &model.Understood{Commit: c}
		if class != "" {
			u.Classification = model.Classification{Primary: model.Label{Type: class, Confidence: 0.7}, Secondary: secondary}
		}
		return u
	}
	cve := model.IssueRef{Key: "CVE-2024-1", Kind: "cve", Action: model.References, Raw: "CVE-2024-1"}
	jira := model.IssueRef{Key: "PROJ-1", Kind: "jira", Action: model.References, Raw: "PROJ-1"}
	commits := []*model.Understood{
		commit("a", model.Security, nil, 0, []model.IssueRef{cve, jira},
			model.FileChange{Path: "a/b/c.go", Status: model.Modified},
			model.FileChange{Path: "z/w/v.go", OldPath: "x/y.go", Status: model.Renamed}),
		commit("b", model.Bugfix, []model.Label{{Type: model.Security, Confidence: 0.25}}, 1, nil,
			model.FileChange{Path: "top.go", Status: model.Added}),
		commit("c", model.Feature, []model.Label{{Type: model.Security, Confidence: 0.11}}, 0, []model.IssueRef{cve},
			model.FileChange{Path: "a/b/d.go", Status: model.Added}),
		commit("d", "", nil, 0, nil, model.FileChange{Path: "ünï/cödé.go", Status: model.Added}),
	}
	err := withWriter(st, func(w *Writer) error {
		for _, u := range commits {
			if err := w.InsertCommit(ctx, u, "main", when); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB.Exec(`UPDATE commits SET rewritten = 1 WHERE hash = ?`, strings.Repeat("c", 40)); err != nil {
		t.Fatal(err)
	}
	byTriggers := lookupKeysDump(t, st.DB)
	for _, want := range []string{"=a/b/c.go 1 4", "/a/b 1 4", "/a 1 4", "=x/y.go 1 4", "/z/w 1 4", "!PROJ-1 1 4",
		"=top.go 1 3", "=a/b/d.go 0 1", "/ünï 1 0"} {
		if !strings.Contains(byTriggers, want) {
			t.Errorf("triggers wrote no %q:\n%s", want, byTriggers)
		}
	}

	// Undo migration 5 and run it again over the stored history.
	var m5 string
	for _, m := range migrations {
		if strings.Contains(m, "CREATE TABLE lookup_keys") {
			m5 = m
		}
	}
	for _, q := range []string{`DROP TRIGGER commits_severity`, `DROP TRIGGER commits_reclassified`,
		`DROP TRIGGER commits_rewritten`, `DROP TRIGGER issue_refs_lookup`,
		`DROP VIEW commit_severity`, `DROP TABLE lookup_keys`, `DROP TABLE path_positions`,
		`ALTER TABLE commits DROP COLUMN severity`, m5} {
		if _, err := st.DB.Exec(q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	// Migration 8's paths fingerprints, which SQL cannot hash, come from
	// FingerprintBackfill.
	if _, err := st.DB.Exec(`INSERT INTO fingerprint_backfill SELECT id FROM commits`); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.FingerprintsIndexed(ctx); ok || err != nil {
		t.Errorf("indexed with records waiting: %v %v", ok, err)
	}
	if n, err := st.FingerprintBackfill(ctx); n != len(commits) || err != nil {
		t.Errorf("FingerprintBackfill = %d, %v; want %d", n, err, len(commits))
	}
	if ok, err := st.FingerprintsIndexed(ctx); !ok || err != nil {
		t.Errorf("not indexed after the backfill: %v %v", ok, err)
	}
	if got := lookupKeysDump(t, st.DB); got != byTriggers {
		t.Errorf("backfill:\n%s\ntriggers:\n%s", got, byTriggers)
	}
	if !strings.Contains(byTriggers, "#"+model.PathsFingerprint([]string{"top.go"})+" 1 3") {
		t.Errorf("the writer wrote no paths fingerprint key:\n%s", byTriggers)
	}
}
