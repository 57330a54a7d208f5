package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/retrieve"
)

// configFile is the configuration file's name in the gitmemory home.
const configFile = api.ConfigFile

// lookupFlags are the lookup command's options.
type lookupFlags struct {
	paths, fingerprints []string
	staged              bool
	out                 outputFlags
	repo                repoFlag
	head                string
	days, limit         int
}

func (a *app) lookupCmd() *cobra.Command {
	var f lookupFlags
	c := &cobra.Command{
		Use:   "lookup [NAME|PATH] (--path P ... | --staged) [--fingerprint F ...]",
		Short: "Find the recent changes related to a candidate change (fast, no search)",
		Long: `Find the indexed commits of the last 90 days that relate to a candidate change:
those that touched the same paths (or a directory containing them, or a file
inside a directory named), or that match one of its fingerprints. It reads
only the store's indexes: no embeddings, no graph; typically a fraction of a
millisecond.

Paths are repository-relative ("./a", "a//b", "dir/" and "a\b" are read as
the path they name; an absolute path inside the work tree is made relative).
--staged adds the paths of the change staged in the repository's work tree
(git diff --cached --name-only). An exact path weighs 2, a directory
relation either way 1.

A fingerprint is a reason, an issue or advisory key the commit messages
reference (#12, GH-12, owner/repo#12, PROJ-7, CVE-2024-1234), or a paths
fingerprint ("paths:" and 16 hex digits, the hash of a sorted path set; the
candidate's own is derived from its paths and shown by --json). A record is
returned when it matches by path OR by fingerprint.

Matches are ordered by severity (critical, high, medium, low, unknown), then
newest first, then by path overlap, then by commit hash. Severity comes from
the change type and security flags:
  critical  a security change that references a CVE
  high      a security change, or a commit whose secrets were redacted
  medium    a bugfix, revert or performance change, or one with a security
            label of confidence 0.2 or more
  low       any other classified change
  unknown   not classified
At most --limit matches are shown, and the answer says when more match.
--head names the candidate's own commit, which is never related to itself.
Rewritten commits are never returned.

Defaults come from the [lookup] section of config.toml in the gitmemory home
(flags override them):
  [lookup]
  max_matches = 3    # --limit
  window_days = 90   # --days

The repository is NAME|PATH or --repo; without either, the one containing
the current directory, or the only one registered.`,
		Example: `  gitmemory lookup --path internal/auth/token.go --path internal/auth/
  gitmemory lookup api --staged --format json
  gitmemory lookup --fingerprint CVE-2024-3094 --days 365 --limit 10`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := f.out.get(c)
			if err != nil {
				return err
			}
			return a.lookup(c.Context(), args, f, format)
		},
	}
	fl := c.Flags()
	fl.StringArrayVar(&f.paths, "path", nil, "a path the change touches (repeatable)")
	fl.BoolVar(&f.staged, "staged", false, "add the paths staged in the repository's work tree")
	fl.StringArrayVar(&f.fingerprints, "fingerprint", nil, "a reason (issue or advisory key) or a paths fingerprint (repeatable)")
	fl.StringVar(&f.head, "head", "", "the candidate change's own commit, left out of the answer")
	fl.IntVar(&f.days, "days", 0, "how many days back to look (default: window_days, 90)")
	fl.IntVar(&f.limit, "limit", 0, "how many matches to show (default: max_matches, 3)")
	f.out.register(c, formatText, formatText, formatJSON, formatMarkdown)
	f.repo.register(c)
	return c
}

// lookupReport is the command's JSON answer.
type lookupReport struct {
	Repository string `json:"repository"`
	*retrieve.LookupResult
}

