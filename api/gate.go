package api

import (
	"context"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The gate keeps web pages out. Any page a user opens can send requests
// to 127.0.0.1; two things tell them apart from a client of the API:
//   - a page reaching the daemon through DNS rebinding names its own
//     domain in Host, so only loopback names and the names the daemon was
//     told about are served;
//   - a cross-site request carries the page's Origin, so a foreign Origin
//     is refused;
//   - a page can send a cross-site POST without a preflight only with a
//     form or text/plain body, so POST and DELETE require
//     application/json, which a page cannot send without asking first.

// Failed authentications allowed per client: a burst, then one per
// authFailEvery; anything beyond is answered 429 without checking the token.
const (
	authFailBurst = 10
	authFailRate  = 0.1 // per second
)

// gate refuses foreign Hosts and Origins, and POST or DELETE requests to
// the API that are not JSON.
func (s *server) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.allowedHost(r.Host) {
			s.refuse(w, r, "foreign_host", &Error{Status: http.StatusForbidden, Code: "forbidden_host",
				Message: "Host " + Clip(r.Host, clipLen) + " is not served: use 127.0.0.1 or localhost, or start the daemon with --allow-host"})
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !s.allowedOrigin(o) {
			s.refuse(w, r, "foreign_origin", &Error{Status: http.StatusForbidden, Code: "forbidden_origin",
				Message: "cross-origin requests from " + Clip(o, clipLen) + " are refused"})
			return
		}
		if (r.Method == http.MethodPost || r.Method == http.MethodDelete) && strings.HasPrefix(r.URL.Path, "/v1/") && !isJSON(r) {
			s.refuse(w, r, "not_json", &Error{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
				Field: "Content-Type", Message: "send Content-Type: application/json with POST and DELETE requests"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// allowedHosts is the set of host names served besides loopback ones.
func allowedHosts(extra []string) map[string]bool {
	m := map[string]bool{"localhost": true}
	for _, h := range extra {
		if h = normHost(h); h != "" && !isUnspecified(h) {
			m[h] = true
		}
	}
	return m
}

// normHost strips a port and brackets and lowers the case.
func normHost(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
}

func isUnspecified(h string) bool {
	ip := net.ParseIP(h)
	return ip != nil && ip.IsUnspecified()
}

func (s *server) allowedHost(host string) bool {
	if host == "" {
		return true // HTTP/1.0 without Host: not a browser
	}
	h := normHost(host)
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return true
	}
	return s.hosts[h]
}

func (s *server) allowedOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	return s.allowedHost(u.Host)
}

// authenticate checks the token, if one is required. Failures are
// audited and rate-limited per client: after authFailBurst wrong tokens a
// client gets 429 until its allowance refills.
func (s *server) authenticate(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.Token == "" || validToken(r, s.opts.Token) {
		return true
	}
	s.refuse(w, r, "auth_failed", &Error{Status: http.StatusUnauthorized, Code: "unauthorized",
		Message: "missing or wrong token: send Authorization: Bearer <token>"})
	return false
}

// refuse answers a refused request with e, audits it, and counts it
// against the client's failure allowance: once that is spent the answer
// is 429, and only the first such refusal is audited, so a flood of bad
// requests fills neither the CPU nor the audit log.
func (s *server) refuse(w http.ResponseWriter, r *http.Request, reason string, e *Error) {
	ok, first := s.failures.allowNote(clientOf(r))
	if !ok {
		if first {
			s.auditRefusal(r, reason, "rate_limited")
		}
		w.Header().Set("Retry-After", "10")
		writeError(w, &Error{Status: http.StatusTooManyRequests, Code: "rate_limited",
			Message: "too many refused requests from this client; wait before retrying"})
		return
	}
	s.auditRefusal(r, reason, e.Code)
	writeError(w, e)
}

func (s *server) auditRefusal(r *http.Request, reason, status string) {
	if s.opts.Audit == nil {
		return
	}
	s.opts.Audit.Warn("refused", "op", reason, "client", clientOf(r), "method", r.Method, "path", Clip(r.URL.Path, 200),
		"host", Clip(r.Host, clipLen), "origin", Clip(r.Header.Get("Origin"), clipLen), "status", status)
}

type clientKey struct{}

func withClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// ClientFrom returns the address of the client whose request ctx serves,
// for the audit records of the handlers mounted with ServerOptions.Extra.
func ClientFrom(ctx context.Context) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}
