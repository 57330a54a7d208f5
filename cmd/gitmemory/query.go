package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/retrieve"
)

type queryFlags struct {
	repo                   repoFlag
	output                 outputFlags
	mode, intent, out      string
	limit, tokens          int
	debug, list, rewritten bool
	full, soft, seedOrder  bool
	diffs, tests           bool
	recency                float64
	dates, commitID        string
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
broad (more than 10 commits alike) keeps only S1 and S2 results and suggests
3 to 5 terms from the index. Results older than 90 days whose lines were
mostly rewritten since are marked stale, and files gone from the head are
marked.

Each result is labelled as seed 004 labels memory (docs/labels.md): [Hard]
when the commit states a reason and its source still exists, else [Soft];
[S1] to [S3] for how surely it answers. "Only low-confidence notes found"
warns when all are Soft S3. --seed-order returns Hard ones first under the
seed's caps (Hard at most 5, Soft at most 3); the default keeps relevance
order. --full adds each key commit's whole message, a diff snippet and the
git show command that verifies it. --include-diffs=false,
--include-tests=false, --recency-weight and --date-range are seed 003's
query options. MATCH_THRESHOLD, MATCH_FUZZY_WEIGHT and MATCH_KEYWORD_WEIGHT
(seed 002) tune how names of the question match entities; --debug shows them.

--out DIR writes the pack as JSON the way seed 001 specifies: a new file
under DIR/context_packs/, validated, then DIR/context_pack.latest.json
replaced atomically, then a row appended to DIR/post_response_commits.jsonl.
--list prints the ranked commits instead of a pack. --debug adds a table of
each result's score components and total (on stderr beside a pack).

--format markdown (the default) and text print the pack as Markdown, which
reads as plain text; json prints it as JSON. With --list, text is one line
a commit (the default), markdown a table, json the ranked answer.`,
		Example: `  gitmemory query "why does ExecuteC strip flags before finding the command?"
  gitmemory query "when was context support added" --format json
  gitmemory query "почему отключён prefix matching" --debug`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := f.output.get(c)
			if err != nil {
				return err
			}
			if f.list && !c.Flags().Changed("format") && !f.output.jsonOut {
				format = formatText
			}
			req, err := f.request(c, args[0])
			if err != nil {
				return err
			}
			return a.query(c.Context(), req, f, format)
		},
	}
	fl := c.Flags()
	f.repo.register(c)
	fl.StringVar(&f.mode, "mode", "", "hybrid, vector, keyword or basic (default: the best available)")
	fl.StringVar(&f.intent, "intent", "auto", "auto, plan, execute, explain, debug or research")
	fl.IntVar(&f.limit, "max-results", 0, fmt.Sprintf("results, at most %d (default: limit in config.toml's [search], else 5)", retrieve.MaxResults))
	fl.IntVar(&f.limit, "limit", 0, "same as --max-results")
	fl.BoolVar(&f.full, "full", false, "each key commit's whole message, a diff snippet and the git show command that verifies it")
	fl.BoolVar(&f.seedOrder, "seed-order", false, "return Hard results first, then Soft, under seed 004's caps (see docs/labels.md)")
	fl.BoolVar(&f.soft, "soft", false, "with --seed-order, keep Soft S2/S3 results even when Hard ones exist")
	fl.BoolVar(&f.diffs, "include-diffs", true, "the pack's important diffs (--include-diffs=false leaves them out)")
	fl.BoolVar(&f.tests, "include-tests", true, "the pack's related tests (--include-tests=false leaves them out)")
	fl.Float64Var(&f.recency, "recency-weight", 0, "0 to 1: how much to prefer recent commits (default: recency in config.toml's [search])")
	fl.StringVar(&f.dates, "date-range", "", "only commits in FROM..TO (YYYY-MM-DD or RFC 3339, either side optional)")
	fl.BoolVar(&f.debug, "debug", false, "a table of each result's score components and total (on stderr, or after --list)")
	f.output.register(c, formatMarkdown, formatText, formatJSON, formatMarkdown)
	fl.IntVar(&f.tokens, "tokens", retrieve.DefaultPackTokens, "the pack's token budget")
	fl.StringVar(&f.out, "out", "", "also write the pack (JSON) to this directory, atomically (see above)")
	fl.BoolVar(&f.list, "list", false, "print the ranked commits instead of a pack")
	fl.StringVar(&f.commitID, "commit-id", "", "with --out: the commit the pack is for, and the delta anchor (default: the latest row of post_response_commits.jsonl)")
	fl.BoolVar(&f.rewritten, "include-rewritten", false, "keep commits that a force push or rebase rewrote")
	return c
}

func printAnswer(w io.Writer, a *retrieve.Answer) {
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
		if it.Tier != "" {
			flags += " " + labelText(it)
		}
		if it.Stale {
			flags += " [stale?]"
		}
		if len(it.Gone) > 0 {
			flags += " [source may be outdated: " + it.GoneText() + "]"
		}
		fmt.Fprintf(w, "%s %.3f  %s%s\n", short(it.Commit), it.Score, strings.Join(it.Why, ", "), flags)
	}
	if a.Clarify != "" {
		fmt.Fprintf(w, "clarify: %s\n", a.Clarify)
	}
}

// writeList prints the ranked answer of --list: JSON, a Markdown table
// or a line a commit, with the score table under --debug.
func (a *app) writeList(ans *retrieve.Answer, format string, debug bool) error {
	switch format {
	case formatJSON:
		return writeJSON(a.stdout, ans)
	case formatMarkdown:
		answerMarkdown(a.stdout, ans)
		if debug {
			writeDebug(a.stdout, ans.Items, true)
		}
	default:
		printAnswer(a.stdout, ans)
		if debug {
			writeDebug(a.stdout, ans.Items, false)
		}
	}
	return nil
}

func answerMarkdown(w io.Writer, a *retrieve.Answer) {
	fmt.Fprintf(w, "## %s\n\n[%s] · intent %s\n\n", oneLine(a.Query), a.Mode, a.Intent)
	for _, warn := range a.Warnings {
		fmt.Fprintf(w, "> ⚠ %s\n\n", warn)
	}
	if len(a.Suggestions) > 0 {
		fmt.Fprintf(w, "Try: %s\n\n", strings.Join(a.Suggestions, ", "))
	}
	rows := make([][]string, len(a.Items))
	for i, it := range a.Items {
		var marks []string
		if it.Tier != "" {
			marks = append(marks, labelText(it))
		}
		if it.Stale {
			marks = append(marks, "stale?")
		}
		if len(it.Gone) > 0 {
			marks = append(marks, "source may be outdated: "+it.GoneText())
		}
		rows[i] = []string{fmt.Sprint(i + 1), code(short(it.Commit)), fmt.Sprintf("%.3f", it.Score), strings.Join(it.Why, ", "), strings.Join(marks, "; ")}
	}
	mdTable(w, []string{"#", "commit", "score", "matched by", "marks"}, rows)
	if a.Clarify != "" {
		fmt.Fprintf(w, "\nClarify: %s\n", a.Clarify)
	}
}

// packCommitID names a written pack: the best answer's short hash, or
// "none" when nothing matched.
func packCommitID(a *retrieve.Answer) string {
	if len(a.Items) == 0 {
		return "none"
	}
	return a.Items[0].Commit[:12]
}

func (a *app) query(ctx context.Context, req api.QueryRequest, f queryFlags, outFormat string) error {
	svc, h, err := a.service(ctx)
	if err != nil {
		return err
	}
	name, err := f.repo.resolve(ctx, h)
	if err != nil {
		return err
	}
	packFormat := retrieve.FormatMarkdown
	if outFormat == formatJSON {
		packFormat = retrieve.FormatJSON
	}
	format := packFormat
	if f.out != "" {
		format = retrieve.FormatJSON // the file is JSON; its count must be of that text
	}
	req.Repo, req.Format = name, format
	res, err := svc.Query(ctx, req)
	if err != nil {
		return err
	}
	ans := res.Answer
	if f.list {
		if f.debug && outFormat != formatJSON {
			defer printMatch(a.stdout, res.Match)
		}
		return a.writeList(ans, outFormat, f.debug)
	}
	if f.debug {
		printAnswer(a.stderr, ans)
		writeDebug(a.stderr, ans.Items, false)
		printMatch(a.stderr, res.Match)
	}
	text := []byte(res.Text)
	if f.out != "" {
		path, err := a.writePack(ctx, svc, h, name, f, res.Pack, ans)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "wrote %s (%d tokens)\n", path, res.Pack.Metadata.TokenCount)
		if text, err = retrieve.Render(res.Pack, packFormat); err != nil {
			return err
		}
	}
	a.stdout.Write(text)
	if !bytes.HasSuffix(text, []byte("\n")) {
		fmt.Fprintln(a.stdout)
	}
	return nil
}
