// Package daemon keeps every registered repository current and serves the
// local API: a sync loop that notices new commits within a second (by
// polling the refs), syncs on a jittered interval and on demand (bursts of
// requests collapse into one run), backs off per repository on failure,
// and shuts down without leaving anything half-written.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"golang.org/x/net/netutil"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/memory"
)

// Daemon is a running daemon.
type Daemon struct {
	home    *memory.Home
	opts    Options
	started time.Time
	kick    chan struct{} // wakes the loop; buffered, so kicks collapse

	answers     *answers
	searchSlots chan struct{}
	act         activity

	// scanMu makes scans one at a time: the loop's, and a request's for a
	// repository registered a moment ago. Two at once each made a state
	// for a repository new to both, the later replacing the earlier, and
	// a request left waiting on the replaced one waited forever; a scan
	// that listed the names before a registration also dropped, as
	// removed, the state the other had just made.
	scanMu sync.Mutex

	mu    sync.Mutex
	repos map[string]*repoState
	gens  uint64 // the last generation given out
	runs  int    // syncs started, for tests
}

// Answers are kept this long at most (for those that depend on the
// clock), within this many bytes; computing one may take this long.
const (
	answerTTL      = time.Minute
	answerBytes    = 32 << 20
	answerDeadline = 2 * time.Minute
)

// generation names the state of a repository's index: it changes with
// every sync and is never reused (not even by a repository removed and
// registered again), so cached answers of an older state are never served.
func (d *Daemon) generation(name string) uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st := d.repos[name]; st != nil {
		return st.gen
	}
	return 0
}

// repoState is one repository's place in the loop.
type repoState struct {
	name        string
	gitdir      string
	fingerprint string
	held        bool
	next        time.Time // next sync by interval or backoff
	failures    int
	lastSync    time.Time
	syncing     bool
	// requested and completed are generations: a request is served by the
	// first run that starts after it, and waiters on done learn of it.
	requested, started, completed uint64
	done                          chan struct{}
	outcomes                      []outcome          // the last runs', oldest first; the newest is what health reports
	gen                           uint64             // see Daemon.generation
	cancel                        context.CancelFunc // stops the run in flight
	removing                      bool               // a removal is under way: no new runs
}

// New prepares a daemon over home.
func New(home *memory.Home, opts Options) (*Daemon, error) {
	opts.defaults()
	if err := checkListen(opts.Listen, opts.Token); err != nil {
		return nil, err
	}
	return &Daemon{home: home, opts: opts, kick: make(chan struct{}, 1), repos: map[string]*repoState{},
		answers: newAnswers(answerBytes, answerTTL, answerDeadline), searchSlots: make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))}, nil
}

// Run serves until ctx ends, then shuts down: the API stops accepting,
// the sync in flight is cancelled (its committed batches stay, the rest is
// resumed by the next run), and the stores are closed.
func (d *Daemon) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", d.opts.Listen)
	if err != nil {
		return fmt.Errorf("%w (another daemon or program uses it? choose another address with --listen)", err)
	}
	return d.Serve(ctx, ln)
}

