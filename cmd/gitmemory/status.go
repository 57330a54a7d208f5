package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

func (a *app) statusCmd() *cobra.Command {
	var verify bool
	var out outputFlags
	c := &cobra.Command{
		Use:   "status [NAME|PATH]",
		Short: "Show where a repository's index stands",
		Long: `Show a repository's last sync, tracked heads, and the counts of indexed,
queued, failed and rewritten commits and of redacted secrets. Without an
argument, shows every registered repository. --verify also walks the tracked
branches and counts reachable commits that are not indexed.`,
		Example: `  gitmemory status
  gitmemory status myproject --verify
  gitmemory status --format json | jq '.[] | {name, indexed}'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) (err error) {
			format, err := out.get(c)
			if err != nil {
				return err
			}
			svc, h, err := a.service(c.Context())
			if err != nil {
				return err
			}
			var names []string
			if len(args) == 1 {
				name, err := h.Resolve(c.Context(), args[0])
				if err != nil {
					return err
				}
				names = []string{name}
			} else {
				if names, err = h.Names(); err != nil {
					return err
				}
			}
			var all []*memory.Status
			var broken error
			for _, n := range names {
				st, err := svc.Status(c.Context(), n, verify)
				if err != nil && len(names) == 1 {
					return err
				}
				if err != nil { // reported after the others, not instead of them
					broken = errors.Join(broken, fmt.Errorf("repository %s: %w", n, err))
					continue
				}
				all = append(all, st)
			}
			defer func() { err = errors.Join(err, broken) }()
			if format == formatJSON {
				if len(args) == 1 {
					return writeJSON(a.stdout, all[0])
				}
				if all == nil {
					all = []*memory.Status{}
				}
				return writeJSON(a.stdout, all)
			}
			if len(all) == 0 {
				fmt.Fprintln(a.stdout, "no repositories registered: gitmemory add PATH")
			}
			loop := daemonLoop(c.Context(), svc)
			for i, st := range all {
				if i > 0 {
					fmt.Fprintln(a.stdout)
				}
				if format == formatMarkdown {
					statusMarkdown(a.stdout, st)
					continue
				}
				printStatus(a.stdout, st)
				if rh, ok := loop[st.Name]; ok {
					printLoop(a.stdout, rh)
				}
			}
			return nil
		},
	}
	out.register(c, formatText, formatText, formatJSON, formatMarkdown)
	c.Flags().BoolVar(&verify, "verify", false, "also count reachable commits that are not indexed (walks the repository)")
	return c
}

// daemonLoop is the daemon's view of each repository, when a daemon
// answers.
func daemonLoop(ctx context.Context, svc api.Service) map[string]api.RepoHealth {
	c, ok := svc.(*api.Client)
	if !ok {
		return nil
	}
	h, err := c.Health(ctx)
	if err != nil {
		return nil
	}
	out := map[string]api.RepoHealth{}
	for _, r := range h.Repositories {
		out[r.Name] = r
	}
	return out
}

func printLoop(w io.Writer, r api.RepoHealth) {
	state := "next sync " + until(r.NextSync)
	if r.Syncing {
		state = "syncing now"
	}
	fmt.Fprintf(w, "  daemon:      %s", state)
	if r.Failures > 0 {
		fmt.Fprintf(w, "; %d failed syncs in a row: %s", r.Failures, oneLine(r.LastError))
	}
	fmt.Fprintln(w)
}

// until says how long until t, roughly.
func until(t time.Time) string {
	d := time.Until(t)
	switch {
	case t.IsZero() || d <= 0:
		return "due"
	case d < time.Minute:
		return fmt.Sprintf("in %ds", int(d.Seconds()))
	default:
		return fmt.Sprintf("in %dm", int(d.Minutes()))
	}
}

// statusFields are a status's lines, label and value, in the order
// both the text and the Markdown output show them.
func statusFields(s *memory.Status) [][2]string {
	var f [][2]string
	add := func(label, format string, args ...any) { f = append(f, [2]string{label, fmt.Sprintf(format, args...)}) }
	add("last sync", "%s", ago(s.LastSyncedAt))
	for _, b := range s.Branches {
		add("branch", "%s at %s", b.Branch, short(b.LastHead))
	}
	indexed := fmt.Sprintf("%d commits, %d file changes", s.Indexed, s.FileChanges)
	if !s.Oldest.IsZero() {
		indexed += fmt.Sprintf(" (%s .. %s)", s.Oldest.Format("2006-01-02"), s.Newest.Format("2006-01-02"))
	}
	add("indexed", "%s", indexed)
	add("queued", "%d", s.Queued)
	if s.Failed > 0 {
		add("failed", "%d (retried by later syncs; now: gitmemory sync %s --retry-failed)", s.Failed, s.Name)
	} else {
		add("failed", "0")
	}
	add("rewritten", "%d", s.Rewritten)
	if s.Pruned > 0 || s.KeepDays > 0 || s.KeepCommits > 0 {
		add("pruned", "%d (keep days %d, keep commits %d; 0 = all)", s.Pruned, s.KeepDays, s.KeepCommits)
	}
	add("secrets", "%d redacted in %d commits", s.Redactions, s.RedactedCommits)
	if len(s.Languages) > 0 {
		add("languages", "%s", describeLanguages(s.Languages))
	}
	if len(s.Classes) > 0 {
		add("changes", "%s", describeClasses(s.Classes))
		add("rationale", "%d design notes", s.DesignNotes)
		add("entities", "%d functions, methods and types; %d changes to them", s.Entities, s.EntityChanges)
		add("relations", "%d co-evolving pairs, %d test links", s.CoEvolving, s.TestLinks)
		add("code graph", "%d calls, %d imports, %d implements, %d extends", s.Code.Calls, s.Code.Imports,
			s.Code.Implements, s.Code.Extends)
	}
	if s.GraphNote != "" {
		add("graph", "%s", s.GraphNote)
	} else {
		add("graph", "%d edges over %d values", s.GraphQuads, s.GraphValues)
	}
	if s.Shallow {
		add("note", "shallow clone: history before the clone's depth is not available")
	}
	if s.VerifyDone {
		add("verify", "%d reachable, %d not indexed", s.Reachable, s.Unindexed)
	}
	for _, e := range s.Errors {
		add("error", "%s", e)
	}
	return f
}

func printStatus(w io.Writer, s *memory.Status) {
	fmt.Fprintf(w, "%s  %s\n", s.Name, s.Path)
	for _, kv := range statusFields(s) {
		fmt.Fprintf(w, "  %-13s%s\n", kv[0]+":", kv[1])
	}
}

func statusMarkdown(w io.Writer, s *memory.Status) {
	fmt.Fprintf(w, "## %s\n\n%s\n\n", s.Name, code(s.Path))
	rows := make([][]string, 0, 16)
	for _, kv := range statusFields(s) {
		rows = append(rows, []string{kv[0], kv[1]})
	}
	mdTable(w, []string{"", ""}, rows)
}

// ago renders a time as "2006-01-02 15:04 (3h ago)", or "never".
func ago(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := time.Since(t).Round(time.Second)
	rel := d.String() + " ago"
	switch {
	case d < time.Minute:
		rel = "just now"
	case d < time.Hour:
		rel = fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		rel = fmt.Sprintf("%dh ago", int(d.Hours()))
	default:
		rel = fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Local().Format("2006-01-02 15:04") + " (" + rel + ")"
}

// describeClasses lists change types by count, largest first.
func describeClasses(classes map[string]int) string {
	type kv struct {
		k string
		n int
	}
	var all []kv
	for k, n := range classes {
		all = append(all, kv{k, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || (all[i].n == all[j].n && all[i].k < all[j].k) })
	parts := make([]string, len(all))
	for i, e := range all {
		parts[i] = fmt.Sprintf("%d %s", e.n, e.k)
	}
	return strings.Join(parts, ", ")
}

// describeLanguages is "Go 88 files, YAML 14, …", the six largest.
func describeLanguages(ls []retrieve.LanguageCount) string {
	var parts []string
	for i, l := range ls[:min(len(ls), 6)] {
		unit := ""
		if i == 0 {
			unit = " files"
		}
		parts = append(parts, fmt.Sprintf("%s %d%s", l.Language, l.Files, unit))
	}
	if len(ls) > 6 {
		parts = append(parts, fmt.Sprintf("%d more", len(ls)-6))
	}
	return strings.Join(parts, ", ")
}
