package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/mcpserver"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// lines returns the audit records whose op is op.
func (l *lockedBuffer) lines(t *testing.T, op string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.b.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		if m["op"] == op {
			out = append(out, m)
		}
	}
	return out
}

// mcpStepTimeout bounds the whole of TestMCPOverHTTPIsAudited's exchange
// with the daemon, which takes well under a second even on a loaded
// machine.
const mcpStepTimeout = 30 * time.Second

// TestMCPOverHTTPIsAudited: a tool call through the daemon's /mcp
// endpoint leaves an audit record with the client's address, the tool,
// the repository and the outcome, as a /v1 request does.
func TestMCPOverHTTPIsAudited(t *testing.T) {
	audit := &lockedBuffer{}
	log := slog.New(slog.NewJSONHandler(audit, nil))
	h := newHome(t, map[string]*gittest.Repo{"pay": sample(t)})
	r := start(t, h, Options{Audit: log, Extra: func(svc api.Service) map[string]http.Handler {
		return map[string]http.Handler{"/mcp": mcpserver.HTTPHandler(svc, mcpserver.Options{Audit: log})}
	}})
	// Every step is bounded: a daemon that never answers fails the test
	// here, saying which step, instead of hanging the test binary.
	ctx, cancel := context.WithTimeout(context.Background(), mcpStepTimeout)
	defer cancel()
	if _, err := r.c.Sync(ctx, "pay"); err != nil {
		t.Fatalf("sync (bounded by %v): %v", mcpStepTimeout, err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.c.BaseURL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("MCP connect (bounded by %v): %v", mcpStepTimeout, err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "gitmemory_recent_changes",
		Arguments: map[string]any{"repository": "pay", "days": 36500}})
	if err != nil || res.IsError {
		t.Fatalf("tool call (bounded by %v): %v %+v", mcpStepTimeout, err, res)
	}
	recs := audit.lines(t, "mcp:gitmemory_recent_changes")
	if len(recs) != 1 {
		t.Fatalf("%d audit records of the MCP call, want 1", len(recs))
	}
	rec := recs[0]
	if rec["client"] != "127.0.0.1" || rec["repository"] != "pay" || rec["status"] != "ok" || !strings.Contains(rec["request"].(string), "36500") {
		t.Errorf("MCP audit record: %v", rec)
	}
}

// TestSlowBodyIsCutOff: a client sending its body a byte at a time loses
// the connection at the read timeout instead of holding it; meanwhile
// other clients are served.
func TestSlowBodyIsCutOff(t *testing.T) {
	h := newHome(t, map[string]*gittest.Repo{"pay": sample(t)})
	r := start(t, h, Options{ReadTimeout: 500 * time.Millisecond})
	addr := strings.TrimPrefix(r.c.BaseURL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"repository":"pay","query":"why charge cards"}`
	fmt.Fprintf(conn, "POST /v1/query HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, len(body))
	start := time.Now()
	closed := make(chan time.Duration, 1)
	go func() {
		io.Copy(io.Discard, conn) // returns when the server closes
		closed <- time.Since(start)
	}()
	for i := 0; i < len(body); i++ {
		if _, err := conn.Write([]byte{body[i]}); err != nil {
			break
		}
		select {
		case d := <-closed:
			if d > 2*time.Second {
				t.Errorf("a slow body held the connection for %v", d)
			}
			if _, err := r.c.List(context.Background()); err != nil {
				t.Errorf("another client meanwhile: %v", err)
			}
			return
		case <-time.After(150 * time.Millisecond):
		}
	}
	t.Errorf("a body sent a byte every 150 ms was read whole (%v), not cut off at 500 ms", time.Since(start))
}

// TestForeignHostOnTheDaemon: the real daemon refuses a rebound Host,
// and serves the --allow-host names.
func TestForeignHostOnTheDaemon(t *testing.T) {
	h := newHome(t, map[string]*gittest.Repo{"pay": sample(t)})
	r := start(t, h, Options{Hosts: []string{"gitmemory"}})
	for host, want := range map[string]int{"attacker.example": 403, "gitmemory:7411": 200, "localhost": 200} {
		req, _ := http.NewRequest("GET", r.c.BaseURL+"/v1/repositories", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}

// TestConnectionLimit: connections beyond MaxConns wait to be accepted
// rather than each costing a goroutine and buffers; they are served once
// a connection closes.
func TestConnectionLimit(t *testing.T) {
	h := newHome(t, map[string]*gittest.Repo{"pay": sample(t)})
	r := start(t, h, Options{MaxConns: 2})
	addr := strings.TrimPrefix(r.c.BaseURL, "http://")
	r.c.HTTP.CloseIdleConnections() // the discovery's keep-alive connection
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET /v1/health HTTP/1.1\r\nHost: %s\r\n", addr) // headers never finished
		held = append(held, c)
	}
	time.Sleep(100 * time.Millisecond)
	get := func(within time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), within)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", r.c.BaseURL+"/v1/health", nil)
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(300 * time.Millisecond); err == nil {
		t.Error("a third connection was served while two held the limit")
	}
	held[0].Close()
	if err := get(5 * time.Second); err != nil {
		t.Errorf("after one connection closed: %v", err)
	}
	held[1].Close()
}
