package daemon

import (
	"container/list"
	"encoding/json"
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
type answers struct {
	ttl time.Duration
	max int

	mu      sync.Mutex
	entries map[string]*answer
	lru     *list.List // of keys, most recent at the front
}

type answer struct {
	done chan struct{}
	val  any
	err  error
	at   time.Time
	elem *list.Element
}

func newAnswers(max int, ttl time.Duration) *answers {
	return &answers{ttl: ttl, max: max, entries: map[string]*answer{}, lru: list.New()}
}

// key identifies a request of a kind on a repository's generation.
func answerKey(kind, repo string, gen uint64, req any) (string, bool) {
	b, err := json.Marshal(req)
	if err != nil {
		return "", false
	}
	return kind + "\x00" + repo + "\x00" + strconv.FormatUint(gen, 10) + "\x00" + string(b), true
}

// get returns the answer for key, computing it with fn if it is not
// known, or waiting for the computation under way. Errors are not kept.
func (c *answers) get(key string, fn func() (any, error)) (any, error) {
	c.mu.Lock()
	if a, ok := c.entries[key]; ok && (a.at.IsZero() || time.Since(a.at) < c.ttl) {
		if a.elem != nil {
			c.lru.MoveToFront(a.elem)
		}
		c.mu.Unlock()
		<-a.done
		return a.val, a.err
	}
	a := &answer{done: make(chan struct{})}
	c.put(key, a)
	c.mu.Unlock()

	a.val, a.err = fn()
	c.mu.Lock()
	a.at = time.Now()
	if a.err != nil && c.entries[key] == a {
		c.remove(key, a)
	}
	c.mu.Unlock()
	close(a.done)
	return a.val, a.err
}

// put adds an entry, evicting the least recently used; c.mu is held.
func (c *answers) put(key string, a *answer) {
	if old, ok := c.entries[key]; ok {
		c.remove(key, old)
	}
	a.elem = c.lru.PushFront(key)
	c.entries[key] = a
	for c.lru.Len() > c.max {
		oldest := c.lru.Back()
		k := oldest.Value.(string)
		c.remove(k, c.entries[k])
	}
}

func (c *answers) remove(key string, a *answer) {
	c.lru.Remove(a.elem)
	delete(c.entries, key)
}
