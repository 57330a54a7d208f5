package llm

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Provider names the protocol spoken to the server.
type Provider string

// The supported providers.
const (
	// Ollama is Ollama's native chat API, POST {BaseURL}/api/chat.
	Ollama Provider = "ollama"
	// OpenAI is the OpenAI chat completions API, POST
	// {BaseURL}/chat/completions, which many local servers also speak.
	OpenAI Provider = "openai"
)

// Defaults applied by Config.WithDefaults.
const (
	DefaultOllamaURL      = "http://127.0.0.1:11434"
	DefaultOpenAIURL      = "https://api.openai.com/v1"
	DefaultTimeout        = 30 * time.Second
	DefaultBatchSize      = 8
	DefaultMaxConcurrency = 2
)

// Configuration errors; test with errors.Is.
var (
	// ErrUnknownProvider: the provider is neither "ollama" nor "openai".
	ErrUnknownProvider = errors.New("unknown LLM provider")
	// ErrBadURL: the base URL is not an absolute http or https URL.
	ErrBadURL = errors.New("bad LLM base URL")
	// ErrNoModel: no model name was given.
	ErrNoModel = errors.New("no LLM model given")
	// ErrBadLimit: a timeout, batch size or concurrency is negative.
	ErrBadLimit = errors.New("bad LLM limit")
)

// Config configures a Summarizer. Zero values take the defaults above.
type Config struct {
	Provider Provider
	// BaseURL is the server's address: for Ollama its root, for OpenAI the
	// API root that /chat/completions is appended to (".../v1").
	BaseURL string
	Model   string
	// APIKey, if set, is sent as "Authorization: Bearer <key>". The caller
	// reads it from OPENAI_API_KEY; local servers usually need none.
	APIKey string
	// Timeout bounds each request, from sending it to reading the answer.
	Timeout time.Duration
	// BatchSize commits are summarised per request.
	BatchSize int
	// MaxConcurrency requests are in flight at most.
	MaxConcurrency int
}

// ParseProvider reads a provider name, ignoring case and surrounding space.
func ParseProvider(s string) (Provider, error) {
	switch p := Provider(strings.ToLower(strings.TrimSpace(s))); p {
	case Ollama, OpenAI:
		return p, nil
	case "":
		return "", fmt.Errorf("%w: none given (want ollama or openai)", ErrUnknownProvider)
	default:
		return "", fmt.Errorf("%w %q (want ollama or openai)", ErrUnknownProvider, s)
	}
}

// WithDefaults returns c with its zero fields set to the defaults and its
// provider, URL and model trimmed; the base URL loses its trailing slash.
func (c Config) WithDefaults() Config {
	if p, err := ParseProvider(string(c.Provider)); err == nil {
		c.Provider = p
	}
	c.BaseURL = strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")
	if c.BaseURL == "" {
		switch c.Provider {
		case Ollama:
			c.BaseURL = DefaultOllamaURL
		case OpenAI:
			c.BaseURL = DefaultOpenAIURL
		}
	}
	c.Model = strings.TrimSpace(c.Model)
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.BatchSize == 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.MaxConcurrency == 0 {
		c.MaxConcurrency = DefaultMaxConcurrency
	}
	return c
}

// Validate reports the first problem of c, which should have its defaults
// applied.
func (c Config) Validate() error {
	if _, err := ParseProvider(string(c.Provider)); err != nil {
		return err
	}
	if err := validateURL(c.BaseURL); err != nil {
		return err
	}
	if c.Model == "" {
		return fmt.Errorf("%w (set the model %s should use)", ErrNoModel, c.Provider)
	}
	if c.Timeout < 0 || c.BatchSize < 0 || c.MaxConcurrency < 0 {
		return fmt.Errorf("%w: timeout %v, batch size %d, concurrency %d must not be negative",
			ErrBadLimit, c.Timeout, c.BatchSize, c.MaxConcurrency)
	}
	return nil
}

func validateURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%w %q: %v", ErrBadURL, s, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%w %q: want an http:// or https:// URL", ErrBadURL, s)
	case u.Host == "":
		return fmt.Errorf("%w %q: no host", ErrBadURL, s)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%w %q: no query or fragment allowed", ErrBadURL, s)
	}
	return nil
}
