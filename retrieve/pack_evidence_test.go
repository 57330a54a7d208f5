package retrieve

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

func TestEvidenceSentences(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		limit      int
		want       []string
	}{
		{"wrapped lines are one paragraph", "The provider closes idle\nconnections after a minute. A retry\nhides that from the users.\n", 0,
			[]string{"The provider closes idle connections after a minute.", "A retry hides that from the users."}},
		{"bullets are items", "Changes:\n- add a retry loop to dial\n- log every failed attempt at debug\n  level when verbose\n* keep the old flag working\n2. then drop it next release", 0,
			[]string{"add a retry loop to dial", "log every failed attempt at debug level when verbose", "keep the old flag working",
				"then drop it next release"}},
		{"trailers", "Keep the old flag for compatibility.\n\nSigned-off-by: Ada Lovelace <ada@example.com>\n" +
			"Co-authored-by: Bob Smith <bob@example.com>\nReviewed-by: Carol Jones <carol@example.com>\n" +
			"Change-Id: I0123456789abcdef0123456789abcdef01234567", 0,
			[]string{"Keep the old flag for compatibility."}},
		{"URL and issue lines", "See the discussion upstream for the details.\nhttps://github.com/org/repo/issues/12\n" +
			"<https://example.com/a/very/long/path/to/some/page.html>\nFixes #12, #13 and #14\nCloses: org/repo#4\nPROJ-123\n(GH-7)\n- #15", 0,
			[]string{"See the discussion upstream for the details."}},
		{"fragments under four words", "Done. Works now! This one has enough words. Why not?", 0,
			[]string{"This one has enough words."}},
		{"sentence ends", `Use a short timeout, e.g. 5 seconds, for the dials. Saying 'old_path = ?' alone scanned the table! ` +
			`Was it really "slow?" Yes, it was very slow… Then it got fast again.`, 0,
			[]string{"Use a short timeout, e.g. 5 seconds, for the dials.", "Saying 'old_path = ?' alone scanned the table!",
				`Was it really "slow?"`, "Yes, it was very slow…", "Then it got fast again."}},
		{"fenced code", "Run it like this:\n```\ngo test ./retrieve -run Evidence -v\n```\nThe test needs no network at all.", 0,
			[]string{"Run it like this:", "The test needs no network at all."}},
		{"limit", "One two three four. Five six seven eight. Nine ten eleven twelve.", 2,
			[]string{"One two three four.", "Five six seven eight."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limit := tc.limit
			if limit == 0 {
				limit = 100
			}
			if diff := gocmp.Diff(tc.want, evidenceSentences(tc.text, limit)); diff != "" {
				t.Errorf("sentences (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvidenceCands(t *testing.T) {
	c := &packCommit{
		subject: "fix: retry the dial",
		body: "\nThe provider resets idle connections, so the first dial fails.\n\n" +
			"Three attempts are enough because the provider recovers within a second.\n\nSigned-off-by: Ada Lovelace <ada@example.com>\n",
		notes: []model.DesignNote{
			{Source: "message", Text: "Three attempts are enough because the provider recovers within a second."},
			{Source: "comment", Path: "auth/sso.go", Line: 12, Text: "NOTE: three attempts, because the provider resets idle connections."},
			{Source: "comment", Path: "auth/sso.go", Line: 40, Text: "Too short."},
		},
	}
	var got []string
	for _, x := range evidenceCands(c) {
		got = append(got, fmt.Sprintf("%v %s: %s", x.subject, x.source, x.text))
	}
	want := []string{
		"true message: fix: retry the dial",
		"false message: The provider resets idle connections, so the first dial fails.",
		"false design note: Three attempts are enough because the provider recovers within a second.",
		"false comment in auth/sso.go:12: NOTE: three attempts, because the provider resets idle connections.",
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
}

// TestEvidenceMatchingSentence: of a body's sentences, the one that
// speaks of what the question asks is the evidence, not the first one, the
// subject, or an unrelated one.
func TestEvidenceMatchingSentence(t *testing.T) {
	c := &packCommit{
		subject: "fix: make the client more robust",
		body: "\nUpdate the changelog for the next release.\n\n" +
			"The SSO provider resets idle connections after thirty seconds, so SignIn now retries the dial three times.\n\n" +
			"Also tidy the imports of the package.\n",
	}
	items := []KeyItem{{Hash: "a", cands: evidenceCands(c)}}
	warning, err := packEvidence(context.Background(), "why does SignIn retry the dial three times?", items)
	if err != nil || warning != "" {
		t.Fatal(err, warning)
	}
	want := &Evidence{Text: "The SSO provider resets idle connections after thirty seconds, so SignIn now retries the dial three times.",
		Source: "message"}
	if diff := gocmp.Diff(want, items[0].Evidence); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	if items[0].cands != nil {
		t.Error("candidates kept after choosing")
	}
}

// TestBestEvidence checks the choice on vectors whose cosines with the
// query are given.
func TestBestEvidence(t *testing.T) {
	type cand struct {
		subject bool
		score   float64
	}
	for _, tc := range []struct {
		name  string
		cands []cand
		want  int // index of the evidence; -1 for none
	}{
		{"body within 0.7 of the subject", []cand{{true, 0.8}, {false, 0.3}, {false, 0.6}}, 2},
		{"subject far ahead", []cand{{true, 0.9}, {false, 0.6}}, 0},
		{"body under the floor", []cand{{true, 0.12}, {false, 0.09}}, 0},
		{"nothing over the floor", []cand{{true, 0.05}, {false, 0.08}}, -1},
		{"no subject", []cand{{false, 0.2}, {false, 0.3}}, 1},
		{"tie goes to the earlier", []cand{{true, 0.5}, {false, 0.4}, {false, 0.4}}, 1},
		{"nothing", nil, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := []float32{1, 0}
			var cs []evidenceCand
			var vs [][]float32
			for i, c := range tc.cands {
				cs = append(cs, evidenceCand{text: fmt.Sprint("sentence ", i), source: "message", subject: c.subject})
				vs = append(vs, []float32{float32(c.score), float32(math.Sqrt(1 - c.score*c.score))})
			}
			got := bestEvidence(cs, q, vs)
			switch {
			case tc.want < 0 && got != nil:
				t.Errorf("evidence %+v, want none", got)
			case tc.want >= 0 && (got == nil || got.Text != cs[tc.want].text):
				t.Errorf("evidence %+v, want %s", got, cs[tc.want].text)
			}
		})
	}
}

// TestLoadPackBodies: a key commit's body is its stored message after the
// subject, whole (trailers included: evidence skips them); a commit whose
// message is not stored keeps an empty body.
func TestLoadPackBodies(t *testing.T) {
	r := evidenceFixture(t)
	ctx := context.Background()
	var cs []*packCommit
	for _, h := range []string{r.fix, r.add, strings.Repeat("0", 40)} {
		cs = append(cs, &packCommit{hash: h, body: "stale"})
	}
	if err := loadPackBodies(ctx, r.st.DB, cs); err != nil {
		t.Fatal(err)
	}
	want := []string{"\nUpdate the changelog for the next release.\n\n" +
		"The SSO provider resets idle connections after thirty seconds, so SignIn now retries the dial three times.\n\n" +
		"Signed-off-by: Ada Lovelace <ada@example.com>\nFixes #12", "", ""}
	for i, c := range cs {
		if strings.TrimRight(c.body, "\n") != want[i] {
			t.Errorf("body of %s = %q, want %q", c.hash[:7], c.body, want[i])
		}
	}
}

// The evidence of a pack's five key commits (candidates, embedding and
// choice), for commits of a typical size (a subject, 6 body sentences and
// 2 notes) and of the largest that is scored (evidenceMaxMessage body
// sentences and evidenceMaxNotes notes; longer messages are cut there).
func BenchmarkPackEvidence_Typical(b *testing.B) { benchEvidence(b, 6, 2) }
func BenchmarkPackEvidence_Max(b *testing.B) {
	benchEvidence(b, 2*evidenceMaxMessage, 2*evidenceMaxNotes)
}

func benchEvidence(b *testing.B, sentences, nNotes int) {
	var body strings.Builder
	for i := range sentences {
		fmt.Fprintf(&body, "Sentence %d of the body explains why the cache keeps entry %d for one more sync run.\n", i, i)
	}
	var notes []model.DesignNote
	for i := range nNotes {
		notes = append(notes, model.DesignNote{Source: "comment", Path: "cache/lru.go", Line: 10 * i,
			Text: fmt.Sprintf("NOTE: entry %d is evicted last because the daemon reads it on every query.", i)})
	}
	query := "why does the cache keep entries for one more sync run?"
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var items []KeyItem
		for i := range packMaxKeyItems {
			c := &packCommit{subject: fmt.Sprintf("cache: keep entries %d longer", i), body: body.String(), notes: notes}
			items = append(items, KeyItem{cands: evidenceCands(c)})
		}
		if _, err := packEvidence(ctx, query, items); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPackBodies reads five commits' message bodies in
// loadPackBodies' one query. It runs on GITMEMORY_BENCH_DIR's index when
// set, else on a small fixture.
func BenchmarkPackBodies(b *testing.B) {
	ctx := context.Background()
	var st *store.Store
	if dir := os.Getenv("GITMEMORY_BENCH_DIR"); dir != "" {
		var err error
		if st, err = store.Open(ctx, dir); err != nil {
			b.Fatal(err)
		}
		defer st.Close()
	} else {
		st = evidenceFixture(b).st
	}
	var cs []*packCommit
	err := store.EachRow(ctx, st.DB, `SELECT id, hash FROM commits ORDER BY id DESC LIMIT ?`, []any{packMaxKeyItems},
		func(r *sql.Rows) error {
			c := &packCommit{}
			cs = append(cs, c)
			return r.Scan(&c.id, &c.hash)
		})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := loadPackBodies(ctx, st.DB, cs); err != nil {
			b.Fatal(err)
		}
	}
}
