package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/memory"
)

func (a *app) addCmd() *cobra.Command {
	var name string
	var out outputFlags
	var pf policyFlags
	c := &cobra.Command{
		Use:   "add PATH",
		Short: "Register a repository to index",
		Long: `Register the Git repository containing PATH (a work tree, any directory in
it, or a bare repository). Its name defaults to the directory's name. Nothing
is indexed until 'gitmemory sync'.`,
		Example: `  gitmemory add .
  gitmemory add ~/src/api --name api --all-branches
  gitmemory add /srv/git/big.git --keep-days 365`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := out.get(c)
			if err != nil {
				return err
			}
			h, err := a.home()
			if err != nil {
				return err
			}
			r, err := h.Add(c.Context(), args[0], memory.AddOptions{Name: name, Policy: pf.policy(c)})
			if err != nil {
				return err
			}
			if format == formatJSON {
				return writeJSON(a.stdout, r)
			}
			fmt.Fprintf(a.stdout, "added %s (%s, %s)\nnext: gitmemory sync %s\n", r.Name, r.Path, describeBranches(r), r.Name)
			return nil
		},
	}
	c.Flags().StringVar(&name, "name", "", "name to register the repository under")
	out.register(c, formatText, formatText, formatJSON)
	pf.register(c)
	return c
}

func describeBranches(r *memory.Repository) string {
	switch {
	case len(r.Branches) > 0:
		return fmt.Sprintf("branches %v", r.Branches)
	case r.BranchMode == "all":
		return "all branches"
	case r.DefaultBranch == "":
		return "empty repository"
	default:
		return "branch " + r.DefaultBranch
	}
}
