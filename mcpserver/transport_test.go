package mcpserver

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/retrieve"
)

func TestHTTPHandler(t *testing.T) {
	t.Parallel()
	f := shared(t)
	srv := httptest.NewServer(HTTPHandler(f.svc, Options{Version: "test"}))
	defer srv.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if init := cs.InitializeResult(); init == nil || init.ServerInfo.Name != ServerName || init.ServerInfo.Version != "test" {
		t.Errorf("initialize: %+v", init)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != len(toolNames) {
		t.Fatalf("tools/list over HTTP: %v, %v", res, err)
	}
	var out ChangesOutput
	txt := ok(t, cs, "gitmemory_history", map[string]any{"path": "calc/calc.go"}, &out)
	if len(out.Commits) != 3 || !strings.Contains(txt, short(f.fix)) {
		t.Errorf("history over HTTP: %+v\n%s", out, txt)
	}
	if msg := fails(t, cs, "gitmemory_history", map[string]any{"path": "../../etc/passwd"}); !strings.Contains(msg, "outside") {
		t.Errorf("bad path over HTTP: %s", msg)
	}

	// A body past the limit is refused before it is read whole.
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gitmemory_query","arguments":{"query":"` +
		strings.Repeat("x", MaxRequestBytes) + `"}}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(big))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %s", resp.Status)
	}
}

// TestServeStdio runs the stdio server on pipes: it answers, and returns
// nil when the client closes its end.
func TestServeStdio(t *testing.T) {
	t.Parallel()
	f := shared(t)
	ctx := context.Background()
	clientR, serverW := io.Pipe()
	serverR, clientW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, New(f.svc, Options{}), &mcp.IOTransport{Reader: serverR, Writer: serverW})
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: clientR, Writer: clientW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ok(t, cs, "gitmemory_recent_changes", map[string]any{"path": "calc"}, nil)
	cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after the client closed: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not return after the client closed")
	}

	// Cancelling the context ends it too, as a normal end.
	ctx, cancel := context.WithCancel(ctx)
	r, w := io.Pipe()
	defer w.Close()
	go func() {
		done <- serve(ctx, New(f.svc, Options{}), &mcp.IOTransport{Reader: r, Writer: nopWriteCloser{io.Discard}})
	}()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not return after cancel")
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// panicky is a Service whose History panics, as a bug would.
type panicky struct{ api.Service }

func (panicky) History(context.Context, api.HistoryRequest) ([]retrieve.Change, error) {
	panic("boom")
}

func TestPanicsAreContained(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := New(panicky{shared(t).svc}, Options{Logger: log}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if msg := fails(t, cs, "gitmemory_history", map[string]any{"path": "README.md"}); !strings.Contains(msg, "internal error") {
		t.Errorf("panic: %s", msg)
	}
	if !strings.Contains(logs.String(), "boom") {
		t.Errorf("panic not logged: %s", logs.String())
	}
	ok(t, cs, "gitmemory_recent_changes", nil, nil) // the session goes on

	// A panic outside the tools (in the SDK's handling of a request) is an
	// internal error for that request.
	s := &server{log: log}
	_, err = s.recoverPanics(func(context.Context, string, mcp.Request) (mcp.Result, error) { panic("sdk") })(ctx, "tools/call", nil)
	if e, ok := err.(*jsonrpc.Error); !ok || e.Code != jsonrpc.CodeInternalError {
		t.Errorf("middleware: %v", err)
	}
}
