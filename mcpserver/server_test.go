package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
)

var toolNames = []string{"gitmemory_commit", "gitmemory_entity_history", "gitmemory_entity_search", "gitmemory_health",
	"gitmemory_history", "gitmemory_log", "gitmemory_lookup", "gitmemory_query", "gitmemory_recent_changes", "gitmemory_relationships"}

// schemaOf decodes a listed tool's schema.
type schemaOf struct {
	Type       string   `json:"type"`
	Required   []string `json:"required"`
	Properties map[string]struct {
		Type        any      `json:"type"`
		Enum        []string `json:"enum"`
		Description string   `json:"description"`
		Maximum     *float64 `json:"maximum"`
	} `json:"properties"`
}

func decodeSchema(t *testing.T, s any) schemaOf {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out schemaOf
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestListTools(t *testing.T) {
	t.Parallel()
	cs := connect(t, shared(t).svc)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		tools[tool.Name] = tool
	}
	slices.Sort(names)
	if !slices.Equal(names, toolNames) {
		t.Fatalf("tools = %v, want %v", names, toolNames)
	}
	want := map[string]struct{ required, optional []string }{
		"gitmemory_query": {[]string{"query"}, []string{"repository", "token_budget", "max_results", "full",
			"seed_order", "include_diffs", "include_tests", "recency_weight", "date_range"}},
		"gitmemory_health":         {nil, []string{"repository"}},
		"gitmemory_commit":         {[]string{"rev"}, []string{"repository"}},
		"gitmemory_log":            {nil, []string{"range", "since", "until", "author", "limit", "repository"}},
		"gitmemory_entity_search":  {nil, []string{"search", "type", "limit", "repository"}},
		"gitmemory_relationships":  {[]string{"entity_name"}, []string{"types", "repository"}},
		"gitmemory_entity_history": {[]string{"entity_name"}, []string{"entity_type", "repository", "token_budget"}},
		"gitmemory_recent_changes": {nil, []string{"path", "days", "repository", "token_budget"}},
		"gitmemory_lookup":         {nil, []string{"paths", "fingerprint", "fingerprints", "repository"}},
		"gitmemory_history":        {[]string{"path"}, []string{"repository", "limit", "token_budget"}},
	}
	for name, w := range want {
		tool := tools[name]
		in := decodeSchema(t, tool.InputSchema)
		if in.Type != "object" || !slices.Equal(in.Required, w.required) && len(in.Required)+len(w.required) > 0 {
			t.Errorf("%s: input schema type %q, required %v, want object, %v", name, in.Type, in.Required, w.required)
		}
		for _, p := range append(slices.Clone(w.required), w.optional...) {
			if prop, ok := in.Properties[p]; !ok || prop.Description == "" {
				t.Errorf("%s: parameter %s missing or undescribed", name, p)
			}
		}
		if len(in.Properties) != len(w.required)+len(w.optional) {
			t.Errorf("%s: %d parameters, want %d", name, len(in.Properties), len(w.required)+len(w.optional))
		}
		if out := decodeSchema(t, tool.OutputSchema); out.Type != "object" || len(out.Properties) == 0 {
			t.Errorf("%s: no output schema", name)
		}
		if tool.Description == "" || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: description %q, annotations %+v", name, tool.Description, tool.Annotations)
		}
	}
	entity := decodeSchema(t, tools["gitmemory_entity_history"].InputSchema)
	if got := entity.Properties["entity_type"].Enum; !slices.Equal(got, []string{"function", "class", "file"}) {
		t.Errorf("entity_type enum = %v", got)
	}
	if m := decodeSchema(t, tools["gitmemory_query"].InputSchema).Properties["token_budget"].Maximum; m == nil || *m != api.MaxTokens {
		t.Errorf("token_budget maximum = %v", m)
	}
	if d := tools["gitmemory_query"].Description; !strings.Contains(d, `"why"`) || !strings.Contains(d, `"when"`) {
		t.Errorf("query description: %s", d)
	}
}

