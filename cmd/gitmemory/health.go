package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
)

func (a *app) healthCmd() *cobra.Command {
	var out outputFlags
	c := &cobra.Command{
		Use:   "health [NAME|PATH]",
		Short: "Check a repository's memory: totals, queued and failed jobs, stale entries, source warnings",
		Long: `The startup health check of seed 004, for each registered repository or the
one named:

  Total entries    indexed commits, and of them the Hard ones: commits that
                   state a reason (a design note) — see docs/labels.md
  Queued jobs      commits waiting to be indexed
  Failed jobs      commits whose indexing failed (retried or given up)
  Stale entries    Hard entries older than [search] stale_days (90) whose
                   added lines are mostly rewritten since, checked newest
                   first, at most 200 of them
  Source warnings  Hard entries with a file gone from the head

The daemon logs the same check for each repository when it starts.`,
		Example: `  gitmemory health
  gitmemory health myproject --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := out.get(c)
			if err != nil {
				return err
			}
			svc, h, err := a.service(c.Context())
			if err != nil {
				return err
			}
			names, err := repoNames(c.Context(), h, args)
			if err != nil {
				return err
			}
			all := []*memory.HealthReport{}
			for _, n := range names {
				r, err := svc.RepoHealth(c.Context(), n)
				if err != nil {
					return err
				}
				all = append(all, r)
			}
			if format == formatJSON {
				if len(args) == 1 {
					return writeJSON(a.stdout, all[0])
				}
				return writeJSON(a.stdout, all)
			}
			if len(all) == 0 {
				fmt.Fprintln(a.stdout, "no repositories registered; add one with 'gitmemory add PATH'")
			}
			for _, r := range all {
				writeHealth(a.stdout, r)
			}
			return nil
		},
	}
	out.register(c, formatText, formatText, formatJSON)
	return c
}

// repoNames resolves the one repository named, or lists them all.
func repoNames(ctx context.Context, h *memory.Home, args []string) ([]string, error) {
	if len(args) == 1 {
		name, err := h.Resolve(ctx, args[0])
		return []string{name}, err
	}
	repos, err := h.List(ctx)
	var names []string
	for _, r := range repos {
		names = append(names, r.Name)
	}
	return names, err
}

// writeHealth prints a health check the way seed 004's example does.
func writeHealth(w io.Writer, r *memory.HealthReport) {
	fmt.Fprintf(w, "gitmemory health check: %s\n", r.Repository)
	fmt.Fprintf(w, "  Total entries:    %d (%d Hard)\n", r.Entries, r.HardEntries)
	fmt.Fprintf(w, "  Queued jobs:      %d\n", r.Queued)
	fmt.Fprintf(w, "  Failed jobs:      %d\n", r.Failed)
	fmt.Fprintf(w, "  Stale entries:    %d (of %d checked; %d Hard entries older than %d days)\n", r.Stale, r.StaleChecked, r.StaleEligible, r.StaleDays)
	fmt.Fprintf(w, "  Source warnings:  %d\n", r.SourceWarnings)
	for _, e := range r.Errors {
		fmt.Fprintf(w, "  ⚠ %s\n", e)
	}
	fmt.Fprintf(w, "\n  %s\n", HealthLine(r))
}

// HealthLine is the check in one line, as the daemon logs it.
func HealthLine(r *memory.HealthReport) string {
	return fmt.Sprintf("%d queued / %d failed / %d stale (>%d days) / %d source warnings", r.Queued, r.Failed, r.Stale, r.StaleDays, r.SourceWarnings)
}

// logHealth logs seed 004's startup check of each registered repository,
// as the daemon starts; a repository the check fails on is logged as a
// warning and does not stop the daemon.
func logHealth(ctx context.Context, h *memory.Home, log *slog.Logger) {
	repos, err := h.List(ctx)
	if err != nil {
		log.Warn("health check", "err", err)
		return
	}
	l := api.NewLocal(h)
	for _, r := range repos {
		rep, err := l.RepoHealth(ctx, r.Name)
		if err != nil {
			log.Warn("health check", "repo", r.Name, "err", err)
			continue
		}
		log.Info("health check", "repo", r.Name, "entries", rep.Entries, "hard", rep.HardEntries, "queued", rep.Queued,
			"failed", rep.Failed, "stale", rep.Stale, "stale_checked", rep.StaleChecked, "source_warnings", rep.SourceWarnings)
	}
}