func (a *app) lookup(ctx context.Context, args []string, f lookupFlags, format string) error {
	h, err := a.home()
	if err != nil {
		return err
	}
	if len(args) == 1 && f.repo.value != "" {
		return fmt.Errorf("the repository is named twice (%s and --repo %s): give one", args[0], f.repo.value)
	}
	if len(args) == 1 {
		f.repo.value = args[0]
	}
	name, err := f.repo.resolve(ctx, h)
	if err != nil {
		return err
	}
	repo, err := h.Get(ctx, name)
	if err != nil {
		return err
	}
	paths, err := lookupPaths(repo.Path, f.paths)
	if err != nil {
		return err
	}
	q := retrieve.LookupQuery{Paths: paths, Fingerprints: f.fingerprints, Head: f.head, Days: f.days, Limit: f.limit}
	if f.staged {
		staged, err := stagedPaths(ctx, repo)
		if err != nil {
			return err
		}
		q.Paths = append(q.Paths, staged...)
	}
	if len(q.Paths) == 0 && len(q.Fingerprints) == 0 {
		return fmt.Errorf("nothing to look up: give --path, --staged or --fingerprint")
	}
	svc, _, err := a.service(ctx)
	if err != nil {
		return err
	}
	res, err := svc.Lookup(ctx, api.LookupRequest{Repo: repo.Name, Paths: q.Paths, Fingerprints: q.Fingerprints,
		Head: q.Head, Days: q.Days, Limit: q.Limit})
	if err != nil {
		return err
	}
	switch format {
	case formatJSON:
		return writeJSON(a.stdout, lookupReport{Repository: repo.Name, LookupResult: res})
	case formatMarkdown:
		lookupMarkdown(a.stdout, repo.Name, res)
	default:
		printLookup(a.stdout, repo.Name, res)
	}
	return nil
}

// lookupPaths makes --path arguments repository-relative: an absolute
// path inside the work tree relative to it, "a/../b" resolved. A relative
// path is relative to the repository's root wherever the command runs:
// hooks and bots pass the paths git prints (git diff --name-only), which
// are.
func lookupPaths(root string, args []string) ([]string, error) {
	out := make([]string, len(args))
	for i, p := range args {
		rel, _, err := resolvePath(root, "", p)
		if err != nil {
			return nil, err
		}
		out[i] = model.UnquotePath(rel)
	}
	return out, nil
}

// stagedPaths lists the paths of the change staged in the repository's
// work tree. Git itself says whether the repository is bare: that is what
// decides whether anything can be staged.
func stagedPaths(ctx context.Context, repo *memory.Repository) ([]string, error) {
	bare, err := gitOutput(ctx, repo.Path, "rev-parse", "--is-bare-repository")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(bare) == "true" {
		return nil, fmt.Errorf("%s is a bare repository: it has no work tree to stage in; use --path", repo.Path)
	}
	out, err := gitOutput(ctx, repo.Path, "diff", "--cached", "--name-only", "-z")
	if err != nil {
		return nil, err
	}
	var paths []string
	for p := range strings.SplitSeq(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, errors.New("nothing is staged in " + repo.Path + ": stage the change (git add) or use --path")
	}
	return paths, nil
}

// gitOutput runs git in dir and returns its standard output.
func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s in %s: %w: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

func lookupMarkdown(w io.Writer, name string, res *retrieve.LookupResult) {
	fmt.Fprintf(w, "## Related changes in %s, last %d days\n\n", name, res.WindowDays)
	if len(res.Matches) == 0 {
		fmt.Fprintln(w, "None.")
		return
	}
	rows := make([][]string, len(res.Matches))
	for i, m := range res.Matches {
		rows[i] = []string{m.Severity.String(), m.Date.Format("2006-01-02"), m.Type, code(fmt.Sprintf("%.12s", m.ID)), m.Summary, m.Link}
	}
	mdTable(w, []string{"severity", "date", "type", "id", "summary", "link"}, rows)
	if res.More {
		fmt.Fprintf(w, "\nMore match: `--limit %d` shows more.\n", max(2*res.Limit, 10))
	}
}

func printLookup(w io.Writer, name string, res *retrieve.LookupResult) {
	if len(res.Matches) == 0 {
		fmt.Fprintf(w, "%s: no related changes in the last %d days\n", name, res.WindowDays)
		return
	}
	count := plural(len(res.Matches), "related change")
	if res.More {
		count = fmt.Sprintf("the first %d related changes", len(res.Matches))
	}
	fmt.Fprintf(w, "%s: %s in the last %d days\n", name, count, res.WindowDays)
	for _, m := range res.Matches {
		fmt.Fprintf(w, "%-8s  %s  %-13s  %.12s  %s\n", m.Severity, m.Date.Format("2006-01-02"), m.Type, m.ID, m.Summary)
		if m.Link != m.ID {
			fmt.Fprintf(w, "%10s%s\n", "", m.Link)
		}
	}
	if res.More {
		fmt.Fprintf(w, "more match: --limit %d shows more\n", max(2*res.Limit, 10))
	}
}
