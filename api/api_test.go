package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// fixture is a home with one synced repository, "demo".
func fixture(t testing.TB) (*memory.Home, *gittest.Repo) {
	t.Helper()
	g := gittest.New(t)
	g.Write("auth/token.go", "package auth\n\nfunc Refresh() int { return 1 }\n")
	g.Commit("feat: token refresh for sessions")
	g.Write("auth/token.go", "package auth\n\nfunc Refresh() int { return 2 }\n")
	g.Commit("fix: refresh tokens before they expire, because clients saw 401s (fixes #7)")
	h, err := memory.OpenHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := h.Add(ctx, g.Dir, memory.AddOptions{Name: "demo"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Sync(ctx, "demo", memory.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	return h, g
}

func serve(t *testing.T, svc Service, opts ServerOptions) *Client {
	t.Helper()
	srv := httptest.NewServer(Handler(svc, opts))
	t.Cleanup(srv.Close)
	return &Client{BaseURL: srv.URL, Token: opts.Token, HTTP: srv.Client()}
}

// TestClientAnswersAsLocal: every operation through HTTP gives what the
// in-process service gives.
func TestClientAnswersAsLocal(t *testing.T) {
	h, g := fixture(t)
	local := NewLocal(h)
	c := serve(t, local, ServerOptions{})
	ctx := context.Background()

	same := func(name string, fromLocal, fromClient any, errL, errC error) {
		t.Helper()
		if errL != nil || errC != nil {
			t.Fatalf("%s: local %v, client %v", name, errL, errC)
		}
		// Database row ids stay in the process; empty and nil lists are
		// the same answer; a lookup's window starts when it is asked.
		opts := cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(store.Entity{}, "ID"),
			cmpopts.IgnoreFields(retrieve.LookupResult{}, "Since")}
		if d := cmp.Diff(fromLocal, fromClient, opts); d != "" {
			t.Errorf("%s: client differs from local (-local +client):\n%s", name, d)
		}
	}
	hl, el := local.History(ctx, HistoryRequest{Repo: "demo", Path: "auth/token.go"})
	hc, ec := c.History(ctx, HistoryRequest{Repo: "demo", Path: "auth/token.go"})
	same("history", hl, hc, el, ec)
	if len(hc) != 2 || hc[0].Commit != g.Head() {
		t.Fatalf("history: %d changes, first %v; want 2, the head first", len(hc), hc)
	}
	rl, el := local.Recent(ctx, RecentRequest{Repo: "demo", Days: 36500})
	rc, ec := c.Recent(ctx, RecentRequest{Repo: "demo", Days: 36500})
	same("recent", rl, rc, el, ec)
	ll, el := local.Lookup(ctx, LookupRequest{Repo: "demo", Fingerprints: []string{"#7"}, Days: 36500})
	lc, ec := c.Lookup(ctx, LookupRequest{Repo: "demo", Fingerprints: []string{"#7"}, Days: 36500})
	same("lookup", ll, lc, el, ec)
	if len(lc.Matches) != 1 {
		t.Errorf("lookup #7: %d matches, want 1", len(lc.Matches))
	}
	xl, el := local.Entity(ctx, EntityRequest{Repo: "demo", Name: "Refresh"})
	xc, ec := c.Entity(ctx, EntityRequest{Repo: "demo", Name: "Refresh"})
	same("entity", xl, xc, el, ec)
	if len(xc.History) != 2 {
		t.Errorf("entity Refresh: %d events, want 2", len(xc.History))
	}
	q := QueryRequest{Repo: "demo", Query: "why refresh tokens before they expire?", Tokens: 1500}
	ql, el := local.Query(ctx, q)
	qc, ec := c.Query(ctx, q)
	if el != nil || ec != nil {
		t.Fatalf("query: %v / %v", el, ec)
	}
	if len(qc.Answer.Items) == 0 || qc.Answer.Items[0].Commit != g.Head() {
		t.Fatalf("query: the fix is not the first answer: %+v", qc.Answer.Items)
	}
	if !strings.Contains(qc.Text, "clients saw 401s") || qc.Pack.Metadata.TokenCount > 1500 {
		t.Errorf("query pack: %d tokens, text lacks the rationale:\n%s", qc.Pack.Metadata.TokenCount, qc.Text)
	}
	if ql.Answer.Items[0].Commit != qc.Answer.Items[0].Commit {
		t.Errorf("local and client disagree on the best answer")
	}
	list, err := c.List(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "demo" {
		t.Errorf("list: %v, %v", list, err)
	}
	st, err := c.Status(ctx, "demo", false)
	if err != nil || st.Indexed != 2 {
		t.Errorf("status: %+v, %v", st, err)
	}
}

// TestErrorsCrossTheWire: refused requests are errors with a code and a
// clear message, errors.Is still holds, and nothing is changed.
func TestErrorsCrossTheWire(t *testing.T) {
	h, _ := fixture(t)
	c := serve(t, NewLocal(h), ServerOptions{})
	ctx := context.Background()
	_, err := c.History(ctx, HistoryRequest{Repo: "dmeo", Path: "a"})
	if !errors.Is(err, memory.ErrUnknownRepo) || !strings.Contains(err.Error(), `did you mean "demo"`) {
		t.Errorf("unknown repository: %v", err)
	}
	// A misspelt name now resolves by seed 002's score; one below the
	// threshold is still an unknown entity, naming the closest miss.
	_, err = c.Entity(ctx, EntityRequest{Repo: "demo", Name: "Qzxwvk"})
	if !errors.Is(err, memory.ErrUnknownEntity) || !strings.Contains(err.Error(), "closest: ") {
		t.Errorf("unknown entity: %v", err)
	}
	for _, p := range []string{"../../etc/passwd", "/etc/passwd", "a/../../b", "a\x00b", strings.Repeat("a", MaxPathBytes+1)} {
		if _, err := c.History(ctx, HistoryRequest{Repo: "demo", Path: p}); !errors.Is(err, ErrBadRequest) {
			t.Errorf("path %.20q: %v, want a bad request", p, err)
		}
	}
	for _, repo := range []string{"../demo", "/tmp", "demo/../../x", ""} {
		if _, err := c.Recent(ctx, RecentRequest{Repo: repo}); !errors.Is(err, ErrBadRequest) {
			t.Errorf("repository %q: %v, want a bad request", repo, err)
		}
	}
	if _, err := c.Query(ctx, QueryRequest{Repo: "demo", Query: strings.Repeat("why ", MaxQueryBytes)}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("oversized query: %v", err)
	}
	if _, err := c.Query(ctx, QueryRequest{Repo: "demo", Query: "why", Tokens: -5}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("negative budget: %v", err)
	}
	raw := func(body string) (int, Error) {
		resp, err := http.Post(c.BaseURL+"/v1/query", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e Error
		json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e
	}
	for _, body := range []string{`{"repository": "demo", "query": `, `[1,2]`, `{"repository":"demo","query":"x","evil":1}`,
		`{"repository":"demo","query":"x"} {}`} {
		if code, e := raw(body); code != http.StatusBadRequest || e.Code != "bad_request" || e.Message == "" {
			t.Errorf("body %.40q: %d %+v, want 400 bad_request", body, code, e)
		}
	}
	if code, e := raw(`{"repository":"demo","query":"` + strings.Repeat("x", MaxSmallBodyBytes) + `"}`); code != http.StatusRequestEntityTooLarge || e.Code != "too_large" {
		t.Errorf("oversized body: %d %+v, want 413 too_large", code, e)
	}
	resp, err := http.Get(c.BaseURL + "/v1/nothing")
	if err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown route: %v %v", resp.StatusCode, err)
	}
	st, err := c.Status(ctx, "demo", false)
	if err != nil || st.Indexed != 2 {
		t.Errorf("after the refusals: %+v, %v", st, err)
	}
}

func TestTokenAndHealth(t *testing.T) {
	h, _ := fixture(t)
	c := serve(t, NewLocal(h), ServerOptions{Token: "s3cret"})
	ctx := context.Background()
	if _, err := c.List(ctx); err != nil {
		t.Fatalf("with the token: %v", err)
	}
	anon := &Client{BaseURL: c.BaseURL, HTTP: c.HTTP}
	var e *Error
	if _, err := anon.List(ctx); !errors.As(err, &e) || e.Status != http.StatusUnauthorized {
		t.Errorf("without a token: %v", err)
	}
	wrong := &Client{BaseURL: c.BaseURL, Token: "guess", HTTP: c.HTTP}
	if _, err := wrong.Query(ctx, QueryRequest{Repo: "demo", Query: "why"}); !errors.As(err, &e) || e.Status != http.StatusUnauthorized {
		t.Errorf("wrong token: %v", err)
	}
	hl, err := anon.Health(ctx)
	if err != nil || hl.Status != "ok" || hl.Home != "" || hl.PID != 0 {
		t.Errorf("anonymous health: %+v %v; want ok and nothing more", hl, err)
	}
	if hl, err := c.Health(ctx); err != nil || hl.Home != h.Dir {
		t.Errorf("health with the token: %+v %v", hl, err)
	}
}

func TestRateLimitPerClient(t *testing.T) {
	h, _ := fixture(t)
	c := serve(t, NewLocal(h), ServerOptions{Rate: 0.001, Burst: 3})
	ctx := context.Background()
	codes := map[int]int{}
	for range 5 {
		_, err := c.List(ctx)
		var e *Error
		switch {
		case err == nil:
			codes[200]++
		case errors.As(err, &e):
			codes[e.Status]++
		default:
			t.Fatal(err)
		}
	}
	if codes[200] != 3 || codes[http.StatusTooManyRequests] != 2 {
		t.Errorf("5 requests with a burst of 3: %v", codes)
	}
	l := newLimiter(1, 1)
	if !l.allow("a") || l.allow("a") || !l.allow("b") {
		t.Errorf("buckets are not per client")
	}
}

func TestAuditRecordsQueries(t *testing.T) {
	h, _ := fixture(t)
	var buf bytes.Buffer
	var mu sync.Mutex
	audit := slog.New(slog.NewJSONHandler(lockedWriter{&buf, &mu}, nil))
	c := serve(t, NewLocal(h), ServerOptions{Audit: audit})
	ctx := context.Background()
	c.Query(ctx, QueryRequest{Repo: "demo", Query: "why refresh early?", AnswerOnly: true})
	c.History(ctx, HistoryRequest{Repo: "nope", Path: "x"})
	mu.Lock()
	defer mu.Unlock()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		recs = append(recs, m)
	}
	if len(recs) != 2 || recs[0]["op"] != "query" || recs[0]["request"] != "why refresh early?" || recs[0]["status"] != "ok" ||
		recs[1]["status"] != "unknown_repository" || recs[1]["client"] != "127.0.0.1" {
		t.Errorf("audit records: %v", recs)
	}
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func TestDiscover(t *testing.T) {
	h, _ := fixture(t)
	ctx := context.Background()
	if Discover(ctx, h.Dir) != nil {
		t.Fatal("a client without a daemon")
	}
	srv := httptest.NewServer(Handler(NewLocal(h), ServerOptions{Token: "t"}))
	addr := strings.TrimPrefix(srv.URL, "http://")
	if err := Announce(h.Dir, Announcement{PID: 42, Addr: addr, Token: "t"}); err != nil {
		t.Fatal(err)
	}
	c := Discover(ctx, h.Dir)
	if c == nil || c.Token != "t" {
		t.Fatalf("announced daemon not found: %+v", c)
	}
	srv.Close()
	if Discover(ctx, h.Dir) != nil {
		t.Error("a stale announcement gave a client")
	}
	Withdraw(h.Dir, 41)
	if _, err := readAnnouncement(h.Dir + "/" + DaemonFile); err != nil {
		t.Error("another process's announcement was withdrawn")
	}
	Withdraw(h.Dir, 42)
	if _, err := readAnnouncement(h.Dir + "/" + DaemonFile); err == nil {
		t.Error("own announcement not withdrawn")
	}
}
