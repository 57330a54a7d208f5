package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestProtocols(t *testing.T) {
	for _, tc := range []struct {
		name     string
		provider Provider
		apiKey   string
	}{
		{"ollama", Ollama, ""},
		{"ollama behind an authenticating proxy", Ollama, "proxy-token"},
		{"openai", OpenAI, "sk-test-123"},
		{"openai-compatible without a key", OpenAI, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.provider)
			f.apiKey = tc.apiKey
			commits := testCommits(3)
			sums, st := f.summarizer(f.config(), nil).Summarize(context.Background(), commits)
			checkSummaries(t, sums, commits)
			if st.Requests != 1 || st.Generated != 3 || st.Failed != 0 || st.Err != nil {
				t.Errorf("stats %+v, want 1 request, 3 generated", st)
			}
			reqs := f.requests()
			if len(reqs) != 1 || len(reqs[0]) != 3 {
				t.Fatalf("server saw prompts %v, want one with 3 commits", reqs)
			}
			for i, pc := range reqs[0] {
				if pc.N != i+1 || !strings.HasPrefix(commits[i].Hash, pc.Hash) || pc.Subject != commits[i].Subject() {
					t.Errorf("prompt commit %d = %+v, want commit %d of %s %q", i, pc, i+1, commits[i].Hash, commits[i].Subject())
				}
			}
		})
	}
}

func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		provider Provider
		code     int
		body     string
		wantMsg  string
	}{
		{"ollama 500", Ollama, 500, `{"error":"llama runner process has terminated: exit status 2"}`,
			"llama runner process has terminated"},
		{"ollama model missing", Ollama, 404, `{"error":"model \"test-model\" not found, try pulling it first"}`,
			`model "test-model" not found`},
		{"openai bad key", OpenAI, 401, `{"error":{"message":"Incorrect API key provided: sk-bad.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			"Incorrect API key provided"},
		{"openai rate limit", OpenAI, 429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
			"Rate limit reached"},
		{"plain text 502", OpenAI, 502, "<html>Bad Gateway</html>", "<html>Bad Gateway</html>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.provider)
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				w.WriteHeader(tc.code)
				fmt.Fprint(w, tc.body)
				return true
			}
			commits := testCommits(3)
			sums, st := f.summarizer(f.config(), nil).Summarize(context.Background(), commits)
			if len(sums) != 0 || st.Failed != 3 || st.Requests != 1 {
				t.Errorf("got %v, stats %+v; want nothing, 3 failed after 1 request", sums, st)
			}
			var se *StatusError
			if !errors.As(st.Err, &se) || se.Code != tc.code || !strings.Contains(se.Message, tc.wantMsg) {
				t.Errorf("error %v, want HTTP %d with %q", st.Err, tc.code, tc.wantMsg)
			}
		})
	}
}

func TestMalformedResponses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		provider Provider
		body     string
	}{
		{"html", Ollama, "<html><body>It works!</body></html>"},
		{"truncated json", Ollama, `{"model":"test-model","message":{"role":"assistant","content":"{\"summ`},
		{"ollama error in 200", Ollama, `{"error":"unexpected EOF"}`},
		{"ollama no content", Ollama, `{"model":"m","message":{"role":"assistant","content":""},"done":true}`},
		{"openai no choices", OpenAI, `{"id":"x","object":"chat.completion","choices":[]}`},
		{"openai null content", OpenAI, `{"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"length"}]}`},
		{"openai refusal", OpenAI, `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.provider)
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tc.body)
				return true
			}
			sums, st := f.summarizer(f.config(), nil).Summarize(context.Background(), testCommits(2))
			if len(sums) != 0 || st.Failed != 2 || st.Requests != 1 || !errors.Is(st.Err, ErrBadAnswer) {
				t.Errorf("got %v, stats %+v; want nothing, 2 failed after 1 request with ErrBadAnswer", sums, st)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":"model not found"}`:                "model not found",
		`{"error":{"message":"bad key","type":"x"}}`: "bad key",
		"line one\nline two":                         "line one line two",
		"":                                           "empty body",
		strings.Repeat("x", 300):                     strings.Repeat("x", 199) + "…",
		`{"error":{"code":"no_message"},"detail":"other"}`: `{"error":{"code":"no_message"},"detail":"other"}`,
	} {
		if got := errorMessage([]byte(body)); got != want {
			t.Errorf("errorMessage(%q) = %q, want %q", body, got, want)
		}
	}
}
