package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

// The tests share one home with one synced repository: building and
// syncing it is most of their time.

type fixture struct {
	home    *memory.Home
	svc     api.Service
	repoDir string
	// Commits by role, full hashes.
	initial, fix, method, rename, docs string
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
	tmpDirs []string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range tmpDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// shared returns the fixture, building it on first use.
func shared(t *testing.T) *fixture {
	t.Helper()
	fixOnce.Do(func() { fix, fixErr = buildFixture() })
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return fix
}

func mkdirTemp() (string, error) {
	d, err := os.MkdirTemp("", "mcpserver-test-")
	if err == nil {
		tmpDirs = append(tmpDirs, d)
	}
	return d, err
}

// gitRepo drives git in a directory with a fixed identity. Commit dates
// are recent (the lookup window and the recent changes look back from
// now), an hour apart.
type gitRepo struct {
	dir   string
	start time.Time
	tick  int
}

func newGitRepo() (*gitRepo, error) {
	dir, err := mkdirTemp()
	if err != nil {
		return nil, err
	}
	g := &gitRepo{dir: dir, start: time.Now().Add(-72 * time.Hour).Truncate(time.Second)}
	_, err = g.git("init", "-q", "-b", "main")
	return g, err
}

func (g *gitRepo) git(args ...string) (string, error) {
	when := g.start.Add(time.Duration(g.tick) * time.Hour).Format(time.RFC3339)
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=Ada Lovelace", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_AUTHOR_DATE="+when,
		"GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_COMMITTER_DATE="+when,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "HOME="+g.dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// commit writes files ("" deletes nothing; content replaces) and commits.
func (g *gitRepo) commit(msg string, files map[string]string) (string, error) {
	for path, content := range files {
		full := filepath.Join(g.dir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	g.tick++
	if _, err := g.git("add", "-A"); err != nil {
		return "", err
	}
	if _, err := g.git("commit", "-q", "--allow-empty", "-m", msg); err != nil {
		return "", err
	}
	return g.git("rev-parse", "HEAD")
}

const (
	calcV1 = "package calc\n\n// Add returns the sum.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
	calcV2 = "package calc\n\nimport \"math\"\n\n// Add returns the sum, saturating instead of wrapping.\n" +
		"func Add(a, b int) int {\n\tif b > 0 && a > math.MaxInt-b {\n\t\treturn math.MaxInt\n\t}\n\treturn a + b\n}\n"
	calcV3 = calcV2 + "\n// Calculator keeps a running total.\ntype Calculator struct{ total int }\n\n" +
		"// Add adds to the total.\nfunc (c *Calculator) Add(n int) { c.total = Add(c.total, n) }\n"
	utilGo = "package calc\n\nfunc clamp(x, lo, hi int) int { return max(lo, min(x, hi)) }\n"
)

func buildFixture() (*fixture, error) {
	g, err := newGitRepo()
	if err != nil {
		return nil, err
	}
	f := &fixture{repoDir: g.dir}
	steps := []struct {
		hash  *string
		msg   string
		files map[string]string
		mv    [2]string
	}{
		{&f.initial, "feat: add the calc package with Add", map[string]string{
			"calc/calc.go": calcV1, "calc/util.go": utilGo, "README.md": "# calc\n"}, [2]string{}},
		{&f.fix, "fix: Add saturates at MaxInt because large totals wrapped negative (fixes #7)",
			map[string]string{"calc/calc.go": calcV2}, [2]string{}},
		{&f.method, "feat: Calculator type keeping a running total", map[string]string{"calc/calc.go": calcV3}, [2]string{}},
		{&f.rename, "refactor: rename util.go to clamp.go", nil, [2]string{"calc/util.go", "calc/clamp.go"}},
		{&f.docs, "docs: describe saturation in the README", map[string]string{"README.md": "# calc\n\nAdd saturates.\n"}, [2]string{}},
	}
	for _, s := range steps {
		if s.mv[0] != "" {
			if _, err := g.git("mv", s.mv[0], s.mv[1]); err != nil {
				return nil, err
			}
		}
		if *s.hash, err = g.commit(s.msg, s.files); err != nil {
			return nil, err
		}
	}
	dir, err := mkdirTemp()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if f.home, err = memory.OpenHome(dir); err != nil {
		return nil, err
	}
	if _, err := f.home.Add(ctx, g.dir, memory.AddOptions{Name: "demo"}); err != nil {
		return nil, err
	}
	if _, err := f.home.Sync(ctx, "demo", memory.SyncOptions{}); err != nil {
		return nil, err
	}
	f.svc = api.NewLocal(f.home)
	return f, nil
}

// connect starts a server on svc and returns a client session to it,
// in process.
func connect(t *testing.T, svc api.Service) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(svc, Options{Version: "test"}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	return res
}

// text is a result's text content.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		parts = append(parts, tc.Text)
	}
	return strings.Join(parts, "\n")
}

// ok calls a tool that must succeed and returns its text, decoding its
// structured output into out (when non-nil).
func ok(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res := call(t, cs, name, args)
	s := text(t, res)
	if res.IsError {
		t.Fatalf("%s(%v): tool error: %s", name, args, s)
	}
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured output %s: %v", name, b, err)
		}
	}
	return s
}

// fails calls a tool that must give a tool error and returns its message.
func fails(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := call(t, cs, name, args)
	s := text(t, res)
	if !res.IsError {
		t.Fatalf("%s(%v): no error, answered:\n%s", name, args, s)
	}
	return s
}

// tokens counts both forms of a result, as an agent's context would.
func tokens(t *testing.T, res *mcp.CallToolResult) (text, structured int) {
	t.Helper()
	var err error
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, c.(*mcp.TextContent).Text)
	}
	if text, err = retrieve.CountTokens(strings.Join(parts, "\n")); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if structured, err = retrieve.CountTokens(string(b)); err != nil {
		t.Fatal(err)
	}
	return text, structured
}
