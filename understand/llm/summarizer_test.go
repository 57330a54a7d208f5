package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/model"
)

func TestBatching(t *testing.T) {
	for _, tc := range []struct{ n, batch, wantRequests int }{
		{0, 8, 0}, {1, 8, 1}, {8, 8, 1}, {9, 8, 2}, {19, 8, 3}, {24, 8, 3}, {5, 1, 5}, {7, 3, 3},
	} {
		t.Run(fmt.Sprintf("%d_by_%d", tc.n, tc.batch), func(t *testing.T) {
			f := newFake(t, Ollama)
			cfg := f.config()
			cfg.BatchSize = tc.batch
			commits := testCommits(tc.n)
			sums, st := f.summarizer(cfg, nil).Summarize(context.Background(), commits)
			checkSummaries(t, sums, commits)
			reqs := f.requests()
			if len(reqs) != tc.wantRequests || st.Requests != tc.wantRequests {
				t.Errorf("%d requests (stats %d), want %d", len(reqs), st.Requests, tc.wantRequests)
			}
			seen := 0
			for _, r := range reqs {
				if len(r) > tc.batch || len(r) == 0 {
					t.Errorf("a request held %d commits, batch size %d", len(r), tc.batch)
				}
				seen += len(r)
			}
			if seen != tc.n {
				t.Errorf("prompts held %d commits, want %d", seen, tc.n)
			}
		})
	}
}

func TestDefaultBatchSize(t *testing.T) {
	f := newFake(t, OpenAI)
	_, st := f.summarizer(f.config(), nil).Summarize(context.Background(), testCommits(17))
	if st.Requests != 3 || st.Generated != 17 {
		t.Errorf("stats %+v, want 3 requests (batches of %d) and 17 summaries", st, DefaultBatchSize)
	}
}

func TestTimeout(t *testing.T) {
	f := newFake(t, Ollama)
	release := make(chan struct{})
	defer close(release)
	f.before = func(w http.ResponseWriter, r *http.Request) bool {
		select { // a server that never answers in time
		case <-r.Context().Done():
		case <-release:
		}
		return true
	}
	cfg := f.config()
	cfg.Timeout = 100 * time.Millisecond
	sums, st := summarizeWithin(t, 2*time.Second, f.summarizer(cfg, nil), context.Background(), testCommits(4))
	if len(sums) != 0 || st.Failed != 4 || !errors.Is(st.Err, context.DeadlineExceeded) {
		t.Errorf("got %v, stats %+v; want nothing, 4 failed, deadline exceeded", sums, st)
	}
}

