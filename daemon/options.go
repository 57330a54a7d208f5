package daemon

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gitmemory/gitmemory/api"
)

// Options configure a daemon. Zero values take the defaults.
type Options struct {
	// Listen is the API's address (DefaultListen). A non-loopback address
	// requires Token.
	Listen string
	Token  string
	// Interval is how often every repository is synced even when its refs
	// look unchanged (DefaultInterval), jittered by ±10%.
	Interval time.Duration
	// Poll is how often the refs are looked at (DefaultPoll).
	Poll time.Duration
	// Backoff is the first wait after a failed sync, doubled per failure
	// up to MaxBackoff, with jitter.
	Backoff, MaxBackoff time.Duration
	// Rate and Burst are the API's per-client limits.
	Rate  float64
	Burst int
	// Audit receives the API's audit records; Log everything else.
	Audit *slog.Logger
	Log   *slog.Logger
	// Extra handlers served beside the API (the MCP endpoint); they get
	// the daemon's Service.
	Extra func(api.Service) map[string]http.Handler
	// Hosts are names clients may use in Host besides loopback ones and
	// the Listen host (a container's service name).
	Hosts []string
	// ReadTimeout bounds reading a request, body included, and
	// WriteTimeout answering it (a sync's answer waits for the sync, and
	// is exempt); MaxConns bounds the connections served at once (more
	// wait to be accepted).
	ReadTimeout, WriteTimeout time.Duration
	MaxConns                  int
}

// Defaults.
const (
	DefaultListen     = "127.0.0.1:7411"
	DefaultInterval   = 5 * time.Minute
	DefaultPoll       = time.Second
	DefaultBackoff    = 5 * time.Second
	DefaultMaxBackoff = 10 * time.Minute
	// A request of the largest allowed size arrives in milliseconds over
	// loopback and in well under a second over a network: a client that
	// takes longer is holding a connection, not sending.
	DefaultReadTimeout  = 15 * time.Second
	DefaultWriteTimeout = answerDeadline + 15*time.Second
	DefaultMaxConns     = 64
	idleTimeout         = time.Minute
)

func (o *Options) defaults() {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
}

// checkListen refuses to expose the API beyond loopback without a token.
func checkListen(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want host:port (%v)", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if (ip == nil || !ip.IsLoopback()) && token == "" {
		return fmt.Errorf("--listen %s is reachable from other machines: set a token (--token-file or GITMEMORY_TOKEN)", addr)
	}
	return nil
}
