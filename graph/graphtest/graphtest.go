// Package graphtest opens empty graph stores of every available backend
// for tests: bolt always, PostgreSQL when GITMEMORY_TEST_PG holds a DSN
// (.ci/run always sets it).
package graphtest

import (
	"database/sql"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/lib/pq" // the driver Cayley's SQL backend uses
)

// Backend opens an empty store of one kind for a test.
type Backend struct {
	Name string
	Addr func(t testing.TB) string
}

// Backends returns bolt always and PostgreSQL when GITMEMORY_TEST_PG holds
// a DSN.
func Backends(t testing.TB) []Backend {
	bs := []Backend{{"bolt", func(t testing.TB) string { return t.TempDir() }}}
	if dsn := os.Getenv("GITMEMORY_TEST_PG"); dsn != "" {
		bs = append(bs, Backend{"postgres", func(t testing.TB) string { return FreshDatabase(t, dsn) }})
	} else {
		t.Log("GITMEMORY_TEST_PG is not set: PostgreSQL backend skipped (CI sets it in .ci/run)")
	}
	return bs
}

// FreshDatabase creates a database of its own for one test on the server
// of dsn (Cayley's tables have fixed names) and drops it afterwards.
func FreshDatabase(t testing.TB, dsn string) string {
	t.Helper()
	admin, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("gm_test_%d_%d", time.Now().UnixNano(), rand.Intn(1e6))
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database (is GITMEMORY_TEST_PG=%s reachable?): %v", dsn, err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
