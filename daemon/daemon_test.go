package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/mcpserver"
	"github.com/gitmemory/gitmemory/memory"
)

// running is a daemon serving a home on a loopback port, and a client.
type running struct {
	d      *Daemon
	c      *api.Client
	home   *memory.Home
	cancel context.CancelFunc
	done   chan error
	log    lockedBuffer
}

func start(t *testing.T, h *memory.Home, opts Options) *running {
	t.Helper()
	if opts.Poll == 0 {
		opts.Poll = 20 * time.Millisecond
	}
	if opts.Interval == 0 {
		opts.Interval = time.Hour
	}
	opts.Listen = "127.0.0.1:0"
	r := &running{home: h, done: make(chan error, 1)}
	if opts.Log == nil {
		// The daemon's own account: printed with a failing test's output,
		// and kept for the tests that check what it says.
		opts.Log = slog.New(slog.NewTextHandler(io.MultiWriter(t.Output(), &r.log), nil))
	}
	if opts.Extra == nil {
		opts.Extra = func(svc api.Service) map[string]http.Handler {
			return map[string]http.Handler{"/mcp": mcpserver.HTTPHandler(svc, mcpserver.Options{})}
		}
	}
	d, err := New(h, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.d, r.cancel = d, cancel
	go func() { r.done <- d.Serve(ctx, ln) }()
	t.Cleanup(func() { r.stop(t) })
	deadline := time.Now().Add(5 * time.Second)
	for r.c == nil {
		if time.Now().After(deadline) {
			t.Fatal("the daemon did not announce itself")
		}
		r.c = api.Discover(context.Background(), h.Dir)
		time.Sleep(10 * time.Millisecond)
	}
	return r
}

func (r *running) stop(t *testing.T) {
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("daemon stopped with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the daemon did not stop within 10 s")
	}
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

func newHome(t *testing.T, repos map[string]*gittest.Repo) *memory.Home {
	t.Helper()
	h, err := memory.OpenHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range repos {
		if _, err := h.Add(context.Background(), g.Dir, memory.AddOptions{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func sample(t *testing.T) *gittest.Repo {
	g := gittest.New(t)
	g.Write("pay/charge.go", "package pay\n\nfunc Charge() int { return 1 }\n")
	g.Commit("feat: charge cards")
	return g
}

// TestNewCommitBecomesQueryable: the daemon indexes a registered
// repository by itself, then notices a new commit and answers with it,
// through the API.
func TestNewCommitBecomesQueryable(t *testing.T) {
	g := sample(t)
	h := newHome(t, map[string]*gittest.Repo{"shop": g})
	r := start(t, h, Options{})
	ctx := context.Background()
	indexed := func() int {
		st, err := r.c.Status(ctx, "shop", false)
		if err != nil {
			t.Fatal(err)
		}
		return st.Indexed
	}
	waitFor(t, 10*time.Second, "first sync", func() bool { return indexed() == 1 })

	g.Write("pay/charge.go", "package pay\n\nfunc Charge() int { return 2 }\n")
	head := g.Commit("fix: retry declined zebra payments once, because issuers decline the first try (fixes #42)")
	took := waitFor(t, 15*time.Second, "new commit in history", func() bool {
		cs, err := r.c.History(ctx, api.HistoryRequest{Repo: "shop", Path: "pay/charge.go"})
		return err == nil && len(cs) == 2 && cs[0].Commit == head
	})
	t.Logf("commit to queryable: %s", took)
	// A sync that failed and was retried after its backoff would also get
	// here: none should fail (the log says why if one did).
	if strings.Contains(r.log.String(), "sync failed") {
		t.Error("a sync failed on the way")
	}
	res, err := r.c.Query(ctx, api.QueryRequest{Repo: "shop", Query: "why retry declined zebra payments?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Answer.Items) == 0 || res.Answer.Items[0].Commit != head || !strings.Contains(res.Text, "issuers decline") {
		t.Errorf("the query does not answer with the new commit: %+v\n%s", res.Answer.Items, res.Text)
	}
	hl, err := r.c.Health(ctx)
	if err != nil || !hl.Daemon || len(hl.Repositories) != 1 || hl.Repositories[0].LastSync.IsZero() {
		t.Errorf("health: %+v %v", hl, err)
	}

	// The same through MCP, on the daemon's streamable HTTP endpoint.
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.c.BaseURL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	for tool, args := range map[string]map[string]any{
		"gitmemory_query":          {"query": "why retry declined zebra payments?", "token_budget": 1200},
		"gitmemory_recent_changes": {"days": 36500},
		"gitmemory_history":        {"path": "pay/charge.go"},
	} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(text, head[:7]) {
			t.Errorf("%s through MCP does not show the new commit %s:\n%s", tool, head[:7], text)
		}
	}
	// A malformed JSON-RPC body is refused; the endpoint goes on serving.
	resp, err := http.Post(r.c.BaseURL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 || resp.StatusCode >= 500 {
		t.Errorf("malformed JSON-RPC: HTTP %d, want a 4xx", resp.StatusCode)
	}
	if _, err := session.ListTools(ctx, nil); err != nil {
		t.Errorf("after a malformed request: %v", err)
	}
}

// TestSyncRequestsCollapse: a burst of sync requests is served by one
// run (plus, at most, the one already under way), and every caller gets
// its result.
func TestSyncRequestsCollapse(t *testing.T) {
	g := gittest.Generate(t, 300, 1)
	h := newHome(t, map[string]*gittest.Repo{"gen": g})
	r := start(t, h, Options{Poll: time.Hour}) // only requests start runs
	ctx := context.Background()
	waitFor(t, 30*time.Second, "the first sync", func() bool {
		hl, err := r.c.Health(ctx)
		return err == nil && len(hl.Repositories) == 1 && !hl.Repositories[0].LastSync.IsZero()
	})
	for i := range 40 {
		g.Write(fmt.Sprintf("burst/%d.txt", i), "x")
		g.Commit(fmt.Sprintf("chore: burst %d", i))
	}
	r.d.mu.Lock()
	before := r.d.runs
	r.d.mu.Unlock()
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	var mu sync.Mutex
	var indexed []int
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.c.Sync(ctx, "gen")
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			indexed = append(indexed, res.Indexed)
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r.d.mu.Lock()
	runs := r.d.runs - before
	r.d.mu.Unlock()
	if runs < 1 || runs > 2 {
		t.Errorf("20 concurrent requests made %d runs, want 1 or 2", runs)
	}
	if slices.Max(indexed) != 40 {
		t.Errorf("indexed %v: want the run the requests share to index the 40 new commits", indexed)
	}
	if _, err := r.c.Sync(ctx, "nope"); !errors.Is(err, memory.ErrUnknownRepo) {
		t.Errorf("sync of an unknown repository: %v", err)
	}
}

// TestScansAtOnceMakeOneState: a sync request for a repository the loop
// has not seen yet scans for it too, beside the loop's own scan. However
// the two interleave, the repository gets one state (one generation): a
// second would replace the first in the map, and a request waiting on
// the replaced one would never be answered.
func TestScansAtOnceMakeOneState(t *testing.T) {
	h := newHome(t, map[string]*gittest.Repo{"pay": sample(t)})
	for i := range 20 {
		d, err := New(h, Options{})
		if err != nil {
			t.Fatal(err)
		}
		begin := make(chan struct{})
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				<-begin
				d.scan(context.Background())
			})
		}
		close(begin)
		wg.Wait()
		if d.gens != 1 || len(d.repos) != 1 {
			t.Fatalf("run %d: two scans at once made %d states for one repository", i, d.gens)
		}
	}
}

// TestBackoffAndRecovery: a repository whose sync fails is retried with
// a growing backoff, and a success resets it.
func TestBackoffAndRecovery(t *testing.T) {
	g := sample(t)
	h := newHome(t, map[string]*gittest.Repo{"shop": g})
	// Hide the repository: the first syncs fail.
	hidden := g.Dir + ".hidden"
	if err := os.Rename(g.Dir, hidden); err != nil {
		t.Fatal(err)
	}
	r := start(t, h, Options{Backoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	state := func() api.RepoHealth {
		hl, err := r.c.Health(context.Background())
		if err != nil || len(hl.Repositories) > 1 {
			t.Fatalf("health: %+v %v", hl, err)
		}
		if len(hl.Repositories) == 0 {
			return api.RepoHealth{} // not scanned yet
		}
		return hl.Repositories[0]
	}
	waitFor(t, 5*time.Second, "three failures", func() bool { return state().Failures >= 3 })
	if s := state(); s.LastError == "" || !s.NextSync.After(time.Now().Add(-time.Second)) {
		t.Errorf("failing state: %+v", s)
	}
	if err := os.Rename(hidden, g.Dir); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "recovery", func() bool { s := state(); return s.Failures == 0 && !s.LastSync.IsZero() })
	if s := state(); s.LastError != "" {
		t.Errorf("after recovery: %+v", s)
	}
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 10: 8 * time.Second} {
		got := backoff(time.Second, 8*time.Second, n)
		if got < want*9/10 || got > want*11/10 {
			t.Errorf("backoff after %d failures: %s, want %s ±10%%", n, got, want)
		}
	}
}

// TestQueriesDuringSync: queries answer while a long sync writes (run
// with -race in CI).
func TestQueriesDuringSync(t *testing.T) {
	g := gittest.Generate(t, 600, 2)
	h := newHome(t, map[string]*gittest.Repo{"gen": g})
	r := start(t, h, Options{Rate: 1e6, Burst: 1e6}) // the clients ask in a tight loop
	ctx := context.Background()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var answered, failed sync.Map
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				switch n % 3 {
				case 0:
					_, err = r.c.Query(ctx, api.QueryRequest{Repo: "gen", Query: "why was the parser changed?", Tokens: 800})
				case 1:
					_, err = r.c.Recent(ctx, api.RecentRequest{Repo: "gen", Days: 36500})
				case 2:
					_, err = r.c.Status(ctx, "gen", false)
				}
				if err != nil {
					failed.Store(fmt.Sprint(i, n), err)
				} else {
					answered.Store(fmt.Sprint(i, n), true)
				}
			}
		}()
	}
	// A bound on liveness, not on speed: four clients asking in a tight
	// loop share the cores with the sync, which took over a minute on a
	// 2-core machine that ran other work.
	waitFor(t, 3*time.Minute, "the sync", func() bool {
		st, err := r.c.Status(ctx, "gen", false)
		return err == nil && st.Indexed == 600
	})
	close(stop)
	wg.Wait()
	n := 0
	answered.Range(func(any, any) bool { n++; return true })
	failed.Range(func(k, v any) bool { t.Errorf("query %v failed during the sync: %v", k, v); return true })
	if n < 8 {
		t.Errorf("only %d queries answered during the sync", n)
	}
}

