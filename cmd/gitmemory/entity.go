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
	var repo, kind string
	var jsonOut bool
	var limit int
	c := &cobra.Command{
		Use:   "entity NAME",
		Short: "Show the history of a function, method or type",
		Long: `Show an entity's history: when it was introduced, each commit that changed it
with its classification and summary, its renames and moves (followed back to
the entity it continues), its tests, and the entities that change with it.

NAME is a plain name ("Apply"), a qualified one ("Options.Apply", "diff.c:xdl_diff"
is not needed: a qualified name is the name within its file), or a key
("path/to/file.go#pkg.Options.Apply"). When several entities match, the best
is shown (exact key, then qualified name, then the most recently changed)
and the others are listed; --kind narrows the match.

Entities come from files in Go, Python, JavaScript, TypeScript/TSX, Rust,
Java, C, C++, Ruby, C# and PHP; other files are tracked at file level (see
gitmemory history PATH).`,
		Example: `  gitmemory entity Sync
  gitmemory entity Syncer.Run --repo gitmemory --json
  gitmemory entity diff_tree --kind function`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			svc, h, err := a.service(c.Context())
			if err != nil {
				return err
			}
			name, err := h.Resolve(c.Context(), repo)
			if err != nil {
				return err
			}
			r, err := svc.Entity(c.Context(), api.EntityRequest{Repo: name, Name: args[0], Kind: kind, Limit: limit})
			if err != nil {
				return err
			}
			if jsonOut {
				return writeJSON(a.stdout, r)
			}
			printEntity(a.stdout, r)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&repo, "repo", ".", "the repository: a registered name or a path inside it")
	f.StringVar(&kind, "kind", "", "only entities of this kind: function, method, class, interface, struct, enum, module")
	f.IntVar(&limit, "limit", 10, "at most this many tests, co-evolving entities and other matches")
	f.BoolVar(&jsonOut, "json", false, "print as JSON")
	return c
}

func printEntity(w io.Writer, r *memory.EntityReport) {
	e := r.Entity
	fmt.Fprintf(w, "%s %s  (%s, %s)\n", e.Kind, e.Qualified, e.Path, e.Language)
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
	if len(r.Others) > 0 {
		fmt.Fprintln(w, "  also matches:")
		for _, o := range r.Others {
			fmt.Fprintf(w, "    %s %s\n", o.Kind, o.Key)
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
