package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// Error is a failed request as the API reports it: an HTTP status, a
// stable code for scripts and a one-line message for people.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"error"`
	// Field names the request field a bad_request is about ("" when the
	// request as a whole is wrong: malformed JSON, too large).
	Field string `json:"field,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// codes pairs each stable code with the sentinel it stands for, so an
// error that crossed the API still satisfies errors.Is.
var codes = []struct {
	code   string
	status int
	err    error
}{
	{"unknown_repository", http.StatusNotFound, memory.ErrUnknownRepo},
	{"unknown_entity", http.StatusNotFound, memory.ErrUnknownEntity},
	{"bad_request", http.StatusBadRequest, ErrBadRequest},
	{"bad_request", http.StatusBadRequest, memory.ErrBadName},
	{"bad_request", http.StatusBadRequest, retrieve.ErrBadLookup},
	{"bad_request", http.StatusBadRequest, retrieve.ErrRootPath},
	{"bad_request", http.StatusBadRequest, retrieve.ErrBudgetTooSmall},
	{"exists", http.StatusConflict, memory.ErrExists},
	{"locked", http.StatusConflict, store.ErrLocked},
	{"locked", http.StatusConflict, graph.ErrLocked},
	{"canceled", 499, context.Canceled},
	{"timeout", http.StatusGatewayTimeout, context.DeadlineExceeded},
}

// Is makes errors.Is(err, memory.ErrUnknownRepo) and the like hold for an
// error returned by a daemon.
func (e *Error) Is(target error) bool {
	for _, c := range codes {
		if c.code == e.Code && c.err == target {
			return true
		}
	}
	return false
}

// toError classifies err for the wire.
func toError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var fe *FieldError
	errors.As(err, &fe)
	for _, c := range codes {
		if errors.Is(err, c.err) {
			e := &Error{Status: c.status, Code: c.code, Message: err.Error()}
			if fe != nil {
				e.Field = fe.Field
			}
			return e
		}
	}
	return &Error{Status: http.StatusInternalServerError, Code: "internal", Message: err.Error()}
}

// FieldError is an invalid request field: a 400 that says which field
// and why. It satisfies errors.Is(err, ErrBadRequest).
type FieldError struct {
	Field string
	Why   string
}

func (e *FieldError) Error() string { return "bad request: " + e.Field + ": " + e.Why }

// Is makes a FieldError an ErrBadRequest.
func (e *FieldError) Is(target error) bool { return target == ErrBadRequest }

// badField returns a FieldError; the value quoted in why is clipped by the
// caller (Clip), so that a huge argument is not echoed back whole.
func badField(field, format string, args ...any) error {
	return &FieldError{Field: field, Why: fmt.Sprintf(format, args...)}
}

// Clip shortens s for an error message or a log line: at most n bytes,
// cut at a rune boundary, with the original length said when cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}