func TestListenNeedsTokenBeyondLoopback(t *testing.T) {
	h := newHome(t, nil)
	if _, err := New(h, Options{Listen: "0.0.0.0:7411"}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("0.0.0.0 without a token: %v", err)
	}
	for _, ok := range []Options{{Listen: "0.0.0.0:7411", Token: "t"}, {Listen: "127.0.0.1:0"}, {Listen: "[::1]:0"}, {Listen: "localhost:7411"}} {
		if _, err := New(h, ok); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

func TestRefsFingerprint(t *testing.T) {
	g := sample(t)
	fp := func() string {
		s, err := refsFingerprint(gitDir(g.Dir))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := fp()
	if fp() != a {
		t.Fatal("fingerprint changes without a change")
	}
	g.Write("x", "y")
	g.Commit("another")
	b := fp()
	g.Git("branch", "topic")
	c := fp()
	g.Git("pack-refs", "--all")
	d := fp()
	if a == b || b == c || c == d {
		t.Errorf("a commit, a branch and pack-refs must each change the fingerprint: %s %s %s %s", a, b, c, d)
	}
	if _, err := refsFingerprint(t.TempDir()); err == nil {
		t.Error("a directory without HEAD has a fingerprint")
	}
}

// TestRemoveStopsSyncInFlight: removing a repository during its first,
// long sync cancels the sync instead of waiting for it.
func TestRemoveStopsSyncInFlight(t *testing.T) {
	g := gittest.Generate(t, 3000, 4)
	h := newHome(t, map[string]*gittest.Repo{"big": g})
	r := start(t, h, Options{})
	ctx := context.Background()
	waitFor(t, 20*time.Second, "the sync to start", func() bool {
		hl, err := r.c.Health(ctx)
		return err == nil && len(hl.Repositories) == 1 && hl.Repositories[0].Syncing
	})
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	if err := r.c.Remove(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if took > 5*time.Second {
		t.Errorf("remove waited %s for the sync", took)
	}
	if names, _ := h.Names(); len(names) != 0 {
		t.Errorf("still registered: %v", names)
	}
	if _, err := os.Stat(h.DataDir("big")); !os.IsNotExist(err) {
		t.Errorf("data directory left: %v", err)
	}
	t.Logf("removed during the sync in %s", took)
}
