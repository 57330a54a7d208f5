package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Request body limits per endpoint: the largest valid request of each
// kind, JSON-escaped, with room to spare. A body over its limit is refused
// (413) before it is decoded, so no request costs more memory than that.
const (
	// MaxBodyBytes bounds a lookup: MaxPaths paths of typical length (a
	// lookup of 300 paths of 100 bytes is about 35 KB).
	MaxBodyBytes = 512 << 10
	// MaxSmallBodyBytes bounds the other JSON requests: a query of
	// MaxQueryBytes, or a path of MaxPathBytes, escaped, and the options.
	MaxSmallBodyBytes = 6*MaxQueryBytes + 8<<10
	// MaxExtraBodyBytes bounds a request to the extra handlers (MCP).
	MaxExtraBodyBytes = 1 << 20
	// noBody bounds requests that take no body (sync, remove).
	noBody = 1 << 10
)

// ServerOptions configure the HTTP API.
type ServerOptions struct {
	// Token, when set, must be sent as "Authorization: Bearer <token>"
	// with every request but the health check.
	Token string
	// Rate and Burst bound each client's requests (per second, and at
	// once); a client is its token-less remote address. Zero Rate means
	// DefaultRate.
	Rate  float64
	Burst int
	// Audit, when set, receives one record per query-like request: who
	// asked what of which repository, the status and the time taken.
	Audit *slog.Logger
	// Log receives server errors.
	Log *slog.Logger
	// Extra handlers mounted beside the API (the MCP endpoint), behind the
	// same authentication and rate limit. They find the client's address
	// with ClientFrom, for their audit records.
	Extra map[string]http.Handler
	// Hosts are the host names, besides loopback ones, that requests may
	// name in their Host header (the --listen host, --allow-host).
	Hosts []string
}

// Default per-client rate limit: generous for an assistant, which asks
// in bursts, but a runaway loop is stopped.
const (
	DefaultRate  = 100
	DefaultBurst = 500
)

// Handler serves svc over HTTP: JSON in, JSON out, errors as Error.
func Handler(svc Service, opts ServerOptions) http.Handler {
	if opts.Rate <= 0 {
		opts.Rate = DefaultRate
	}
	if opts.Burst <= 0 {
		opts.Burst = DefaultBurst
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &server{svc: svc, opts: opts, limits: newLimiter(opts.Rate, opts.Burst),
		failures: newLimiter(authFailRate, authFailBurst), hosts: allowedHosts(opts.Hosts)}
	mux := http.NewServeMux()
	mux.Handle("GET /v1/health", s.gate(http.HandlerFunc(s.health)))
	mux.Handle("GET /v1/repositories", s.guard(noBody, s.list))
	mux.Handle("GET /v1/repositories/{name}/status", s.guard(noBody, s.status))
	mux.Handle("POST /v1/repositories/{name}/sync", s.guard(noBody, s.sync))
	mux.Handle("DELETE /v1/repositories/{name}", s.guard(noBody, s.remove))
	mux.Handle("POST /v1/query", s.guard(MaxSmallBodyBytes, s.query()))
	mux.Handle("POST /v1/history", s.guard(MaxSmallBodyBytes, s.history()))
	mux.Handle("POST /v1/recent", s.guard(MaxSmallBodyBytes, s.recent()))
	mux.Handle("POST /v1/lookup", s.guard(MaxBodyBytes, s.lookup()))
	mux.Handle("POST /v1/entity", s.guard(MaxSmallBodyBytes, s.entity()))
	s.directRoutes(mux)
	for pattern, h := range opts.Extra {
		mux.Handle(pattern, s.guard(MaxExtraBodyBytes, func(w http.ResponseWriter, r *http.Request) error {
			h.ServeHTTP(w, r.WithContext(withClient(r.Context(), clientOf(r))))
			return nil
		}))
	}
	return s.gate(mux)
}

type server struct {
	svc      Service
	opts     ServerOptions
	limits   *limiter // requests per client
	failures *limiter // failed authentications per client
	hosts    map[string]bool
}

// guard authenticates, rate-limits, bounds the body to limit bytes, and
// turns a handler's error into an Error response.
func (s *server) guard(limit int64, h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authenticate(w, r) {
			return
		}
		if !s.limits.allow(clientOf(r)) {
			w.Header().Set("Retry-After", "1")
			writeError(w, &Error{Status: http.StatusTooManyRequests, Code: "rate_limited",
				Message: "too many requests from this client; retry shortly"})
			return
		}
		if r.ContentLength > limit {
			writeError(w, tooLarge(limit))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if err := h(w, r); err != nil {
			e := toError(err)
			if e.Status >= 500 {
				s.opts.Log.Error("request failed", "path", r.URL.Path, "err", err)
			}
			writeError(w, e)
		}
	})
}

func tooLarge(limit int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: "too_large",
		Message: fmt.Sprintf("request body over %d bytes, the limit of this endpoint", limit)}
}

