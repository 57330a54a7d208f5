package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

// Client is the Service of a running daemon, over its HTTP API.
type Client struct {
	BaseURL string // http://127.0.0.1:7411
	Token   string
	HTTP    *http.Client
}

// Health asks the daemon whether it is up.
func (c *Client) Health(ctx context.Context) (*Health, error) {
	var h Health
	return &h, c.do(ctx, http.MethodGet, "/v1/health", nil, &h)
}

// List returns the registered repositories.
func (c *Client) List(ctx context.Context) ([]memory.Repository, error) {
	var rs []memory.Repository
	return rs, c.do(ctx, http.MethodGet, "/v1/repositories", nil, &rs)
}

// Status reports one repository's index.
func (c *Client) Status(ctx context.Context, repo string, verify bool) (*memory.Status, error) {
	var s memory.Status
	p := "/v1/repositories/" + url.PathEscape(repo) + "/status"
	if verify {
		p += "?verify=1"
	}
	return &s, c.do(ctx, http.MethodGet, p, nil, &s)
}

// Sync asks the daemon to sync a repository now and waits for the result.
func (c *Client) Sync(ctx context.Context, repo string) (*indexer.Result, error) {
	var r indexer.Result
	return &r, c.do(ctx, http.MethodPost, "/v1/repositories/"+url.PathEscape(repo)+"/sync", nil, &r)
}

// Remove deletes a repository's registration and data.
func (c *Client) Remove(ctx context.Context, repo string) error {
	return c.do(ctx, http.MethodDelete, "/v1/repositories/"+url.PathEscape(repo), nil, nil)
}

// Query answers a question.
func (c *Client) Query(ctx context.Context, q QueryRequest) (*QueryResult, error) {
	var r QueryResult
	return &r, c.do(ctx, http.MethodPost, "/v1/query", q, &r)
}

// History returns the commits that changed a path.
func (c *Client) History(ctx context.Context, q HistoryRequest) ([]retrieve.Change, error) {
	var r []retrieve.Change
	return r, c.do(ctx, http.MethodPost, "/v1/history", q, &r)
}

// Recent returns the commits of the last days.
func (c *Client) Recent(ctx context.Context, q RecentRequest) ([]retrieve.Change, error) {
	var r []retrieve.Change
	return r, c.do(ctx, http.MethodPost, "/v1/recent", q, &r)
}

// Lookup finds the records related to a candidate change.
func (c *Client) Lookup(ctx context.Context, q LookupRequest) (*retrieve.LookupResult, error) {
	var r lookupWire
	if err := c.do(ctx, http.MethodPost, "/v1/lookup", q, &r); err != nil {
		return nil, err
	}
	return r.result(), nil
}

// Entity reports an entity's history.
func (c *Client) Entity(ctx context.Context, q EntityRequest) (*memory.EntityReport, error) {
	var r memory.EntityReport
	return &r, c.do(ctx, http.MethodPost, "/v1/entity", q, &r)
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return err
	}
	if in != nil || method == http.MethodPost || method == http.MethodDelete {
		// The daemon refuses POST and DELETE that are not JSON (a web
		// page's cross-site form), even without a body.
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("daemon at %s: %w", c.BaseURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		e := &Error{Status: resp.StatusCode}
		if json.NewDecoder(resp.Body).Decode(e) != nil || e.Message == "" {
			e.Message = fmt.Sprintf("daemon at %s: %s", c.BaseURL, resp.Status)
		}
		return e
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("daemon at %s: bad answer: %w", c.BaseURL, err)
	}
	return nil
}

// DaemonFile is where a running daemon announces itself in the home: its
// address and, when it requires one, its token (the file is 0600).
const DaemonFile = "daemon.json"

// Announcement is the content of DaemonFile.
type Announcement struct {
	PID     int       `json:"pid"`
	Addr    string    `json:"addr"` // host:port
	Token   string    `json:"token,omitempty"`
	Started time.Time `json:"started"`
}

// Announce writes the daemon's announcement atomically.
func Announce(home string, a Announcement) error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(home, ".daemon-*.json")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	err = errors.Join(err, tmp.Chmod(0o600), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(home, DaemonFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("announce daemon: %w", err)
	}
	return nil
}

// Withdraw removes the announcement if it is still this process's.
func Withdraw(home string, pid int) {
	path := filepath.Join(home, DaemonFile)
	if a, err := readAnnouncement(path); err == nil && a.PID == pid {
		os.Remove(path)
	}
}

func readAnnouncement(path string) (*Announcement, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a Announcement
	if err := json.Unmarshal(b, &a); err != nil || a.Addr == "" {
		return nil, fmt.Errorf("%s: not a daemon announcement", path)
	}
	return &a, nil
}

// dialable turns a daemon listening on every interface (0.0.0.0:7411,
// [::]:7411) into its loopback address: a Host of 0.0.0.0 is not one the
// daemon serves (see the gate), and loopback always reaches it.
func dialable(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if ip.To4() != nil {
			return net.JoinHostPort("127.0.0.1", port)
		}
		return net.JoinHostPort("::1", port)
	}
	return addr
}

// discoverTimeout bounds the health check of an announced daemon: a
// stale announcement (a killed daemon) must not slow every command down.
const discoverTimeout = 500 * time.Millisecond

// Discover returns a Client for the daemon serving home, or nil when none
// answers (no announcement, or a stale one).
func Discover(ctx context.Context, home string) *Client {
	a, err := readAnnouncement(filepath.Join(home, DaemonFile))
	if err != nil {
		return nil
	}
	c := &Client{BaseURL: "http://" + dialable(a.Addr), Token: a.Token, HTTP: &http.Client{}}
	ctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	defer cancel()
	h, err := c.Health(ctx)
	if err != nil || h.Status != "ok" || (h.Home != "" && h.Home != home) {
		return nil // stale, or another home's daemon on a reused port
	}
	return c
}
