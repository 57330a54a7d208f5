package daemon

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func key(s string) answerKeyT {
	k, _ := answerKey("test", "r", 1, s)
	return k
}

func size(v any) int64 { return int64(len(v.(string))) }

func TestAnswersComputeOnceAndForget(t *testing.T) {
	ctx := context.Background()
	c := newAnswers(1<<20, time.Hour, time.Minute)
	var calls atomic.Int32
	slow := func(context.Context) (any, error) {
		calls.Add(1)
		time.Sleep(20 * time.Millisecond)
		return "answer", nil
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := c.get(ctx, key("k"), slow, size); v != "answer" || err != nil {
				t.Errorf("got %v %v", v, err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("50 concurrent asks computed %d times, want 1", calls.Load())
	}
	boom := errors.New("boom")
	if _, err := c.get(ctx, key("bad"), func(context.Context) (any, error) { return nil, boom }, size); err != boom {
		t.Fatal(err)
	}
	if v, _ := c.get(ctx, key("bad"), func(context.Context) (any, error) { return "fixed", nil }, size); v != "fixed" {
		t.Errorf("an error was cached: %v", v)
	}

	short := newAnswers(1<<20, 10*time.Millisecond, time.Minute)
	short.get(ctx, key("t"), slow, size)
	time.Sleep(15 * time.Millisecond)
	before := calls.Load()
	short.get(ctx, key("t"), slow, size)
	if calls.Load() != before+1 {
		t.Error("an expired answer was served")
	}
	short.get(ctx, key("u"), slow, size)
	time.Sleep(15 * time.Millisecond)
	if n := short.sweep(); n != 2 || len(short.entries) != 0 || short.bytes != 0 {
		t.Errorf("sweep of expired answers: %d swept, %d left, %d bytes", n, len(short.entries), short.bytes)
	}
}

// TestAnswersBoundedByBytes: the kept answers fit the byte budget, the
// least recently used go first, and an answer too large to keep is
// served but not kept.
func TestAnswersBoundedByBytes(t *testing.T) {
	ctx := context.Background()
	const budget = 64 << 10
	c := newAnswers(budget, time.Hour, time.Minute)
	var calls atomic.Int32
	answer := func(n int) func(context.Context) (any, error) {
		return func(context.Context) (any, error) { calls.Add(1); return strings.Repeat("x", n), nil }
	}
	for i := range 200 {
		c.get(ctx, key(strings.Repeat("k", i+1)), answer(1<<10), size)
	}
	c.mu.Lock()
	kept, bytes := len(c.entries), c.bytes
	c.mu.Unlock()
	if bytes > budget || kept == 0 || kept >= 200 {
		t.Errorf("200 answers of 1 KiB: %d kept, %d bytes; want some, within %d bytes", kept, bytes, budget)
	}
	before := calls.Load()
	c.get(ctx, key(strings.Repeat("k", 200)), answer(1<<10), size) // the newest: kept
	c.get(ctx, key("k"), answer(1<<10), size)                      // the oldest: evicted
	if got := calls.Load() - before; got != 1 {
		t.Errorf("the newest and the oldest asked again: %d computations, want 1", got)
	}
	big := strings.Repeat("k", 9)
	c.get(ctx, key(big), answer(budget/maxShare+1), size)
	before = calls.Load()
	if v, _ := c.get(ctx, key(big), answer(budget/maxShare+1), size); len(v.(string)) != budget/maxShare+1 || calls.Load() != before+1 {
		t.Error("an answer over its share of the budget was kept")
	}
}

// TestAnswersSurvivePanicsAndCancellation: a panicking computation is an
// error for every waiter (none hangs), and a waiter whose request ends
// returns at once; the last to leave stops the computation.
func TestAnswersSurvivePanicsAndCancellation(t *testing.T) {
	c := newAnswers(1<<20, time.Hour, time.Minute)
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.get(context.Background(), key("p"), func(context.Context) (any, error) {
				time.Sleep(10 * time.Millisecond)
				panic("stage failed")
			}, size)
			if err == nil || !strings.Contains(err.Error(), "stage failed") {
				t.Errorf("after a panic: %v", err)
			}
		}()
	}
	wg.Wait()
	if v, err := c.get(context.Background(), key("p"), func(context.Context) (any, error) { return "ok", nil }, size); v != "ok" || err != nil {
		t.Errorf("after a panic the key answers %v %v", v, err)
	}

	stopped := make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.get(ctx, key("hang"), func(ctx context.Context) (any, error) {
		<-ctx.Done()
		close(stopped)
		return nil, ctx.Err()
	}, size)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Errorf("a waiter whose request ended: %v after %v", err, time.Since(start))
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Error("the computation nobody waits for was not stopped")
	}

	timed := newAnswers(1<<20, time.Hour, 20*time.Millisecond)
	if _, err := timed.get(context.Background(), key("slow"), func(ctx context.Context) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, size); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a computation past its deadline: %v", err)
	}
}

func TestAnswerKeyNamesGeneration(t *testing.T) {
	a, _ := answerKey("query", "r", 1, map[string]string{"q": "why"})
	b, _ := answerKey("query", "r", 2, map[string]string{"q": "why"})
	c, _ := answerKey("history", "r", 1, map[string]string{"q": "why"})
	if a == b || a == c {
		t.Error("keys of another generation or kind collide")
	}
}
