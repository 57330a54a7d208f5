package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gitmemory/gitmemory/model"
)

// ErrPaused: requests are paused after repeated failures (see Stats.Err).
var ErrPaused = errors.New("LLM summaries paused after repeated request failures")

// Stats says what one Summarize call did.
type Stats struct {
	Cached    int // summaries read from the cache
	Generated int // summaries the model wrote during the call
	Failed    int // commits left without a summary
	Requests  int // requests sent
	// Err is the first failure, nil when there was none. It is for logs
	// and status lines: no failure stops the caller.
	Err error
}

// Summarizer asks an LLM for commit summaries. It is safe for concurrent
// use.
type Summarizer struct {
	cfg     Config
	chat    chatFunc
	cache   Cache // nil: no cache
	log     *slog.Logger
	breaker *breaker
}

// New returns a summariser for cfg, with its defaults applied. cache and
// log may be nil.
func New(cfg Config, cache Cache, log *slog.Logger) (*Summarizer, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// No client timeout: each request carries cfg.Timeout in its context.
	client := &http.Client{}
	return &Summarizer{cfg: cfg, chat: newChat(cfg, client), cache: cache,
		log:     log.With("llm_provider", string(cfg.Provider), "llm_model", cfg.Model),
		breaker: &breaker{now: time.Now}}, nil
}

// Config returns the summariser's configuration, defaults applied.
func (s *Summarizer) Config() Config { return s.cfg }

// Summarize returns the summaries it obtains for commits, by full hash:
// from the cache, else from the model, BatchSize commits per request and
// at most MaxConcurrency requests at a time. A batch answer it cannot
// match to its commits is retried one commit at a time.
//
// Merge commits are skipped (their extractive summary names the branch),
// as are nil ones. A commit missing from the result keeps its extractive
// summary: failures (timeouts, HTTP errors, unusable answers, a cancelled
// ctx) are counted in Stats and logged, never returned as an error.
func (s *Summarizer) Summarize(ctx context.Context, commits []*model.Understood) (map[string]string, Stats) {
	r := &run{s: s, out: map[string]string{}}
	pending, total := r.fromCache(ctx, commits)
	r.ask(ctx, pending)
	r.stats.Failed = total - r.stats.Cached - r.stats.Generated
	if r.stats.Failed > 0 && r.stats.Err == nil && ctx.Err() != nil {
		r.stats.Err = ctx.Err()
	}
	return r.out, r.stats
}

// Apply sets the Summary of each commit that Summarize obtains one for;
// the others keep theirs.
func (s *Summarizer) Apply(ctx context.Context, commits []*model.Understood) Stats {
	sums, st := s.Summarize(ctx, commits)
	for _, c := range commits {
		if c != nil && c.Commit != nil {
			if sum, ok := sums[c.Hash]; ok {
				c.Summary = sum
			}
		}
	}
	return st
}

// run is one Summarize call.
type run struct {
	s *Summarizer

	mu    sync.Mutex // protects the fields below
	out   map[string]string
	stats Stats
}

// fromCache returns the commits to ask the model about, without
// duplicates, and how many commits want a summary.
func (r *run) fromCache(ctx context.Context, commits []*model.Understood) (pending []*model.Understood, total int) {
	seen := map[string]bool{}
	for _, c := range commits {
		if c == nil || c.Commit == nil || c.IsMerge || c.Hash == "" || seen[c.Hash] {
			continue
		}
		seen[c.Hash] = true
		total++
		if sum, ok := r.cached(ctx, c.Hash); ok {
			r.out[c.Hash] = sum
			r.stats.Cached++
			continue
		}
		pending = append(pending, c)
	}
	return pending, total
}

func (r *run) cached(ctx context.Context, hash string) (string, bool) {
	if r.s.cache == nil || ctx.Err() != nil {
		return "", false
	}
	sum, ok, err := r.s.cache.Get(ctx, hash, r.s.cfg.Model)
	if err != nil {
		r.s.log.Warn("llm summary cache read failed", "commit", hash, "err", err)
		r.note(err)
		return "", false
	}
	return sum, ok && sum != ""
}

