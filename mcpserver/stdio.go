package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The go-sdk's stdio transport ends the session at the first line that is
// not JSON, and at a line over its buffer: one bad message from a client
// would kill the server the assistant depends on. filterLines stands in
// front of it: a line that is not JSON, or too long, is answered with a
// JSON-RPC error (id null, as the spec says when the id cannot be read)
// and dropped; the session goes on.

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// filterLines copies the JSON lines of r to the returned reader and
// answers the others on w.
func filterLines(r io.Reader, w io.Writer) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br, MaxRequestBytes)
			switch {
			case tooLong:
				writeError(w, codeInvalidRequest, fmt.Sprintf("request over %d bytes", MaxRequestBytes))
			case len(bytes.TrimSpace(line)) == 0:
			case !json.Valid(line):
				writeError(w, codeParseError, "parse error: not JSON")
			case !isMessage(line):
				writeError(w, codeInvalidRequest, `invalid request: want a JSON-RPC 2.0 object ({"jsonrpc": "2.0", "method": ...})`)
			default:
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return // the session ended
				}
			}
			if err != nil {
				pw.CloseWithError(err) // io.EOF: a clean end
				return
			}
		}
	}()
	return pr
}

// readLine reads one line without its newline; a line over limit is
// consumed and reported as tooLong.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > limit+1 {
			tooLong = true
			line = nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// isMessage reports whether a JSON line has the shape of a JSON-RPC 2.0
// request, notification or response, which is all the SDK accepts without
// ending the session.
func isMessage(line []byte) bool {
	var m struct {
		Version string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		ID      json.RawMessage `json:"id"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil || m.Version != "2.0" {
		return false
	}
	if len(m.ID) > 0 && !(m.ID[0] == '"' || m.ID[0] == '-' || m.ID[0] >= '0' && m.ID[0] <= '9') {
		return false // an id is a string or a number
	}
	if m.Method != nil {
		return len(m.Params) == 0 || m.Params[0] == '{' || m.Params[0] == '['
	}
	return len(m.ID) > 0 && (len(m.Result) > 0 || len(m.Error) > 0)
}

func writeError(w io.Writer, code int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	w.Write(append(b, '\n'))
}

// lockedWriter lets the filter's errors and the session's messages share
// stdout without interleaving: each writes whole lines in one call.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
