// Command xeval scores gitmemory's ranking on several evaluation sets at
// once, each against its repository indexed in a gitmemory home under the
// set's name (eval/jq.jsonl → repository "jq"):
//
//	xeval -home H [-split dev] [-mode M] [-config F] eval/jq.jsonl eval/fzf.jsonl ...
//
// It prints one line per set (all kinds, then why-questions alone) and
// their mean, so that a ranking change is judged on every repository, not
// the one it was made for. -config reads a [search] section as config.toml
// does, to try weights without rebuilding.
//
// With -loo it reports the cross-repository figure: for each set left out,
// the -grid configuration with the best mean dev score on the other sets
// is scored on the left-out set's test split.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

type set struct {
	name  string
	cases []retrieve.EvalCase
}

// ranks switches to printing ranks instead of scores.
var ranks bool

func main() {
	home := flag.String("home", os.Getenv("GITMEMORY_HOME"), "gitmemory home holding the indexed repositories")
	split := flag.String("split", "dev", "dev, test or all")
	mode := flag.String("mode", "", "search mode (default: best available)")
	config := flag.String("config", "", "a TOML file with a [search] section")
	loo := flag.Bool("loo", false, "leave-one-out: choose among the -grid configurations on the other sets' dev, score the left-out set's test")
	grid := flag.String("grid", "", "with -loo: a directory of TOML files, one configuration each")
	verbose := flag.Bool("v", false, "print the missed cases")
	flag.BoolVar(&ranks, "ranks", false, "print each question's first expected rank in keyword, vector and hybrid search")
	flag.Parse()
	if err := run(*home, *split, *mode, *config, *loo, *grid, *verbose, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "xeval:", err)
		os.Exit(1)
	}
}

func run(home, split, mode, config string, loo bool, grid string, verbose bool, files []string) error {
	ctx := context.Background()
	if len(files) == 0 {
		return fmt.Errorf("no evaluation sets given")
	}
	h, err := memory.OpenHome(home)
	if err != nil {
		return err
	}
	var sets []set
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			return err
		}
		cases, err := retrieve.ReadEvalCases(r)
		r.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		sets = append(sets, set{strings.TrimSuffix(filepath.Base(f), ".jsonl"), cases})
	}
	if loo {
		return leaveOneOut(ctx, h, sets, mode, grid)
	}
	opts, err := retrieve.LoadSearchConfig(config)
	if err != nil {
		return err
	}
	kinds := []string{"why", "bugfix", "feature"}
	var sumAll [2]float64
	sumKind := map[string]*[3]float64{} // recall@5, MRR, sets with the kind
	for _, s := range sets {
		cases := s.cases
		if split != "all" {
			cases = retrieve.OfSplit(cases, split)
		}
		if ranks {
			if err := printRanks(ctx, h, s.name, cases, opts); err != nil {
				return err
			}
			continue
		}
		rep, err := score(ctx, h, s.name, cases, opts, mode)
		if err != nil {
			return err
		}
		why := rep.ByKind["why"]
		fmt.Printf("%-8s all R@5 %.3f MRR %.3f | why R@5 %.3f MRR %.3f (%d cases)\n", s.name, rep.All.Recall5, rep.All.MRR, why.Recall5, why.MRR, rep.All.Cases)
		if verbose && len(rep.Misses) > 0 {
			fmt.Printf("         missed: %s\n", strings.Join(rep.Misses, " "))
		}
		sumAll[0] += rep.All.Recall5
		sumAll[1] += rep.All.MRR
		for _, k := range kinds {
			if r, ok := rep.ByKind[k]; ok && r.Cases > 0 {
				if sumKind[k] == nil {
					sumKind[k] = &[3]float64{}
				}
				sumKind[k][0] += r.Recall5
				sumKind[k][1] += r.MRR
				sumKind[k][2]++
			}
		}
	}
	if ranks {
		return nil
	}
	n := float64(len(sets))
	mean := func(k string) (float64, float64) {
		if sk := sumKind[k]; sk != nil {
			return sk[0] / sk[2], sk[1] / sk[2]
		}
		return 0, 0
	}
	wr, wm := mean("why")
	fmt.Printf("%-8s all R@5 %.3f MRR %.3f | why R@5 %.3f MRR %.3f\n", "mean", sumAll[0]/n, sumAll[1]/n, wr, wm)
	br, bm := mean("bugfix")
	fr, fm := mean("feature")
	fmt.Printf("%-8s bugfix R@5 %.3f MRR %.3f | feature R@5 %.3f MRR %.3f (means over the sets asking each)\n", "", br, bm, fr, fm)
	return nil
}

func score(ctx context.Context, h *memory.Home, name string, cases []retrieve.EvalCase, opts retrieve.SearchOptions, mode string) (*retrieve.EvalReport, error) {
	s, err := h.OpenSearcher(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return retrieve.Evaluate(ctx, "gitmemory", cases, retrieve.SearchRanker(s.Searcher, retrieve.Mode(mode)))
}

// objective is what a configuration is chosen by: the mean of why
// recall@5, why MRR and recall@5 over all kinds.
func objective(r *retrieve.EvalReport) float64 {
	why := r.ByKind["why"]
	return (why.Recall5 + why.MRR + r.All.Recall5) / 3
}

func leaveOneOut(ctx context.Context, h *memory.Home, sets []set, mode, grid string) error {
	configs, err := filepath.Glob(filepath.Join(grid, "*.toml"))
	if err != nil || len(configs) == 0 {
		return fmt.Errorf("-loo needs -grid DIR with *.toml configurations")
	}
	// dev[c][s] is configuration c's objective on set s's dev split.
	dev := make([][]float64, len(configs))
	for ci, c := range configs {
		opts, err := retrieve.LoadSearchConfig(c)
		if err != nil {
			return err
		}
		for _, s := range sets {
			rep, err := score(ctx, h, s.name, retrieve.OfSplit(s.cases, retrieve.SplitDev), opts, mode)
			if err != nil {
				return err
			}
			dev[ci] = append(dev[ci], objective(rep))
		}
	}
	for si, s := range sets {
		test := retrieve.OfSplit(s.cases, retrieve.SplitTest)
		if len(test) == 0 {
			continue
		}
		best, bestScore := 0, -1.0
		for ci := range configs {
			sum := 0.0
			for sj := range sets {
				if sj != si {
					sum += dev[ci][sj]
				}
			}
			if sum > bestScore {
				best, bestScore = ci, sum
			}
		}
		opts, err := retrieve.LoadSearchConfig(configs[best])
		if err != nil {
			return err
		}
		rep, err := score(ctx, h, s.name, test, opts, mode)
		if err != nil {
			return err
		}
		why := rep.ByKind["why"]
		fmt.Printf("%-8s test, chosen on the others' dev: %-24s all R@5 %.3f MRR %.3f | why R@5 %.3f MRR %.3f\n",
			s.name, filepath.Base(configs[best]), rep.All.Recall5, rep.All.MRR, why.Recall5, why.MRR)
	}
	return nil
}
