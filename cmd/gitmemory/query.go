package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/retrieve"
)

type queryFlags struct {
	repo, mode, intent, format, out string
	limit, tokens                   int
	debug, jsonOut, list, rewritten bool
}

func (a *app) queryCmd() *cobra.Command {
	var f queryFlags
	c := &cobra.Command{
		Use:   `query "QUESTION"`,
		Short: "Ask why code is the way it is, or how it evolved",
		Long: `Answer a question from the repository's history with a Context Pack: a short
answer, a timeline, the key commits, the code they touched, trimmed diffs,
design notes (the rationale stated in messages and comments), related tests
and provenance, filled in that priority order within a token budget counted
with a real BPE tokenizer (cl100k_base, shipped in the binary).

The commits that explain the question are
found by keyword (BM25 over messages, summaries, design notes, paths and
function names), by meaning (vectors) and through the knowledge graph (the
files and functions the question names, what changes with them), merged and
ranked.

The mode is the best the stores allow (hybrid, else keyword) and is shown with
every answer, with a warning when degraded; --mode forces one. --intent
overrides the auto classifier (plan, execute, explain, debug, research; English
and Russian markers). A question that matches nothing says so; a question too
broad gets suggestions. Results older than 90 days whose files changed since
are marked stale, and files gone from the head are marked.

--out DIR writes the pack as JSON the way seed 001 specifies: a new file
under DIR/context_packs/, validated, then DIR/context_pack.latest.json
replaced atomically, then a row appended to DIR/post_response_commits.jsonl.
--list prints the ranked commits instead of a pack.`,
		Example: `  gitmemory query "why does ExecuteC strip flags before finding the command?"
  gitmemory query "when was context support added" --json
  gitmemory query "почему отключён prefix matching" --debug`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			name, s, err := a.openSearcher(c.Context(), f.repo)
			if err != nil {
				return err
			}
			defer s.Close()
			if f.jsonOut {
				f.format = retrieve.FormatJSON
			}
			if f.format != retrieve.FormatJSON && f.format != retrieve.FormatMarkdown {
				return fmt.Errorf("--format %q: want json or markdown", f.format)
			}
			ans, err := s.Search(c.Context(), retrieve.Request{Query: args[0], Intent: f.intent, Mode: retrieve.Mode(f.mode), Limit: f.limit})
			if err != nil {
				return err
			}
			if !f.debug {
				for i := range ans.Items {
					ans.Items[i].Components = nil
				}
			}
			if f.list {
				if f.format == retrieve.FormatJSON {
					return writeJSON(a.stdout, ans)
				}
				printAnswer(a.stdout, ans, f.debug)
				return nil
			}
			if f.debug {
				printAnswer(a.stderr, ans, true)
			}
			format := f.format
			if f.out != "" {
				format = retrieve.FormatJSON // the file is JSON; its count must be of that text
			}
			p, err := retrieve.BuildPack(c.Context(), s.Store, packInput(name, ans), retrieve.PackOptions{
				Tokens: f.tokens, Format: format, IncludeRewritten: f.rewritten})
			if err != nil {
				return err
			}
			if f.out != "" {
				path, err := retrieve.WritePack(f.out, p, packCommitID(ans))
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "wrote %s (%d tokens)\n", path, p.Metadata.TokenCount)
			}
			text, err := retrieve.Render(p, f.format)
			if err != nil {
				return err
			}
			a.stdout.Write(text)
			if !bytes.HasSuffix(text, []byte("\n")) {
				fmt.Fprintln(a.stdout)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.repo, "repo", ".", "the repository: a registered name or a path inside it")
	fl.StringVar(&f.mode, "mode", "", "hybrid, vector, keyword or basic (default: the best available)")
	fl.StringVar(&f.intent, "intent", "auto", "auto, plan, execute, explain, debug or research")
	fl.IntVar(&f.limit, "limit", 5, fmt.Sprintf("results (at most %d)", retrieve.MaxResults))
	fl.BoolVar(&f.debug, "debug", false, "show each result's score components (on stderr, or in --list)")
	fl.StringVar(&f.format, "format", retrieve.FormatMarkdown, "the pack's format: markdown or json")
	fl.BoolVar(&f.jsonOut, "json", false, "same as --format json")
	fl.IntVar(&f.tokens, "tokens", retrieve.DefaultPackTokens, "the pack's token budget")
	fl.StringVar(&f.out, "out", "", "also write the pack (JSON) to this directory, atomically (see above)")
	fl.BoolVar(&f.list, "list", false, "print the ranked commits instead of a pack")
	fl.BoolVar(&f.rewritten, "include-rewritten", false, "keep commits that a force push or rebase rewrote")
	return c
}

func printAnswer(w io.Writer, a *retrieve.Answer, debug bool) {
	mark := ""
	if a.Degraded {
		mark = "⚠ "
	}
	fmt.Fprintf(w, "%s[%s] %s (intent %s)\n", mark, a.Mode, a.Query, a.Intent)
	for _, warn := range a.Warnings {
		fmt.Fprintf(w, "  ⚠ %s\n", warn)
	}
	if len(a.Suggestions) > 0 {
		fmt.Fprintf(w, "  try: %s\n", strings.Join(a.Suggestions, ", "))
	}
	for _, it := range a.Items {
		flags := ""
		if it.Stale {
			flags += " [stale?]"
		}
		if len(it.Gone) > 0 {
			flags += " [source may be outdated: " + strings.Join(it.Gone, ", ") + " gone]"
		}
		fmt.Fprintf(w, "%s %.3f  %s%s\n", short(it.Commit), it.Score, strings.Join(it.Why, ", "), flags)
		if debug {
			fmt.Fprintf(w, "    %v\n", it.Components)
		}
	}
	if a.Clarify != "" {
		fmt.Fprintf(w, "clarify: %s\n", a.Clarify)
	}
}

// packInput hands a search's answer to the pack builder.
func packInput(repo string, a *retrieve.Answer) retrieve.PackInput {
	return retrieve.PackInput{Query: a.Query, Repository: repo, Intent: a.Intent, Mode: a.Mode, Degraded: a.Degraded,
		Warnings: append(slices.Clone(a.Warnings), suggestionWarning(a)...), Items: a.Items, Entities: a.Entities,
		Files: a.Files, Clarify: a.Clarify}
}

func suggestionWarning(a *retrieve.Answer) []string {
	if len(a.Suggestions) == 0 {
		return nil
	}
	return []string{"try: " + strings.Join(a.Suggestions, ", ")}
}

// packCommitID names a written pack: the best answer's short hash, or
// "none" when nothing matched.
func packCommitID(a *retrieve.Answer) string {
	if len(a.Items) == 0 {
		return "none"
	}
	return a.Items[0].Commit[:12]
}

// openSearcher resolves a repository argument and opens its stores for
// questions, with the [search] configuration of the home's config.toml.
func (a *app) openSearcher(ctx context.Context, repo string) (string, *memory.Searcher, error) {
	h, err := a.home()
	if err != nil {
		return "", nil, err
	}
	name, err := h.Resolve(ctx, repo)
	if err != nil {
		return "", nil, err
	}
	opts, err := retrieve.LoadSearchConfig(filepath.Join(h.Dir, configFile))
	if err != nil {
		return "", nil, err
	}
	s, err := h.OpenSearcher(ctx, name, opts)
	return name, s, err
}
