package daemon

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestAnswersComputeOnceAndForget(t *testing.T) {
	c := newAnswers(2, time.Hour)
	var calls atomic.Int32
	slow := func() (any, error) {
		calls.Add(1)
		time.Sleep(20 * time.Millisecond)
		return "answer", nil
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := c.get("k", slow); v != "answer" || err != nil {
				t.Errorf("got %v %v", v, err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("50 concurrent asks computed %d times, want 1", calls.Load())
	}
	boom := errors.New("boom")
	if _, err := c.get("bad", func() (any, error) { return nil, boom }); err != boom {
		t.Fatal(err)
	}
	if v, _ := c.get("bad", func() (any, error) { return "fixed", nil }); v != "fixed" {
		t.Errorf("an error was cached: %v", v)
	}
	c.get("third", slow) // evicts the least recently used: "k"
	before := calls.Load()
	c.get("k", slow)
	if calls.Load() != before+1 {
		t.Error("the least recently used answer was not evicted")
	}

	short := newAnswers(10, 10*time.Millisecond)
	short.get("t", slow)
	time.Sleep(15 * time.Millisecond)
	before = calls.Load()
	short.get("t", slow)
	if calls.Load() != before+1 {
		t.Error("an expired answer was served")
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
