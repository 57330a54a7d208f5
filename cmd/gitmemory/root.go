package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
)

// app carries what every subcommand needs.
type app struct {
	homeDir        string
	stdout, stderr io.Writer
}

// home opens the home directory. A blank one is refused: it would put
// the stores in whatever the current directory happens to be.
func (a *app) home() (*memory.Home, error) {
	if strings.TrimSpace(a.homeDir) == "" {
		return nil, fmt.Errorf("--home is empty: give a directory, or leave the flag out for %s", memory.DefaultDir())
	}
	return memory.OpenHome(a.homeDir)
}

// service is where commands are answered: the daemon serving this home if
// one runs (it holds the stores, which are single-process), else this
// process, opening the stores itself. GITMEMORY_NO_DAEMON=1 forces the
// latter (reads only: a sync would find the stores locked).
func (a *app) service(ctx context.Context) (api.Service, *memory.Home, error) {
	h, err := a.home()
	if err != nil {
		return nil, nil, err
	}
	if os.Getenv("GITMEMORY_NO_DAEMON") == "" {
		if c := api.Discover(ctx, h.Dir); c != nil {
			return c, h, nil
		}
	}
	return api.NewLocal(h), h, nil
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	a := &app{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "gitmemory",
		Short: "Turn a Git repository's history into queryable knowledge",
		Long: `gitmemory indexes a Git repository's history (commits, diffs, refs, issue
references) into a local store, so that you or an AI assistant can ask why
code is the way it is, how it evolved and which changes belong together.

Everything is stored under the home directory, one data directory per
repository: $GITMEMORY_HOME, else $XDG_DATA_HOME/gitmemory, else
~/.local/share/gitmemory.`,
		Example: `  gitmemory add ~/src/myproject
  gitmemory sync myproject
  gitmemory status myproject`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&a.homeDir, "home", memory.DefaultDir(), "gitmemory home directory")
	root.AddCommand(a.addCmd(), a.listCmd(), a.syncCmd(), a.statusCmd(), a.removeCmd(), a.entityCmd(), a.historyCmd(), a.recentCmd(), a.queryCmd(), a.evalCmd())
	root.AddCommand(a.lookupCmd(), a.daemonCmd(), a.mcpCmd(), a.healthCmd(), a.showCmd(), a.logCmd())
	return root
}