// summarizeWithin runs Summarize and fails the test if it has not
// returned after d, so that a hang is a failure rather than a stuck test.
func summarizeWithin(t *testing.T, d time.Duration, s *Summarizer, ctx context.Context, cs []*model.Understood) (map[string]string, Stats) {
	t.Helper()
	type result struct {
		sums map[string]string
		st   Stats
	}
	done := make(chan result, 1)
	go func() {
		sums, st := s.Summarize(ctx, cs)
		done <- result{sums, st}
	}()
	select {
	case r := <-done:
		return r.sums, r.st
	case <-time.After(d):
		t.Fatalf("Summarize has not returned after %v", d)
		return nil, Stats{}
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	s, err := New(Config{Provider: Ollama, BaseURL: url, Model: "m", Timeout: 2 * time.Second}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	sums, st := s.Summarize(context.Background(), testCommits(3))
	if len(sums) != 0 || st.Failed != 3 || st.Err == nil || !strings.Contains(st.Err.Error(), "ollama request") {
		t.Errorf("got %v, stats %+v; want nothing, 3 failed with a request error", sums, st)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refused connection took %v", d)
	}
}

// positional answers with bare strings, in prompt order.
func positional(cs []promptCommit) string {
	var out []string
	for _, c := range cs {
		out = append(out, wantSummary(c.Subject))
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func TestBatchFallback(t *testing.T) {
	for _, tc := range []struct {
		name         string
		answer       func(cs []promptCommit) string
		wantRequests int
	}{
		{"wrong count without ids", func(cs []promptCommit) string {
			if len(cs) > 1 {
				return positional(cs[:len(cs)-1])
			}
			return positional(cs)
		}, 1 + 3},
		{"not json at all", func(cs []promptCommit) string {
			if len(cs) > 1 {
				return "Sure! Here are the summaries you asked for."
			}
			return goodAnswer(cs)
		}, 1 + 3},
		{"ids for two of three", func(cs []promptCommit) string {
			if len(cs) > 1 {
				return goodAnswer([]promptCommit{cs[0], cs[2]})
			}
			return goodAnswer(cs)
		}, 1 + 1},
		{"one summary echoes the subject", func(cs []promptCommit) string {
			if len(cs) > 1 {
				return fmt.Sprintf(`{"summaries":[{"id":1,"summary":%q},{"id":2,"summary":%q},{"id":3,"summary":%q}]}`,
					wantSummary(cs[0].Subject), cs[1].Subject+".", wantSummary(cs[2].Subject))
			}
			return goodAnswer(cs)
		}, 1 + 1},
		{"positional in a code fence", func(cs []promptCommit) string {
			return "```json\n" + positional(cs) + "\n```"
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, OpenAI)
			f.answer = tc.answer
			commits := testCommits(3)
			sums, st := f.summarizer(f.config(), nil).Summarize(context.Background(), commits)
			checkSummaries(t, sums, commits)
			if reqs := f.requests(); len(reqs) != tc.wantRequests || st.Requests != tc.wantRequests {
				t.Errorf("%d requests (stats %d), want %d", len(reqs), st.Requests, tc.wantRequests)
			}
			for _, r := range f.requests()[1:] {
				if len(r) != 1 {
					t.Errorf("fallback request held %d commits, want 1", len(r))
				}
			}
		})
	}
}

func TestUnusableSingleAnswers(t *testing.T) {
	f := newFake(t, Ollama)
	f.answer = func(cs []promptCommit) string {
		if len(cs) > 1 {
			return `{"summaries": []}`
		}
		return fmt.Sprintf(`{"summary": %q}`, cs[0].Subject) // only the subject again
	}
	sums, st := f.summarizer(f.config(), nil).Summarize(context.Background(), testCommits(2))
	if len(sums) != 0 || st.Failed != 2 || st.Requests != 3 || !errors.Is(st.Err, ErrBadAnswer) {
		t.Errorf("got %v, stats %+v; want nothing, 2 failed after 3 requests, ErrBadAnswer", sums, st)
	}
}

func TestCache(t *testing.T) {
	f := newFake(t, Ollama)
	cache := newMemCache()
	s := f.summarizer(f.config(), cache)
	commits := testCommits(10)
	sums, st := s.Summarize(context.Background(), commits)
	checkSummaries(t, sums, commits)
	if st.Requests != 2 || st.Generated != 10 || cache.puts != 10 {
		t.Fatalf("first call: stats %+v, %d cache writes; want 2 requests, 10 written", st, cache.puts)
	}
	sums, st = s.Summarize(context.Background(), commits)
	checkSummaries(t, sums, commits)
	if st.Requests != 0 || st.Cached != 10 || len(f.requests()) != 2 {
		t.Errorf("second call: stats %+v, server saw %d requests; want all 10 cached, no request", st, len(f.requests()))
	}
	// A commit already cached is not sent along with new ones.
	more := append(commits[:2:2], testCommit(100))
	_, st = s.Summarize(context.Background(), more)
	reqs := f.requests()
	if st.Cached != 2 || st.Generated != 1 || len(reqs) != 3 || len(reqs[2]) != 1 || reqs[2][0].Subject != "Subject number 100" {
		t.Errorf("mixed call: stats %+v, last prompt %v; want only commit 100 sent", st, reqs[len(reqs)-1])
	}
	// The cache is per model.
	cfg := f.config()
	cfg.Model = "other-model"
	f.model = "other-model"
	if _, st = f.summarizer(cfg, cache).Summarize(context.Background(), commits[:1]); st.Cached != 0 || st.Requests != 1 {
		t.Errorf("other model: stats %+v, want a request", st)
	}
}

func TestFailuresAreNotCached(t *testing.T) {
	f := newFake(t, Ollama)
	f.answer = func([]promptCommit) string { return "no json here" }
	cache := newMemCache()
	f.summarizer(f.config(), cache).Summarize(context.Background(), testCommits(2))
	if cache.puts != 0 {
		t.Errorf("%d cache writes after failures, want 0", cache.puts)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	for _, limit := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			f := newFake(t, Ollama)
			var inflight, peak, arrived atomic.Int32
			enough := make(chan struct{})
			var once sync.Once
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				n := inflight.Add(1)
				defer inflight.Add(-1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				// The first requests wait for each other, so that a limit
				// that lets through more would show in the peak.
				if arrived.Add(1) >= int32(limit) {
					once.Do(func() { close(enough) })
				}
				select {
				case <-enough:
				case <-time.After(2 * time.Second):
				}
				time.Sleep(10 * time.Millisecond)
				return false
			}
			cfg := f.config()
			cfg.BatchSize, cfg.MaxConcurrency = 2, limit
			commits := testCommits(16)
			sums, st := f.summarizer(cfg, nil).Summarize(context.Background(), commits)
			checkSummaries(t, sums, commits)
			if got := peak.Load(); got != int32(limit) {
				t.Errorf("peak of %d requests in flight, want %d", got, limit)
			}
			if st.Requests != 8 {
				t.Errorf("%d requests, want 8", st.Requests)
			}
		})
	}
}

func TestContextCancel(t *testing.T) {
	f := newFake(t, OpenAI)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	release := make(chan struct{})
	defer close(release)
	f.before = func(w http.ResponseWriter, r *http.Request) bool {
		once.Do(cancel) // the caller gives up while the first request runs
		select {
		case <-r.Context().Done():
		case <-release:
		}
		return true
	}
	cfg := f.config()
	cfg.Timeout = time.Minute
	cfg.BatchSize, cfg.MaxConcurrency = 2, 2
	s := f.summarizer(cfg, nil)
	sums, st := summarizeWithin(t, 5*time.Second, s, ctx, testCommits(20))
	if s.breaker.failures != 0 {
		t.Errorf("cancelled requests counted as %d server failures", s.breaker.failures)
	}
	if len(sums) != 0 || st.Failed != 20 || !errors.Is(st.Err, context.Canceled) {
		t.Errorf("got %v, stats %+v; want nothing, 20 failed, context.Canceled", sums, st)
	}
	if st.Requests > 2 {
		t.Errorf("%d requests sent after cancellation, want at most the 2 in flight", st.Requests)
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	f := newFake(t, Ollama)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, st := f.summarizer(f.config(), newMemCache()).Summarize(ctx, testCommits(3))
	if st.Requests != 0 || st.Failed != 3 || !errors.Is(st.Err, context.Canceled) {
		t.Errorf("stats %+v, want no request, 3 failed, context.Canceled", st)
	}
}

func TestBreaker(t *testing.T) {
	f := newFake(t, Ollama)
	var ok atomic.Bool
	f.before = func(w http.ResponseWriter, r *http.Request) bool {
		if ok.Load() {
			return false
		}
		http.Error(w, `{"error":"out of memory"}`, http.StatusInternalServerError)
		return true
	}
	cfg := f.config()
	cfg.BatchSize, cfg.MaxConcurrency = 1, 1
	s := f.summarizer(cfg, nil)
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	s.breaker.now = func() time.Time { return now }

	_, st := s.Summarize(context.Background(), testCommits(20))
	var se *StatusError
	if st.Requests != maxConsecutiveFailures || st.Failed != 20 || !errors.As(st.Err, &se) {
		t.Errorf("first call: stats %+v, want %d requests then a pause", st, maxConsecutiveFailures)
	}
	_, st = s.Summarize(context.Background(), testCommits(5))
	if st.Requests != 0 || st.Failed != 5 || !errors.Is(st.Err, ErrPaused) {
		t.Errorf("paused call: stats %+v, want no request, ErrPaused", st)
	}
	now = now.Add(breakerCooldown)
	_, st = s.Summarize(context.Background(), testCommits(5))
	if st.Requests != 1 || !errors.As(st.Err, &se) {
		t.Errorf("after the cooldown, still failing: stats %+v, want one try then a pause", st)
	}
	now = now.Add(breakerCooldown)
	ok.Store(true)
	commits := testCommits(5)
	sums, st := s.Summarize(context.Background(), commits)
	checkSummaries(t, sums, commits)
	if st.Requests != 5 || st.Err != nil {
		t.Errorf("after recovery: stats %+v, want 5 requests and no error", st)
	}
}

func TestSkipsMergesDuplicatesAndNil(t *testing.T) {
	f := newFake(t, Ollama)
	commits := testCommits(3)
	merge := testCommit(50)
	merge.IsMerge = true
	input := []*model.Understood{commits[0], nil, merge, commits[1], commits[0], {}, commits[2]}
	sums, st := f.summarizer(f.config(), nil).Summarize(context.Background(), input)
	checkSummaries(t, sums, commits)
	if reqs := f.requests(); len(reqs) != 1 || len(reqs[0]) != 3 || st.Failed != 0 {
		t.Errorf("prompts %v, stats %+v; want one prompt of the 3 distinct non-merge commits", reqs, st)
	}
}

func TestApply(t *testing.T) {
	f := newFake(t, Ollama)
	f.answer = func(cs []promptCommit) string {
		if len(cs) > 1 {
			return goodAnswer(cs[:1])
		}
		if cs[0].N == 1 && strings.HasSuffix(cs[0].Subject, "2") {
			return `{"summary": "I'm sorry, I cannot summarise this commit."}`
		}
		return goodAnswer(cs)
	}
	commits := testCommits(3)
	st := f.summarizer(f.config(), nil).Apply(context.Background(), commits)
	want := []string{wantSummary("Subject number 0"), wantSummary("Subject number 1"), "extractive 2"}
	for i, c := range commits {
		if c.Summary != want[i] {
			t.Errorf("commit %d summary %q, want %q", i, c.Summary, want[i])
		}
	}
	if st.Generated != 2 || st.Failed != 1 {
		t.Errorf("stats %+v, want 2 generated, 1 failed", st)
	}
}
