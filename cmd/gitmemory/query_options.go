package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

// request turns query's flags into the service's request, checking seed
// 003's options here so that a bad value names its flag.
func (f *queryFlags) request(c *cobra.Command, question string) (api.QueryRequest, error) {
	q := api.QueryRequest{Query: question, Intent: f.intent, Mode: f.mode, Limit: f.limit, Tokens: f.tokens,
		AnswerOnly: f.list, IncludeRewritten: f.rewritten, Debug: f.debug, Full: f.full, Soft: f.soft, SeedOrder: f.seedOrder}
	fl := c.Flags()
	if f.commitID != "" && f.out == "" {
		return q, fmt.Errorf("--commit-id names the commit of a pack written with --out DIR; give --out too")
	}
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

// writePack writes the pack under --out with seed 001's delta: the anchor
// (--commit-id, else the pack log's latest commit) and the commits since
// it on the default branch, at most retrieve.MaxDeltas.
func (a *app) writePack(ctx context.Context, svc api.Service, h *memory.Home, repo string, f queryFlags, p *retrieve.Pack, ans *retrieve.Answer) (string, error) {
	anchor, source, err := retrieve.DeltaAnchor(f.commitID, f.out)
	if err != nil {
		return "", err
	}
	var deltas []string
	if anchor != "" && anchor != "none" {
		r, err := h.Get(ctx, repo)
		if err != nil {
			return "", err
		}
		es, err := svc.Log(ctx, api.LogRequest{Repo: repo, From: anchor, To: r.DefaultBranch, Limit: retrieve.MaxDeltas})
		if err != nil {
			return "", fmt.Errorf("delta since %s (%s): %w", anchor, source, err)
		}
		for _, e := range es {
			deltas = append(deltas, e.Commit)
		}
		fmt.Fprintf(a.stderr, "delta anchor %s (from %s): %d commits since\n", anchor, source, len(deltas))
	}
	id := packCommitID(ans)
	if f.commitID != "" {
		id = f.commitID
	}
	return retrieve.WritePackDelta(f.out, p, id, anchor, deltas)
}
