package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/memory"
)

func (a *app) listCmd() *cobra.Command {
	var out outputFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List registered repositories",
		Example: `  gitmemory list
  gitmemory list --format json | jq -r '.[].name'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			format, err := out.get(c)
			if err != nil {
				return err
			}
			svc, _, err := a.service(c.Context())
			if err != nil {
				return err
			}
			repos, broken := svc.List(c.Context())
			if broken != nil && repos == nil {
				return broken
			}
			// The readable repositories are listed, then the unreadable
			// ones named in the error (and the exit status).
			if err := listRepos(a, repos, format); err != nil {
				return err
			}
			return broken
		},
	}
	out.register(c, formatText, formatText, formatJSON, formatMarkdown)
	return c
}

func listRepos(a *app, repos []memory.Repository, format string) error {
	switch {
	case format == formatJSON:
		if repos == nil {
			repos = []memory.Repository{}
		}
		return writeJSON(a.stdout, repos)
	case len(repos) == 0:
		fmt.Fprintln(a.stdout, "no repositories registered: gitmemory add PATH")
		return nil
	case format == formatMarkdown:
		listMarkdown(a.stdout, repos)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tBRANCHES\tLAST SYNC\tPATH")
	for _, r := range repos {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, describeBranches(&r), ago(r.LastSyncedAt), r.Path)
	}
	return tw.Flush()
}

func listMarkdown(w io.Writer, repos []memory.Repository) {
	rows := make([][]string, len(repos))
	for i, r := range repos {
		rows[i] = []string{r.Name, describeBranches(&r), ago(r.LastSyncedAt), code(r.Path)}
	}
	mdTable(w, []string{"name", "branches", "last sync", "path"}, rows)
}
