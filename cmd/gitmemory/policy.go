package main

import (
	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/memory"
)

// policyFlags are the branch and retention flags shared by add and sync.
type policyFlags struct {
	all, defaultOnly bool
	branches         []string
	keepDays         int
	keepCommits      int
	keepAll          bool
	graph            string
}

func (p *policyFlags) register(c *cobra.Command) {
	f := c.Flags()
	f.BoolVar(&p.all, "all-branches", false, "track every local branch")
	f.BoolVar(&p.defaultOnly, "default-branch", false, "track only the default branch (the default)")
	f.StringSliceVar(&p.branches, "branch", nil, "track these branches (comma-separated or repeated)")
	f.IntVar(&p.keepDays, "keep-days", 0, "retention: keep only commits of the last N days (hard delete older)")
	f.IntVar(&p.keepCommits, "keep-commits", 0, "retention: keep only the newest N commits (hard delete older)")
	f.BoolVar(&p.keepAll, "keep-all", false, "retention: keep all history (the default)")
	f.StringVar(&p.graph, "graph", "", `where the knowledge graph lives: a postgres:// DSN (one database per
repository), or "embedded" for the bolt store in the data directory (the default);
changing it rebuilds the graph from the metadata store`)
	c.MarkFlagsMutuallyExclusive("all-branches", "default-branch", "branch")
	c.MarkFlagsMutuallyExclusive("keep-all", "keep-days")
	c.MarkFlagsMutuallyExclusive("keep-all", "keep-commits")
}

// policy turns the flags that were set into a memory.Policy.
func (p *policyFlags) policy(c *cobra.Command) memory.Policy {
	var pol memory.Policy
	mode := func(m indexer.BranchMode) { pol.Mode = &m }
	switch {
	case p.all:
		mode(indexer.AllBranches)
	case p.defaultOnly:
		mode(indexer.DefaultBranch)
	case len(p.branches) > 0:
		pol.Branches = p.branches
	}
	if c.Flags().Changed("keep-days") {
		pol.KeepDays = &p.keepDays
	}
	if c.Flags().Changed("keep-commits") {
		pol.KeepCommits = &p.keepCommits
	}
	if c.Flags().Changed("graph") {
		g := p.graph
		if g == "embedded" {
			g = ""
		}
		pol.Graph = &g
	}
	if p.keepAll {
		zero := 0
		pol.KeepDays, pol.KeepCommits = &zero, &zero
	}
	return pol
}
