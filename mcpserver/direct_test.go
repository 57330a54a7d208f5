package mcpserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

func TestHealthTool(t *testing.T) {
	f := shared(t)
	cs := connect(t, f.svc)
	var out memory.HealthReport
	txt := ok(t, cs, "gitmemory_health", map[string]any{}, &out)
	if out.Repository != "demo" || out.Entries == 0 || out.Queued != 0 || out.Failed != 0 || out.StaleDays != 90 {
		t.Fatalf("health = %+v\n%s", out, txt)
	}
	if out.Stale != 0 || out.StaleChecked != 0 { // every fixture commit is days old
		t.Errorf("stale %d of %d checked, want none: the commits are recent", out.Stale, out.StaleChecked)
	}
	if !strings.Contains(txt, "source warnings") {
		t.Errorf("text: %s", txt)
	}
	if msg := fails(t, cs, "gitmemory_health", map[string]any{"repository": "nope"}); !strings.Contains(msg, "nope") {
		t.Errorf("unknown repository: %s", msg)
	}
}

// TestQueryOptions runs before the parallel tests, as TestQuery does.
func TestQueryOptions(t *testing.T) {
	f := shared(t)
	cs := connect(t, f.svc)
	q := "why does Add saturate at MaxInt?"
	var out QueryOutput
	md := ok(t, cs, "gitmemory_query", map[string]any{"query": q, "full": true, "max_results": 1}, &out)
	if len(out.Results) != 1 || out.Results[0].Tier == "" || out.Results[0].Confidence == "" {
		t.Fatalf("max_results 1: results %+v", out.Results)
	}
	if !strings.Contains(md, "Verify: `git show "+out.Results[0].Commit) {
		t.Errorf("full: no verify command for %s:\n%s", out.Results[0].Commit, md)
	}
	with := ok(t, cs, "gitmemory_query", map[string]any{"query": q}, &out)
	without := ok(t, cs, "gitmemory_query", map[string]any{"query": q, "include_diffs": false, "include_tests": false}, &out)
	if !strings.Contains(with, "## Important diffs") || strings.Contains(without, "## Important diffs") || strings.Contains(without, "## Related tests") {
		t.Errorf("include_diffs/include_tests false still show them:\n%s", without)
	}
	ok(t, cs, "gitmemory_query", map[string]any{"query": q, "date_range": map[string]any{"from": "2999-01-01"}}, &out)
	if len(out.Results) != 0 {
		t.Errorf("date_range in the future: %d results", len(out.Results))
	}
	for args, want := range map[string]map[string]any{
		"want YYYY-MM-DD": {"query": q, "date_range": map[string]any{"from": "yesterday"}},
		"ends":            {"query": q, "date_range": map[string]any{"from": "2024-02-01", "to": "2024-01-01"}},
		"recency_weight":  {"query": q, "recency_weight": 2},
		"max_results":     {"query": q, "max_results": 50},
	} {
		if msg := fails(t, cs, "gitmemory_query", want); !strings.Contains(msg, args) {
			t.Errorf("%v: error %q lacks %q", want, msg, args)
		}
	}
}

func TestDirectTools(t *testing.T) {
	t.Parallel()
	f := shared(t)
	cs := connect(t, f.svc)

	var c retrieve.CommitDetail
	txt := ok(t, cs, "gitmemory_commit", map[string]any{"rev": f.fix[:7]}, &c)
	if c.Hash != f.fix || c.Issues == nil || c.Issues[0] != "#7" || len(c.Files) != 1 || c.Files[0].Path != "calc/calc.go" ||
		!strings.Contains(c.Message, "saturates at MaxInt") || !slices.Contains(c.Entities, "modifies calc/calc.go#calc.Add") {
		t.Errorf("commit %s: %+v\n%s", f.fix[:7], c, txt)
	}
	if msg := fails(t, cs, "gitmemory_commit", map[string]any{"rev": "0000000"}); !strings.Contains(msg, "no indexed commit") {
		t.Errorf("unknown rev: %s", msg)
	}

	var lg LogOutput
	ok(t, cs, "gitmemory_log", map[string]any{"range": f.fix + ".." + f.rename}, &lg)
	if got := logCommits(lg); !slices.Equal(got, []string{f.rename, f.method}) {
		t.Errorf("log fix..rename = %v, want rename, method", got)
	}
	ok(t, cs, "gitmemory_log", map[string]any{"author": "LOVELACE", "limit": 2}, &lg)
	if got := logCommits(lg); !slices.Equal(got, []string{f.docs, f.rename}) {
		t.Errorf("log by author, 2 = %v", got)
	}
	ok(t, cs, "gitmemory_log", map[string]any{"author": "babbage"}, &lg)
	if len(lg.Commits) != 0 {
		t.Errorf("log by another author: %v", logCommits(lg))
	}
	if msg := fails(t, cs, "gitmemory_log", map[string]any{"range": "..x"}); !strings.Contains(msg, "FROM..TO") {
		t.Errorf("bad range: %s", msg)
	}

	var es EntitySearchOutput
	ok(t, cs, "gitmemory_entity_search", map[string]any{"search": "add"}, &es)
	var keys []string
	for _, e := range es.Entities {
		keys = append(keys, e.Key)
	}
	if len(keys) != 2 || !slices.Contains(keys, "calc/calc.go#calc.Add") || !slices.Contains(keys, "calc/calc.go#calc.Calculator.Add") {
		t.Errorf("entities named like add: %v", keys)
	}
	ok(t, cs, "gitmemory_entity_search", map[string]any{"search": "add", "type": "method"}, &es)
	if len(es.Entities) != 1 || es.Entities[0].Kind != "method" {
		t.Errorf("methods named like add: %+v", es.Entities)
	}
	if msg := fails(t, cs, "gitmemory_entity_search", map[string]any{}); !strings.Contains(msg, "search, type") {
		t.Errorf("no search: %s", msg)
	}

	var rs RelationshipsOutput
	ok(t, cs, "gitmemory_relationships", map[string]any{"entity_name": "calc/calc.go#calc.Add", "types": []string{"MODIFIES"}}, &rs)
	var from []string
	for _, r := range rs.Relationships {
		from = append(from, r.From)
	}
	if !slices.Contains(from, "commit:"+f.fix) {
		t.Errorf("MODIFIES calc.Add: %v lacks the fix %s", from, f.fix)
	}
	if msg := fails(t, cs, "gitmemory_relationships", map[string]any{"entity_name": "Add", "types": []string{"CALLZ"}}); !strings.Contains(msg, "CALLZ") {
		t.Errorf("bad type: %s", msg)
	}
}

func logCommits(l LogOutput) []string {
	var out []string
	for _, c := range l.Commits {
		out = append(out, c.Commit)
	}
	return out
}
