package main

import (
	"log/slog"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/mcpserver"
)

// version is reported to MCP clients; release builds set it with
// -ldflags "-X main.version=...".
var version = "dev"

func (a *app) mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP over stdio, for an AI assistant",
		Long: `Serve the Model Context Protocol on stdin and stdout, for an assistant that
starts gitmemory itself (Claude Desktop, Claude Code, Cursor, ...). The
tools answer from this home's repositories: through the daemon when one
runs (it keeps them current), else from the stores directly.

Tools: gitmemory_query (a question, answered with a Context Pack within
token_budget), gitmemory_entity_history, gitmemory_recent_changes,
gitmemory_lookup and gitmemory_history. The repository argument is the name
of a registered repository; it may be left out when only one is registered.

Configure an assistant with a command and arguments, e.g. in Claude Code:
  claude mcp add gitmemory -- gitmemory mcp
or in an mcpServers JSON configuration:
  {"mcpServers": {"gitmemory": {"command": "gitmemory", "args": ["mcp"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			svc, h, err := a.service(c.Context())
			if err != nil {
				return err
			}
			if _, local := svc.(*api.Local); local {
				h.ShareVectors() // one MCP connection asks many questions: keep the vectors loaded
			}
			return mcpserver.ServeStdio(c.Context(), svc, mcpserver.Options{Version: version, Logger: newLogger(a.stderr, "text", false)})
		},
	}
}

func mcpHTTP(svc api.Service, audit *slog.Logger) http.Handler {
	return mcpserver.HTTPHandler(svc, mcpserver.Options{Version: version, Audit: audit})
}