// ask sends the pending commits in batches.
func (r *run) ask(ctx context.Context, pending []*model.Understood) {
	var g errgroup.Group
	g.SetLimit(r.s.cfg.MaxConcurrency)
	for lo := 0; lo < len(pending); lo += r.s.cfg.BatchSize {
		if ctx.Err() != nil {
			break
		}
		if !r.s.breaker.allow() {
			r.note(ErrPaused)
			break
		}
		batch := pending[lo:min(lo+r.s.cfg.BatchSize, len(pending))]
		g.Go(func() error {
			r.batch(ctx, batch)
			return nil
		})
	}
	g.Wait()
}

// batch summarises one batch, then one by one the commits its answer
// left without a usable summary.
func (r *run) batch(ctx context.Context, commits []*model.Understood) {
	texts, err := r.request(ctx, commits)
	if err != nil {
		return
	}
	missing := r.accept(ctx, commits, texts)
	if len(commits) == 1 || len(missing) == 0 {
		return
	}
	r.s.log.Debug("llm batch answer incomplete; asking one commit at a time",
		"commits", len(commits), "missing", len(missing))
	for _, c := range missing {
		one := []*model.Understood{c}
		if texts, err := r.request(ctx, one); err == nil {
			r.accept(ctx, one, texts)
		}
	}
}

// request sends one prompt and returns its texts, one per commit ("" for
// none). An error means no request succeeded: cancelled, paused or failed.
func (r *run) request(ctx context.Context, commits []*model.Understood) ([]string, error) {
	if err := ctx.Err(); err != nil {
		r.note(err)
		return nil, err
	}
	if !r.s.breaker.allow() {
		err := ErrPaused
		r.note(err)
		return nil, err
	}
	r.mu.Lock()
	r.stats.Requests++
	r.mu.Unlock()
	answer, err := r.s.chat(ctx, systemPrompt, userPrompt(commits))
	if err != nil {
		r.failed(ctx, err, len(commits))
		return nil, err
	}
	r.s.breaker.success()
	texts, err := parseAnswer(answer, hashes(commits))
	if err != nil {
		r.s.log.Warn("llm answer unusable", "commits", len(commits), "err", err)
		r.note(err)
		return make([]string, len(commits)), nil
	}
	return texts, nil
}

// failed records a failed request.
func (r *run) failed(ctx context.Context, err error, n int) {
	if ctx.Err() != nil { // cancelled by the caller: not the server's fault
		r.note(ctx.Err())
		return
	}
	r.note(err)
	r.s.log.Warn("llm summary request failed", "commits", n, "err", err)
	if r.s.breaker.failure() {
		r.s.log.Warn("llm summaries paused after repeated failures",
			"failures", maxConsecutiveFailures, "retry_in", breakerCooldown)
	}
}

// accept keeps the usable summaries among texts and returns the commits
// that got none.
func (r *run) accept(ctx context.Context, commits []*model.Understood, texts []string) (missing []*model.Understood) {
	for i, c := range commits {
		sum := clean(texts[i])
		if !usable(sum, c.Subject()) {
			if texts[i] != "" {
				r.note(fmt.Errorf("%w: summary %q of %s", ErrBadAnswer, sum, shortHash(c.Hash)))
			}
			missing = append(missing, c)
			continue
		}
		r.mu.Lock()
		r.out[c.Hash] = sum
		r.stats.Generated++
		r.mu.Unlock()
		if r.s.cache != nil {
			if err := r.s.cache.Put(ctx, c.Hash, r.s.cfg.Model, sum); err != nil {
				r.s.log.Warn("llm summary cache write failed", "commit", c.Hash, "err", err)
				r.note(err)
			}
		}
	}
	return missing
}

// note keeps the first failure.
func (r *run) note(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stats.Err == nil {
		r.stats.Err = err
	}
}

func hashes(commits []*model.Understood) []string {
	hs := make([]string, len(commits))
	for i, c := range commits {
		hs[i] = c.Hash
	}
	return hs
}
