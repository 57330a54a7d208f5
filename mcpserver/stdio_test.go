package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdioSurvivesMalformedMessages: lines that are not JSON, not
// JSON-RPC or too long get an error each, and the session still answers.
func TestStdioSurvivesMalformedMessages(t *testing.T) {
	f := shared(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serveLines(ctx, f.svc, Options{}, inR, outW) }()
	replies := bufio.NewScanner(outR)
	replies.Buffer(nil, 8<<20)
	send := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		t.Helper()
		got := make(chan map[string]any, 1)
		go func() {
			var m map[string]any
			if replies.Scan() {
				json.Unmarshal(replies.Bytes(), &m)
			}
			got <- m
		}()
		select {
		case m := <-got:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no reply within 10 s")
			return nil
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	bad := map[string]float64{
		`{not json`: codeParseError,
		`{"foo":1}`: codeInvalidRequest,
		`[]`:        codeInvalidRequest,
		`42`:        codeInvalidRequest,
		`{"jsonrpc":"1.0","id":2,"method":"tools/list"}`:                                                      codeInvalidRequest,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`:                                                codeInvalidRequest,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"x"}`:                                         codeInvalidRequest,
		`{"jsonrpc":"2.0","id":4,"method":"x","params":{"q":"` + strings.Repeat("a", MaxRequestBytes) + `"}}`: codeInvalidRequest,
	}
	for line, code := range bad {
		send(line)
		m := next()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != code || m["id"] != nil {
			t.Errorf("%.40q: reply %v, want error %v with id null", line, m, code)
		}
	}
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"gitmemory_history","arguments":{"path":"main.go"}}}`)
	if m := next(); m["id"] != 9.0 || m["result"] == nil {
		t.Fatalf("after the malformed lines the session does not answer: %v", m)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("serve did not end when stdin closed")
	}
}

// FuzzFilterLines: whatever arrives, every line the filter answers is a
// JSON-RPC error, and every JSON-RPC line passes through unchanged.
func FuzzFilterLines(f *testing.F) {
	f.Add([]byte("{not json\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n"))
	f.Add([]byte("[]\n\n42\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var answered bytes.Buffer
		passed, err := io.ReadAll(filterLines(bytes.NewReader(in), &answered))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(answered.Bytes(), []byte("\n")), []byte("\n")) {
			if len(line) > 0 && (!json.Valid(line) || !bytes.Contains(line, []byte(`"error"`))) {
				t.Fatalf("answered %q", line)
			}
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(passed, []byte("\n")), []byte("\n")) {
			if len(line) > 0 && !isMessage(line) {
				t.Fatalf("passed %q", line)
			}
		}
	})
}
