package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxResponseBytes bounds how much of an answer is read.
const maxResponseBytes = 1 << 20

// chatFunc sends one system and one user message and returns the text of
// the model's answer.
type chatFunc func(ctx context.Context, system, user string) (string, error)

// StatusError is a non-2xx answer from the server.
type StatusError struct {
	Code int
	// Message is the server's error message, or the start of its body.
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.Code, e.Message)
}

// message is one chat message, in both protocols.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func messages(system, user string) []message {
	return []message{{Role: "system", Content: system}, {Role: "user", Content: user}}
}

// newChat returns the chat function of cfg's provider.
func newChat(cfg Config, client *http.Client) chatFunc {
	if cfg.Provider == OpenAI {
		return openAIChat(cfg, client)
	}
	return ollamaChat(cfg, client)
}

// postJSON posts body to url and decodes a 2xx answer into out. The
// request is bounded by cfg.Timeout.
func postJSON(ctx context.Context, client *http.Client, cfg Config, url string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s request: %w", cfg.Provider, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s request: %w", cfg.Provider, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("%s read answer: %w", cfg.Provider, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s request: %w", cfg.Provider, &StatusError{Code: resp.StatusCode, Message: errorMessage(raw)})
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s answer: %w: %v", cfg.Provider, ErrBadAnswer, err)
	}
	return nil
}

// errorMessage extracts the error text of a failed request's body:
// Ollama's {"error": "..."}, OpenAI's {"error": {"message": "..."}}, or
// the body's start.
func errorMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var s string
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return oneLine(s, 200)
		}
		if json.Unmarshal(e.Error, &o) == nil && o.Message != "" {
			return oneLine(o.Message, 200)
		}
	}
	if s := oneLine(string(body), 200); s != "" {
		return s
	}
	return "empty body"
}

// ollamaContext is the context window asked of Ollama, in tokens. Its
// default (2048 or 4096, by version) can be shorter than a batch's prompt,
// and Ollama then silently drops the prompt's start, system message
// included.
const ollamaContext = 8192

// ollamaChat speaks Ollama's POST /api/chat without streaming, asking for
// a JSON answer at temperature 0.
func ollamaChat(cfg Config, client *http.Client) chatFunc {
	url := cfg.BaseURL + "/api/chat"
	type options struct {
		Temperature float64 `json:"temperature"`
		NumCtx      int     `json:"num_ctx"`
	}
	type request struct {
		Model    string    `json:"model"`
		Messages []message `json:"messages"`
		Stream   bool      `json:"stream"`
		Format   string    `json:"format"`
		Options  options   `json:"options"`
	}
	type response struct {
		Message message `json:"message"`
		Done    bool    `json:"done"`
		Error   string  `json:"error"`
	}
	return func(ctx context.Context, system, user string) (string, error) {
		var out response
		req := request{Model: cfg.Model, Messages: messages(system, user), Format: "json",
			Options: options{NumCtx: ollamaContext}}
		if err := postJSON(ctx, client, cfg, url, req, &out); err != nil {
			return "", err
		}
		if out.Error != "" {
			return "", fmt.Errorf("ollama answer: %w: %s", ErrBadAnswer, oneLine(out.Error, 200))
		}
		if strings.TrimSpace(out.Message.Content) == "" {
			return "", fmt.Errorf("ollama answer: %w: no message content", ErrBadAnswer)
		}
		return out.Message.Content, nil
	}
}

// openAIChat speaks POST /chat/completions. It sets no temperature, token
// limit or response format: compatible servers and newer models disagree
// on them, and the answer parser copes with prose around the JSON.
func openAIChat(cfg Config, client *http.Client) chatFunc {
	url := cfg.BaseURL + "/chat/completions"
	type request struct {
		Model    string    `json:"model"`
		Messages []message `json:"messages"`
		Stream   bool      `json:"stream"`
	}
	type response struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
				Refusal *string `json:"refusal"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	return func(ctx context.Context, system, user string) (string, error) {
		var out response
		req := request{Model: cfg.Model, Messages: messages(system, user)}
		if err := postJSON(ctx, client, cfg, url, req, &out); err != nil {
			return "", err
		}
		if len(out.Choices) == 0 {
			return "", fmt.Errorf("openai answer: %w: no choices", ErrBadAnswer)
		}
		m := out.Choices[0].Message
		if m.Refusal != nil && *m.Refusal != "" {
			return "", fmt.Errorf("openai answer: %w: refused: %s", ErrBadAnswer, oneLine(*m.Refusal, 200))
		}
		if m.Content == nil || strings.TrimSpace(*m.Content) == "" {
			return "", fmt.Errorf("openai answer: %w: no message content (finish reason %q)",
				ErrBadAnswer, out.Choices[0].FinishReason)
		}
		return *m.Content, nil
	}
}
