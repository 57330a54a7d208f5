package api

import (
	"sync"
	"time"
)

// limiter is a token bucket per client. Buckets of clients idle long
// enough to be full again are dropped, so the map stays small.
type limiter struct {
	rate  float64 // tokens per second
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
	denied bool // the last request was refused
}

func newLimiter(rate float64, burst int) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: time.Now, buckets: map[string]*bucket{}}
}

func (l *limiter) allow(client string) bool {
	ok, _ := l.allowNote(client)
	return ok
}

// allowNote is allow that also says whether a refusal is the first since
// the client was last allowed.
func (l *limiter) allowNote(client string) (ok, first bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	b := l.buckets[client]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[client] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens < 1 {
		first = !b.denied
		b.denied = true
		return false, first
	}
	b.tokens--
	b.denied = false
	return true, false
}

// sweep drops full buckets once a minute.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	for c, b := range l.buckets {
		if now.Sub(b.at) > full {
			delete(l.buckets, c)
		}
	}
}
