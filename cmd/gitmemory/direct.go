package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/retrieve"
)

// entitySearch prints the entities a search finds.
func (a *app) entitySearch(ctx context.Context, svc api.Service, q api.EntitiesRequest, format string) error {
	if q.Limit == 10 { // the history's default is too few for a list
		q.Limit = retrieve.DefaultHistoryLimit
	}
	hits, err := svc.Entities(ctx, q)
	if err != nil {
		return err
	}
	switch format {
	case formatJSON:
		return writeJSON(a.stdout, hits)
	case formatMarkdown:
		rows := make([][]string, len(hits))
		for i, h := range hits {
			rows[i] = []string{h.Kind, code(h.Qualified), code(h.Path), fmt.Sprint(h.Changes), h.Last.Format("2006-01-02"), deletedMark(h)}
		}
		mdTable(a.stdout, []string{"kind", "entity", "file", "changes", "last changed", ""}, rows)
	default:
		if len(hits) == 0 {
			fmt.Fprintln(a.stdout, "no entity matches")
		}
		for _, h := range hits {
			fmt.Fprintf(a.stdout, "%-9s %s  (%s; %d changes, last %s)%s\n", h.Kind, h.Qualified, h.Path, h.Changes, h.Last.Format("2006-01-02"), deletedMark(h))
		}
	}
	return nil
}

func deletedMark(h retrieve.EntityHit) string {
	if h.Deleted {
		return " [deleted]"
	}
	return ""
}

func (a *app) showCmd() *cobra.Command {
	var repo repoFlag
	var out outputFlags
	c := &cobra.Command{
		Use:   "show REV",
		Short: "Show an indexed commit: message, files, issues, design notes and entities",
		Long: `Show one commit as the index holds it (seed 003's commits.get): author and
committer, the whole message, its change type and summary, the files it
changed with their line counts, the issues it references, its design notes
and the functions and types it introduced, modified or deleted.

REV is a full or abbreviated hash (4 hex digits at least) or a branch or tag
name as of the last sync.`,
		Example: `  gitmemory show 3f2a9c1
  gitmemory show v1.2.0 --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := out.get(c)
			if err != nil {
				return err
			}
			svc, h, err := a.service(c.Context())
			if err != nil {
				return err
			}
			name, err := repo.resolve(c.Context(), h)
			if err != nil {
				return err
			}
			d, err := svc.Commit(c.Context(), name, args[0])
			if err != nil {
				return err
			}
			if format == formatJSON {
				return writeJSON(a.stdout, d)
			}
			printCommit(a.stdout, d)
			return nil
		},
	}
	repo.register(c)
	out.register(c, formatText, formatText, formatJSON)
	return c
}

func printCommit(w io.Writer, d *retrieve.CommitDetail) {
	fmt.Fprintf(w, "commit %s", d.Hash)
	if d.Rewritten {
		fmt.Fprint(w, " [rewritten]")
	}
	fmt.Fprintln(w)
	if len(d.Parents) > 1 {
		fmt.Fprintf(w, "Merge:  %s\n", strings.Join(shorts(d.Parents), " "))
	}
	fmt.Fprintf(w, "Author: %s <%s>\nDate:   %s\n", d.Author.Name, d.Author.Email, d.Author.When.Format("2006-01-02 15:04:05 -0700"))
	if d.Classification != "" {
		fmt.Fprintf(w, "Type:   %s\n", d.Classification)
	}
	fmt.Fprintln(w)
	for _, l := range strings.Split(d.Message, "\n") {
		fmt.Fprintf(w, "    %s\n", l)
	}
	fmt.Fprintln(w)
	for _, f := range d.Files {
		name := f.Path
		if f.OldPath != "" && f.OldPath != f.Path {
			name = f.OldPath + " → " + f.Path
		}
		switch model.SkipReason(f.Skipped) {
		case model.SkipMissing:
			fmt.Fprintf(w, " %-8s %s (lines unknown: the repository lacks the file's content)\n", f.Status, name)
		case model.SkipBinary:
			fmt.Fprintf(w, " %-8s %s (binary)\n", f.Status, name)
		default:
			fmt.Fprintf(w, " %-8s %s (+%d -%d)\n", f.Status, name, f.Insertions, f.Deletions)
		}
	}
	section := func(title string, xs []string) {
		if len(xs) > 0 {
			fmt.Fprintf(w, "\n%s:\n", title)
			for _, x := range xs {
				fmt.Fprintf(w, "  %s\n", x)
			}
		}
	}
	section("Issues", d.Issues)
	section("Design notes", d.DesignNotes)
	section("Entities", d.Entities)
}

func shorts(hs []string) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = short(h)
	}
	return out
}

func (a *app) logCmd() *cobra.Command {
	var repo repoFlag
	var out outputFlags
	var since, until, author string
	var limit int
	c := &cobra.Command{
		Use:   "log [FROM..TO | REV]",
		Short: "List indexed commits by range, dates and author",
		Long: `List the indexed commits, newest first, as git log does (seed 003's
commits.range and commits.search): FROM..TO is the commits reachable from TO
and not from FROM, REV alone its ancestors, each a hash, branch or tag as of
the last sync. --since and --until bound the commit date (YYYY-MM-DD or
RFC 3339; a date-only --until includes that day); --author keeps the commits
whose author name or email contains the text (any case). Rewritten commits
are left out.`,
		Example: `  gitmemory log v1.0..v1.1
  gitmemory log --since 2024-01-01 --author alice --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := out.get(c)
			if err != nil {
				return err
			}
			q := api.LogRequest{Author: author, Limit: limit}
			if len(args) == 1 {
				if q.From, q.To, err = retrieve.ParseRange(args[0]); err != nil {
					return err
				}
			}
			if since != "" {
				if q.Since, err = retrieve.ParseDate(since); err != nil {
					return fmt.Errorf("--since: %w", err)
				}
			}
			if until != "" {
				r, err := retrieve.ParseDateRange(".." + until)
				if err != nil {
					return fmt.Errorf("--until: %w", err)
				}
				q.Until = r.To
			}
			svc, h, err := a.service(c.Context())
			if err != nil {
				return err
			}
			if q.Repo, err = repo.resolve(c.Context(), h); err != nil {
				return err
			}
			entries, err := svc.Log(c.Context(), q)
			if err != nil {
				return err
			}
			if format == formatJSON {
				return writeJSON(a.stdout, entries)
			}
			for _, e := range entries {
				fmt.Fprintf(a.stdout, "%s %s %-13s %s  (%s)\n", short(e.Commit), e.When.Format("2006-01-02"), e.Classification, clip(e.Subject, 72), e.Author)
			}
			return nil
		},
	}
	repo.register(c)
	out.register(c, formatText, formatText, formatJSON)
	f := c.Flags()
	f.StringVar(&since, "since", "", "only commits on or after this date")
	f.StringVar(&until, "until", "", "only commits on or before this date")
	f.StringVar(&author, "author", "", "only commits whose author name or email contains this")
	f.IntVar(&limit, "limit", retrieve.DefaultHistoryLimit, "at most this many commits")
	return c
}