func validToken(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// clientOf identifies a client for the rate limit: its remote host.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (s *server) health(w http.ResponseWriter, r *http.Request) {
	h, err := s.svc.Health(r.Context())
	if err != nil {
		writeError(w, toError(err))
		return
	}
	if s.opts.Token != "" && !validToken(r, s.opts.Token) {
		// Unauthenticated callers (a container health check) learn only
		// that the server is up.
		h = &Health{Status: h.Status, Daemon: h.Daemon}
	}
	writeJSON(w, http.StatusOK, h)
}

func (s *server) list(w http.ResponseWriter, r *http.Request) error {
	rs, err := s.svc.List(r.Context())
	return reply(w, rs, err)
}

func (s *server) status(w http.ResponseWriter, r *http.Request) error {
	st, err := s.svc.Status(r.Context(), r.PathValue("name"), r.URL.Query().Get("verify") == "1")
	return reply(w, st, err)
}

func (s *server) sync(w http.ResponseWriter, r *http.Request) error {
	// The answer waits for the sync, which may take longer than any write
	// timeout: the first sync of a large repository takes minutes.
	http.NewResponseController(w).SetWriteDeadline(time.Time{})
	res, err := s.svc.Sync(r.Context(), r.PathValue("name"))
	return reply(w, res, err)
}

func (s *server) remove(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	err := s.svc.Remove(r.Context(), name)
	s.audit(r, "remove", name, "", err)
	return reply(w, map[string]string{"removed": name}, err)
}

// decoded serves a JSON-bodied request: decode, answer, audit, reply.
// what names the request in the audit log (the question, the path).
func decoded[Req, Res any](s *server, op string, answer func(context.Context, Req) (Res, error),
	scope func(Req) (repo, what string)) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		var q Req
		if err := readJSON(r, &q); err != nil {
			return err
		}
		start := time.Now()
		res, err := answer(r.Context(), q)
		repo, what := scope(q)
		s.audit(r, op, repo, what, err, "took", time.Since(start))
		return reply(w, res, err)
	}
}

func (s *server) query() func(http.ResponseWriter, *http.Request) error {
	return decoded(s, "query", s.svc.Query, func(q QueryRequest) (string, string) { return q.Repo, q.Query })
}

func (s *server) history() func(http.ResponseWriter, *http.Request) error {
	return decoded(s, "history", s.svc.History, func(q HistoryRequest) (string, string) { return q.Repo, q.Path })
}

func (s *server) recent() func(http.ResponseWriter, *http.Request) error {
	return decoded(s, "recent", s.svc.Recent, func(q RecentRequest) (string, string) { return q.Repo, q.Path })
}

// lookup replies with each match's ranking details (see lookupWire).
func (s *server) lookup() func(http.ResponseWriter, *http.Request) error {
	answer := func(ctx context.Context, q LookupRequest) (*lookupWire, error) {
		res, err := s.svc.Lookup(ctx, q)
		if err != nil {
			return nil, err
		}
		w := wireLookup(res)
		return &w, nil
	}
	return decoded(s, "lookup", answer, func(q LookupRequest) (string, string) {
		return q.Repo, strings.Join(append(slices.Clone(q.Paths), q.Fingerprints...), " ")
	})
}

func (s *server) entity() func(http.ResponseWriter, *http.Request) error {
	return decoded(s, "entity", s.svc.Entity, func(q EntityRequest) (string, string) { return q.Repo, q.Name })
}

// audit records a query-like request (seed 003, "Access Control").
func (s *server) audit(r *http.Request, op, repo, what string, err error, extra ...any) {
	if s.opts.Audit == nil {
		return
	}
	status := "ok"
	if err != nil {
		status = toError(err).Code
	}
	args := append([]any{"op", op, "client", clientOf(r), "repository", repo, "request", clipAudit(what), "status", status}, extra...)
	msg := "request"
	if op == "remove" {
		msg = "deletion" // as the CLI's and retention's deletions are recorded
	}
	s.opts.Audit.Info(msg, args...)
}

func clipAudit(s string) string {
	if len(s) > 512 {
		return s[:512] + "…"
	}
	return s
}

// readJSON decodes one JSON object, refusing unknown fields and trailing
// data: a typo in a field name is an error, not a silently ignored option.
func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return tooLarge(tooBig.Limit)
		}
		if field := jsonField(err); field != "" {
			return badField(field, "%s", Clip(err.Error(), 200))
		}
		return fmt.Errorf("%w: malformed JSON: %s", ErrBadRequest, Clip(err.Error(), 200))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: malformed JSON: data after the object", ErrBadRequest)
	}
	return nil
}

// jsonField names the field a decoding error is about: one of the wrong
// type, or one the request type does not have.
func jsonField(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return typeErr.Field
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return Clip(strings.Trim(name, `"`), clipLen)
	}
	return ""
}

func reply(w http.ResponseWriter, v any, err error) error {
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, e *Error) {
	writeJSON(w, e.Status, e)
}
