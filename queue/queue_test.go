package queue_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/gitmemory/gitmemory/queue"
	"github.com/gitmemory/gitmemory/store"
)

var t0 = time.Unix(1_700_000_000, 0)

// clock is a settable time source for Queue.Now.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time          { return c.now }
func (c *clock) Advance(d time.Duration) { c.now = c.now.Add(d) }

func newQueue(t *testing.T) (*store.Store, *queue.Queue, *clock) {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	q := queue.New(st.DB)
	clk := &clock{now: t0}
	q.Now = clk.Now
	q.Jitter = func(d time.Duration) time.Duration { return d }
	return st, q, clk
}

func enqueue(t *testing.T, st *store.Store, q *queue.Queue, hashes []string, branch string, prio int) {
	t.Helper()
	if err := q.Enqueue(context.Background(), st.DB, hashes, branch, prio); err != nil {
		t.Fatalf("Enqueue %v: %v", hashes, err)
	}
}

func dequeue(t *testing.T, q *queue.Queue, n int) []queue.Item {
	t.Helper()
	items, err := q.Dequeue(context.Background(), n)
	if err != nil {
		t.Fatalf("Dequeue: %v", err)
	}
	return items
}

func hashes(items []queue.Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Hash)
	}
	return out
}

func ready(t *testing.T, q *queue.Queue) []string {
	t.Helper()
	return hashes(dequeue(t, q, 1000))
}

func counts(t *testing.T, q *queue.Queue) queue.Counts {
	t.Helper()
	c, err := q.Counts(context.Background())
	if err != nil {
		t.Fatalf("Counts: %v", err)
	}
	return c
}

func fail(t *testing.T, q *queue.Queue, hash, msg string) {
	t.Helper()
	if err := q.Fail(context.Background(), hash, errors.New(msg)); err != nil {
		t.Fatalf("Fail %s: %v", hash, err)
	}
}

func TestEnqueueOrderAndPriority(t *testing.T) {
	st, q, clk := newQueue(t)
	enqueue(t, st, q, []string{"a", "b", "c"}, "main", 0)
	clk.Advance(time.Minute)
	enqueue(t, st, q, []string{"x", "y"}, "feature", 10)
	enqueue(t, st, q, []string{"d"}, "main", 0)
	enqueue(t, st, q, []string{"m"}, "main", 5)

	if diff := cmp.Diff([]string{"x", "y", "m", "a", "b", "c", "d"}, ready(t, q)); diff != "" {
		t.Errorf("dequeue order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x", "y", "m"}, hashes(dequeue(t, q, 3))); diff != "" {
		t.Errorf("Dequeue(3) (-want +got):\n%s", diff)
	}

	items := dequeue(t, q, 1000)
	want := map[string]queue.Item{
		"a": {Hash: "a", Branch: "main", Priority: 0, EnqueuedAt: t0},
		"x": {Hash: "x", Branch: "feature", Priority: 10, EnqueuedAt: t0.Add(time.Minute)},
	}
	for _, it := range items {
		if w, ok := want[it.Hash]; ok {
			if diff := cmp.Diff(w, it); diff != "" {
				t.Errorf("item %s (-want +got):\n%s", it.Hash, diff)
			}
			delete(want, it.Hash)
		}
	}
	if len(want) != 0 {
		t.Errorf("items not dequeued: %v", want)
	}

	// Dequeue does not remove anything.
	if got := counts(t, q); got != (queue.Counts{Pending: 7}) {
		t.Errorf("Counts = %+v, want 7 pending", got)
	}
}

func TestReenqueueKeepsPlaceAndAttempts(t *testing.T) {
	st, q, clk := newQueue(t)
	enqueue(t, st, q, []string{"a", "b", "c"}, "main", 0)
	fail(t, q, "b", "boom") // ready again at t0+30s
	clk.Advance(10 * time.Second)
	// Re-enqueue existing hashes with another branch and priority, and a new one.
	enqueue(t, st, q, []string{"c", "a", "b", "n"}, "other", 7)

	if got := counts(t, q); got != (queue.Counts{Pending: 3, Failed: 1}) {
		t.Errorf("Counts = %+v, want 3 pending 1 failed", got)
	}
	if diff := cmp.Diff([]string{"n", "a", "c"}, ready(t, q)); diff != "" {
		t.Errorf("order after re-enqueue (-want +got):\n%s", diff)
	}
	clk.Advance(time.Hour)
	items := dequeue(t, q, 1000)
	if diff := cmp.Diff([]string{"n", "a", "b", "c"}, hashes(items)); diff != "" {
		t.Errorf("order after backoff (-want +got):\n%s", diff)
	}
	for _, it := range items {
		switch it.Hash {
		case "a", "c":
			if it.Branch != "main" || it.Priority != 0 || it.Attempts != 0 || !it.EnqueuedAt.Equal(t0) {
				t.Errorf("re-enqueued %s changed: %+v", it.Hash, it)
			}
		case "b":
			if it.Attempts != 1 || it.LastError != "boom" || it.Branch != "main" {
				t.Errorf("re-enqueued failed item lost its state: %+v", it)
			}
		}
	}
}

