package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func (a *app) listCmd() *cobra.Command {
	var jsonOut bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List registered repositories",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			svc, _, err := a.service(c.Context())
			if err != nil {
				return err
			}
			repos, err := svc.List(c.Context())
			if err != nil {
				return err
			}
			if jsonOut {
				if repos == nil {
					return writeJSON(a.stdout, []any{})
				}
				return writeJSON(a.stdout, repos)
			}
			if len(repos) == 0 {
				fmt.Fprintln(a.stdout, "no repositories registered: gitmemory add PATH")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tBRANCHES\tLAST SYNC\tPATH")
			for _, r := range repos {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, describeBranches(&r), ago(r.LastSyncedAt), r.Path)
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&jsonOut, "json", false, "print as JSON")
	return c
}
