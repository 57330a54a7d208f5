package graph

import (
	"database/sql"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Cayley's SQL backend uses fixed table names, and gitmemory's node ids
// ("file:README.md") do not name the repository: two repositories in one
// database would share nodes and mix their edges. Each repository's graph
// therefore lives in a schema of its own, chosen by search_path in the DSN
// (lib/pq sends it as a session setting), so one PostgreSQL database can
// serve a whole fleet.

var schemaUnsafe = regexp.MustCompile(`[^a-z0-9_]+`)

// RepositoryDSN returns dsn with search_path set to the repository's own
// schema ("gitmemory_<name>"), unless dsn chooses a search_path already.
func RepositoryDSN(dsn, repo string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("graph DSN: %w", err)
	}
	q := u.Query()
	if q.Get("search_path") != "" {
		return dsn, nil
	}
	q.Set("search_path", "gitmemory_"+schemaUnsafe.ReplaceAllString(strings.ToLower(repo), "_"))
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// ensureSchema creates the schema a DSN's search_path names, so that
// Cayley's tables are created in it.
func ensureSchema(dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("graph DSN: %w", err)
	}
	schema := u.Query().Get("search_path")
	if schema == "" {
		return nil
	}
	first, _, _ := strings.Cut(schema, ",")
	first = strings.TrimSpace(first)
	if first == "" || first == "public" {
		return nil
	}
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return fmt.Errorf("open postgres graph: %w", err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE SCHEMA IF NOT EXISTS ` + quoteIdent(first)); err != nil {
		return fmt.Errorf("create graph schema %s: %w", first, err)
	}
	return nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
