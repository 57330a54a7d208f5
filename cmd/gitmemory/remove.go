package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
)

func (a *app) removeCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "remove NAME",
		Aliases: []string{"rm"},
		Short:   "Unregister a repository and delete all of its indexed data",
		Long: `Delete a repository's data directory: every byte gitmemory stored about it.
The Git repository itself is not touched.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			// An empty argument would resolve as the current directory
			// and delete the index of the work tree the user stands in.
			if strings.TrimSpace(args[0]) == "" {
				return fmt.Errorf("remove: the repository name is empty: give the name 'gitmemory list' shows")
			}
			svc, h, err := a.service(c.Context())
			if err != nil {
				return err
			}
			name, err := h.Resolve(c.Context(), args[0])
			if err != nil {
				return err
			}
			if err := svc.Remove(c.Context(), name); err != nil {
				return err
			}
			if _, viaDaemon := svc.(*api.Client); !viaDaemon {
				a.recordDeletion(h.Dir, "remove", name) // the daemon records its own
			}
			fmt.Fprintf(a.stdout, "removed %s and its data\n", name)
			return nil
		},
	}
}
