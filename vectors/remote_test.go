package vectors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeVec is the test servers' deterministic, deliberately unnormalised
// embedding of a text.
func fakeVec(text string, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(len(text)%7+1) + float32(i)
	}
	return v
}

// ollamaServer answers POST /api/embed as Ollama does, after checking
// the request is what Ollama's API documents. fail, when set, may answer
// instead (returning true).
type ollamaServer struct {
	t     *testing.T
	model string
	dims  func(call int) int
	fail  func(w http.ResponseWriter, call int) bool
	calls atomic.Int32
	mu    sync.Mutex
	seen  [][]string // inputs of each request
	reqs  []map[string]any
}

func (s *ollamaServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	call := int(s.calls.Add(1))
	if r.Method != http.MethodPost || r.URL.Path != "/api/embed" {
		s.t.Errorf("request %s %s, want POST /api/embed", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		s.t.Errorf("Content-Type %q", ct)
	}
	body, _ := io.ReadAll(r.Body)
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		s.t.Errorf("body is not JSON: %v", err)
	}
	var req struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		s.t.Errorf("body %s: %v", body, err)
	}
	if req.Model != s.model {
		s.t.Errorf("model %q, want %q", req.Model, s.model)
	}
	s.mu.Lock()
	s.seen = append(s.seen, req.Input)
	s.reqs = append(s.reqs, raw)
	s.mu.Unlock()
	if s.fail != nil && s.fail(w, call) {
		return
	}
	dims := 4
	if s.dims != nil {
		dims = s.dims(call)
	}
	resp := map[string]any{
		"model": req.Model, "total_duration": 14143917, "load_duration": 1019500,
		"prompt_eval_count": 8,
	}
	var embs [][]float32
	for _, in := range req.Input {
		embs = append(embs, fakeVec(in, dims))
	}
	resp["embeddings"] = embs
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func newOllamaTest(t *testing.T, s *ollamaServer, cfg RemoteConfig) *Remote {
	t.Helper()
	s.t = t
	if s.model == "" {
		s.model = "nomic-embed-text"
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.Model = srv.URL, s.model
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	e, err := NewOllama(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestOllamaEmbed(t *testing.T) {
	s := &ollamaServer{}
	e := newOllamaTest(t, s, RemoteConfig{BatchSize: 2})
	if e.Name() != "ollama:nomic-embed-text" {
		t.Errorf("Name = %q", e.Name())
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.seen); got != "[[a bb] [ccc dddd] [eeeee]]" {
		t.Errorf("batches %s", got)
	}
	for i, v := range vecs {
		want := fakeVec(texts[i], 4)
		if err := normalize(want); err != nil {
			t.Fatal(err)
		}
		for j := range v {
			if math.Abs(float64(v[j]-want[j])) > 1e-6 {
				t.Fatalf("text %d: vector %v, want %v (normalised, in order)", i, v, want)
			}
		}
	}
	if _, ok := s.reqs[0]["dimensions"]; ok {
		t.Errorf("dimensions sent though not configured: %v", s.reqs[0])
	}
	// Empty input: no request at all.
	before := s.calls.Load()
	if vecs, err := e.Embed(context.Background(), nil); err != nil || len(vecs) != 0 {
		t.Errorf("Embed(nil) = %v, %v", vecs, err)
	}
	if _, err := e.Embed(context.Background(), []string{"x", " "}); !errors.Is(err, ErrEmptyText) {
		t.Errorf("blank text: %v", err)
	}
	if s.calls.Load() != before {
		t.Errorf("empty or blank input made a request")
	}
}

func TestOllamaDimensions(t *testing.T) {
	t.Run("configured", func(t *testing.T) {
		s := &ollamaServer{dims: func(int) int { return 3 }}
		e := newOllamaTest(t, s, RemoteConfig{Dimensions: 4})
		if e.Name() != "ollama:nomic-embed-text@4" {
			t.Errorf("Name = %q", e.Name())
		}
		_, err := e.Embed(context.Background(), []string{"a"})
		if !errors.Is(err, ErrDimensions) {
			t.Errorf("3 dims for 4 configured: %v", err)
		}
		if d, _ := s.reqs[0]["dimensions"].(float64); d != 4 {
			t.Errorf("request dimensions = %v, want 4", s.reqs[0]["dimensions"])
		}
	})
	t.Run("learnt", func(t *testing.T) {
		s := &ollamaServer{dims: func(call int) int { return 3 + call }}
		e := newOllamaTest(t, s, RemoteConfig{})
		if _, err := e.Embed(context.Background(), []string{"a"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Embed(context.Background(), []string{"a"}); !errors.Is(err, ErrDimensions) {
			t.Errorf("model changed size between calls: %v", err)
		}
	})
}

func TestOllamaErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("500 retried then reported", func(t *testing.T) {
		s := &ollamaServer{fail: func(w http.ResponseWriter, _ int) bool {
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error":"model requires more system memory (8 GiB) than is available"}`)
			return true
		}}
		e := newOllamaTest(t, s, RemoteConfig{Retries: 2})
		_, err := e.Embed(ctx, []string{"a"})
		var he *HTTPError
		if !errors.As(err, &he) || he.StatusCode != 500 || !strings.Contains(he.Message, "more system memory") {
			t.Fatalf("error %v", err)
		}
		if !strings.Contains(err.Error(), "after 3 attempts") || s.calls.Load() != 3 {
			t.Errorf("%d calls, error %v", s.calls.Load(), err)
		}
	})
	t.Run("404 not retried", func(t *testing.T) {
		s := &ollamaServer{fail: func(w http.ResponseWriter, _ int) bool {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`)
			return true
		}}
		e := newOllamaTest(t, s, RemoteConfig{})
		_, err := e.Embed(ctx, []string{"a"})
		if err == nil || !strings.Contains(err.Error(), "HTTP 404: model \"nomic-embed-text\" not found") || s.calls.Load() != 1 {
			t.Errorf("%d calls, error %v", s.calls.Load(), err)
		}
	})
	t.Run("503 then success", func(t *testing.T) {
		s := &ollamaServer{fail: func(w http.ResponseWriter, call int) bool {
			if call > 1 {
				return false
			}
			http.Error(w, "loading model", http.StatusServiceUnavailable)
			return true
		}}
		e := newOllamaTest(t, s, RemoteConfig{})
		if _, err := e.Embed(ctx, []string{"a"}); err != nil || s.calls.Load() != 2 {
			t.Errorf("%d calls, error %v", s.calls.Load(), err)
		}
	})
	for name, body := range map[string]string{
		"wrong count": `{"model":"m","embeddings":[[1,2,3,4]]}`,
		"not json":    `<html>proxy error</html>`,
		"zero vector": `{"model":"m","embeddings":[[0,0,0,0],[1,2,3,4]]}`,
		"ragged":      `{"model":"m","embeddings":[[1,2,3,4],[1,2,3]]}`,
		"no field":    `{"model":"m","embedding":[1,2,3,4]}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := &ollamaServer{fail: func(w http.ResponseWriter, _ int) bool {
				io.WriteString(w, body)
				return true
			}}
			e := newOllamaTest(t, s, RemoteConfig{})
			_, err := e.Embed(ctx, []string{"a", "b"})
			if !errors.Is(err, ErrBadResponse) && !errors.Is(err, ErrDimensions) {
				t.Errorf("error %v", err)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		s := &ollamaServer{}
		s.fail = func(w http.ResponseWriter, _ int) bool {
			time.Sleep(300 * time.Millisecond)
			return false
		}
		e := newOllamaTest(t, s, RemoteConfig{Timeout: 50 * time.Millisecond, Retries: -1})
		start := time.Now()
		_, err := e.Embed(ctx, []string{"a"})
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 250*time.Millisecond {
			t.Errorf("after %v: %v", time.Since(start), err)
		}
	})
	t.Run("no server", func(t *testing.T) {
		e, err := NewOllama(RemoteConfig{BaseURL: "http://127.0.0.1:1", Model: "m", Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Embed(ctx, []string{"a"}); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1/api/embed") {
			t.Errorf("error %v", err)
		}
	})
}

// openaiServer answers POST /v1/embeddings as OpenAI does, data in a
// shuffled order so that the client must sort by index.
func openaiServer(t *testing.T, key string, calls *atomic.Int32, reply func(w http.ResponseWriter, inputs []string) bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			t.Errorf("request %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+key {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-wr***ng.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		var req struct {
			Model          string   `json:"model"`
			Input          []string `json:"input"`
			EncodingFormat string   `json:"encoding_format"`
			Dimensions     int      `json:"dimensions"`
		}
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			t.Errorf("body: %v", err)
		}
		if req.Model != "text-embedding-3-small" || req.EncodingFormat != "float" || len(req.Input) == 0 {
			t.Errorf("request %+v", req)
		}
		if reply != nil && reply(w, req.Input) {
			return
		}
		dims := 1536
		if req.Dimensions > 0 {
			dims = req.Dimensions
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, item{"embedding", i, fakeVec(req.Input[i], dims)})
		}
		json.NewEncoder(w).Encode(map[string]any{
			"object": "list", "data": data, "model": req.Model,
			"usage": map[string]int{"prompt_tokens": 8, "total_tokens": 8},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOpenAIEmbed(t *testing.T) {
	var calls atomic.Int32
	srv := openaiServer(t, "sk-test", &calls, nil)
	e, err := NewOpenAI(RemoteConfig{BaseURL: srv.URL + "/v1/", Model: "text-embedding-3-small", APIKey: "sk-test", Dimensions: 8, BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "openai:text-embedding-3-small@8" {
		t.Errorf("Name = %q", e.Name())
	}
	texts := []string{"a", "bb", "ccc", "dddd"}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 {
		t.Errorf("%d requests for 4 texts in batches of 3", calls.Load())
	}
	for i, v := range vecs {
		want := fakeVec(texts[i], 8)
		normalize(want)
		if len(v) != 8 || math.Abs(float64(v[0]-want[0])) > 1e-6 {
			t.Errorf("text %d out of order or wrong: %v want %v", i, v, want)
		}
	}
}

func TestOpenAIErrors(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int32
	srv := openaiServer(t, "sk-right", &calls, nil)
	e, _ := NewOpenAI(RemoteConfig{BaseURL: srv.URL + "/v1", Model: "text-embedding-3-small", APIKey: "sk-wrong-secret"})
	_, err := e.Embed(ctx, []string{"a"})
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 401 || !strings.Contains(err.Error(), "Incorrect API key provided") {
		t.Errorf("error %v", err)
	}
	if strings.Contains(err.Error(), "sk-wrong-secret") {
		t.Errorf("error leaks the API key: %v", err)
	}
	for name, reply := range map[string]string{
		"repeated index": `{"object":"list","data":[{"index":0,"embedding":[1,2]},{"index":0,"embedding":[1,2]}]}`,
		"missing index":  `{"object":"list","data":[{"embedding":[1,2]},{"index":1,"embedding":[1,2]}]}`,
		"out of range":   `{"object":"list","data":[{"index":0,"embedding":[1,2]},{"index":2,"embedding":[1,2]}]}`,
		"too few":        `{"object":"list","data":[{"index":0,"embedding":[1,2]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			var calls atomic.Int32
			srv := openaiServer(t, "k", &calls, func(w http.ResponseWriter, _ []string) bool {
				io.WriteString(w, reply)
				return true
			})
			e, _ := NewOpenAI(RemoteConfig{BaseURL: srv.URL + "/v1", Model: "text-embedding-3-small", APIKey: "k"})
			if _, err := e.Embed(ctx, []string{"a", "b"}); !errors.Is(err, ErrBadResponse) {
				t.Errorf("error %v", err)
			}
		})
	}
	t.Run("429 retried", func(t *testing.T) {
		var calls atomic.Int32
		srv := openaiServer(t, "k", &calls, func(w http.ResponseWriter, _ []string) bool {
			if calls.Load() > 1 {
				return false
			}
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests"}}`)
			return true
		})
		e, _ := NewOpenAI(RemoteConfig{BaseURL: srv.URL + "/v1", Model: "text-embedding-3-small", APIKey: "k", Backoff: time.Millisecond})
		if _, err := e.Embed(ctx, []string{"a"}); err != nil || calls.Load() != 2 {
			t.Errorf("%d calls: %v", calls.Load(), err)
		}
	})
}

func TestNewEmbedder(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		name string
		err  bool
	}{
		{Config{}, NewLocal(384).Name(), false},
		{Config{Kind: "local", Dims: 256}, NewLocal(256).Name(), false},
		{Config{Kind: "ollama", Remote: RemoteConfig{Model: "nomic-embed-text"}}, "ollama:nomic-embed-text", false},
		{Config{Kind: "openai", Remote: RemoteConfig{Model: "text-embedding-3-small", Dimensions: 512}}, "openai:text-embedding-3-small@512", false},
		{Config{Kind: "ollama"}, "", true},
		{Config{Kind: "openai", Remote: RemoteConfig{Model: "m", BaseURL: "ftp://x"}}, "", true},
		{Config{Kind: "bert"}, "", true},
	} {
		e, err := New(tc.cfg)
		if (err != nil) != tc.err || err == nil && e.Name() != tc.name {
			t.Errorf("New(%+v) = %v, %v", tc.cfg, e, err)
		}
	}
}
