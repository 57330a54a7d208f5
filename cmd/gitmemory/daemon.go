package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/daemon"
	"github.com/gitmemory/gitmemory/store"
)

type daemonFlags struct {
	listen, tokenFile, graph, audit, logFormat string
	add, allowHosts                            []string
	memLimit                                   string
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
			if err := setMemoryLimit(f.memLimit, log); err != nil {
				return err
			}
			logHealth(c.Context(), h, log)
			d, err := daemon.New(h, daemon.Options{Listen: f.listen, Token: token, Interval: f.interval, Poll: f.poll,
				Rate: f.rate, Burst: f.burst, Audit: audit, Log: log, Extra: mcpEndpoint(audit), Hosts: f.allowHosts})
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
	fl.StringArrayVar(&f.allowHosts, "allow-host", nil, "a host name clients may use besides loopback ones and the --listen host (repeatable)")
	fl.StringVar(&f.memLimit, "memory-limit", "", "soft memory limit such as 512MiB (default: $GOMEMLIMIT, else 896MiB)")
	fl.StringVar(&f.audit, "audit", "", `audit log file (default: audit.log in the home; "off" for none)`)
	fl.StringVar(&f.logFormat, "log-format", "text", "text or json")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "debug logging")
	return c
}

// mcpEndpoint serves MCP (streamable HTTP) beside the API, its tool calls
// audited as the API's requests are.
func mcpEndpoint(audit *slog.Logger) func(svc api.Service) map[string]http.Handler {
	return func(svc api.Service) map[string]http.Handler {
		return map[string]http.Handler{"/mcp": mcpHTTP(svc, audit)}
	}
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
		t, set := os.LookupEnv("GITMEMORY_TOKEN")
		if !set || t == "" {
			return "", nil
		}
		return checkToken("GITMEMORY_TOKEN", t)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	return checkToken("--token-file "+file, strings.TrimSpace(string(b)))
}

// minTokenLen is the shortest token accepted: 16 characters of a random
// token are beyond guessing at the failed-authentication rate allowed.
const minTokenLen = 16

// checkToken refuses a token nobody can send or anybody can guess: blank,
// with spaces or control characters (an HTTP header cannot carry them
// intact), or short.
func checkToken(from, t string) (string, error) {
	switch {
	case strings.TrimSpace(t) == "":
		return "", fmt.Errorf("%s is empty or blank: set a long random token (openssl rand -hex 32), or unset it to serve loopback only", from)
	case strings.ContainsFunc(t, func(r rune) bool { return r <= ' ' || r == 0x7f || r > '~' }):
		return "", fmt.Errorf("%s holds spaces, control or non-ASCII characters, which an Authorization header cannot carry: use printable ASCII (openssl rand -hex 32)", from)
	case len(t) < minTokenLen:
		return "", fmt.Errorf("%s is %d characters: use at least %d (openssl rand -hex 32)", from, len(t), minTokenLen)
	}
	return t, nil
}

// setMemoryLimit applies --memory-limit; without it the limit main set
// (GOMEMLIMIT, else its default) stands. The daemon also returns freed
// memory to the system once a burst of requests is over (see daemon).
func setMemoryLimit(flag string, log *slog.Logger) error {
	if flag == "" {
		return nil
	}
	n, err := parseBytes(flag)
	if err != nil {
		return fmt.Errorf("--memory-limit %q: %w", api.Clip(flag, 40), err)
	}
	debug.SetMemoryLimit(n)
	log.Debug("memory limit", "bytes", n)
	return nil
}

// parseBytes reads a size as GOMEMLIMIT writes it: a number and an
// optional B, KiB, MiB, GiB or TiB suffix.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = num, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("want a positive size such as 768MiB or 2GiB")
	}
	return n * mult, nil
}
