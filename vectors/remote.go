package vectors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of the remote embedders.
const (
	DefaultOllamaURL = "http://localhost:11434"
	DefaultOpenAIURL = "https://api.openai.com/v1"
	DefaultBatchSize = 32
	DefaultTimeout   = 60 * time.Second
	DefaultRetries   = 2
	DefaultBackoff   = 500 * time.Millisecond
	maxResponseBytes = 64 << 20
	maxErrorBytes    = 4 << 10
)

// RemoteConfig configures an Ollama or OpenAI-compatible embedder.
type RemoteConfig struct {
	// BaseURL is the server: DefaultOllamaURL ("/api/embed" is appended)
	// or an OpenAI-compatible base such as DefaultOpenAIURL
	// ("/embeddings" is appended).
	BaseURL string
	Model   string
	// APIKey is sent as "Authorization: Bearer <key>" when set. It is
	// never part of an error or a name.
	APIKey string
	// Dimensions, when set, is requested from the server ("dimensions")
	// and every vector is checked against it; it is then part of Name.
	// When 0, the model's own size is learnt from the first response and
	// every later response must agree.
	Dimensions int
	// BatchSize is the number of texts per request (DefaultBatchSize).
	BatchSize int
	// Timeout bounds one request, retries not included (DefaultTimeout).
	Timeout time.Duration
	// Retries is the number of extra attempts after a 429, a 5xx or a
	// network error (DefaultRetries; negative for none). Backoff is the
	// first wait, doubled at each attempt (DefaultBackoff); a server's
	// Retry-After of up to 30 s is honoured instead.
	Retries int
	Backoff time.Duration
	// Client is the HTTP client (a new one when nil).
	Client *http.Client
}

// HTTPError is an embedding server's refusal: its status and the message
// it gave (the "error" field of Ollama's and OpenAI's error bodies).
type HTTPError struct {
	Embedder   string
	StatusCode int
	Message    string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.StatusCode, e.Message)
}

// protocol is what differs between the two APIs.
type protocol interface {
	path() string
	body(model string, dims int, texts []string) any
	// parse returns the vectors of a 200 response body, in input order.
	parse(body []byte, n int) ([][]float32, error)
}

// Remote is an embedder served over HTTP: Ollama's /api/embed or an
// OpenAI-compatible /embeddings. It batches texts, retries transient
// failures and checks every response's count and dimensions.
type Remote struct {
	name  string
	url   string
	cfg   RemoteConfig
	proto protocol

	mu   sync.Mutex // protects dims
	dims int        // learnt from the first response when not configured
}

// NewOllama returns an embedder for Ollama's POST /api/embed
// ({"model", "input": [...]} → {"embeddings": [[...]]}).
func NewOllama(cfg RemoteConfig) (*Remote, error) {
	return newRemote("ollama", DefaultOllamaURL, cfg, ollamaAPI{})
}

// NewOpenAI returns an embedder for an OpenAI-compatible POST /embeddings
// ({"model", "input": [...]} → {"data": [{"index", "embedding"}]}).
func NewOpenAI(cfg RemoteConfig) (*Remote, error) {
	return newRemote("openai", DefaultOpenAIURL, cfg, openaiAPI{})
}

func newRemote(kind, defURL string, cfg RemoteConfig, p protocol) (*Remote, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("%s embedder: no model configured", kind)
	}
	if cfg.Dimensions < 0 {
		return nil, fmt.Errorf("%s embedder: negative dimensions %d", kind, cfg.Dimensions)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = defURL
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("%s embedder: base URL %q is not http(s)", kind, cfg.BaseURL)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Retries == 0 {
		cfg.Retries = DefaultRetries
	} else if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	name := kind + ":" + cfg.Model
	if cfg.Dimensions > 0 {
		name += "@" + strconv.Itoa(cfg.Dimensions)
	}
	return &Remote{
		name:  name,
		url:   strings.TrimRight(cfg.BaseURL, "/") + p.path(),
		cfg:   cfg,
		proto: p,
		dims:  cfg.Dimensions,
	}, nil
}

// Name is "ollama:<model>" or "openai:<model>", with "@<dims>" when the
// dimensions are configured.
func (r *Remote) Name() string { return r.name }

