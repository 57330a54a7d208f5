package llm

import (
	"context"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/model"
)

// testCommit returns a distinct commit: its hash is the SHA-1 of i.
func testCommit(i int) *model.Understood {
	c := &model.Commit{
		Hash:    fmt.Sprintf("%x", sha1.Sum([]byte(strconv.Itoa(i)))),
		Message: fmt.Sprintf("Subject number %d\n\nBody text %d, because reasons.\n", i, i),
		Changes: []model.FileChange{{Path: fmt.Sprintf("pkg/file_%d.go", i), Status: model.Modified,
			Insertions: i + 1, Deletions: 1}},
	}
	return &model.Understood{Commit: c, Summary: "extractive " + strconv.Itoa(i),
		Classification: model.Classification{Primary: model.Label{Type: model.Bugfix, Confidence: 0.8}}}
}

func testCommits(n int) []*model.Understood {
	cs := make([]*model.Understood, n)
	for i := range cs {
		cs[i] = testCommit(i)
	}
	return cs
}

// wantSummary is what the fake model writes for commit number i of a
// prompt with the given subject.
func wantSummary(subject string) string {
	return "Summarises " + strings.ToLower(subject) + " to explain why it changed"
}

// promptCommit is a commit as the fake model reads it from a prompt.
type promptCommit struct {
	N       int
	Hash    string
	Subject string
}

var promptCommitRE = regexp.MustCompile(`(?m)^### Commit (\d+) \(([0-9a-f]+)\)\n(?:Classification: .*\n)?Subject: (.*)$`)

func readPrompt(user string) []promptCommit {
	var cs []promptCommit
	for _, m := range promptCommitRE.FindAllStringSubmatch(user, -1) {
		n, _ := strconv.Atoi(m[1])
		cs = append(cs, promptCommit{N: n, Hash: m[2], Subject: m[3]})
	}
	return cs
}

