// Package mcpserver exposes gitmemory to AI agents over the Model Context
// Protocol: five read-only tools (query, entity history, recent changes,
// lookup, history) answered by an api.Service, over stdio for an agent
// that starts gitmemory itself, or over streamable HTTP for the daemon.
//
// Every answer fits its token budget (cl100k_base, as Context Packs are
// counted): an agent asks for what fits its context window and gets at
// most that, with a note of what was left out, rather than a reply it has
// to truncate blindly.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitmemory/gitmemory/api"
)

// Options configure the server.
type Options struct {
	// Version is reported to clients as the server's version.
	Version string
	// Logger receives one debug record per tool call and the errors that
	// are the server's fault; nil discards them.
	Logger *slog.Logger
	// Audit receives one record per tool call, as the HTTP API writes for
	// its requests: the client, the tool, the repository, the arguments
	// (clipped), the outcome and the time taken.
	Audit *slog.Logger
}

// ServerName is the implementation name clients see.
const ServerName = "gitmemory"

// instructions tell a client's model when the tools help.
const instructions = `gitmemory indexes the git history of registered repositories: commits, ` +
	`their change types and summaries, and the functions, classes and files they changed. ` +
	`Use gitmemory_query for why/how/when questions, gitmemory_entity_history and gitmemory_history ` +
	`for how one function, class or file evolved, gitmemory_recent_changes for what changed lately, ` +
	`and gitmemory_lookup before a change to find the related recent ones. ` +
	`Name a repository by its registered name; it may be omitted when only one is registered. ` +
	`Every answer fits token_budget (default 4000) and says what it left out.`

// server answers the tools from a Service. It holds no mutable state, so
// one serves any number of sessions at once.
type server struct {
	svc   api.Service
	log   *slog.Logger
	audit *slog.Logger // nil for none
}

// New returns an MCP server with gitmemory's tools, answered by svc.
func New(svc api.Service, opts Options) *mcp.Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	ms := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "gitmemory", Version: version},
		&mcp.ServerOptions{Instructions: instructions, Logger: quiet(log),
			// The tools are the whole surface: no logging capability.
			Capabilities: &mcp.ServerCapabilities{}})
	s := &server{svc: svc, log: log, audit: opts.Audit}
	ms.AddReceivingMiddleware(s.recoverPanics)
	s.register(ms)
	return ms
}

// recoverPanics turns a panic anywhere in answering a request (the SDK's
// argument handling included, not only the tools) into an internal error
// for that request. The SDK answers each request on a goroutine of its
// own, where an unrecovered panic would end the whole process: the daemon
// and every other client's session with it.
func (s *server) recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("mcp request panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error (logged by the server)"}
			}
		}()
		return next(ctx, method, req)
	}
}

// quiet passes on the SDK's warnings and errors only: it logs every
// session's start and end at info level, and over stateless HTTP every
// request is a session.
func quiet(l *slog.Logger) *slog.Logger {
	return slog.New(minLevel{Handler: l.Handler(), min: slog.LevelWarn})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{Handler: h.Handler.WithAttrs(as), min: h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{Handler: h.Handler.WithGroup(name), min: h.min}
}

// ServeStdio serves one client on standard input and output until the
// client closes its end or ctx ends; both are a normal end (nil). Standard
// output is the protocol's: opts.Logger must write elsewhere (stderr).
func ServeStdio(ctx context.Context, svc api.Service, opts Options) error {
	return serveLines(ctx, svc, opts, os.Stdin, os.Stdout)
}

// serveLines serves one session of newline-delimited JSON-RPC on r and w,
// surviving malformed lines (see filterLines).
func serveLines(ctx context.Context, svc api.Service, opts Options, r io.Reader, w io.Writer) error {
	out := &lockedWriter{w: w}
	return serve(ctx, New(svc, opts), &mcp.IOTransport{Reader: filterLines(r, out), Writer: out, MaxLineLength: MaxRequestBytes + 1})
}

// serve runs one session on a transport. (Server.Run would do, but it
// logs a cancelled context, the normal way to stop, as an error.)
func serve(ctx context.Context, s *mcp.Server, t mcp.Transport) error {
	ss, err := s.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-ended
		return nil
	case err := <-ended:
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
}

// MaxRequestBytes bounds an HTTP request's body: the largest valid request
// (a lookup of api.MaxPaths paths of api.MaxPathBytes) is about 1 MiB.
const MaxRequestBytes = 2 << 20

// HTTPHandler serves the tools over streamable HTTP. It is stateless: each
// request is answered on its own, so the handler keeps nothing per client
// (nothing to expire, nothing a client can pile up) and any replica can
// answer. Authentication and rate limiting are the caller's.
func HTTPHandler(svc api.Service, opts Options) http.Handler {
	s := New(svc, opts)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: MaxRequestBytes,
			Logger: quiet(orDiscard(opts.Logger))})
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// answer is what a tool returns: the text for the model, and the same
// answer as structured output.
type answer[Out any] struct {
	text string
	out  Out
}

// handler adapts a tool's function to the SDK: its text becomes the
// content, an error becomes a tool error (IsError, the message for the
// model to act on) rather than a protocol error, and a panic becomes an
// error too, so that one bad call cannot take the server down.
func handler[In, Out any](s *server, name string, fn func(context.Context, In) (*answer[Out], error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		start := time.Now()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("mcp tool panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
				res, err = nil, fmt.Errorf("%s failed: internal error (logged by the server)", name)
			}
			s.logCall(ctx, name, start, err)
			s.auditCall(ctx, name, in, start, err)
		}()
		a, err := fn(ctx, in)
		if err != nil {
			return nil, out, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.text}}}, a.out, nil
	}
}

// logCall records a call; errors that are not the caller's are the
// server's to look into.
func (s *server) logCall(ctx context.Context, name string, start time.Time, err error) {
	attrs := []any{"tool", name, "duration", time.Since(start).Round(time.Microsecond)}
	if err != nil && !callerError(err) {
		s.log.Error("mcp tool failed", append(attrs, "error", err)...)
		return
	}
	if err != nil {
		attrs = append(attrs, "error", err.Error())
	}
	s.log.DebugContext(ctx, "mcp tool call", attrs...)
}

// register adds the tools.
func (s *server) register(ms *mcp.Server) {
	addTool(ms, s, queryTool, s.query)
	addTool(ms, s, entityTool, s.entity)
	addTool(ms, s, recentTool, s.recent)
	addTool(ms, s, lookupTool, s.lookup)
	addTool(ms, s, historyTool, s.history)
	addTool(ms, s, healthTool, s.health)
	addTool(ms, s, commitTool, s.commit)
	addTool(ms, s, logTool, s.commitLog)
	addTool(ms, s, entitySearchTool, s.entitySearch)
	addTool(ms, s, relationshipsTool, s.relationships)
}

// addTool adds a tool whose input schema is In's, adjusted by the tool's
// definition (enums and bounds, which struct tags cannot say).
func addTool[In, Out any](ms *mcp.Server, s *server, def toolDef, fn func(context.Context, In) (*answer[Out], error)) {
	t := &mcp.Tool{Name: def.name, Title: def.title, Description: def.description,
		InputSchema: inputSchema[In](def.adjust), Annotations: readOnly(def.title)}
	mcp.AddTool(ms, t, handler(s, def.name, fn))
}

// readOnly marks a tool as reading the index only: clients may call it
// without asking the user, and retry it.
func readOnly(title string) *mcp.ToolAnnotations {
	closed := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
}
