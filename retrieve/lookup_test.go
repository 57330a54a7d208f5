package retrieve

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// lkNow is the clock of every test lookup.
var lkNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// lkRec is a commit to store. Paths are new paths; "old=>new" is a rename.
type lkRec struct {
	id         string // hex digits, padded to a 40-digit hash
	age        time.Duration
	class      model.ChangeType
	secondary  []model.ChangeType
	paths      []string
	refs       []string // issue keys; CVE-… are of kind cve
	redactions int
	summary    string
	// weakSecurity adds a security label below MinSecurityLabel.
	weakSecurity bool
}

// lkHash pads hex digits to a full 40-digit hash.
func lkHash(id string) string { return (id + strings.Repeat("0", 40))[:40] }

func lkDays(n float64) time.Duration { return time.Duration(n * 24 * float64(time.Hour)) }

// openStore opens an empty store registered with remote.
func openStore(tb testing.TB, remote string) *store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if _, err := st.DB.Exec(`INSERT INTO repository(id, name, path, remote_url, created_at) VALUES (1, 't', '', ?, 0)`, remote); err != nil {
		tb.Fatal(err)
	}
	return st
}

// lkBuild stores recs through store.Writer, as sync does.
func lkBuild(tb testing.TB, remote string, recs ...lkRec) *store.Store {
	tb.Helper()
	st := openStore(tb, remote)
	lkInsert(tb, st, recs...)
	return st
}

