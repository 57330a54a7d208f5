package api

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is an audit log tests can read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func count(recs []map[string]any, key, val string) int {
	n := 0
	for _, r := range recs {
		if r[key] == val {
			n++
		}
	}
	return n
}

// do sends one raw request and decodes the error body, if any.
func do(t *testing.T, srv *httptest.Server, method, path, body string, hdr map[string]string) (int, Error) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e Error
	json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e
}

// TestWebPagesAreRefused: the requests a web page can make to a loopback
// daemon (DNS rebinding, a cross-site fetch, a text/plain form POST) are
// refused, are audited, and change nothing; the API's own client and the
// loopback names still work.
func TestWebPagesAreRefused(t *testing.T) {
	h, _ := fixture(t)
	audit := &syncBuffer{}
	srv := httptest.NewServer(Handler(NewLocal(h), ServerOptions{Audit: slog.New(slog.NewJSONHandler(audit, nil)),
		Hosts: []string{"gitmemory.internal:7411"}}))
	t.Cleanup(srv.Close)
	jsonCT := map[string]string{"Content-Type": "application/json"}
	cases := []struct {
		name, method, path, body string
		hdr                      map[string]string
		status                   int
		code                     string
	}{
		{"rebound host deletes", "DELETE", "/v1/repositories/demo", "",
			map[string]string{"Host": "attacker.example", "Origin": "http://attacker.example", "Content-Type": "application/json"}, 403, "forbidden_host"},
		{"rebound host reads", "GET", "/v1/repositories", "", map[string]string{"Host": "attacker.example:7411"}, 403, "forbidden_host"},
		{"rebound host health", "GET", "/v1/health", "", map[string]string{"Host": "127.0.0.1.attacker.example"}, 403, "forbidden_host"},
		{"foreign origin", "POST", "/v1/query", `{"repository":"demo","query":"why"}`,
			map[string]string{"Origin": "https://evil.example", "Content-Type": "application/json"}, 403, "forbidden_origin"},
		{"null origin", "DELETE", "/v1/repositories/demo", "", map[string]string{"Origin": "null", "Content-Type": "application/json"}, 403, "forbidden_origin"},
		{"text/plain query", "POST", "/v1/query", `{"repository":"demo","query":"why"}`, map[string]string{"Content-Type": "text/plain"}, 415, "unsupported_media_type"},
		{"form sync", "POST", "/v1/repositories/demo/sync", "a=b", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"delete without type", "DELETE", "/v1/repositories/demo", "", nil, 415, "unsupported_media_type"},
	}
	for _, c := range cases {
		if got, e := do(t, srv, c.method, c.path, c.body, c.hdr); got != c.status || e.Code != c.code {
			t.Errorf("%s: %d %q, want %d %q", c.name, got, e.Code, c.status, c.code)
		}
	}
	if n := len(audit.records(t)); n != len(cases) {
		t.Errorf("%d audit records for %d refusals", n, len(cases))
	}
	// Loopback names, the configured name and a same-host Origin pass.
	for _, hdr := range []map[string]string{{"Host": "localhost:7411"}, {"Host": "[::1]:7411"},
		{"Host": "GitMemory.Internal"}, {"Origin": "http://localhost:3000"}} {
		if got, e := do(t, srv, "GET", "/v1/repositories", "", hdr); got != 200 {
			t.Errorf("%v: %d %+v, want 200", hdr, got, e)
		}
	}
	if got, e := do(t, srv, "POST", "/v1/query", `{"repository":"demo","query":"why refresh"}`, map[string]string{"Content-Type": "application/json; charset=utf-8"}); got != 200 {
		t.Errorf("JSON with a charset: %d %+v", got, e)
	}
	if got, _ := do(t, srv, "GET", "/v1/repositories/demo/status", "", jsonCT); got != 200 {
		t.Errorf("the repository is gone after the refusals: status %d", got)
	}
}