// TestQuery and TestTokenBudget, which query, are not parallel: a query
// opens the repository's graph, an embedded bolt file that one process
// opens once at a time. The other tests run in parallel after them.
func TestQuery(t *testing.T) {
	f := shared(t)
	cs := connect(t, f.svc)
	var out QueryOutput
	md := ok(t, cs, "gitmemory_query", map[string]any{"query": "why does Add saturate at MaxInt?"}, &out)
	if !strings.Contains(md, "# Context pack") || !strings.Contains(md, short(f.fix)) {
		t.Errorf("pack lacks the fix %s:\n%s", short(f.fix), md)
	}
	if out.Repository != "demo" || out.Mode == "" || out.Intent == "" || out.TokenCount == 0 || len(out.Results) == 0 {
		t.Fatalf("output = %+v", out)
	}
	if !slices.ContainsFunc(out.Results, func(r QueryResult) bool { return r.Commit == f.fix && r.Summary != "" }) {
		t.Errorf("results lack the fix with its summary: %+v", out.Results)
	}
	if n, _ := tokens(t, call(t, cs, "gitmemory_query", map[string]any{"query": "why does Add saturate?"})); n > DefaultTokens {
		t.Errorf("default budget: %d tokens", n)
	}
}

func TestEntityHistory(t *testing.T) {
	t.Parallel()
	f := shared(t)
	cs := connect(t, f.svc)

	var out EntityOutput
	txt := ok(t, cs, "gitmemory_entity_history", map[string]any{"entity_name": "Add", "entity_type": "function"}, &out)
	if out.Entity.Kind != "function" || out.Entity.Key != "calc/calc.go#calc.Add" {
		t.Fatalf("function Add: entity %+v\n%s", out.Entity, txt)
	}
	var got []string
	for _, ev := range out.Events {
		got = append(got, short(ev.Commit)+" "+ev.Action)
	}
	want := []string{short(f.fix) + " modifies", short(f.initial) + " introduces"}
	if !slices.Equal(got, want) || out.Introduced != f.initial {
		t.Errorf("events = %v, introduced %s; want %v, %s", got, out.Introduced, want, short(f.initial))
	}
	for _, s := range []string{"function calc.Add", short(f.fix) + " ", "bugfix modifies", "Add saturates", "also matches: method"} {
		if !strings.Contains(txt, s) {
			t.Errorf("text lacks %q:\n%s", s, txt)
		}
	}

	// The method of the same name, by its qualified name.
	ok(t, cs, "gitmemory_entity_history", map[string]any{"entity_name": "Calculator.Add"}, &out)
	if out.Entity.Kind != "method" || len(out.Events) != 1 || out.Events[0].Commit != f.method {
		t.Errorf("method: %+v", out)
	}

	txt = ok(t, cs, "gitmemory_entity_history", map[string]any{"entity_name": "Calculator", "entity_type": "class"}, &out)
	if out.Entity.Kind != "struct" || !strings.Contains(txt, short(f.method)) {
		t.Errorf("class Calculator: %+v\n%s", out.Entity, txt)
	}

	// A function asked for as a class: the closest thing, with a note.
	txt = ok(t, cs, "gitmemory_entity_history", map[string]any{"entity_name": "clamp", "entity_type": "class"}, &out)
	if out.Entity.Kind != "function" || !strings.Contains(txt, `no class matches "clamp"`) {
		t.Errorf("clamp as a class: %+v\n%s", out, txt)
	}

	// A file, followed through its rename.
	txt = ok(t, cs, "gitmemory_entity_history", map[string]any{"entity_name": "calc/clamp.go", "entity_type": "file"}, &out)
	if out.Entity.Kind != "file" || len(out.Events) != 2 || out.Events[0].Commit != f.rename ||
		!strings.Contains(txt, "calc/util.go → calc/clamp.go") {
		t.Errorf("file: %+v\n%s", out, txt)
	}
	// Without a type, a name that is no entity but a path is the file.
	ok(t, cs, "gitmemory_entity_history", map[string]any{"entity_name": "README.md"}, &out)
	if out.Entity.Kind != "file" || len(out.Events) != 2 || out.Events[0].Commit != f.docs {
		t.Errorf("README.md: %+v", out)
	}

	msg := fails(t, cs, "gitmemory_entity_history", map[string]any{"entity_name": "Qzxw", "entity_type": "function"})
	if !strings.Contains(msg, `unknown entity "Qzxw"`) || !strings.Contains(msg, `closest: `) {
		t.Errorf("unknown entity: %s", msg)
	}
	if msg := fails(t, cs, "gitmemory_entity_history", map[string]any{"entity_name": "Add", "entity_type": "module"}); !strings.Contains(msg, "entity_type") {
		t.Errorf("bad entity_type: %s", msg)
	}
}

