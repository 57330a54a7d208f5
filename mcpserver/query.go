package mcpserver

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/retrieve"
)

// query answers gitmemory_query: the Context Pack, fitted to the budget
// by the pack builder, as the text; the ranked commits as the output.
func (s *server) query(ctx context.Context, in QueryInput) (*answer[QueryOutput], error) {
	budget, err := tokenBudget(in.TokenBudget)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, fmt.Errorf("%w: query is required: a question about the repository's history", api.ErrBadRequest)
	}
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	req, err := queryRequest(in)
	if err != nil {
		return nil, err
	}
	req.Repo, req.Tokens = repo, budget
	res, err := s.svc.Query(ctx, req)
	if err != nil {
		return nil, err
	}
	text := agentWords(res.Text, budget)
	head := QueryOutput{Repository: res.Repository}
	if res.Pack != nil {
		head.TokenCount = res.Pack.Metadata.TokenCount
	}
	results := queryResults(res)
	if a := res.Answer; a != nil {
		head.Mode, head.Intent, head.Degraded = string(a.Mode), a.Intent, a.Degraded
	}
	return fitList(budget, len(results), func(n int) *answer[QueryOutput] {
		out := head
		out.Results, out.Omitted = results[:n], len(results)-n
		return &answer[QueryOutput]{text: text, out: out}
	})
}

// agentWords replaces the CLI's advice in a pack's text with the tool's,
// if the budget still holds it.
func agentWords(text string, budget int) string {
	t := strings.ReplaceAll(text, "(raise --tokens)", "(raise token_budget)")
	if n, err := retrieve.CountTokens(t); t == text || err != nil || n > budget {
		return text
	}
	return t
}

// queryResults are the ranked commits, with the summaries and change
// types the pack's key items give.
func queryResults(res *api.QueryResult) []QueryResult {
	if res.Answer == nil {
		return nil
	}
	keys := map[string]retrieve.KeyItem{}
	if res.Pack != nil {
		for _, k := range res.Pack.KeyItems {
			keys[k.Hash] = k
		}
	}
	out := make([]QueryResult, len(res.Answer.Items))
	for i, it := range res.Answer.Items {
		k := keys[it.Commit]
		out[i] = QueryResult{Commit: it.Commit, Score: math.Round(it.Score*1000) / 1000, Classification: k.Classification,
			Summary: oneLine(k.Summary), Why: it.Why, Stale: it.Stale,
			Tier: it.Tier, Confidence: it.Confidence}
	}
	return out
}

// queryRequest carries the tool's options to the service, reading the
// date range's dates.
func queryRequest(in QueryInput) (api.QueryRequest, error) {
	q := api.QueryRequest{Query: in.Query, Format: retrieve.FormatMarkdown, Limit: in.MaxResults, Full: in.Full, SeedOrder: in.SeedOrder,
		IncludeDiffs: in.IncludeDiffs, IncludeTests: in.IncludeTests, RecencyWeight: in.RecencyWeight}
	if in.MaxResults < 0 || in.MaxResults > retrieve.MaxResults {
		return q, fmt.Errorf("%w: max_results %d: want 1 to %d", api.ErrBadRequest, in.MaxResults, retrieve.MaxResults)
	}
	if d := in.DateRange; d != nil {
		r, err := retrieve.ParseDateRange(d.From + ".." + d.To)
		if err != nil {
			return q, fmt.Errorf("%w: date_range: %v", api.ErrBadRequest, err)
		}
		q.DateRange = &r
	}
	return q, nil
}
