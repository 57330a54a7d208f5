package api

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/retrieve"
)

// TestDirectAcrossTheWire: seed 003's direct access and seed 004's health
// check give through HTTP what they give in this process.
func TestDirectAcrossTheWire(t *testing.T) {
	h, g := fixture(t)
	local := NewLocal(h)
	c := serve(t, local, ServerOptions{})
	ctx := context.Background()
	head := g.Head()

	both := func(name string, f func(Service) (any, error)) any {
		t.Helper()
		want, err := f(local)
		if err != nil {
			t.Fatalf("%s in process: %v", name, err)
		}
		got, err := f(c)
		if err != nil {
			t.Fatalf("%s over HTTP: %v", name, err)
		}
		if normal(t, got) != normal(t, want) {
			t.Errorf("%s: over HTTP %+v, in process %+v", name, got, want)
		}
		return want
	}
	d := both("commit", func(s Service) (any, error) { return s.Commit(ctx, "demo", head[:7]) }).(*retrieve.CommitDetail)
	if d.Hash != head || len(d.Issues) != 1 || d.Issues[0] != "#7" {
		t.Errorf("commit %s: %+v", head[:7], d)
	}
	es := both("log", func(s Service) (any, error) {
		return s.Log(ctx, LogRequest{Repo: "demo", Since: time.Unix(0, 0), Author: "ada"})
	}).([]retrieve.LogEntry)
	if len(es) != 2 || es[0].Commit != head {
		t.Errorf("log: %+v", es)
	}
	hits := both("entities", func(s Service) (any, error) {
		return s.Entities(ctx, EntitiesRequest{Repo: "demo", Search: "refr", Type: "function"})
	}).([]retrieve.EntityHit)
	if len(hits) != 1 || hits[0].Key != "auth/token.go#auth.Refresh" {
		t.Errorf("entities: %+v", hits)
	}
	rels := both("relationships", func(s Service) (any, error) {
		return s.Relationships(ctx, RelationshipsRequest{Repo: "demo", Name: "auth/token.go#auth.Refresh", Types: []string{"modifies", "INTRODUCES"}})
	})
	if n := reflect.ValueOf(rels).Len(); n != 2 {
		t.Errorf("relationships of Refresh: %+v, want its introduction and its change", rels)
	}
	both("health", func(s Service) (any, error) { return s.RepoHealth(ctx, "demo") })

	for name, f := range map[string]func() error{
		"unknown rev": func() error { _, err := c.Commit(ctx, "demo", "ffffff"); return err },
		"bad range":   func() error { _, err := c.Log(ctx, LogRequest{Repo: "demo", From: head}); return err },
		"bad type": func() error {
			_, err := c.Relationships(ctx, RelationshipsRequest{Repo: "demo", Name: "Refresh", Types: []string{"CALLZ"}})
			return err
		},
		"until before": func() error {
			_, err := c.Log(ctx, LogRequest{Repo: "demo", Since: time.Now(), Until: time.Unix(0, 0)})
			return err
		},
	} {
		if err := f(); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: %v, want a bad request", name, err)
		}
	}
	if _, err := c.Commit(ctx, "demo", "ffffff"); err == nil || !strings.Contains(err.Error(), "no indexed commit") {
		t.Errorf("unknown rev message: %v", err)
	}
}

// normal is v as JSON: what crosses the wire.
func normal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