func lkInsert(tb testing.TB, st *store.Store, recs ...lkRec) {
	tb.Helper()
	ctx := context.Background()
	err := st.Tx(ctx, func(tx *sql.Tx) error {
		w, err := store.NewWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.Close()
		for _, r := range recs {
			if err := w.InsertCommit(ctx, lkUnderstood(r), "main", lkNow); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func lkUnderstood(r lkRec) *model.Understood {
	when := lkNow.Add(-r.age)
	c := &model.Commit{Hash: lkHash(r.id), Message: "subject of " + r.id + "\n", Redactions: r.redactions,
		Author: model.Signature{Name: "A", Email: "a@x", When: when}, Committer: model.Signature{Name: "A", Email: "a@x", When: when}}
	for _, p := range r.paths {
		fc := model.FileChange{Path: p, Status: model.Modified}
		if old, nw, ok := strings.Cut(p, "=>"); ok {
			fc = model.FileChange{Path: nw, OldPath: old, Status: model.Renamed}
		}
		c.Changes = append(c.Changes, fc)
	}
	for _, k := range r.refs {
		kind := "github"
		if strings.HasPrefix(k, "CVE-") {
			kind = "cve"
		}
		c.IssueRefs = append(c.IssueRefs, model.IssueRef{Key: k, Kind: kind, Action: model.References, Raw: k})
	}
	u := &model.Understood{Commit: c, Summary: r.summary}
	if r.class != "" {
		u.Classification.Primary = model.Label{Type: r.class, Confidence: 0.8}
	}
	for _, s := range r.secondary {
		u.Classification.Secondary = append(u.Classification.Secondary, model.Label{Type: s, Confidence: MinSecurityLabel})
	}
	if r.weakSecurity {
		u.Classification.Secondary = append(u.Classification.Secondary, model.Label{Type: model.Security, Confidence: 0.111})
	}
	return u
}

func lkRun(t *testing.T, st *store.Store, cfg LookupConfig, q LookupQuery) *LookupResult {
	t.Helper()
	l := NewLookup(st, cfg, func() time.Time { return lkNow })
	defer l.Close()
	res, err := l.Run(context.Background(), q)
	if err != nil {
		t.Fatalf("lookup %+v: %v", q, err)
	}
	return res
}

// lkIDs lists the matches' ids, shortened to the digits the test gave.
func lkIDs(res *LookupResult) []string {
	out := []string{}
	for _, m := range res.Matches {
		out = append(out, strings.TrimRight(m.ID, "0"))
	}
	return out
}

func lkOverlaps(res *LookupResult) map[string]int {
	out := map[string]int{}
	for _, m := range res.Matches {
		out[strings.TrimRight(m.ID, "0")] = m.Overlap
	}
	return out
}

var lkAll = LookupConfig{MaxMatches: 1000}

func TestWeights(t *testing.T) {
	st := lkBuild(t, "",
		lkRec{id: "a1", age: lkDays(1), class: model.Feature, paths: []string{"src/auth/token.go"}},
		lkRec{id: "a2", age: lkDays(1), class: model.Feature, paths: []string{"src/auth"}}, // a file then, a directory now
		lkRec{id: "a3", age: lkDays(1), class: model.Feature, paths: []string{"src/auth/x/y.go"}},
		lkRec{id: "a4", age: lkDays(1), class: model.Feature, paths: []string{"src/authz/z.go", "src/auth.go"}},
		lkRec{id: "a5", age: lkDays(1), class: model.Feature, paths: []string{"src/auth/token.go=>src/auth/tok.go"}},
		lkRec{id: "a6", age: lkDays(1), class: model.Feature, paths: []string{"lib/a.go", "lib/b.go"}},
		lkRec{id: "a7", age: lkDays(1), class: model.Feature, paths: []string{"lib/a.go"}},
		lkRec{id: "a8", age: lkDays(1), class: model.Feature, paths: []string{"lib=>vendor/lib"}},
	)
	tests := []struct {
		name  string
		paths []string
		want  map[string]int
	}{
		{"exact, record above, renamed from", []string{"src/auth/token.go"}, map[string]int{"a1": 2, "a2": 1, "a5": 2}},
		{"records inside the directory", []string{"src/auth"}, map[string]int{"a1": 1, "a2": 2, "a3": 1, "a5": 1}},
		{"a new file in a directory a record touched", []string{"src/auth/x/new.go"}, map[string]int{"a2": 1}},
		{"per candidate path, the best weight", []string{"src/auth", "src/auth/token.go"}, map[string]int{"a1": 3, "a2": 3, "a3": 1, "a5": 3}},
		{"several exact paths add up", []string{"lib/a.go", "lib/b.go"}, map[string]int{"a6": 4, "a7": 2, "a8": 2}},
		{"an old path above the candidate", []string{"lib/a.go"}, map[string]int{"a6": 2, "a7": 2, "a8": 1}},
		{"no sibling with a longer name", []string{"src/aut", "src/auth.g"}, map[string]int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := lkRun(t, st, lkAll, LookupQuery{Paths: tc.paths})
			if diff := gocmp.Diff(tc.want, lkOverlaps(res)); diff != "" {
				t.Errorf("overlaps (-want +got):\n%s", diff)
			}
			for _, m := range res.Matches {
				if !m.ByPath {
					t.Errorf("%s matched, but not by path", m.ID)
				}
			}
		})
	}
}

func TestOrder(t *testing.T) {
	st := lkBuild(t, "",
		lkRec{id: "a", age: lkDays(1), class: model.Feature, paths: []string{"x.go"}},
		lkRec{id: "b", age: lkDays(80), class: model.Security, refs: []string{"CVE-2024-1234"}, paths: []string{"x.go"}},
		lkRec{id: "c", age: lkDays(50), class: model.Feature, redactions: 1, paths: []string{"x.go"}},
		lkRec{id: "d", age: lkDays(10), class: model.Bugfix, paths: []string{"x.go"}},
		lkRec{id: "e", age: lkDays(10), class: model.Bugfix, paths: []string{"x.go", "y.go"}},
		lkRec{id: "e0f", age: lkDays(10), class: model.Bugfix, paths: []string{"y.go", "x.go"}},
		lkRec{id: "f", age: time.Hour, paths: []string{"x.go"}},
		lkRec{id: "ab", age: lkDays(5), class: model.Revert, paths: []string{"y.go"}},
	)
	res := lkRun(t, st, lkAll, LookupQuery{Paths: []string{"x.go", "y.go"}})
	// b critical; c high; then medium: ab newest, e and e0f (overlap 4,
	// ids ascending), d (overlap 2); a low; f unknown.
	want := []string{"b", "c", "ab", "e", "e0f", "d", "a", "f"}
	if diff := gocmp.Diff(want, lkIDs(res)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	var sev []string
	for _, m := range res.Matches {
		sev = append(sev, m.Severity.String())
	}
	wantSev := []string{"critical", "high", "medium", "medium", "medium", "medium", "low", "unknown"}
	if diff := gocmp.Diff(wantSev, sev); diff != "" {
		t.Errorf("severities (-want +got):\n%s", diff)
	}
}

func TestSeverityOf(t *testing.T) {
	tests := []struct {
		class model.ChangeType
		f     SeverityFlags
		want  Severity
	}{
		{model.Security, SeverityFlags{SecurityLabel: true, Advisory: true}, SeverityCritical},
		{model.Security, SeverityFlags{Advisory: true}, SeverityCritical},
		{model.Bugfix, SeverityFlags{SecurityLabel: true, Advisory: true}, SeverityCritical},
		{model.Dependency, SeverityFlags{SecurityLabel: true, Advisory: true}, SeverityCritical},
		{model.Dependency, SeverityFlags{Advisory: true}, SeverityLow}, // a CVE alone is not a security change
		{model.Security, SeverityFlags{}, SeverityHigh},
		{model.Feature, SeverityFlags{Redacted: true}, SeverityHigh},
		{"", SeverityFlags{Redacted: true}, SeverityHigh},
		{model.Bugfix, SeverityFlags{}, SeverityMedium},
		{model.Revert, SeverityFlags{}, SeverityMedium},
		{model.Performance, SeverityFlags{}, SeverityMedium},
		{model.Feature, SeverityFlags{SecurityLabel: true}, SeverityMedium},
		{model.Feature, SeverityFlags{}, SeverityLow},
		{model.Refactor, SeverityFlags{}, SeverityLow},
		{model.Dependency, SeverityFlags{}, SeverityLow},
		{model.Configuration, SeverityFlags{}, SeverityLow},
		{model.Test, SeverityFlags{}, SeverityLow},
		{model.Documentation, SeverityFlags{}, SeverityLow},
		{model.Cleanup, SeverityFlags{}, SeverityLow},
		{model.Merge, SeverityFlags{}, SeverityLow},
		{"", SeverityFlags{}, SeverityUnknown},
	}
	for _, tc := range tests {
		if got := SeverityOf(tc.class, tc.f); got != tc.want {
			t.Errorf("SeverityOf(%q, %+v) = %s, want %s", tc.class, tc.f, got, tc.want)
		}
	}
}

// TestSeverityFromStore checks that the flags are read from what sync
// stores: labels, references and redactions.
func TestSeverityFromStore(t *testing.T) {
	st := lkBuild(t, "",
		lkRec{id: "1", class: model.Bugfix, secondary: []model.ChangeType{model.Security}, refs: []string{"#4", "CVE-2021-44228"}, paths: []string{"p"}},
		lkRec{id: "2", class: model.Bugfix, secondary: []model.ChangeType{model.Test, model.Security}, paths: []string{"p"}},
		lkRec{id: "3", class: model.Dependency, refs: []string{"CVE-2021-44228"}, paths: []string{"p"}},
		lkRec{id: "4", class: model.Documentation, redactions: 2, paths: []string{"p"}},
		lkRec{id: "5", class: model.Security, paths: []string{"p"}},
		lkRec{id: "6", paths: []string{"p"}},
		lkRec{id: "7", class: model.Feature, weakSecurity: true, paths: []string{"p"}},
		lkRec{id: "8", class: model.Feature, weakSecurity: true, refs: []string{"CVE-2021-44228"}, paths: []string{"p"}},
	)
	res := lkRun(t, st, lkAll, LookupQuery{Paths: []string{"p"}})
	got := map[string]string{}
	for _, m := range res.Matches {
		got[strings.TrimRight(m.ID, "0")] = m.Severity.String()
	}
	want := map[string]string{"1": "critical", "2": "medium", "3": "low", "4": "high", "5": "high", "6": "unknown", "7": "low", "8": "low"}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("severities (-want +got):\n%s", diff)
	}
}

func TestWindow(t *testing.T) {
	st := lkBuild(t, "",
		lkRec{id: "1", age: lkDays(89), class: model.Feature, paths: []string{"w"}, refs: []string{"#1"}},
		lkRec{id: "2", age: lkDays(90), class: model.Feature, paths: []string{"w"}, refs: []string{"#1"}},
		lkRec{id: "3", age: lkDays(90) + time.Second, class: model.Feature, paths: []string{"w"}, refs: []string{"#1"}},
		lkRec{id: "4", age: lkDays(200), class: model.Feature, paths: []string{"w"}, refs: []string{"#1"}},
	)
	tests := []struct {
		name string
		cfg  LookupConfig
		q    LookupQuery
		want []string
	}{
		{"default 90 days, bound included", lkAll, LookupQuery{Paths: []string{"w"}}, []string{"1", "2"}},
		{"by fingerprint too", lkAll, LookupQuery{Fingerprints: []string{"#1"}}, []string{"1", "2"}},
		{"configured", LookupConfig{MaxMatches: 9, WindowDays: 30}, LookupQuery{Paths: []string{"w"}}, []string{}},
		{"days override the configuration", LookupConfig{MaxMatches: 9, WindowDays: 30}, LookupQuery{Paths: []string{"w"}, Days: 365}, []string{"1", "2", "3", "4"}},
		{"paths fingerprint scan too", lkAll, LookupQuery{Fingerprints: []string{PathsFingerprint([]string{"w"})}}, []string{"1", "2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := lkRun(t, st, tc.cfg, tc.q)
			if diff := gocmp.Diff(tc.want, lkIDs(res)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if wantSince := lkNow.AddDate(0, 0, -res.WindowDays); !res.Since.Equal(wantSince) {
				t.Errorf("since %v, want %v", res.Since, wantSince)
			}
		})
	}
}

func TestFingerprints(t *testing.T) {
	st := lkBuild(t, "",
		lkRec{id: "1", age: lkDays(1), class: model.Bugfix, refs: []string{"#12"}, paths: []string{"a.go"}},
		lkRec{id: "2", age: lkDays(2), class: model.Security, refs: []string{"CVE-2024-1234", "PROJ-7"}, paths: []string{"s.go"}},
		lkRec{id: "3", age: lkDays(3), class: model.Feature, paths: []string{"a.go", "b.go"}},
		lkRec{id: "4", age: lkDays(4), class: model.Feature, paths: []string{"b.go", "a.go", "c.go"}},
		lkRec{id: "5", age: lkDays(5), class: model.Feature, paths: []string{"z.go"}},
		lkRec{id: "6", age: lkDays(6), class: model.Feature, refs: []string{"owner/repo#3"}, paths: []string{"z.go"}},
	)
	type by struct{ Path, FP bool }
	tests := []struct {
		name string
		q    LookupQuery
		want map[string]by
	}{
		{"reason only", LookupQuery{Fingerprints: []string{"#12"}}, map[string]by{"1": {false, true}}},
		{"GH-12 is #12", LookupQuery{Fingerprints: []string{" GH-12 "}}, map[string]by{"1": {false, true}}},
		{"a CVE in any case", LookupQuery{Fingerprints: []string{"cve-2024-1234"}}, map[string]by{"2": {false, true}}},
		{"a Jira key", LookupQuery{Fingerprints: []string{"PROJ-7"}}, map[string]by{"2": {false, true}}},
		{"an issue URL", LookupQuery{Fingerprints: []string{"https://github.com/owner/repo/issues/3"}}, map[string]by{"6": {false, true}}},
		{"an unknown reason matches nothing", LookupQuery{Fingerprints: []string{"flaky test"}}, map[string]by{}},
		{"paths fingerprint only", LookupQuery{Fingerprints: []string{PathsFingerprint([]string{"./b.go", "a.go/"})}}, map[string]by{"3": {false, true}}},
		{"paths fingerprint upper case", LookupQuery{Fingerprints: []string{strings.ToUpper(PathsFingerprint([]string{"a.go", "b.go"}))}}, map[string]by{"3": {false, true}}},
		{"derived from the paths", LookupQuery{Paths: []string{"b.go", "a.go"}}, map[string]by{"1": {true, false}, "3": {true, true}, "4": {true, false}}},
		{"additive", LookupQuery{Paths: []string{"z.go"}, Fingerprints: []string{"#12", "owner/repo#3"}},
			map[string]by{"1": {false, true}, "5": {true, true}, "6": {true, true}}},
	}
	run := func(suffix string) {
		for _, tc := range tests {
			t.Run(tc.name+suffix, func(t *testing.T) {
				res := lkRun(t, st, lkAll, tc.q)
				got := map[string]by{}
				for _, m := range res.Matches {
					got[strings.TrimRight(m.ID, "0")] = by{m.ByPath, m.ByFingerprint}
					if !m.ByPath && m.Overlap != 0 {
						t.Errorf("%s: fingerprint match with overlap %d", m.ID, m.Overlap)
					}
				}
				if diff := gocmp.Diff(tc.want, got); diff != "" {
					t.Errorf("matches (-want +got):\n%s", diff)
				}
			})
		}
	}
	// By the lookup keys; then as a store made before them answers, its
	// records waiting for FingerprintBackfill (the window is hashed); then
	// after the backfill.
	run("")
	if _, err := st.DB.Exec(`INSERT INTO fingerprint_backfill SELECT id FROM commits`); err != nil {
		t.Fatal(err)
	}
	run(" (hashing the window)")
	if _, err := st.FingerprintBackfill(context.Background()); err != nil {
		t.Fatal(err)
	}
	run(" (backfilled)")
	// z.go is matched by path (weight 2) and by the single-path record's
	// derived fingerprint; the fingerprint adds nothing to the overlap.
	res := lkRun(t, st, lkAll, LookupQuery{Paths: []string{"z.go"}, Fingerprints: []string{"owner/repo#3"}})
	if diff := gocmp.Diff(map[string]int{"5": 2, "6": 2}, lkOverlaps(res)); diff != "" {
		t.Errorf("additive overlaps (-want +got):\n%s", diff)
	}
	wantFP := []string{PathsFingerprint([]string{"z.go"}), "owner/repo#3"}
	if diff := gocmp.Diff(wantFP, res.Fingerprints); diff != "" {
		t.Errorf("reported fingerprints (-want +got):\n%s", diff)
	}
}

func TestPathsFingerprint(t *testing.T) {
	a := PathsFingerprint([]string{"src/a.go", "b.go"})
	for _, same := range [][]string{{"b.go", "src/a.go"}, {"./b.go", `src\a.go`, "b.go"}, {"src//a.go/", " b.go"}} {
		if got := PathsFingerprint(same); got != a {
			t.Errorf("PathsFingerprint(%q) = %s, want %s", same, got, a)
		}
	}
	if len(a) != len("paths:")+16 || !strings.HasPrefix(a, "paths:") {
		t.Errorf("format %q", a)
	}
	if PathsFingerprint([]string{"a"}) == PathsFingerprint([]string{"a", "b"}) ||
		PathsFingerprint([]string{"a", "b"}) == PathsFingerprint([]string{"a/b"}) {
		t.Error("different sets share a fingerprint")
	}
}

func TestRewrittenExcluded(t *testing.T) {
	st := lkBuild(t, "",
		lkRec{id: "1", age: lkDays(1), class: model.Bugfix, refs: []string{"#5"}, paths: []string{"r.go"}},
		lkRec{id: "2", age: lkDays(2), class: model.Bugfix, refs: []string{"#5"}, paths: []string{"r.go"}},
	)
	if _, err := st.DB.Exec(`UPDATE commits SET rewritten = 1 WHERE hash = ?`, lkHash("1")); err != nil {
		t.Fatal(err)
	}
	for _, q := range []LookupQuery{
		{Paths: []string{"r.go"}},
		{Paths: []string{"./r.go/"}},
		{Fingerprints: []string{"#5"}},
		{Fingerprints: []string{PathsFingerprint([]string{"r.go"})}},
	} {
		if got := lkIDs(lkRun(t, st, lkAll, q)); !slices.Equal(got, []string{"2"}) {
			t.Errorf("%+v: %v, want only the live commit 2", q, got)
		}
	}
}

func TestLimit(t *testing.T) {
	var recs []lkRec
	for i, id := range []string{"1", "2", "3", "4", "5"} {
		recs = append(recs, lkRec{id: id, age: lkDays(float64(i + 1)), class: model.Feature, paths: []string{"l.go"}})
	}
	st := lkBuild(t, "", recs...)
	tests := []struct {
		cfg   LookupConfig
		limit int
		want  []string
	}{
		{LookupConfig{}, 0, []string{"1", "2", "3"}}, // DefaultLookupConfig: 3
		{LookupConfig{MaxMatches: 2}, 0, []string{"1", "2"}},
		{LookupConfig{MaxMatches: 2}, 4, []string{"1", "2", "3", "4"}},
		{LookupConfig{}, 10, []string{"1", "2", "3", "4", "5"}},
	}
	for _, tc := range tests {
		res := lkRun(t, st, tc.cfg, LookupQuery{Paths: []string{"l.go"}, Limit: tc.limit})
		wantLimit := cmp.Or(tc.limit, tc.cfg.MaxMatches, 3)
		if !slices.Equal(lkIDs(res), tc.want) || res.More != (len(tc.want) < 5) || res.Limit != wantLimit {
			t.Errorf("config %+v, limit %d: %v (more %v, limit %d), want %v of 5 (limit %d)",
				tc.cfg, tc.limit, lkIDs(res), res.More, res.Limit, tc.want, wantLimit)
		}
	}
}

func TestNormalisation(t *testing.T) {
	st := lkBuild(t, "", lkRec{id: "1", age: lkDays(1), class: model.Feature, paths: []string{"src/pkg/x.go"}})
	for _, p := range []string{"./src/pkg/x.go", "src//pkg///x.go", `src\pkg\x.go`, " src/pkg/x.go\n", "src/pkg/../pkg/x.go", "/src/pkg/x.go"} {
		res := lkRun(t, st, lkAll, LookupQuery{Paths: []string{p}})
		if diff := gocmp.Diff(map[string]int{"1": 2}, lkOverlaps(res)); diff != "" || !slices.Equal(res.Paths, []string{"src/pkg/x.go"}) {
			t.Errorf("%q: paths %q, overlaps (-want +got):\n%s", p, res.Paths, diff)
		}
	}
	for _, p := range []string{"src/pkg/", `src\pkg\`, "./src/pkg"} {
		if got := lkOverlaps(lkRun(t, st, lkAll, LookupQuery{Paths: []string{p}})); got["1"] != 1 {
			t.Errorf("%q: overlaps %v, want a directory match", p, got)
		}
	}
	// Spellings of one path are one candidate path, not several.
	res := lkRun(t, st, lkAll, LookupQuery{Paths: []string{"src/pkg/x.go", "./src/pkg/x.go", "src/pkg//x.go"}})
	if len(res.Paths) != 1 || lkOverlaps(res)["1"] != 2 {
		t.Errorf("duplicates: paths %q, overlaps %v", res.Paths, lkOverlaps(res))
	}
	for _, p := range []string{".", "", "/", "a/..", " ./ "} {
		_, err := NewLookup(st, lkAll, nil).Run(context.Background(), LookupQuery{Paths: []string{"src", p}})
		if !errors.Is(err, ErrRootPath) {
			t.Errorf("%q: %v, want ErrRootPath", p, err)
		}
	}
}

func TestHeadAndBadQueries(t *testing.T) {
	st := lkBuild(t, "",
		lkRec{id: "abcdef1", age: lkDays(1), class: model.Feature, paths: []string{"h.go"}},
		lkRec{id: "abcdef2", age: lkDays(2), class: model.Feature, paths: []string{"h.go"}},
	)
	for _, head := range []string{lkHash("abcdef1"), "ABCDEF1", "abcdef10"} {
		res := lkRun(t, st, lkAll, LookupQuery{Paths: []string{"h.go"}, Head: head})
		if !slices.Equal(lkIDs(res), []string{"abcdef2"}) || res.More {
			t.Errorf("head %s: %v (more %v), want the head left out", head, lkIDs(res), res.More)
		}
	}
	l := NewLookup(st, lkAll, nil)
	bad := []struct {
		q    LookupQuery
		want error
	}{
		{LookupQuery{}, ErrEmptyLookup},
		{LookupQuery{Paths: []string{"h.go"}, Head: "abc"}, ErrBadLookup},
		{LookupQuery{Paths: []string{"h.go"}, Head: "not-a-hash"}, ErrBadLookup},
		{LookupQuery{Paths: []string{"h.go"}, Limit: -1}, ErrBadLookup},
		{LookupQuery{Paths: []string{"h.go"}, Days: -1}, ErrBadLookup},
		{LookupQuery{Fingerprints: []string{"paths:12"}}, ErrBadLookup},
		{LookupQuery{Fingerprints: []string{"paths:zzzzzzzzzzzzzzzz"}}, ErrBadLookup},
		{LookupQuery{Fingerprints: []string{"  "}}, ErrBadLookup},
	}
	for _, tc := range bad {
		if _, err := l.Run(context.Background(), tc.q); !errors.Is(err, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.q, err, tc.want)
		}
	}
}

func TestLinks(t *testing.T) {
	h := lkHash("c0ffee")
	tests := []struct{ remote, want string }{
		{"", h},
		{"https://github.com/acme/demo.git", "https://github.com/acme/demo/commit/" + h},
		{"https://x-token:s3cret@github.com/acme/demo/", "https://github.com/acme/demo/commit/" + h},
		{"git@github.com:acme/demo.git", "https://github.com/acme/demo/commit/" + h},
		{"ssh://git@gitlab.com:2222/group/sub/demo.git", "https://gitlab.com/group/sub/demo/-/commit/" + h},
		{"https://gitlab.example.org/g/demo", "https://gitlab.example.org/g/demo/-/commit/" + h},
		{"git@bitbucket.org:acme/demo.git", "https://bitbucket.org/acme/demo/commits/" + h},
		{"https://git.example.com:8443/acme/demo.git", "https://git.example.com:8443/acme/demo/commit/" + h},
		{"/srv/git/demo.git", h},
		{"../demo", h},
		{"file:///srv/git/demo.git", h},
		{"C:/repos/demo", h},
	}
	for _, tc := range tests {
		if got := CommitLink(tc.remote, h); got != tc.want {
			t.Errorf("CommitLink(%q) = %q, want %q", tc.remote, got, tc.want)
		}
	}
	// The lookup uses the repository's remote.
	st := lkBuild(t, "git@github.com:acme/demo.git", lkRec{id: "c0ffee", age: lkDays(1), class: model.Feature, paths: []string{"k"}})
	res := lkRun(t, st, lkAll, LookupQuery{Paths: []string{"k"}})
	if len(res.Matches) != 1 || res.Matches[0].Link != "https://github.com/acme/demo/commit/"+h {
		t.Errorf("matches %+v", res.Matches)
	}
}

func TestMatchFields(t *testing.T) {
	st := lkBuild(t, "", lkRec{id: "1", age: lkDays(1), class: model.Bugfix, summary: "Reject expired tokens", paths: []string{"k"}},
		lkRec{id: "2", age: lkDays(2), paths: []string{"k"}})
	res := lkRun(t, st, lkAll, LookupQuery{Paths: []string{"k"}})
	want := []LookupMatch{
		{Type: "bugfix", Date: lkNow.Add(-lkDays(1)), Summary: "Reject expired tokens", Link: lkHash("1"), ID: lkHash("1"),
			Severity: SeverityMedium, Overlap: 2, ByPath: true, ByFingerprint: true},
		{Type: "commit", Date: lkNow.Add(-lkDays(2)), Summary: "subject of 2", Link: lkHash("2"), ID: lkHash("2"),
			Severity: SeverityUnknown, Overlap: 2, ByPath: true, ByFingerprint: true},
	}
	if diff := gocmp.Diff(want, res.Matches); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if cfg, err := LoadLookupConfig(filepath.Join(dir, "none.toml")); err != nil || cfg != DefaultLookupConfig() {
		t.Errorf("missing file: %+v %v", cfg, err)
	}
	cfg, err := LoadLookupConfig(write("[llm]\nmodel = \"x\"\n\n[lookup]\nmax_matches = 7\nwindow_days = 30\n"))
	if err != nil || cfg != (LookupConfig{MaxMatches: 7, WindowDays: 30}) {
		t.Errorf("file: %+v %v", cfg, err)
	}
	if cfg, err := LoadLookupConfig(write("[lookup]\nwindow_days = 14\n")); err != nil || cfg != (LookupConfig{MaxMatches: 3, WindowDays: 14}) {
		t.Errorf("one key: %+v %v", cfg, err)
	}
	for _, bad := range []string{"[lookup]\nmax_match = 7\n", "[lookup]\nmax_matches = 0\n", "[lookup]\nwindow_days = \"soon\"\n", "[lookup\n"} {
		if _, err := LoadLookupConfig(write(bad)); !errors.Is(err, ErrBadLookupConfig) {
			t.Errorf("%q: %v, want ErrBadLookupConfig", bad, err)
		}
	}
}

// TestIndexedRepository looks up a real repository indexed by sync, then
// rewrites its history and looks again.
func TestIndexedRepository(t *testing.T) {
	g := gittest.New(t)
	g.Write("auth/token.go", "package auth\n\nfunc Parse() {}\n")
	g.Write("auth/parse.go", "package auth\n")
	feat := g.Commit("feat: add token parser")
	g.Write("http/header.go", "package http\n")
	sec := g.Commit("security: escape header values\n\nFixes CVE-2024-1234.")
	g.Write("docs/tokens.md", "# Tokens\n")
	g.Commit("docs: explain tokens")
	g.Git("mv", "auth/parse.go", "auth/parser.go")
	ren := g.Commit("refactor: rename parse.go to parser.go")
	g.Write("auth/token.go", "package auth\n\nfunc Parse() { check() }\n")
	fix := g.Commit("fix: reject expired tokens (fixes #12)")

	st := openStore(t, "https://github.com/acme/demo.git")
	sync := func() {
		s, err := indexer.New(g.Dir, st, indexer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	clock := func() time.Time { return gittest.Epoch.AddDate(0, 0, 1) }
	look := func(q LookupQuery) []string {
		res, err := NewLookup(st, LookupConfig{MaxMatches: 10}, clock).Run(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range res.Matches {
			out = append(out, m.ID[:7]+" "+m.Severity.String()+" "+m.Type)
			if !strings.HasPrefix(m.Link, "https://github.com/acme/demo/commit/") {
				t.Errorf("link %q", m.Link)
			}
		}
		return out
	}
	short := func(h, rest string) string { return h[:7] + " " + rest }
	tests := []struct {
		q    LookupQuery
		want []string
	}{
		{LookupQuery{Paths: []string{"auth/token.go"}}, []string{short(fix, "medium bugfix"), short(feat, "low feature")}},
		{LookupQuery{Paths: []string{"auth/parse.go"}}, []string{short(ren, "low refactor"), short(feat, "low feature")}},
		{LookupQuery{Paths: []string{"http"}}, []string{short(sec, "critical security")}},
		{LookupQuery{Fingerprints: []string{"cve-2024-1234"}}, []string{short(sec, "critical security")}},
		{LookupQuery{Fingerprints: []string{"#12"}, Paths: []string{"auth"}},
			[]string{short(fix, "medium bugfix"), short(ren, "low refactor"), short(feat, "low feature")}},
	}
	for _, tc := range tests {
		if diff := gocmp.Diff(tc.want, look(tc.q)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.q, diff)
		}
	}
	// A window that ends before the history: nothing.
	res, err := NewLookup(st, LookupConfig{}, func() time.Time { return gittest.Epoch.AddDate(1, 0, 0) }).Run(context.Background(), LookupQuery{Paths: []string{"auth"}})
	if err != nil || len(res.Matches) != 0 {
		t.Errorf("a year later: %+v %v", res, err)
	}
	// Rewrite the last commit: the fix is orphaned and marked rewritten.
	g.Git("reset", "-q", "--hard", "HEAD~1")
	g.Write("auth/token.go", "package auth\n\nfunc Parse() { validate() }\n")
	amended := g.Commit("feat: validate tokens")
	sync()
	want := []string{short(amended, "low feature"), short(feat, "low feature")}
	if diff := gocmp.Diff(want, look(LookupQuery{Paths: []string{"auth/token.go"}, Fingerprints: []string{"#12"}})); diff != "" {
		t.Errorf("after the rewrite (-want +got):\n%s", diff)
	}
}

// TestStoredSeverityIsSeverityOf holds the SQL mapping that sync stores
// (commits.severity, store migration 5) equal to SeverityOf for every
// combination of its inputs.
func TestStoredSeverityIsSeverityOf(t *testing.T) {
	types := []model.ChangeType{"", model.Bugfix, model.Feature, model.Refactor, model.Performance, model.Security,
		model.Documentation, model.Test, model.Dependency, model.Configuration, model.Cleanup, model.Revert, model.Merge}
	type combo struct {
		class            model.ChangeType
		label, weak, cve bool
		redacted         bool
	}
	var combos []combo
	var recs []lkRec
	for _, class := range types {
		for bits := range 16 {
			c := combo{class, bits&1 != 0, bits&2 != 0, bits&4 != 0, bits&8 != 0}
			if class == "" && (c.label || c.weak) {
				continue // sync stores labels only beside a primary type
			}
			r := lkRec{id: fmt.Sprintf("%x", len(combos)+1) + "f", age: lkDays(1), class: class, paths: []string{"s"},
				weakSecurity: c.weak}
			if c.label {
				r.secondary = []model.ChangeType{model.Security}
			}
			if c.cve {
				r.refs = []string{"CVE-2020-0001"}
			}
			if c.redacted {
				r.redactions = 1
			}
			combos = append(combos, c)
			recs = append(recs, r)
		}
	}
	st := lkBuild(t, "", recs...)
	res := lkRun(t, st, LookupConfig{MaxMatches: len(recs)}, LookupQuery{Paths: []string{"s"}})
	got := map[string]Severity{}
	for _, m := range res.Matches {
		got[m.ID] = m.Severity
	}
	for i, c := range combos {
		want := SeverityOf(c.class, SeverityFlags{SecurityLabel: c.label, Advisory: c.cve, Redacted: c.redacted})
		if g, ok := got[lkHash(recs[i].id)]; !ok || g != want {
			t.Errorf("%+v: stored %v (found %v), SeverityOf %v", c, g, ok, want)
		}
	}
}

// TestIndexFollowsTheStore changes commits after they are written, as sync
// and retention do, and checks that the lookup follows.
func TestIndexFollowsTheStore(t *testing.T) {
	st := lkBuild(t, "",
		lkRec{id: "1", age: lkDays(1), class: model.Feature, paths: []string{"f.go"}, refs: []string{"#9"}},
		lkRec{id: "2", age: lkDays(2), class: model.Feature, paths: []string{"f.go"}},
	)
	look := func() []string {
		var out []string
		for _, m := range lkRun(t, st, lkAll, LookupQuery{Paths: []string{"f.go"}, Fingerprints: []string{"#9"}}).Matches {
			out = append(out, strings.TrimRight(m.ID, "0")+" "+m.Severity.String())
		}
		return out
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := st.DB.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	// Reclassified: the older commit becomes a security fix and ranks first.
	exec(`UPDATE commits SET classification = 'security' WHERE hash = ?`, lkHash("2"))
	if got, want := look(), []string{"2 high", "1 low"}; !slices.Equal(got, want) {
		t.Errorf("reclassified: %v, want %v", got, want)
	}
	// A CVE reference written later raises it to critical.
	exec(`INSERT INTO issue_refs VALUES ((SELECT id FROM commits WHERE hash = ?), 'CVE-2024-7', 9, 'cve', 'REFERENCES', 'CVE-2024-7', '')`, lkHash("2"))
	if got, want := look(), []string{"2 critical", "1 low"}; !slices.Equal(got, want) {
		t.Errorf("cve: %v, want %v", got, want)
	}
	// Rewritten, by path and by reason; then revived.
	exec(`UPDATE commits SET rewritten = 1 WHERE hash = ?`, lkHash("1"))
	if got, want := look(), []string{"2 critical"}; !slices.Equal(got, want) {
		t.Errorf("rewritten: %v, want %v", got, want)
	}
	exec(`UPDATE commits SET rewritten = 0 WHERE hash = ?`, lkHash("1"))
	if got, want := look(), []string{"2 critical", "1 low"}; !slices.Equal(got, want) {
		t.Errorf("revived: %v, want %v", got, want)
	}
	// Pruned by retention: its keys go with it.
	if err := st.Tx(context.Background(), func(tx *sql.Tx) error { return store.DeleteCommit(context.Background(), tx, lkHash("2")) }); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.DB.QueryRow(`SELECT COUNT(*) FROM lookup_keys WHERE commit_id NOT IN (SELECT id FROM commits)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d keys of deleted commits (%v)", n, err)
	}
	if got, want := look(), []string{"1 low"}; !slices.Equal(got, want) {
		t.Errorf("pruned: %v, want %v", got, want)
	}
}

// TestTiesBeyondTheQuota: each key yields only limit+1 rows, so records
// tied on severity and recency can be cut off; the one that overlaps most
// must still win. x overlaps twice as much as the others but has the
// lowest commit id, and the index returns the highest first.
func TestTiesBeyondTheQuota(t *testing.T) {
	st := lkBuild(t, "",
		lkRec{id: "e", age: lkDays(3), class: model.Bugfix, paths: []string{"a", "b"}},
		lkRec{id: "a1", age: lkDays(3), class: model.Bugfix, paths: []string{"a"}},
		lkRec{id: "a2", age: lkDays(3), class: model.Bugfix, paths: []string{"a"}},
		lkRec{id: "b1", age: lkDays(3), class: model.Bugfix, paths: []string{"b"}},
		lkRec{id: "b2", age: lkDays(3), class: model.Bugfix, paths: []string{"b"}},
		lkRec{id: "c", age: lkDays(2), class: model.Feature, paths: []string{"a"}},
	)
	for limit, want := range map[int][]string{1: {"e"}, 2: {"e", "a1"}, 5: {"e", "a1", "a2", "b1", "b2"}, 6: {"e", "a1", "a2", "b1", "b2", "c"}} {
		res := lkRun(t, st, LookupConfig{MaxMatches: limit}, LookupQuery{Paths: []string{"a", "b"}})
		if !slices.Equal(lkIDs(res), want) || res.More != (limit < 6) {
			t.Errorf("limit %d: %v (more %v), want %v", limit, lkIDs(res), res.More, want)
		}
	}
}
