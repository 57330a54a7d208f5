package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/retrieve"
)

// lookup answers gitmemory_lookup. It takes no token_budget (its
// parameters are fixed by the tool's contract) and answers within the
// default one; the configured max_matches keeps it far below that anyway.
func (s *server) lookup(ctx context.Context, in LookupInput) (*answer[LookupOutput], error) {
	fps := in.Fingerprints
	if in.Fingerprint != "" {
		fps = append([]string{in.Fingerprint}, fps...)
	}
	if len(in.Paths) == 0 && len(fps) == 0 {
		return nil, fmt.Errorf("%w: nothing to look up: give paths, a fingerprint, or both", api.ErrBadRequest)
	}
	if len(in.Paths)+len(fps) > api.MaxPaths {
		return nil, fmt.Errorf("%w: %d paths and fingerprints: at most %d", api.ErrBadRequest, len(in.Paths)+len(fps), api.MaxPaths)
	}
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	res, err := s.svc.Lookup(ctx, api.LookupRequest{Repo: repo, Paths: in.Paths, Fingerprints: fps})
	if err != nil {
		return nil, err
	}
	head := LookupOutput{Repository: repo, Paths: res.Paths, Fingerprints: res.Fingerprints,
		WindowDays: res.WindowDays, More: res.More}
	matches := make([]LookupMatch, len(res.Matches))
	for i, m := range res.Matches {
		matches[i] = LookupMatch{Severity: m.Severity.String(), Type: m.Type, Date: stamp(m.Date),
			Summary: oneLine(m.Summary), ID: m.ID}
		if m.Link != m.ID { // a link to the remote's page, not the hash again
			matches[i].Link = m.Link
		}
	}
	return fitList(DefaultTokens, len(matches), func(n int) *answer[LookupOutput] {
		out := head
		out.Matches, out.Omitted = matches[:n], len(matches)-n
		return &answer[LookupOutput]{text: lookupText(out, res), out: out}
	})
}

// lookupText is a lookup's answer as text: one line per match, most
// severe first.
func lookupText(o LookupOutput, res *retrieve.LookupResult) string {
	var b strings.Builder
	total := len(res.Matches)
	if total == 0 {
		fmt.Fprintf(&b, "%s: no related changes in the last %d days\n", o.Repository, o.WindowDays)
		return b.String()
	}
	count := plural(total, "related change")
	if o.More {
		count = fmt.Sprintf("the first %d related changes", total)
	}
	fmt.Fprintf(&b, "%s: %s in the last %d days, most severe first\n", o.Repository, count, o.WindowDays)
	for i, m := range o.Matches {
		fmt.Fprintf(&b, "%s %s %s %s %s", m.Severity, short(m.ID), day(res.Matches[i].Date), cmp.Or(m.Type, "-"),
			clip(m.Summary, summaryRunes))
		if m.Link != "" {
			fmt.Fprintf(&b, " <%s>", m.Link)
		}
		b.WriteByte('\n')
	}
	leftOut(&b, o.Omitted, "related change")
	if o.More {
		b.WriteString("more changes match than the configured max_matches ([lookup] in config.toml) lets through\n")
	}
	return b.String()
}