func TestFailBackoffAndDeath(t *testing.T) {
	st, q, clk := newQueue(t)
	q.MaxAttempts = 3
	enqueue(t, st, q, []string{"h", "p"}, "main", 0)

	fail(t, q, "h", "first")
	if got := counts(t, q); got != (queue.Counts{Pending: 1, Failed: 1}) {
		t.Errorf("Counts after one failure = %+v", got)
	}
	if diff := cmp.Diff([]string{"p"}, ready(t, q)); diff != "" {
		t.Errorf("ready right after failure (-want +got):\n%s", diff)
	}
	clk.Advance(29 * time.Second)
	if diff := cmp.Diff([]string{"p"}, ready(t, q)); diff != "" {
		t.Errorf("ready 29s after failure (-want +got):\n%s", diff)
	}
	clk.Advance(time.Second)
	items := dequeue(t, q, 1000)
	if diff := cmp.Diff([]string{"h", "p"}, hashes(items)); diff != "" {
		t.Fatalf("ready 30s after failure (-want +got):\n%s", diff)
	}
	if items[0].Attempts != 1 || items[0].LastError != "first" {
		t.Errorf("failed item = %+v, want 1 attempt, error %q", items[0], "first")
	}

	fail(t, q, "h", "second")
	clk.Advance(59 * time.Second)
	if diff := cmp.Diff([]string{"p"}, ready(t, q)); diff != "" {
		t.Errorf("ready 59s after second failure (-want +got):\n%s", diff)
	}
	clk.Advance(time.Second)
	if diff := cmp.Diff([]string{"h", "p"}, ready(t, q)); diff != "" {
		t.Errorf("ready 60s after second failure (-want +got):\n%s", diff)
	}

	fail(t, q, "h", "third")
	if got := counts(t, q); got != (queue.Counts{Pending: 1, Dead: 1}) {
		t.Errorf("Counts after MaxAttempts failures = %+v, want 1 pending 1 dead", got)
	}
	for _, d := range []time.Duration{0, time.Hour, 30 * 24 * time.Hour} {
		clk.Advance(d)
		if diff := cmp.Diff([]string{"p"}, ready(t, q)); diff != "" {
			t.Errorf("dead item dequeued %v later (-want +got):\n%s", d, diff)
		}
	}
	errs, err := q.Errors(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []queue.Item{{Hash: "h", Branch: "main", Attempts: 3, LastError: "third", EnqueuedAt: t0}}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("Errors (-want +got):\n%s", diff)
	}
}

func TestFailUnknown(t *testing.T) {
	_, q, _ := newQueue(t)
	if err := q.Fail(context.Background(), "nope", errors.New("x")); err == nil {
		t.Error("Fail of an unqueued hash succeeded")
	}
	if got := counts(t, q); got != (queue.Counts{}) {
		t.Errorf("Counts = %+v, want empty", got)
	}
}

