package api

import (
	"context"
	"errors"
	"net/http"

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
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return &Error{Status: c.status, Code: c.code, Message: err.Error()}
		}
	}
	return &Error{Status: http.StatusInternalServerError, Code: "internal", Message: err.Error()}
}