// Serve is Run on a listener the caller opened (tests use port 0).
func (d *Daemon) Serve(ctx context.Context, ln net.Listener) error {
	d.started = time.Now().UTC().Truncate(time.Second)
	answersCtx, stopAnswers := context.WithCancel(ctx)
	defer stopAnswers()
	d.answers.base = answersCtx // before any request: computations end with the daemon
	svc := &service{Local: api.NewLocal(d.home), d: d}
	opts := api.ServerOptions{Token: d.opts.Token, Rate: d.opts.Rate, Burst: d.opts.Burst, Audit: d.opts.Audit, Log: d.opts.Log,
		Hosts: append([]string{d.opts.Listen}, d.opts.Hosts...)}
	if d.opts.Extra != nil {
		opts.Extra = d.opts.Extra(svc)
	}
	srv := &http.Server{Handler: d.act.track(api.Handler(svc, opts)), ReadHeaderTimeout: min(10*time.Second, d.opts.ReadTimeout),
		ReadTimeout: d.opts.ReadTimeout, WriteTimeout: d.opts.WriteTimeout, IdleTimeout: idleTimeout,
		MaxHeaderBytes: 64 << 10, BaseContext: func(net.Listener) context.Context { return ctx },
		ErrorLog: slog.NewLogLogger(d.opts.Log.Handler(), slog.LevelDebug)}
	ln = netutil.LimitListener(ln, d.opts.MaxConns)
	loopCtx, stopLoop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.loop(loopCtx)
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.releaseLoop(loopCtx)
	}()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	addr := ln.Addr().String()
	if err := api.Announce(d.home.Dir, api.Announcement{PID: os.Getpid(), Addr: addr, Token: d.opts.Token, Started: d.started}); err != nil {
		d.opts.Log.Warn("cannot announce the daemon; CLI commands will not find it", "err", err)
	}
	d.opts.Log.Info("daemon listening", "api", "http://"+addr+"/v1", "home", d.home.Dir, "pid", os.Getpid())
	for pattern := range opts.Extra {
		d.opts.Log.Info("serving", "url", "http://"+addr+pattern)
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}
	d.opts.Log.Info("shutting down")
	api.Withdraw(d.home.Dir, os.Getpid())
	shCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shCtx)
	stopLoop()
	wg.Wait()
	stopAnswers()
	d.answers.running.Wait() // the stores close after the last computation
	if rerr := d.home.ReleaseAll(); rerr != nil {
		err = errors.Join(err, rerr)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	d.opts.Log.Info("stopped")
	return err
}

// loop polls the refs and runs due syncs, one at a time: syncs are CPU
// and disk bound, and two at once would only slow both down.
func (d *Daemon) loop(ctx context.Context) {
	t := time.NewTicker(d.opts.Poll)
	defer t.Stop()
	for {
		d.scan(ctx)
		for ctx.Err() == nil {
			st := d.due(time.Now())
			if st == nil {
				break
			}
			d.syncOne(ctx, st)
		}
		select {
		case <-ctx.Done():
			d.failWaiters(ctx.Err())
			return
		case <-t.C:
		case <-d.kick:
		}
	}
}

// scan notices registered and removed repositories and moved refs. It
// costs a directory listing and a few stat calls per repository: an idle
// daemon stays idle.
func (d *Daemon) scan(ctx context.Context) {
	d.scanMu.Lock()
	defer d.scanMu.Unlock()
	names, err := d.home.Names()
	if err != nil {
		d.opts.Log.Error("list repositories", "err", err)
		return
	}
	now := time.Now()
	seen := map[string]bool{}
	for _, name := range names {
		seen[name] = true
		d.mu.Lock()
		st := d.repos[name]
		d.mu.Unlock()
		if st == nil {
			r, err := d.home.Get(ctx, name)
			if err != nil {
				continue // removed or half-created meanwhile: the next scan sees
			}
			d.mu.Lock()
			d.gens++
			st = &repoState{name: name, gitdir: gitDir(r.Path), next: now, done: make(chan struct{}), gen: d.gens}
			d.repos[name] = st
			d.mu.Unlock()
			d.opts.Log.Info("watching repository", "repo", name, "path", r.Path)
		}
		fp, err := refsFingerprint(st.gitdir)
		d.mu.Lock()
		if err == nil && fp != st.fingerprint {
			if st.fingerprint != "" {
				d.opts.Log.Info("refs moved", "repo", st.name)
			}
			st.fingerprint = fp
			if st.failures == 0 {
				st.next = minTime(st.next, now) // a failing repository keeps its backoff
			}
		}
		d.mu.Unlock()
	}
	d.mu.Lock()
	for name, st := range d.repos {
		if !seen[name] {
			delete(d.repos, name)
			st.started = st.requested
			st.finish(nil, fmt.Errorf("%w %q: removed", memory.ErrUnknownRepo, name))
			d.opts.Log.Info("repository removed", "repo", name)
		}
	}
	d.mu.Unlock()
}