// Embed embeds texts in batches of BatchSize, one request each.
func (r *Remote) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := checkTexts(texts); err != nil {
		return nil, err
	}
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += r.cfg.BatchSize {
		batch := texts[lo:min(lo+r.cfg.BatchSize, len(texts))]
		vecs, err := r.embedBatch(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("%s: texts %d-%d: %w", r.name, lo, lo+len(batch)-1, err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (r *Remote) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(r.proto.body(r.cfg.Model, r.cfg.Dimensions, texts))
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	resp, err := r.post(ctx, body)
	if err != nil {
		return nil, err
	}
	vecs, err := r.proto.parse(resp, len(texts))
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := checkVectors(vecs, len(texts), r.dims); err != nil {
		return nil, err
	}
	if r.dims == 0 {
		r.dims = len(vecs[0])
	}
	return vecs, nil
}

// post sends one request, retrying transient failures, and returns the
// body of the 200 response.
func (r *Remote) post(ctx context.Context, body []byte) ([]byte, error) {
	wait := r.cfg.Backoff
	for attempt := 0; ; attempt++ {
		data, retryAfter, err := r.once(ctx, body)
		if err == nil {
			return data, nil
		}
		if attempt >= r.cfg.Retries || !retryable(ctx, err) {
			if attempt > 0 {
				err = fmt.Errorf("after %d attempts: %w", attempt+1, err)
			}
			return nil, err
		}
		d := wait
		if retryAfter > 0 {
			d = retryAfter
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, errors.Join(err, ctx.Err())
		}
		wait *= 2
	}
}

func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he.StatusCode == http.StatusTooManyRequests || he.StatusCode >= 500
	}
	// A transport error or this request's own timeout.
	return true
}

func (r *Remote) once(ctx context.Context, body []byte) (data []byte, retryAfter time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if r.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	resp, err := r.cfg.Client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("post %s: %w", r.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		return nil, parseRetryAfter(resp.Header.Get("Retry-After")),
			&HTTPError{Embedder: r.name, StatusCode: resp.StatusCode, Message: errorMessage(msg, resp.Status)}
	}
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read response: %w", err)
	}
	if len(data) > maxResponseBytes {
		return nil, 0, fmt.Errorf("%w: response over %d bytes", ErrBadResponse, maxResponseBytes)
	}
	return data, 0, nil
}

func parseRetryAfter(v string) time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || s <= 0 || s > 30 {
		return 0
	}
	return time.Duration(s) * time.Second
}

// errorMessage extracts the message of an error body: Ollama's
// {"error": "..."}, OpenAI's {"error": {"message": "..."}}, or the text.
func errorMessage(body []byte, status string) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return s
		}
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &o) == nil && o.Message != "" {
			return o.Message
		}
	}
	if t := strings.TrimSpace(string(body)); t != "" {
		if len(t) > 300 {
			t = t[:300] + "…"
		}
		return t
	}
	return status
}

// ollamaAPI is POST /api/embed.
type ollamaAPI struct{}

func (ollamaAPI) path() string { return "/api/embed" }

func (ollamaAPI) body(model string, dims int, texts []string) any {
	return struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions,omitempty"`
	}{model, texts, dims}
}

func (ollamaAPI) parse(body []byte, n int) ([][]float32, error) {
	var resp struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	return resp.Embeddings, nil
}

// openaiAPI is POST /embeddings.
type openaiAPI struct{}

func (openaiAPI) path() string { return "/embeddings" }

func (openaiAPI) body(model string, dims int, texts []string) any {
	return struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
		Dimensions     int      `json:"dimensions,omitempty"`
	}{model, texts, "float", dims}
}

func (openaiAPI) parse(body []byte, n int) ([][]float32, error) {
	var resp struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	if len(resp.Data) != n {
		return nil, fmt.Errorf("%w: %d vectors for %d texts", ErrBadResponse, len(resp.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range resp.Data {
		if d.Index == nil || *d.Index < 0 || *d.Index >= n || out[*d.Index] != nil {
			return nil, fmt.Errorf("%w: missing, out of range or repeated index", ErrBadResponse)
		}
		out[*d.Index] = d.Embedding
	}
	return out, nil
}
