package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/retrieve"
)

// request turns query's flags into the service's request, checking seed
// 003's options here so that a bad value names its flag.
func (f *queryFlags) request(c *cobra.Command, question string) (api.QueryRequest, error) {
	q := api.QueryRequest{Query: question, Intent: f.intent, Mode: f.mode, Limit: f.limit, Tokens: f.tokens,
		AnswerOnly: f.list, IncludeRewritten: f.rewritten, Debug: f.debug, Full: f.full, Soft: f.soft, SeedOrder: f.seedOrder}
	fl := c.Flags()
	if f.soft && !f.seedOrder {
		return q, fmt.Errorf("--soft applies only with --seed-order: without it no Soft result is left out")
	}
	if f.limit < 0 || f.limit > retrieve.MaxResults {
		return q, fmt.Errorf("--max-results %d: want 1 to %d", f.limit, retrieve.MaxResults)
	}
	if fl.Changed("include-diffs") {
		q.IncludeDiffs = &f.diffs
	}
	if fl.Changed("include-tests") {
		q.IncludeTests = &f.tests
	}
	if fl.Changed("recency-weight") {
		if f.recency < 0 || f.recency > 1 {
			return q, fmt.Errorf("--recency-weight %g: want 0 to 1", f.recency)
		}
		q.RecencyWeight = &f.recency
	}
	if f.dates != "" {
		r, err := retrieve.ParseDateRange(f.dates)
		if err != nil {
			return q, fmt.Errorf("--date-range: %w", err)
		}
		q.DateRange = &r
	}
	return q, nil
}

// labelText is seed 004's "[Hard] [S1]".
func labelText(it retrieve.Item) string {
	return "[" + strings.ToUpper(it.Tier[:1]) + it.Tier[1:] + "] [" + it.Confidence + "]"
}

// printMatch shows seed 002's name-matching settings under --debug.
func printMatch(w io.Writer, m *retrieve.MatchSettings) {
	if m != nil {
		fmt.Fprintf(w, "name matching: threshold %.2f (%s), fuzzy weight %.2f (%s), keyword weight %.2f (%s); from %s\n",
			m.Threshold, retrieve.EnvMatchThreshold, m.FuzzyWeight, retrieve.EnvMatchFuzzyWeight, m.KeywordWeight, retrieve.EnvMatchKeywordWeight, m.From)
	}
}