// due picks the repository to sync next: one with a pending request
// first, else one whose time has come.
func (d *Daemon) due(now time.Time) *repoState {
	d.mu.Lock()
	defer d.mu.Unlock()
	var pick *repoState
	for _, st := range d.repos {
		switch {
		case st.removing:
		case st.requested > st.completed:
			return st
		case !now.Before(st.next) && (pick == nil || st.next.Before(pick.next)):
			pick = st
		}
	}
	return pick
}

// syncOne holds a repository's stores (once) and syncs it.
func (d *Daemon) syncOne(ctx context.Context, st *repoState) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	d.mu.Lock()
	st.syncing = true
	st.started = st.requested
	st.cancel = cancel
	d.runs++
	d.mu.Unlock()
	start := time.Now()
	var res *indexer.Result
	err := d.hold(runCtx, st)
	if err == nil {
		res, err = d.home.Sync(runCtx, st.name, memory.SyncOptions{})
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st.syncing, st.cancel = false, nil
	if runCtx.Err() != nil && ctx.Err() == nil {
		// Cancelled for a removal: the repository is gone.
		st.finish(nil, fmt.Errorf("%w %q: removed", memory.ErrUnknownRepo, st.name))
		return
	}
	if ctx.Err() != nil {
		// Shutting down: what was committed stays, the rest is resumed by
		// the next start; the waiters learn why.
		st.finish(nil, ctx.Err())
		return
	}
	d.gens++ // even a failed sync may have committed batches
	st.gen = d.gens
	if err != nil {
		st.failures++
		wait := backoff(d.opts.Backoff, d.opts.MaxBackoff, st.failures)
		st.next = time.Now().Add(wait)
		d.opts.Log.Warn("sync failed", "repo", st.name, "failures", st.failures, "retry_in", wait.Round(time.Second), "err", err)
	} else {
		st.failures = 0
		st.lastSync = time.Now()
		st.next = st.lastSync.Add(jitter(d.opts.Interval))
		if res.Pruned > 0 && d.opts.Audit != nil {
			d.opts.Audit.Info("deletion", "op", "prune", "client", "daemon", "repository", st.name,
				"commits", res.Pruned, "by", "retention", "status", "ok")
		}
		if res.Indexed > 0 || res.Rewritten > 0 || res.Pruned > 0 {
			d.opts.Log.Info("synced", "repo", st.name, "indexed", res.Indexed, "rewritten", res.Rewritten,
				"pruned", res.Pruned, "took", time.Since(start).Round(time.Millisecond))
		}
	}
	d.act.touch() // a sync's garbage is released too
	st.finish(res, err)
}

// hold opens a repository's stores for good on its first sync; from then
// on the daemon owns its writer lock.
func (d *Daemon) hold(ctx context.Context, st *repoState) error {
	if st.held {
		return nil
	}
	if err := d.home.Hold(ctx, st.name); err != nil {
		return err
	}
	st.held = true
	return nil
}

// finish completes the runs requested up to the one that started; the
// caller holds d.mu.
func (st *repoState) finish(res *indexer.Result, err error) {
	st.completed = st.started
	st.outcomes = append(st.outcomes, outcome{served: st.started, res: res, err: err})
	if len(st.outcomes) > maxOutcomes {
		st.outcomes = st.outcomes[1:]
	}
	close(st.done)
	st.done = make(chan struct{})
}

// outcome is how a run ended, for the requests it served (generations up
// to served). Waiters look theirs up rather than reading the latest: a
// later run may end before a woken waiter gets to read.
type outcome struct {
	served uint64
	res    *indexer.Result
	err    error
}

// maxOutcomes bounds the outcomes kept; a waiter whose run is older than
// that many runs (it cannot happen in practice) is told to retry.
const maxOutcomes = 16

// outcomeOf returns the outcome of the run that served generation gen.
func (st *repoState) outcomeOf(gen uint64) (*indexer.Result, error) {
	for _, o := range st.outcomes {
		if o.served >= gen {
			return o.res, o.err
		}
	}
	return nil, fmt.Errorf("sync of %s: its outcome is no longer known; retry", st.name)
}

