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
	var repo repoFlag
	var out outputFlags
	var mode, split string
	var baselines bool
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
		Example: `  gitmemory eval eval/cobra.jsonl --repo cobra
  gitmemory eval eval/jq.jsonl --repo jq --split test --format markdown`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := out.get(c)
			if err != nil {
				return err
			}
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
			splits := []string{retrieve.SplitDev, retrieve.SplitTest}
			switch split {
			case "all":
			case retrieve.SplitDev, retrieve.SplitTest:
				splits = []string{split}
			default:
				return fmt.Errorf("--split %q: want dev, test or all", split)
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
				for _, sp := range splits {
					part := retrieve.OfSplit(cases, sp)
					if len(part) == 0 {
						continue
					}
					rep, err := retrieve.Evaluate(c.Context(), rk.name, part, rk.rank)
					if err != nil {
						return err
					}
					rep.Split = sp
					reps = append(reps, rep)
				}
			}
			if len(reps) == 0 {
				return fmt.Errorf("%s: no %s cases", args[0], split)
			}
			switch format {
			case formatJSON:
				return writeJSON(a.stdout, reps)
			case formatMarkdown:
				evalMarkdown(a.stdout, reps)
			default:
				printEval(a.stdout, reps)
			}
			return nil
		},
	}
	repo.register(c)
	out.register(c, formatText, formatText, formatJSON, formatMarkdown)
	f := c.Flags()
	f.StringVar(&mode, "mode", "", "search mode for the questions: hybrid, vector, keyword or basic (default: best available)")
	f.StringVar(&split, "split", "all", "which cases to run: dev (tune on these), test (report these) or all, each split in its own columns")
	f.BoolVar(&baselines, "baselines", true, "also run the two baselines")
	return c
}

// printEval prints one row per ranker and kind, with a column group per
// split, so that dev and test figures sit side by side.
func printEval(w io.Writer, reps []*retrieve.EvalReport) {
	var rankers, splits []string
	kinds := []string{"all"}
	byKey := map[[3]string]retrieve.Scores{}
	for _, r := range reps {
		if !slices.Contains(rankers, r.Ranker) {
			rankers = append(rankers, r.Ranker)
		}
		if !slices.Contains(splits, r.Split) {
			splits = append(splits, r.Split)
		}
		byKey[[3]string{r.Ranker, r.Split, "all"}] = r.All
		for k, s := range r.ByKind {
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
			byKey[[3]string{r.Ranker, r.Split, k}] = s
		}
	}
	slices.Sort(kinds[1:])
	fmt.Fprintf(w, "%-16s %-10s", "", "")
	for _, sp := range splits {
		fmt.Fprintf(w, " | %-27s", sp)
	}
	fmt.Fprintf(w, "\n%-16s %-10s", "ranker", "kind")
	for range splits {
		fmt.Fprintf(w, " | %5s %6s %7s %6s", "cases", "R@5", "R@10", "MRR")
	}
	fmt.Fprintln(w)
	for _, rk := range rankers {
		for _, k := range kinds {
			fmt.Fprintf(w, "%-16s %-10s", rk, k)
			for _, sp := range splits {
				s, ok := byKey[[3]string{rk, sp, k}]
				if !ok {
					fmt.Fprintf(w, " | %5s %6s %7s %6s", "-", "", "", "")
					continue
				}
				fmt.Fprintf(w, " | %5d %6.3f %7.3f %6.3f", s.Cases, s.Recall5, s.Recall10, s.MRR)
			}
			fmt.Fprintln(w)
		}
	}
	for _, r := range reps {
		if r.Ranker == rankers[0] && len(r.Misses) > 0 {
			fmt.Fprintf(w, "\n%s missed on %s (no expected commit in the top 10): %s", r.Ranker, r.Split, strings.Join(r.Misses, " "))
		}
	}
	fmt.Fprintln(w)
}

// evalMarkdown prints a table row per ranker, split and kind.
func evalMarkdown(w io.Writer, reps []*retrieve.EvalReport) {
	var rows [][]string
	for _, r := range reps {
		kinds := []string{"all"}
		for k := range r.ByKind {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds[1:])
		for _, k := range kinds {
			s := r.All
			if k != "all" {
				s = r.ByKind[k]
			}
			rows = append(rows, []string{r.Ranker, r.Split, k, fmt.Sprint(s.Cases),
				fmt.Sprintf("%.3f", s.Recall5), fmt.Sprintf("%.3f", s.Recall10), fmt.Sprintf("%.3f", s.MRR)})
		}
	}
	mdTable(w, []string{"ranker", "split", "kind", "cases", "recall@5", "recall@10", "MRR"}, rows)
}

// openSearcher resolves a repository argument and opens its stores in this
// process for questions, with the [search] configuration of config.toml.
// Evaluation reads only, so it runs beside a daemon.
func (a *app) openSearcher(ctx context.Context, repo repoFlag) (string, *memory.Searcher, error) {
	h, err := a.home()
	if err != nil {
		return "", nil, err
	}
	name, err := repo.resolve(ctx, h)
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
