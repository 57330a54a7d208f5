package daemon

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
)

// answers remembers recent answers, so that the same question asked again
// (an assistant retrying, several tools asking alike, a team asking the
// same thing) costs nothing, and the same question asked many times at
// once is computed once. A key names the repository's generation, which
// every sync that changes the index advances, so an answer never outlives
// the data it came from; a TTL bounds answers that depend on the clock
// ("the last 7 days"). Cached values are shared: callers only read them.
//
// Memory is bounded by bytes, not entries: a key is a SHA-256 of the
// request (a lookup's body can be half a megabyte; keeping it as the key
// made 400 distinct lookups hold 800 MB), and each answer is charged its
// encoded size. An answer larger than maxShare of the budget is served
// but not kept: a lookup's answer repeats its half-megabyte of paths, and
// a cache of a few such answers is worth less than the memory. Answers
// past their TTL are swept (sweep), so an idle daemon holds none.
type answers struct {
	ttl      time.Duration
	maxBytes int64
	// timeout bounds a computation, so that a hung one cannot keep its
	// waiters (they leave with their own contexts) or its slot forever.
	timeout time.Duration
	// base is the parent of every computation: the daemon's lifetime, so
	// that shutting down stops them; running counts them, so that the
	// stores are closed only after the last has returned.
	base    context.Context
	running sync.WaitGroup

	mu      sync.Mutex // guards the fields below
	entries map[answerKeyT]*answer
	lru     *list.List // of keys, most recent at the front
	bytes   int64      // sum of the kept answers' sizes
}

type answerKeyT = [sha256.Size]byte

type answer struct {
	done    chan struct{}
	val     any
	err     error
	at      time.Time
	size    int64
	elem    *list.Element
	waiters int                // callers waiting for a computation under way
	cancel  context.CancelFunc // stops the computation once nobody waits
}

// maxShare: an answer may take at most 1/maxShare of the budget.
const maxShare = 32

// entryOverhead is what an entry costs besides its answer: the key, the
// list element, the map slot.
const entryOverhead = 256

func newAnswers(maxBytes int64, ttl, timeout time.Duration) *answers {
	return &answers{ttl: ttl, maxBytes: maxBytes, timeout: timeout, base: context.Background(),
		entries: map[answerKeyT]*answer{}, lru: list.New()}
}

// answerKey identifies a request of a kind on a repository's generation.
func answerKey(kind, repo string, gen uint64, req any) (answerKeyT, bool) {
	b, err := json.Marshal(req)
	if err != nil {
		return answerKeyT{}, false
	}
	h := sha256.New()
	for _, part := range []string{kind, repo, strconv.FormatUint(gen, 10)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(b)
	var k answerKeyT
	h.Sum(k[:0])
	return k, true
}

// get returns the answer for key, computing it with fn if it is not
// known, or waiting for the computation under way. fn runs on its own,
// detached from ctx: a caller that gives up (ctx ends) returns at once,
// and the computation stops when no caller waits for it any more. A
// panic in fn is an error for every waiter, not a crash or a hang. size
// says what an answer costs to keep. Errors are not kept.
func (c *answers) get(ctx context.Context, key answerKeyT, fn func(context.Context) (any, error), size func(any) int64) (any, error) {
	c.mu.Lock()
	a, ok := c.entries[key]
	if ok && !a.at.IsZero() && time.Since(a.at) >= c.ttl {
		c.remove(key, a)
		ok = false
	}
	if ok {
		c.lru.MoveToFront(a.elem)
	} else {
		a = c.start(key, fn, size)
	}
	a.waiters++
	c.mu.Unlock()
	select {
	case <-a.done:
		return a.val, a.err
	case <-ctx.Done():
		c.leave(key, a)
		return nil, ctx.Err()
	}
}

// start adds a pending entry and computes it; c.mu is held.
func (c *answers) start(key answerKeyT, fn func(context.Context) (any, error), size func(any) int64) *answer {
	ctx, cancel := context.WithTimeout(c.base, c.timeout)
	a := &answer{done: make(chan struct{}), cancel: cancel, size: entryOverhead}
	c.put(key, a)
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		defer cancel()
		val, err := protect(ctx, fn)
		c.mu.Lock()
		defer c.mu.Unlock()
		a.val, a.err, a.at, a.cancel = val, err, time.Now(), nil
		if c.entries[key] == a {
			if err != nil {
				c.remove(key, a)
			} else {
				c.charge(key, a, entryOverhead+size(val))
			}
		}
		close(a.done)
	}()
	return a
}

// protect runs fn, turning a panic into an error.
func protect(ctx context.Context, fn func(context.Context) (any, error)) (val any, err error) {
	defer func() {
		if p := recover(); p != nil {
			val, err = nil, fmt.Errorf("internal error: %v\n%s", p, debug.Stack())
		}
	}()
	return fn(ctx)
}

// leave drops a waiter that gave up; the last one to leave a computation
// under way stops it and forgets the entry.
func (c *answers) leave(key answerKeyT, a *answer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a.waiters--
	if a.waiters == 0 && a.cancel != nil {
		a.cancel()
		if c.entries[key] == a {
			c.remove(key, a)
		}
	}
}

// put adds an entry; c.mu is held.
func (c *answers) put(key answerKeyT, a *answer) {
	if old, ok := c.entries[key]; ok {
		c.remove(key, old)
	}
	a.elem = c.lru.PushFront(key)
	c.entries[key] = a
	c.bytes += a.size
	c.evict()
}

// charge sets an answer's size, dropping it if it is too large to keep,
// and evicts the least recently used answers beyond the budget.
func (c *answers) charge(key answerKeyT, a *answer, size int64) {
	c.bytes += size - a.size
	a.size = size
	if size > c.maxBytes/maxShare {
		c.remove(key, a)
		return
	}
	c.evict()
}

// evict drops the least recently used finished answers until the kept
// ones fit the budget; c.mu is held.
func (c *answers) evict() {
	for e := c.lru.Back(); e != nil && c.bytes > c.maxBytes; {
		prev := e.Prev()
		k := e.Value.(answerKeyT)
		if a := c.entries[k]; a.cancel == nil { // not under way
			c.remove(k, a)
		}
		e = prev
	}
}

// sweep drops the finished answers older than the TTL and says how many.
func (c *answers) sweep() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for e := c.lru.Back(); e != nil; {
		prev := e.Prev()
		k := e.Value.(answerKeyT)
		if a := c.entries[k]; a.cancel == nil && !a.at.IsZero() && time.Since(a.at) >= c.ttl {
			c.remove(k, a)
			n++
		}
		e = prev
	}
	return n
}

func (c *answers) remove(key answerKeyT, a *answer) {
	c.lru.Remove(a.elem)
	delete(c.entries, key)
	c.bytes -= a.size
}
