package llm

import (
	"context"
	"testing"

	"github.com/gitmemory/gitmemory/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestSQLCache(t *testing.T) {
	ctx := context.Background()
	c := NewSQLCache(openStore(t).DB)
	if s, ok, err := c.Get(ctx, "abc", "m1"); ok || err != nil || s != "" {
		t.Fatalf("Get on empty cache = %q, %v, %v", s, ok, err)
	}
	for _, put := range [][3]string{{"abc", "m1", "first"}, {"abc", "m1", "second"}, {"abc", "m2", "other model"}} {
		if err := c.Put(ctx, put[0], put[1], put[2]); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ hash, model, want string }{
		{"abc", "m1", "second"}, {"abc", "m2", "other model"}, {"abd", "m1", ""},
	} {
		s, ok, err := c.Get(ctx, tc.hash, tc.model)
		if err != nil || s != tc.want || ok != (tc.want != "") {
			t.Errorf("Get(%s, %s) = %q, %v, %v; want %q", tc.hash, tc.model, s, ok, err, tc.want)
		}
	}
}

func TestSQLCacheAcrossSummarizers(t *testing.T) {
	f := newFake(t, OpenAI)
	cache := NewSQLCache(openStore(t).DB)
	commits := testCommits(5)
	if _, st := f.summarizer(f.config(), cache).Summarize(context.Background(), commits); st.Generated != 5 {
		t.Fatalf("first run: %+v", st)
	}
	sums, st := f.summarizer(f.config(), cache).Summarize(context.Background(), commits)
	checkSummaries(t, sums, commits)
	if st.Cached != 5 || st.Requests != 0 || len(f.requests()) != 1 {
		t.Errorf("second run: stats %+v, server saw %d requests; want all cached", st, len(f.requests()))
	}
}

func TestCacheErrorsDoNotFail(t *testing.T) {
	f := newFake(t, Ollama)
	st := openStore(t)
	cache := NewSQLCache(st.DB)
	st.Close() // every cache call now fails
	commits := testCommits(2)
	sums, stats := f.summarizer(f.config(), cache).Summarize(context.Background(), commits)
	checkSummaries(t, sums, commits)
	if stats.Generated != 2 || stats.Err == nil {
		t.Errorf("stats %+v, want 2 generated and the cache error reported", stats)
	}
}
