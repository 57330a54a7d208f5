package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

// printRanks prints, for each question case, the rank of its first
// expected commit among the top MaxResults of keyword, vector and hybrid
// search ("-" when absent): whether a miss is one of ordering (found
// deeper) or of reach (in no list at all).
func printRanks(ctx context.Context, h *memory.Home, name string, cases []retrieve.EvalCase, opts retrieve.SearchOptions) error {
	s, err := h.OpenSearcher(ctx, name, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	for _, c := range cases {
		if c.Question == "" {
			continue
		}
		fmt.Printf("%-8s %-4s %-8s", name, c.ID, c.Kind)
		for _, m := range []retrieve.Mode{retrieve.ModeKeyword, retrieve.ModeVector, retrieve.ModeHybrid} {
			a, err := s.Search(ctx, retrieve.Request{Query: c.Question, Mode: m, Limit: retrieve.MaxResults})
			if err != nil {
				return err
			}
			best := -1
			for i, it := range a.Items {
				if slices.Contains(c.Expected, it.Commit) && best < 0 {
					best = i + 1
				}
			}
			if best < 0 {
				fmt.Printf(" %7s=-", m)
			} else {
				fmt.Printf(" %7s=%d", m, best)
			}
		}
		r, err := retrieve.MessageBM25Ranker(s.Searcher)(ctx, c)
		if err != nil {
			return err
		}
		best := slices.IndexFunc(r, func(r retrieve.Rank) bool { return slices.Contains(c.Expected, r[0]) })
		if best < 0 {
			fmt.Printf(" %7s=-", "bm25")
		} else {
			fmt.Printf(" %7s=%d", "bm25", best+1)
		}
		fmt.Println()
	}
	return nil
}
