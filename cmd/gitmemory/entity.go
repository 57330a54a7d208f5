package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
)

func (a *app) entityCmd() *cobra.Command {
	var repo repoFlag
	var out outputFlags
	var kind, search string
	var limit int
	c := &cobra.Command{
		Use:   "entity NAME | entity --search TEXT [--type KIND]",
		Short: "Show the history of a function, method or type",
		Long: `Show an entity's history: when it was introduced, each commit that changed it
with its classification and summary, its renames and moves (followed back to
the entity it continues), its tests, the entities that change with it, and,
at the newest indexed version, its callers, callees and importers (the files
that import its file, or its package in Go) and the types it extends or
implements or that extend or implement it.

NAME is a plain name ("Apply"), a qualified one ("Options.Apply", "diff.c:xdl_diff"
is not needed: a qualified name is the name within its file), or a key
("path/to/file.go#pkg.Options.Apply"). When several entities match, the best
is shown (exact key, then qualified name, then the most recently changed)
and the others are listed; --kind narrows the match. A name that matches
no entity as written is matched by seed 002's score (MATCH_THRESHOLD,
MATCH_FUZZY_WEIGHT, MATCH_KEYWORD_WEIGHT; defaults 0.4, 0.7, 0.3).

--search TEXT lists the entities whose name or qualified name contains
TEXT (any case; exact names first, then the most recently changed), of
--type KIND when given (--type is --kind); --search "" --type class lists
every class.

Entities come from files in Go, Python, JavaScript, TypeScript/TSX, Rust,
Java, C, C++, Ruby, C# and PHP; other files are tracked at file level (see
gitmemory history PATH).`,
		Example: `  gitmemory entity Sync
  gitmemory entity Syncer.Run --repo gitmemory --format json
  gitmemory entity diff_tree --kind function
  gitmemory entity --search option --type class`,
		Args: cobra.RangeArgs(0, 1),
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
			if c.Flags().Changed("search") || len(args) == 0 {
				if len(args) == 1 {
					return fmt.Errorf("give NAME or --search TEXT, not both")
				}
				if !c.Flags().Changed("search") && kind == "" {
					return fmt.Errorf("give an entity NAME, or --search TEXT and/or --type KIND to list entities")
				}
				return a.entitySearch(c.Context(), svc, api.EntitiesRequest{Repo: name, Search: search, Type: kind, Limit: limit}, format)
			}
			r, err := svc.Entity(c.Context(), api.EntityRequest{Repo: name, Name: args[0], Kind: kind, Limit: limit})
			if err != nil {
				return err
			}
			switch format {
			case formatJSON:
				return writeJSON(a.stdout, r)
			case formatMarkdown:
				entityMarkdown(a.stdout, r)
			default:
				printEntity(a.stdout, r)
			}
			return nil
		},
	}
	repo.register(c)
	out.register(c, formatText, formatText, formatJSON, formatMarkdown)
	f := c.Flags()
	f.StringVar(&kind, "kind", "", "only entities of this kind: function, method, class, interface, struct, enum, module")
	f.StringVar(&kind, "type", "", "same as --kind")
	f.StringVar(&search, "search", "", "list the entities whose name contains this text instead of one's history")
	f.IntVar(&limit, "limit", 10, "at most this many tests, co-evolving entities and other matches")
	return c
}

