package llm

import (
	"errors"
	"testing"
	"time"
)

func TestWithDefaults(t *testing.T) {
	for _, tc := range []struct {
		in   Config
		want Config
	}{
		{Config{Provider: "ollama", Model: "llama3.2"},
			Config{Provider: Ollama, BaseURL: DefaultOllamaURL, Model: "llama3.2", Timeout: 30 * time.Second, BatchSize: 8, MaxConcurrency: 2}},
		{Config{Provider: " OpenAI ", Model: " gpt-4o-mini ", APIKey: "k"},
			Config{Provider: OpenAI, BaseURL: "https://api.openai.com/v1", Model: "gpt-4o-mini", APIKey: "k", Timeout: 30 * time.Second, BatchSize: 8, MaxConcurrency: 2}},
		{Config{Provider: OpenAI, BaseURL: "http://localhost:11434/v1/", Model: "m", Timeout: time.Second, BatchSize: 1, MaxConcurrency: 4},
			Config{Provider: OpenAI, BaseURL: "http://localhost:11434/v1", Model: "m", Timeout: time.Second, BatchSize: 1, MaxConcurrency: 4}},
	} {
		if got := tc.in.WithDefaults(); got != tc.want {
			t.Errorf("%+v.WithDefaults() = %+v, want %+v", tc.in, got, tc.want)
		}
		if err := tc.in.WithDefaults().Validate(); err != nil {
			t.Errorf("%+v: %v", tc.in, err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want error
	}{
		{"no provider", Config{Model: "m"}, ErrUnknownProvider},
		{"unknown provider", Config{Provider: "anthropic", Model: "m"}, ErrUnknownProvider},
		{"host and port only", Config{Provider: Ollama, BaseURL: "localhost:11434", Model: "m"}, ErrBadURL},
		{"ip and port only", Config{Provider: Ollama, BaseURL: "127.0.0.1:11434", Model: "m"}, ErrBadURL},
		{"ftp", Config{Provider: Ollama, BaseURL: "ftp://example.com", Model: "m"}, ErrBadURL},
		{"no host", Config{Provider: OpenAI, BaseURL: "http://", Model: "m"}, ErrBadURL},
		{"query", Config{Provider: OpenAI, BaseURL: "https://example.com/v1?key=x", Model: "m"}, ErrBadURL},
		{"bad escape", Config{Provider: OpenAI, BaseURL: "http://example.com/%zz", Model: "m"}, ErrBadURL},
		{"no model", Config{Provider: Ollama, Model: "  "}, ErrNoModel},
		{"negative timeout", Config{Provider: Ollama, Model: "m", Timeout: -time.Second}, ErrBadLimit},
		{"negative batch", Config{Provider: Ollama, Model: "m", BatchSize: -1}, ErrBadLimit},
		{"negative concurrency", Config{Provider: Ollama, Model: "m", MaxConcurrency: -2}, ErrBadLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.WithDefaults().Validate()
			if !errors.Is(err, tc.want) {
				t.Errorf("Validate() = %v, want %v", err, tc.want)
			}
			if _, nerr := New(tc.cfg, nil, nil); !errors.Is(nerr, tc.want) {
				t.Errorf("New() = %v, want %v", nerr, tc.want)
			}
		})
	}
}

func TestParseProvider(t *testing.T) {
	for in, want := range map[string]Provider{"ollama": Ollama, "OLLAMA": Ollama, " openai\n": OpenAI} {
		if got, err := ParseProvider(in); got != want || err != nil {
			t.Errorf("ParseProvider(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "open-ai", "llama.cpp"} {
		if got, err := ParseProvider(in); !errors.Is(err, ErrUnknownProvider) || got != "" {
			t.Errorf("ParseProvider(%q) = %q, %v; want ErrUnknownProvider", in, got, err)
		}
	}
}
