package daemon

import (
	"context"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// After a burst of requests or a sync the heap shrinks at the next
// collection, but the runtime hands the freed pages back to the system
// only gradually (and the periodic collection comes every two minutes), so
// a daemon that served a burst kept its peak RSS for minutes. Once the
// daemon has been idle for releaseAfter, it collects and returns the free
// memory at once: one full collection on an idle process.
const (
	releaseAfter = 10 * time.Second
	releaseCheck = 2 * time.Second
)

// activity remembers when the daemon last did work worth releasing after.
type activity struct {
	last  atomic.Int64 // unix nanoseconds of the last request's end
	dirty atomic.Bool  // work was done since the last release
}

func (a *activity) touch() {
	a.last.Store(time.Now().UnixNano())
	a.dirty.Store(true)
}

// track marks every request as activity.
func (a *activity) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer a.touch()
		h.ServeHTTP(w, r)
	})
}

// releaseLoop sweeps expired answers and returns freed memory after a
// quiet spell, until ctx ends.
func (d *Daemon) releaseLoop(ctx context.Context) {
	a := &d.act
	t := time.NewTicker(releaseCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if d.answers.sweep() > 0 {
			a.dirty.Store(true)
		}
		if a.dirty.Load() && time.Since(time.Unix(0, a.last.Load())) >= releaseAfter {
			a.dirty.Store(false)
			debug.FreeOSMemory()
		}
	}
}