func TestHistoryAndRecent(t *testing.T) {
	t.Parallel()
	f := shared(t)
	cs := connect(t, f.svc)

	var out ChangesOutput
	txt := ok(t, cs, "gitmemory_history", map[string]any{"path": "calc/clamp.go"}, &out)
	if len(out.Commits) != 2 || out.Commits[0].Commit != f.rename || out.Commits[0].OldPath != "calc/util.go" ||
		out.Commits[1].Commit != f.initial || out.Commits[1].Path != "calc/util.go" {
		t.Errorf("history: %+v", out)
	}
	for _, s := range []string{short(f.rename) + " ", "refactor", "(calc/util.go → calc/clamp.go)", short(f.initial)} {
		if !strings.Contains(txt, s) {
			t.Errorf("history text lacks %q:\n%s", s, txt)
		}
	}
	ok(t, cs, "gitmemory_history", map[string]any{"path": "calc", "limit": 2}, &out)
	if len(out.Commits) != 2 || !out.More || out.Commits[0].Commit != f.rename {
		t.Errorf("history limit 2: %+v", out)
	}

	txt = ok(t, cs, "gitmemory_recent_changes", map[string]any{}, &out)
	if len(out.Commits) != 5 || out.Days != 7 || out.Commits[0].Commit != f.docs || !strings.Contains(txt, "in the last 7 days") {
		t.Errorf("recent: %+v\n%s", out, txt)
	}
	ok(t, cs, "gitmemory_recent_changes", map[string]any{"path": "README.md", "days": 30}, &out)
	if len(out.Commits) != 2 || out.Days != 30 {
		t.Errorf("recent README.md: %+v", out)
	}
	if msg := fails(t, cs, "gitmemory_recent_changes", map[string]any{"days": -1}); !strings.Contains(msg, "days") {
		t.Errorf("negative days: %s", msg)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	f := shared(t)
	cs := connect(t, f.svc)
	var out LookupOutput
	txt := ok(t, cs, "gitmemory_lookup", map[string]any{"paths": []string{"calc/calc.go"}}, &out)
	if len(out.Matches) == 0 || out.Matches[0].ID != f.fix || out.Matches[0].Severity != "medium" ||
		!strings.Contains(txt, short(f.fix)) {
		t.Errorf("lookup by path: %+v\n%s", out, txt)
	}
	for _, args := range []map[string]any{{"fingerprint": "#7"}, {"fingerprints": []string{"GH-7"}}} {
		ok(t, cs, "gitmemory_lookup", args, &out)
		if len(out.Matches) != 1 || out.Matches[0].ID != f.fix {
			t.Errorf("lookup %v: %+v", args, out)
		}
	}
	if msg := fails(t, cs, "gitmemory_lookup", map[string]any{}); !strings.Contains(msg, "nothing to look up") {
		t.Errorf("empty lookup: %s", msg)
	}
}

func TestRepositoryArgument(t *testing.T) {
	t.Parallel()
	f := shared(t)
	cs := connect(t, f.svc)
	ok(t, cs, "gitmemory_history", map[string]any{"path": "README.md", "repository": "demo"}, nil)
	msg := fails(t, cs, "gitmemory_history", map[string]any{"path": "README.md", "repository": "dmeo"})
	if !strings.Contains(msg, `unknown repository "dmeo"`) || !strings.Contains(msg, `did you mean "demo"`) {
		t.Errorf("unknown repository: %s", msg)
	}
	for _, path := range []string{f.repoDir, "../demo", "./demo"} {
		msg := fails(t, cs, "gitmemory_recent_changes", map[string]any{"repository": path})
		if !strings.Contains(msg, "not a registered repository's name") || !strings.Contains(msg, "registered: demo") {
			t.Errorf("repository %q: %s", path, msg)
		}
	}
}

func TestRepositoryChoice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home, err := memory.OpenHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, api.NewLocal(home))
	if msg := fails(t, cs, "gitmemory_recent_changes", nil); !strings.Contains(msg, "no repository is registered") {
		t.Errorf("empty home: %s", msg)
	}
	for _, name := range []string{"alpha", "beta"} {
		g, err := newGitRepo()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := home.Add(ctx, g.dir, memory.AddOptions{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	if msg := fails(t, cs, "gitmemory_recent_changes", nil); !strings.Contains(msg, "2 repositories are registered") ||
		!strings.Contains(msg, "alpha, beta") {
		t.Errorf("two repositories: %s", msg)
	}
}

func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	cs := connect(t, shared(t).svc)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"gitmemory_history", map[string]any{"path": "../../etc/passwd"}, "outside the repository"},
		{"gitmemory_history", map[string]any{"path": "/etc/passwd"}, "outside the repository"},
		{"gitmemory_history", map[string]any{"path": "calc/\x00x"}, "path must be"},
		{"gitmemory_history", map[string]any{"path": ""}, "path is required"},
		{"gitmemory_history", map[string]any{"path": "./"}, "repository root"},
		{"gitmemory_history", map[string]any{"path": "calc", "limit": 100000}, "limit"},
		{"gitmemory_recent_changes", map[string]any{"path": "calc/../../x"}, "outside the repository"},
		{"gitmemory_lookup", map[string]any{"paths": []string{"../../etc/passwd"}}, "outside the repository"},
		{"gitmemory_query", map[string]any{"query": strings.Repeat("why ", api.MaxQueryBytes)}, "at most"},
		{"gitmemory_query", map[string]any{"query": "  "}, "query is required"},
		{"gitmemory_query", map[string]any{"query": "why?", "token_budget": api.MaxTokens + 1}, "token_budget"},
		{"gitmemory_query", map[string]any{"query": "why?", "token_budget": -5}, "token_budget"},
		{"gitmemory_entity_history", map[string]any{"entity_name": strings.Repeat("x", api.MaxPathBytes+1)}, "entity name"},
		{"gitmemory_query", map[string]any{}, "query"},
		{"gitmemory_query", nil, "query"}, // "arguments": null
		{"gitmemory_entity_history", nil, "entity_name"},
		{"gitmemory_query", map[string]any{"query": 42}, "query"},
	}
	for _, c := range cases {
		if msg := fails(t, cs, c.tool, c.args); !strings.Contains(msg, c.want) {
			t.Errorf("%s(%.80v): %q, want it to mention %q", c.tool, c.args, msg, c.want)
		}
	}
}