func printEntity(w io.Writer, r *memory.EntityReport) {
	e := r.Entity
	fmt.Fprintf(w, "%s %s  (%s, %s)\n", e.Kind, e.Qualified, e.Path, e.Language)
	if m := r.Fuzzy; m != nil {
		fmt.Fprintf(w, "  matched:    %q is no entity; %s scores %.2f (threshold %.2f)\n", m.Asked, m.Name, m.Score, m.Threshold)
	}
	if r.Introduced != nil {
		fmt.Fprintf(w, "  introduced: %s %s by %s: %s\n", short(r.Introduced.Commit),
			r.Introduced.When.Format("2006-01-02"), r.Introduced.Author, r.Introduced.Subject)
	} else if len(r.History) > 0 {
		fmt.Fprintln(w, "  introduced: before the indexed history")
	}
	if r.Deleted {
		fmt.Fprintf(w, "  deleted:    %s %s\n", short(r.History[0].Commit), r.History[0].When.Format("2006-01-02"))
	}
	for _, rn := range r.Renames {
		fmt.Fprintf(w, "  renamed:    %s\n", rn)
	}
	fmt.Fprintf(w, "  history:    %d commits\n", len(r.History))
	for _, ev := range r.History {
		what := ev.Action
		if ev.Entity != e.Key {
			what += " " + ev.Entity
		}
		class := ev.Classification
		if class == "" {
			class = "-"
		}
		fmt.Fprintf(w, "    %s %s %-13s %-10s %s\n", short(ev.Commit), ev.When.Format("2006-01-02"), class, what, clip(ev.Subject, 72))
	}
	if len(r.Tests) > 0 {
		fmt.Fprintln(w, "  tests:")
		for _, t := range r.Tests {
			fmt.Fprintf(w, "    %s  (%s, %.2f)\n", strings.TrimPrefix(strings.TrimPrefix(t.ID, "entity:"), "file:"), t.Basis, t.Confidence)
		}
	}
	if len(r.CoEvolving) > 0 {
		fmt.Fprintln(w, "  changes with:")
		for _, c := range r.CoEvolving {
			fmt.Fprintf(w, "    %s  (%.2f, %d shared commits)\n", strings.TrimPrefix(c.ID, "entity:"), c.Confidence, c.Shared)
		}
	}
	printCode(w, r.Code)
	if len(r.Others) > 0 {
		fmt.Fprintln(w, "  also matches:")
		for _, o := range r.Others {
			fmt.Fprintf(w, "    %s %s\n", o.Kind, o.Key)
		}
	}
}

func entityMarkdown(w io.Writer, r *memory.EntityReport) {
	e := r.Entity
	fmt.Fprintf(w, "## %s %s\n\n%s, %s\n\n", e.Kind, code(e.Qualified), code(e.Path), e.Language)
	if m := r.Fuzzy; m != nil {
		fmt.Fprintf(w, "- matched: %s is no entity; %s scores %.2f (threshold %.2f)\n", code(m.Asked), code(m.Name), m.Score, m.Threshold)
	}
	if r.Introduced != nil {
		fmt.Fprintf(w, "- introduced: %s %s by %s: %s\n", code(short(r.Introduced.Commit)),
			r.Introduced.When.Format("2006-01-02"), r.Introduced.Author, oneLine(r.Introduced.Subject))
	} else if len(r.History) > 0 {
		fmt.Fprintln(w, "- introduced: before the indexed history")
	}
	if r.Deleted {
		fmt.Fprintf(w, "- deleted: %s %s\n", code(short(r.History[0].Commit)), r.History[0].When.Format("2006-01-02"))
	}
	for _, rn := range r.Renames {
		fmt.Fprintf(w, "- renamed: %s\n", rn)
	}
	fmt.Fprintf(w, "\n### History (%d commits)\n\n", len(r.History))
	rows := make([][]string, len(r.History))
	for i, ev := range r.History {
		what := ev.Action
		if ev.Entity != e.Key {
			what += " " + ev.Entity
		}
		rows[i] = []string{code(short(ev.Commit)), ev.When.Format("2006-01-02"), ev.Classification, what, ev.Subject}
	}
	mdTable(w, []string{"commit", "date", "type", "change", "subject"}, rows)
	if len(r.Tests) > 0 {
		fmt.Fprint(w, "\n### Tests\n\n")
		for _, t := range r.Tests {
			fmt.Fprintf(w, "- %s (%s, %.2f)\n", code(strings.TrimPrefix(strings.TrimPrefix(t.ID, "entity:"), "file:")), t.Basis, t.Confidence)
		}
	}
	if len(r.CoEvolving) > 0 {
		fmt.Fprint(w, "\n### Changes with\n\n")
		for _, c := range r.CoEvolving {
			fmt.Fprintf(w, "- %s (%.2f, %d shared commits)\n", code(strings.TrimPrefix(c.ID, "entity:")), c.Confidence, c.Shared)
		}
	}
	codeMarkdown(w, r.Code)
	if len(r.Others) > 0 {
		fmt.Fprint(w, "\n### Also matches\n\n")
		for _, o := range r.Others {
			fmt.Fprintf(w, "- %s %s\n", o.Kind, code(o.Key))
		}
	}
}

// clip cuts s to n runes on one line.
func clip(s string, n int) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