func TestCountsAndErrors(t *testing.T) {
	st, q, _ := newQueue(t)
	q.MaxAttempts = 2
	enqueue(t, st, q, []string{"p1", "f1", "p2", "d1", "f2"}, "main", 0)
	fail(t, q, "f1", "error one")
	fail(t, q, "d1", "dying")
	fail(t, q, "d1", "dead now")
	fail(t, q, "f2", "error two")

	if got, want := counts(t, q), (queue.Counts{Pending: 2, Failed: 2, Dead: 1}); got != want {
		t.Errorf("Counts = %+v, want %+v", got, want)
	}
	errs, err := q.Errors(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []queue.Item{
		{Hash: "f1", Branch: "main", Attempts: 1, LastError: "error one", EnqueuedAt: t0},
		{Hash: "d1", Branch: "main", Attempts: 2, LastError: "dead now", EnqueuedAt: t0},
		{Hash: "f2", Branch: "main", Attempts: 1, LastError: "error two", EnqueuedAt: t0},
	}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("Errors (-want +got):\n%s", diff)
	}
	errs, err = q.Errors(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 2 {
		t.Errorf("Errors(2) returned %d items", len(errs))
	}
}

func lastError(t *testing.T, q *queue.Queue, hash string) string {
	t.Helper()
	errs, err := q.Errors(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range errs {
		if it.Hash == hash {
			return it.LastError
		}
	}
	t.Fatalf("%s not among the errors", hash)
	return ""
}

func TestFailErrorMessage(t *testing.T) {
	st, q, _ := newQueue(t)
	enqueue(t, st, q, []string{"long", "bad", "cut"}, "main", 0)

	fail(t, q, "long", strings.Repeat("x", 5000))
	if got := lastError(t, q, "long"); got != strings.Repeat("x", 2000) {
		t.Errorf("5000-byte error stored as %d bytes, want 2000", len(got))
	}

	fail(t, q, "bad", "bad \xff\xfe bytes")
	got := lastError(t, q, "bad")
	if !utf8.ValidString(got) {
		t.Errorf("stored error %q is not valid UTF-8", got)
	}
	if !strings.HasPrefix(got, "bad ") || !strings.HasSuffix(got, " bytes") {
		t.Errorf("stored error %q lost its valid text", got)
	}

	// Truncation in the middle of a multi-byte rune must not leave half of it.
	fail(t, q, "cut", "a"+strings.Repeat("é", 2500))
	got = lastError(t, q, "cut")
	if !utf8.ValidString(got) || len(got) > 2000 || !strings.HasPrefix(got, "aéé") {
		t.Errorf("stored error: valid=%v len=%d prefix=%q", utf8.ValidString(got), len(got), got[:min(len(got), 5)])
	}
}

func TestBackoff(t *testing.T) {
	_, q, _ := newQueue(t)
	want := map[int]time.Duration{
		1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 4: 4 * time.Minute,
		5: 8 * time.Minute, 6: 16 * time.Minute, 7: 32 * time.Minute,
		8: time.Hour, 9: time.Hour, 20: time.Hour, 1000: time.Hour,
	}
	for n, w := range want {
		if got := q.Backoff(n); got != w {
			t.Errorf("Backoff(%d) = %v, want %v", n, got, w)
		}
	}

	// The default jitter stays within [d/2, d].
	def := queue.New(nil)
	for n := 1; n <= 10; n++ {
		for range 20 {
			d := q.Backoff(n)
			if got := def.Backoff(n); got < d/2 || got > d {
				t.Errorf("default Backoff(%d) = %v, outside [%v, %v]", n, got, d/2, d)
			}
		}
	}
}

func TestRetry(t *testing.T) {
	st, q, _ := newQueue(t)
	q.MaxAttempts = 2
	enqueue(t, st, q, []string{"f", "d", "p"}, "main", 0)
	fail(t, q, "f", "oops")
	fail(t, q, "d", "oops")
	fail(t, q, "d", "oops")
	if diff := cmp.Diff([]string{"p"}, ready(t, q)); diff != "" {
		t.Fatalf("ready before retry (-want +got):\n%s", diff)
	}

	if err := q.Retry(context.Background(), "f"); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	items := dequeue(t, q, 1000)
	if diff := cmp.Diff([]string{"f", "p"}, hashes(items)); diff != "" {
		t.Errorf("ready after Retry (-want +got):\n%s", diff)
	}
	if items[0].Attempts != 1 {
		t.Errorf("Retry reset attempts to %d, want 1 kept", items[0].Attempts)
	}
	if err := q.Retry(context.Background(), "unknown"); err == nil {
		t.Error("Retry of an unknown hash succeeded")
	}

	fail(t, q, "f", "again") // second failure: dead
	if got := counts(t, q); got != (queue.Counts{Pending: 1, Dead: 2}) {
		t.Fatalf("Counts = %+v, want 1 pending 2 dead", got)
	}
	enqueue(t, st, q, []string{"f2"}, "main", 0)
	fail(t, q, "f2", "x")
	n, err := q.RetryAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("RetryAll = %d, want 3 (two dead, one failed)", n)
	}
	if got := counts(t, q); got != (queue.Counts{Pending: 4}) {
		t.Errorf("Counts after RetryAll = %+v, want 4 pending", got)
	}
	if diff := cmp.Diff([]string{"f", "d", "p", "f2"}, ready(t, q)); diff != "" {
		t.Errorf("ready after RetryAll (-want +got):\n%s", diff)
	}
	if n, err := q.RetryAll(context.Background()); err != nil || n != 0 {
		t.Errorf("second RetryAll = %d, %v; want 0", n, err)
	}
}

func TestCompleteInTransaction(t *testing.T) {
	ctx := context.Background()
	st, q, _ := newQueue(t)
	enqueue(t, st, q, []string{"a", "b"}, "main", 0)

	errAbort := errors.New("abort")
	err := st.Tx(ctx, func(tx *sql.Tx) error {
		if err := q.Complete(ctx, tx, "a"); err != nil {
			return err
		}
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("Tx = %v, want errAbort", err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, ready(t, q)); diff != "" {
		t.Errorf("after rolled back Complete (-want +got):\n%s", diff)
	}

	if err := st.Tx(ctx, func(tx *sql.Tx) error { return q.Complete(ctx, tx, "a") }); err != nil {
		t.Fatalf("Tx: %v", err)
	}
	if diff := cmp.Diff([]string{"b"}, ready(t, q)); diff != "" {
		t.Errorf("after committed Complete (-want +got):\n%s", diff)
	}
	if got := counts(t, q); got != (queue.Counts{Pending: 1}) {
		t.Errorf("Counts = %+v, want 1 pending", got)
	}
}

func TestSyncState(t *testing.T) {
	ctx := context.Background()
	st, _, _ := newQueue(t)
	db := st.DB

	s, err := queue.State(ctx, db, "main")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(queue.BranchState{Branch: "main"}, s); diff != "" {
		t.Errorf("state of an unknown branch (-want +got):\n%s", diff)
	}
	all, err := queue.States(ctx, db)
	if err != nil || len(all) != 0 {
		t.Errorf("States of an empty store = %v, %v", all, err)
	}

	if err := queue.SetState(ctx, db, "main", "aaa", t0); err != nil {
		t.Fatal(err)
	}
	if s, err = queue.State(ctx, db, "main"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(queue.BranchState{Branch: "main", LastHead: "aaa", UpdatedAt: t0}, s); diff != "" {
		t.Errorf("state after SetState (-want +got):\n%s", diff)
	}

	t1 := t0.Add(time.Hour)
	if err := queue.SetState(ctx, db, "main", "bbb", t1); err != nil {
		t.Fatal(err)
	}
	if s, err = queue.State(ctx, db, "main"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(queue.BranchState{Branch: "main", LastHead: "bbb", UpdatedAt: t1}, s); diff != "" {
		t.Errorf("state after second SetState (-want +got):\n%s", diff)
	}

	// Timestamps are not in branch order, so States must sort by name.
	t2 := t0.Add(2 * time.Hour)
	// Inside a transaction too (Execer is *sql.Tx there).
	err = st.Tx(ctx, func(tx *sql.Tx) error {
		if err := queue.SetState(ctx, tx, "zeta", "zzz", t0.Add(-time.Hour)); err != nil {
			return err
		}
		return queue.SetState(ctx, tx, "dev", "ddd", t0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := queue.SetState(ctx, db, "a-branch", "111", t2); err != nil {
		t.Fatal(err)
	}
	all, err = queue.States(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	want := []queue.BranchState{
		{Branch: "a-branch", LastHead: "111", UpdatedAt: t2},
		{Branch: "dev", LastHead: "ddd", UpdatedAt: t0},
		{Branch: "main", LastHead: "bbb", UpdatedAt: t1},
		{Branch: "zeta", LastHead: "zzz", UpdatedAt: t0.Add(-time.Hour)},
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("States (-want +got):\n%s", diff)
	}

	if err := queue.DeleteState(ctx, db, "dev"); err != nil {
		t.Fatal(err)
	}
	if s, err = queue.State(ctx, db, "dev"); err != nil || s.LastHead != "" {
		t.Errorf("state of a deleted branch = %+v, %v", s, err)
	}
	all, err = queue.States(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append(want[:1:1], want[2:]...), all); diff != "" {
		t.Errorf("States after DeleteState (-want +got):\n%s", diff)
	}
}