func TestTokenBudget(t *testing.T) {
	f := shared(t)
	cs := connect(t, f.svc)
	const budget = 200
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"gitmemory_history", map[string]any{"path": "calc"}},
		{"gitmemory_recent_changes", map[string]any{}},
		{"gitmemory_entity_history", map[string]any{"entity_name": "Add"}},
		{"gitmemory_query", map[string]any{"query": "why does Add saturate at MaxInt?"}},
	} {
		c.args["token_budget"] = budget
		res := call(t, cs, c.tool, c.args)
		if res.IsError {
			t.Errorf("%s: %s", c.tool, text(t, res))
			continue
		}
		txt, out := tokens(t, res)
		if txt > budget || out > budget {
			t.Errorf("%s: %d text and %d structured tokens, budget %d:\n%s", c.tool, txt, out, budget, text(t, res))
		}
	}

	// A cut list says what it left out.
	var out ChangesOutput
	txt := ok(t, cs, "gitmemory_recent_changes", map[string]any{"token_budget": budget}, &out)
	if out.Omitted == 0 || len(out.Commits)+out.Omitted != 5 || !strings.Contains(txt, fmt.Sprintf("… %d more commit", out.Omitted)) {
		t.Errorf("cut list: %d shown, %d omitted:\n%s", len(out.Commits), out.Omitted, txt)
	}
	if !strings.Contains(txt, "raise token_budget") {
		t.Errorf("cut list gives no advice:\n%s", txt)
	}
	if msg := fails(t, cs, "gitmemory_recent_changes", map[string]any{"token_budget": 5}); !strings.Contains(msg, "too small") {
		t.Errorf("tiny budget: %s", msg)
	}
}

func TestUnknownToolKeepsSession(t *testing.T) {
	t.Parallel()
	cs := connect(t, shared(t).svc)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "gitmemory_nope", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("unknown tool: %v", err)
	}
	ok(t, cs, "gitmemory_history", map[string]any{"path": "README.md"}, nil)
}
