package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/daemon"
	"github.com/gitmemory/gitmemory/store"
)

type daemonFlags struct {
	listen, tokenFile, graph, audit, logFormat string
	add                                        []string
	interval, poll                             time.Duration
	rate                                       float64
	burst                                      int
	verbose                                    bool
}

func (a *app) daemonCmd() *cobra.Command {
	var f daemonFlags
	c := &cobra.Command{
		Use:   "daemon",
		Short: "Keep every registered repository indexed and serve the API and MCP",
		Long: `Run in the foreground, keeping every registered repository current: a new
commit, fetch or force push is noticed within a second (the refs are polled)
and indexed; every repository is also synced on a jittered interval. A
repository whose sync fails is retried with a growing, jittered backoff that
resets on success. Repositories registered while the daemon runs (gitmemory
add) are picked up within a second.

While it runs, the daemon owns the stores: the other gitmemory commands of
this home go through its API (found through daemon.json in the home), and
assistants reach it over MCP at http://ADDR/mcp (streamable HTTP), or through
'gitmemory mcp' over stdio.

The API listens on 127.0.0.1 only, unless --listen says otherwise; an address
reachable from other machines requires a token (--token-file, or the
GITMEMORY_TOKEN variable), sent as "Authorization: Bearer TOKEN". Each client
is rate-limited, and queries are recorded in the audit log (JSON lines).

SIGINT or SIGTERM stops it: the API stops accepting, the sync in flight is
cancelled (committed batches stay, the rest resumes at the next start) and
the stores are closed.

Endpoints (JSON): GET /v1/health, GET /v1/repositories,
GET /v1/repositories/NAME/status, POST /v1/repositories/NAME/sync,
DELETE /v1/repositories/NAME, POST /v1/query, /v1/history, /v1/recent,
/v1/lookup, /v1/entity; /mcp for MCP.`,
		Example: `  gitmemory daemon
  gitmemory daemon --listen 0.0.0.0:7411 --token-file /run/secrets/gitmemory-token
  gitmemory daemon --add '/repos/*' --graph postgres://gitmemory@db/gitmemory`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			h, err := a.home()
			if err != nil {
				return err
			}
			log := newLogger(a.stderr, f.logFormat, f.verbose)
			lock, err := store.AcquireLock(h.Dir)
			if err != nil {
				return fmt.Errorf("another daemon serves %s: %w", h.Dir, err)
			}
			defer lock.Release()
			token, err := readToken(f.tokenFile)
			if err != nil {
				return err
			}
			audit, closeAudit, err := openAudit(h.Dir, f.audit)
			if err != nil {
				return err
			}
			defer closeAudit()
			if err := daemon.AddGlobs(c.Context(), h, f.add, f.graph, log); err != nil {
				return err
			}
			d, err := daemon.New(h, daemon.Options{Listen: f.listen, Token: token, Interval: f.interval, Poll: f.poll,
				Rate: f.rate, Burst: f.burst, Audit: audit, Log: log, Extra: mcpEndpoint})
			if err != nil {
				return err
			}
			return d.Run(c.Context())
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.listen, "listen", daemon.DefaultListen, "the API's address (host:port)")
	fl.StringVar(&f.tokenFile, "token-file", "", "a file holding the API token (else $GITMEMORY_TOKEN)")
	fl.StringArrayVar(&f.add, "add", nil, "register the repositories this glob matches at start (repeatable)")
	fl.StringVar(&f.graph, "graph", "", "graph store for repositories --add registers: a postgres:// DSN (default: embedded)")
	fl.DurationVar(&f.interval, "interval", daemon.DefaultInterval, "sync every repository at least this often")
	fl.DurationVar(&f.poll, "poll", daemon.DefaultPoll, "look at the refs this often")
	fl.Float64Var(&f.rate, "rate", api.DefaultRate, "requests per second allowed per client")
	fl.IntVar(&f.burst, "burst", api.DefaultBurst, "requests a client may make at once")
	fl.StringVar(&f.audit, "audit", "", `audit log file (default: audit.log in the home; "off" for none)`)
	fl.StringVar(&f.logFormat, "log-format", "text", "text or json")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "debug logging")
	return c
}

// mcpEndpoint serves MCP (streamable HTTP) beside the API.
var mcpEndpoint = func(svc api.Service) map[string]http.Handler {
	return map[string]http.Handler{"/mcp": mcpHTTP(svc)}
}

func newLogger(w interface{ Write([]byte) (int, error) }, format string, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// readToken reads the API token from a file (trimmed), else from
// GITMEMORY_TOKEN; a token in a flag would show in the process list.
func readToken(file string) (string, error) {
	if file == "" {
		return os.Getenv("GITMEMORY_TOKEN"), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("--token-file %s is empty", file)
	}
	return t, nil
}

func openAudit(home, path string) (*slog.Logger, func(), error) {
	if path == "off" {
		return nil, func() {}, nil
	}
	if path == "" {
		path = filepath.Join(home, "audit.log")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("audit log: %w", err)
	}
	return slog.New(slog.NewJSONHandler(f, nil)), func() { f.Close() }, nil
}
