package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/retrieve"
)

type queryFlags struct {
	repo, mode, intent string
	limit              int
	debug, jsonOut     bool
}

func (a *app) queryCmd() *cobra.Command {
	var f queryFlags
	c := &cobra.Command{
		Use:   `query "QUESTION"`,
		Short: "Ask why code is the way it is, or how it evolved",
		Long: `Answer a question from the repository's history: the commits that explain it,
found by keyword (BM25 over messages, summaries, design notes, paths and
function names), by meaning (vectors) and through the knowledge graph (the
files and functions the question names, what changes with them), merged and
ranked.

The mode is the best the stores allow (hybrid, else keyword) and is shown with
every answer, with a warning when degraded; --mode forces one. --intent
overrides the auto classifier (plan, execute, explain, debug, research; English
and Russian markers). A question that matches nothing says so; a question too
broad gets suggestions. Results older than 90 days whose files changed since
are marked stale, and files gone from the head are marked.`,
		Example: `  gitmemory query "why does ExecuteC strip flags before finding the command?"
  gitmemory query "when was context support added" --json
  gitmemory query "почему отключён prefix matching" --debug`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			h, err := a.home()
			if err != nil {
				return err
			}
			name, err := h.Resolve(c.Context(), f.repo)
			if err != nil {
				return err
			}
			opts, err := retrieve.LoadSearchConfig(filepath.Join(h.Dir, configFile))
			if err != nil {
				return err
			}
			s, err := h.OpenSearcher(c.Context(), name, opts)
			if err != nil {
				return err
			}
			defer s.Close()
			ans, err := s.Search(c.Context(), retrieve.Request{Query: args[0], Intent: f.intent, Mode: retrieve.Mode(f.mode), Limit: f.limit})
			if err != nil {
				return err
			}
			if !f.debug {
				for i := range ans.Items {
					ans.Items[i].Components = nil
				}
			}
			if f.jsonOut {
				return writeJSON(a.stdout, ans)
			}
			printAnswer(a.stdout, ans, f.debug)
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.repo, "repo", ".", "the repository: a registered name or a path inside it")
	fl.StringVar(&f.mode, "mode", "", "hybrid, vector, keyword or basic (default: the best available)")
	fl.StringVar(&f.intent, "intent", "auto", "auto, plan, execute, explain, debug or research")
	fl.IntVar(&f.limit, "limit", 5, fmt.Sprintf("results (at most %d)", retrieve.MaxResults))
	fl.BoolVar(&f.debug, "debug", false, "show each result's score components")
	fl.BoolVar(&f.jsonOut, "json", false, "print as JSON")
	return c
}

func printAnswer(w io.Writer, a *retrieve.Answer, debug bool) {
	mark := ""
	if a.Degraded {
		mark = "⚠ "
	}
	fmt.Fprintf(w, "%s[%s] %s (intent %s)\n", mark, a.Mode, a.Query, a.Intent)
	for _, warn := range a.Warnings {
		fmt.Fprintf(w, "  ⚠ %s\n", warn)
	}
	if len(a.Suggestions) > 0 {
		fmt.Fprintf(w, "  try: %s\n", strings.Join(a.Suggestions, ", "))
	}
	for _, it := range a.Items {
		flags := ""
		if it.Stale {
			flags += " [stale?]"
		}
		if len(it.Gone) > 0 {
			flags += " [source may be outdated: " + strings.Join(it.Gone, ", ") + " gone]"
		}
		fmt.Fprintf(w, "%s %.3f  %s%s\n", short(it.Commit), it.Score, strings.Join(it.Why, ", "), flags)
		if debug {
			fmt.Fprintf(w, "    %v\n", it.Components)
		}
	}
	if a.Clarify != "" {
		fmt.Fprintf(w, "clarify: %s\n", a.Clarify)
	}
}