// goodAnswer answers every commit of the prompt, by id.
func goodAnswer(cs []promptCommit) string {
	type e struct {
		ID      int    `json:"id"`
		Summary string `json:"summary"`
	}
	var out struct {
		Summaries []e `json:"summaries"`
	}
	for _, c := range cs {
		out.Summaries = append(out.Summaries, e{c.N, wantSummary(c.Subject)})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// fakeLLM is an httptest server speaking one provider's protocol. It
// checks every request and answers with answer's content.
type fakeLLM struct {
	t        *testing.T
	provider Provider
	model    string
	apiKey   string
	answer   func(cs []promptCommit) string
	// before, if set, runs first and may write its own response.
	before func(w http.ResponseWriter, r *http.Request) (handled bool)

	mu      sync.Mutex // protects prompts
	prompts [][]promptCommit
	srv     *httptest.Server
}

func newFake(t *testing.T, p Provider) *fakeLLM {
	f := &fakeLLM{t: t, provider: p, model: "test-model", answer: goodAnswer}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// config is a configuration for the fake server.
func (f *fakeLLM) config() Config {
	cfg := Config{Provider: f.provider, Model: f.model, APIKey: f.apiKey, BaseURL: f.srv.URL, Timeout: 5 * time.Second}
	if f.provider == OpenAI {
		cfg.BaseURL += "/v1"
	}
	return cfg
}

func (f *fakeLLM) summarizer(cfg Config, cache Cache) *Summarizer {
	f.t.Helper()
	s, err := New(cfg, cache, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// requests returns the prompts received so far.
func (f *fakeLLM) requests() [][]promptCommit {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]promptCommit(nil), f.prompts...)
}

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	user, ok := f.check(r)
	if !ok {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	cs := readPrompt(user)
	f.mu.Lock()
	f.prompts = append(f.prompts, cs)
	f.mu.Unlock()
	if f.before != nil && f.before(w, r) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	content := f.answer(cs)
	if f.provider == OpenAI {
		fmt.Fprint(w, openAIResponse(f.model, content))
	} else {
		fmt.Fprint(w, ollamaResponse(f.model, content))
	}
}

// check verifies the protocol of a request and returns its user message.
func (f *fakeLLM) check(r *http.Request) (string, bool) {
	t := f.t
	wantPath := "/api/chat"
	if f.provider == OpenAI {
		wantPath = "/v1/chat/completions"
	}
	ok := true
	fail := func(format string, args ...any) { t.Errorf(format, args...); ok = false }
	if r.Method != http.MethodPost || r.URL.Path != wantPath {
		fail("request %s %s, want POST %s", r.Method, r.URL.Path, wantPath)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		fail("Content-Type %q, want application/json", ct)
	}
	auth, wantAuth := r.Header.Get("Authorization"), ""
	if f.apiKey != "" {
		wantAuth = "Bearer " + f.apiKey
	}
	if auth != wantAuth {
		fail("Authorization %q, want %q", auth, wantAuth)
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		fail("request body: %v", err)
		return "", false
	}
	if body["model"] != f.model {
		fail("model %v, want %q", body["model"], f.model)
	}
	if stream, has := body["stream"]; !has || stream != false {
		fail("stream %v (present %v), want false", stream, has)
	}
	if f.provider == Ollama {
		opts, _ := body["options"].(map[string]any)
		if body["format"] != "json" || opts["temperature"] != 0.0 || opts["num_ctx"] != 8192.0 {
			fail("ollama format %v, options %v; want json, temperature 0, num_ctx 8192", body["format"], opts)
		}
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 2 {
		fail("%d messages, want 2", len(msgs))
		return "", false
	}
	sys, _ := msgs[0].(map[string]any)
	usr, _ := msgs[1].(map[string]any)
	if sys["role"] != "system" || usr["role"] != "user" {
		fail("message roles %v, %v, want system, user", sys["role"], usr["role"])
	}
	if s, _ := sys["content"].(string); !strings.Contains(s, "JSON") || !strings.Contains(s, "30 words") {
		fail("system message lacks the JSON shape or word limit: %q", s)
	}
	user, _ := usr["content"].(string)
	return user, ok
}

// ollamaResponse is a non-streaming /api/chat answer, as Ollama sends it.
func ollamaResponse(model, content string) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"model":%q,"created_at":"2025-06-01T10:00:00.123456Z",`+
		`"message":{"role":"assistant","content":%s},"done_reason":"stop","done":true,`+
		`"total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":212,`+
		`"prompt_eval_duration":342546000,"eval_count":78,"eval_duration":4535599000}`, model, c)
}

// openAIResponse is a /chat/completions answer, as OpenAI sends it.
func openAIResponse(model, content string) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion",`+
		`"created":1741570283,"model":%q,"choices":[{"index":0,"message":{"role":"assistant",`+
		`"content":%s,"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":212,"completion_tokens":78,"total_tokens":290},`+
		`"service_tier":"default","system_fingerprint":"fp_06737a9306"}`, model, c)
}

// memCache is a Cache in memory that counts its calls.
type memCache struct {
	mu         sync.Mutex
	m          map[string]string
	gets, puts int
}

func newMemCache() *memCache { return &memCache{m: map[string]string{}} }

func (c *memCache) Get(_ context.Context, hash, model string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	s, ok := c.m[hash+"|"+model]
	return s, ok, nil
}

func (c *memCache) Put(_ context.Context, hash, model, summary string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.puts++
	c.m[hash+"|"+model] = summary
	return nil
}

// checkSummaries compares got with the fake model's summaries of want.
func checkSummaries(t *testing.T, got map[string]string, want []*model.Understood) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d summaries, want %d", len(got), len(want))
	}
	for _, c := range want {
		if got[c.Hash] != wantSummary(c.Subject()) {
			t.Errorf("summary of %s = %q, want %q", c.Subject(), got[c.Hash], wantSummary(c.Subject()))
		}
	}
}
