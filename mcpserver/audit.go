package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gitmemory/gitmemory/api"
)

// auditCall records a tool call in the audit log, with the fields the
// HTTP API's records have, so one query of the log finds both.
func (s *server) auditCall(ctx context.Context, tool string, in any, start time.Time, err error) {
	if s.audit == nil {
		return
	}
	args, _ := json.Marshal(in)
	var named struct {
		Repository string `json:"repository"`
	}
	json.Unmarshal(args, &named)
	client := api.ClientFrom(ctx)
	if client == "" {
		client = "stdio"
	}
	status := "ok"
	if err != nil {
		status = "error"
		if callerError(err) {
			status = "bad_request"
		}
	}
	s.audit.Info("request", "op", "mcp:"+tool, "client", client, "repository", named.Repository,
		"request", api.Clip(string(args), 512), "status", status, "took", time.Since(start))
}