// TestWrongTokensAreLimitedAndAudited: after a burst of wrong tokens a
// client gets 429, so guessing is slowed to a crawl, while the right token
// still works; every 401 and the first 429 are audited.
func TestWrongTokensAreLimitedAndAudited(t *testing.T) {
	h, _ := fixture(t)
	audit := &syncBuffer{}
	srv := httptest.NewServer(Handler(NewLocal(h), ServerOptions{Token: "right-token-1234", Audit: slog.New(slog.NewJSONHandler(audit, nil))}))
	t.Cleanup(srv.Close)
	statuses := map[int]int{}
	for i := 0; i < 60; i++ {
		got, _ := do(t, srv, "GET", "/v1/repositories", "", map[string]string{"Authorization": "Bearer guess"})
		statuses[got]++
	}
	if statuses[401] != authFailBurst || statuses[429] != 60-authFailBurst {
		t.Errorf("60 wrong tokens: %v, want %d × 401 then 429", statuses, authFailBurst)
	}
	recs := audit.records(t)
	if n := count(recs, "op", "auth_failed"); n != authFailBurst+1 {
		t.Errorf("%d auth_failed audit records, want %d (each 401 and the first 429)", n, authFailBurst+1)
	}
	if n := count(recs, "status", "rate_limited"); n != 1 {
		t.Errorf("%d rate_limited audit records, want 1", n)
	}
	if got, _ := do(t, srv, "GET", "/v1/repositories", "", map[string]string{"Authorization": "Bearer right-token-1234"}); got != 200 {
		t.Errorf("the right token after the guesses: %d", got)
	}
}

// TestValidationErrorsNameTheField: every invalid field is a 400 whose
// body names it, and a huge argument is not echoed back.
func TestValidationErrorsNameTheField(t *testing.T) {
	h, _ := fixture(t)
	srv := httptest.NewServer(Handler(NewLocal(h), ServerOptions{}))
	t.Cleanup(srv.Close)
	huge := strings.Repeat("x", 100_000)
	cases := []struct{ path, body, field string }{
		{"/v1/query", `{"repository":"demo","query":"why","mode":"evil"}`, "mode"},
		{"/v1/query", `{"repository":"demo","query":"why","intent":"evil"}`, "intent"},
		{"/v1/query", `{"repository":"demo","query":"why","token_budget":10}`, "token_budget"},
		{"/v1/query", `{"repository":"demo","query":"why","token_budget":-1}`, "token_budget"},
		{"/v1/query", `{"repository":"demo","query":"  "}`, "query"},
		{"/v1/query", `{"repository":"demo","query":"why","format":"xml"}`, "format"},
		{"/v1/query", `{"repository":"demo","query":"why","limit":100000}`, "limit"},
		{"/v1/query", `{"repository":"` + huge[:20000] + `","query":"why"}`, "repository"},
		{"/v1/history", `{"repository":"demo","path":"../x"}`, "path"},
		{"/v1/recent", `{"repository":"demo","days":-3}`, "days"},
		{"/v1/lookup", `{"repository":"demo"}`, "paths"},
		{"/v1/lookup", `{"repository":"demo","paths":["a"],"head":"zzzzzzz"}`, "head"},
		{"/v1/lookup", `{"repository":"demo","fingerprints":["paths:nothex"]}`, "fingerprints"},
		{"/v1/entity", `{"repository":"demo","name":""}`, "name"},
		{"/v1/entity", `{"repository":"demo","name":"Refresh","kind":"Evil Kind"}`, "kind"},
		{"/v1/query", `{"repository":"demo","query":"why","limit":"five"}`, "limit"},
		{"/v1/lookup", `{"repository":"demo","paths":"a.go"}`, "paths"},
		{"/v1/query", `{"repository":"demo","query":"why","evil":1}`, "evil"},
	}
	for _, c := range cases {
		got, e := do(t, srv, "POST", c.path, c.body, map[string]string{"Content-Type": "application/json"})
		if got != 400 || e.Code != "bad_request" || e.Field != c.field || !strings.Contains(e.Message, c.field) {
			t.Errorf("%s %.60s: %d %+v, want 400 naming %q", c.path, c.body, got, e, c.field)
		}
		if len(e.Message) > 400 {
			t.Errorf("%s: a %d-byte error message echoes the argument", c.path, len(e.Message))
		}
	}
	if _, err := NewLocal(h).Query(context.Background(), QueryRequest{Repo: "demo", Query: "why", Mode: "keyword"}); err != nil {
		t.Errorf("a valid mode is refused: %v", err)
	}
}

func TestDialableAddress(t *testing.T) {
	for in, want := range map[string]string{"0.0.0.0:7411": "127.0.0.1:7411", "[::]:7411": "[::1]:7411",
		"127.0.0.1:7411": "127.0.0.1:7411", "gitmemory:7411": "gitmemory:7411"} {
		if got := dialable(in); got != want {
			t.Errorf("dialable(%s) = %s, want %s", in, got, want)
		}
	}
}
