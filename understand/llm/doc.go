// Package llm is gitmemory's optional LLM summariser: it asks a local
// Ollama server (native /api/chat) or any OpenAI-compatible endpoint
// (/chat/completions) for a one-sentence "what and why" summary of each
// commit, several commits per request.
//
// It is an enrichment, never a dependency: a timeout, an HTTP error, a
// malformed answer or an unreachable server only leaves a commit with the
// extractive summary of package understand. Summarize therefore reports
// failures in its Stats instead of returning an error, stops asking after
// a few consecutive request failures, and caches every summary it obtains
// by commit hash and model, so a cached commit is never sent again.
//
// Commit text is sent to the configured server as it is given: callers
// pass commits whose secrets are already redacted.
package llm
