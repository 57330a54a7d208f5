package llm

import (
	"sync"
	"time"
)

// Breaker settings: after maxConsecutiveFailures failed requests in a row
// the summariser sends nothing for breakerCooldown, then tries again. A
// server that is down or misconfigured would otherwise cost every batch
// of every sync a timeout.
const (
	maxConsecutiveFailures = 3
	breakerCooldown        = 2 * time.Minute
)

// breaker pauses requests after repeated failures.
type breaker struct {
	now func() time.Time

	mu        sync.Mutex // protects the fields below
	failures  int        // consecutive failed requests
	openUntil time.Time  // no requests before this time
}

// allow reports whether a request may be sent now.
func (b *breaker) allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.now().Before(b.openUntil)
}

// success closes the breaker.
func (b *breaker) success() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures = 0
}

// failure counts a failed request and reports whether it opened the
// breaker. Once open, one more failure after the cooldown reopens it.
func (b *breaker) failure() (opened bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures++
	if b.failures < maxConsecutiveFailures || b.now().Before(b.openUntil) {
		return false
	}
	b.openUntil = b.now().Add(breakerCooldown)
	return true
}
