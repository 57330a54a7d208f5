package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

func (a *app) evalCmd() *cobra.Command {
	var repo, mode string
	var jsonOut, baselines bool
	c := &cobra.Command{
		Use:   "eval FILE.jsonl",
		Short: "Measure answer quality on a set of questions with known answers",
		Long: `Run every case of an evaluation file and print recall@5, recall@10 and MRR,
overall and per kind, beside two baselines on the same cases: git log --grep on
the question's words, and plain BM25 over commit messages.

One JSON object a line:
  {"id": "q1", "kind": "why", "question": "why ...?", "expected": ["<full sha>", ...]}
  {"id": "h1", "kind": "history", "path": "src/a.go", "expected": ["<full sha>"]}
A question runs as gitmemory query, a path as gitmemory history.`,
		Example: `  gitmemory eval eval/cobra.jsonl --repo cobra`,
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			cases, err := retrieve.ReadEvalCases(f)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			name, s, err := a.openSearcher(c.Context(), repo)
			if err != nil {
				return err
			}
			defer s.Close()
			h, err := a.home()
			if err != nil {
				return err
			}
			r, err := h.Get(c.Context(), name)
			if err != nil {
				return err
			}
			type ranker struct {
				name string
				rank retrieve.Ranker
			}
			rankers := []ranker{{"gitmemory", retrieve.SearchRanker(s.Searcher, retrieve.Mode(mode))}}
			if baselines {
				rankers = append(rankers, ranker{"git log --grep", retrieve.GitGrepRanker(r.Path)},
					ranker{"BM25 messages", retrieve.MessageBM25Ranker(s.Searcher)})
			}
			var reps []*retrieve.EvalReport
			for _, rk := range rankers {
				rep, err := retrieve.Evaluate(c.Context(), rk.name, cases, rk.rank)
				if err != nil {
					return err
				}
				reps = append(reps, rep)
			}
			if jsonOut {
				return writeJSON(a.stdout, reps)
			}
			printEval(a.stdout, reps)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&repo, "repo", ".", "the repository the cases are about: a registered name or a path inside it")
	f.StringVar(&mode, "mode", "", "search mode for the questions: hybrid, vector, keyword or basic (default: best available)")
	f.BoolVar(&baselines, "baselines", true, "also run the two baselines")
	f.BoolVar(&jsonOut, "json", false, "print as JSON")
	return c
}

func printEval(w io.Writer, reps []*retrieve.EvalReport) {
	kinds := []string{}
	for k := range reps[0].ByKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	fmt.Fprintf(w, "%-16s %-10s %6s %9s %10s %6s\n", "ranker", "kind", "cases", "recall@5", "recall@10", "MRR")
	for _, r := range reps {
		row := func(kind string, s retrieve.Scores) {
			fmt.Fprintf(w, "%-16s %-10s %6d %9.3f %10.3f %6.3f\n", r.Ranker, kind, s.Cases, s.Recall5, s.Recall10, s.MRR)
		}
		row("all", r.All)
		for _, k := range kinds {
			row(k, r.ByKind[k])
		}
	}
	if len(reps[0].Misses) > 0 {
		fmt.Fprintf(w, "\n%s missed (no expected commit in the top 10): %s\n", reps[0].Ranker, strings.Join(reps[0].Misses, " "))
	}
}

// openSearcher resolves a repository argument and opens its stores in this
// process for questions, with the [search] configuration of config.toml.
// Evaluation reads only, so it runs beside a daemon.
func (a *app) openSearcher(ctx context.Context, repo string) (string, *memory.Searcher, error) {
	h, err := a.home()
	if err != nil {
		return "", nil, err
	}
	name, err := h.Resolve(ctx, repo)
	if err != nil {
		return "", nil, err
	}
	opts, err := retrieve.LoadSearchConfig(filepath.Join(h.Dir, configFile))
	if err != nil {
		return "", nil, err
	}
	s, err := h.OpenSearcher(ctx, name, opts)
	return name, s, err
}