func (d *Daemon) failWaiters(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, st := range d.repos {
		st.started = st.requested
		st.finish(nil, err)
	}
}

// stopSync cancels the sync of name in flight, if any: a removal should
// not wait for a first sync of a large repository to finish.
func (d *Daemon) stopSync(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.repos[name]
	if st == nil {
		return
	}
	st.removing = true // and the loop starts no new run meanwhile
	if st.cancel != nil {
		st.cancel()
	}
}

// resume undoes stopSync after a removal that failed.
func (d *Daemon) resume(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st := d.repos[name]; st != nil {
		st.removing = false
	}
}

// forget drops a removed repository's state at once, rather than at the
// next scan, so that no cached answer about it is served in between.
func (d *Daemon) forget(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st := d.repos[name]; st != nil {
		delete(d.repos, name)
		st.started = st.requested
		st.finish(nil, fmt.Errorf("%w %q: removed", memory.ErrUnknownRepo, name))
	}
}

// request asks for a sync of name that starts after now and waits for
// it: concurrent requests are served by the same run.
func (d *Daemon) request(ctx context.Context, name string) (*indexer.Result, error) {
	d.mu.Lock()
	st := d.repos[name]
	if st == nil {
		d.mu.Unlock()
		d.scan(ctx) // registered a moment ago
		d.mu.Lock()
		if st = d.repos[name]; st == nil {
			d.mu.Unlock()
			_, err := d.home.Get(ctx, name)
			return nil, err
		}
	}
	if st.requested <= st.started {
		st.requested = st.started + 1
	}
	gen := st.requested
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
	for {
		d.mu.Lock()
		if st.completed >= gen {
			res, err := st.outcomeOf(gen)
			d.mu.Unlock()
			return res, err
		}
		done := st.done
		d.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-done:
		}
	}
}

// backoff is the wait after n failures: base doubled per failure, capped,
// with jitter so that repositories failing together do not retry together.
func backoff(base, limit time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return jitter(min(d, limit))
}

// jitter spreads d by ±10%.
func jitter(d time.Duration) time.Duration {
	spread := int64(d) / 5
	if spread <= 0 {
		return d
	}
	return d - time.Duration(spread/2) + time.Duration(rand.Int64N(spread))
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// status is the loop's view of each repository, for the health check.
func (d *Daemon) status() []api.RepoHealth {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []api.RepoHealth
	for _, st := range d.repos {
		h := api.RepoHealth{Name: st.name, LastSync: st.lastSync, Failures: st.failures, NextSync: st.next, Syncing: st.syncing}
		if n := len(st.outcomes); n > 0 {
			if last := st.outcomes[n-1]; last.err != nil {
				h.LastError = last.err.Error()
			} else if last.res != nil {
				h.Indexed = last.res.Indexed
			}
		}
		out = append(out, h)
	}
	sortRepoHealth(out)
	return out
}

// AddGlobs registers every Git repository the patterns match that is not
// registered yet (the container's /repos/*), with graph as its graph store.
func AddGlobs(ctx context.Context, h *memory.Home, patterns []string, graph string, log *slog.Logger) error {
	for _, pat := range patterns {
		paths, err := filepath.Glob(pat)
		if err != nil {
			return fmt.Errorf("--add %q: %w", pat, err)
		}
		if len(paths) == 0 {
			log.Warn("--add matches nothing", "pattern", pat)
		}
		for _, p := range paths {
			opts := memory.AddOptions{}
			if graph != "" {
				opts.Policy.Graph = &graph
			}
			r, err := h.Add(ctx, p, opts)
			switch {
			case errors.Is(err, memory.ErrExists):
			case err != nil:
				log.Warn("cannot register", "path", p, "err", err)
			default:
				log.Info("registered", "repo", r.Name, "path", r.Path)
			}
		}
	}
	return nil
}
