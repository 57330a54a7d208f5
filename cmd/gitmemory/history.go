package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/retrieve"
)

func (a *app) historyCmd() *cobra.Command {
	var repo repoFlag
	var out outputFlags
	var since string
	var limit int
	var merges, key bool
	c := &cobra.Command{
		Use:   "history PATH",
		Short: "The commits that changed a file or directory, newest first",
		Long: `List the indexed commits that changed a file (following its renames back, as
git log --follow does) or anything under a directory, newest first, each with
its change type and one-line summary. Rewritten commits are left out, and so
are merges unless --merges.

PATH is relative to the current directory when that is inside the
repository's work tree (as in git), else to the repository's root; an
absolute path inside the work tree works too. The file need not exist any
more. A file name git prints quoted ("caf\351.txt") may be given so.`,
		Example: `  gitmemory history internal/auth/token.go
  gitmemory history src/api/ --since 2024-01-01 --limit 20
  gitmemory history README.md --since 90d --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := out.get(c)
			if err != nil {
				return err
			}
			t, err := parseSince(since, time.Now())
			if err != nil {
				return err
			}
			name, path, alt, err := a.repoPath(c.Context(), repo, args[0])
			if err != nil {
				return err
			}
			svc, _, err := a.service(c.Context())
			if err != nil {
				return err
			}
			cs, err := svc.History(c.Context(), api.HistoryRequest{Repo: name, Path: path, Since: t, Limit: limit, Merges: merges, Key: key})
			if err == nil && len(cs) == 0 && alt != "" {
				cs, err = svc.History(c.Context(), api.HistoryRequest{Repo: name, Path: alt, Since: t, Limit: limit, Merges: merges, Key: key})
				if len(cs) == 0 {
					alt = ""
				}
			}
			if err != nil {
				return err
			}
			if alt != "" {
				path = alt
			}
			return a.writeChanges(cs, format, fmt.Sprintf("no indexed commit changed %s", path))
		},
	}
	repo.register(c)
	out.register(c, formatText, formatText, formatJSON, formatMarkdown)
	f := c.Flags()
	f.StringVar(&since, "since", "", `only commits since a date (2024-01-31) or a duration back ("90d", "12h")`)
	f.IntVar(&limit, "limit", retrieve.DefaultHistoryLimit, "at most this many commits")
	f.BoolVar(&key, "key", false, "the key commits, most important first: the introduction, then changes by type and size")
	f.BoolVar(&merges, "merges", false, "include merge commits (what the merge itself changed)")
	return c
}

func (a *app) recentCmd() *cobra.Command {
	var repo repoFlag
	var out outputFlags
	var days, limit int
	c := &cobra.Command{
		Use:   "recent [PATH]",
		Short: "The commits of the last days, under a path if given",
		Long: `List the indexed commits of the last days (by commit time), newest first, with
their change type and one-line summary; with PATH, only those that changed it
(a file, following renames, or a directory).`,
		Example: `  gitmemory recent
  gitmemory recent src/payments/ --days 30 --format markdown`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := out.get(c)
			if err != nil {
				return err
			}
			arg := ""
			if len(args) == 1 {
				arg = args[0]
			}
			name, path, _, err := a.repoPath(c.Context(), repo, arg)
			if err != nil {
				return err
			}
			svc, _, err := a.service(c.Context())
			if err != nil {
				return err
			}
			cs, err := svc.Recent(c.Context(), api.RecentRequest{Repo: name, Path: path, Days: days, Limit: limit})
			if err != nil {
				return err
			}
			return a.writeChanges(cs, format, fmt.Sprintf("no indexed commit in the last %d days", days))
		},
	}
	repo.register(c)
	out.register(c, formatText, formatText, formatJSON, formatMarkdown)
	f := c.Flags()
	f.IntVar(&days, "days", 7, "how many days back")
	f.IntVar(&limit, "limit", retrieve.DefaultHistoryLimit, "at most this many commits")
	return c
}

// repoPath resolves the repository and makes a path repository-relative
// (resolvePath). alt is the path read as repository-relative when that
// differs (a path typed from a subdirectory as if from the root): history
// falls back on it when the first reading matches nothing.
func (a *app) repoPath(ctx context.Context, repo repoFlag, path string) (name, rel, alt string, err error) {
	h, err := a.home()
	if err != nil {
		return "", "", "", err
	}
	if name, err = repo.resolve(ctx, h); err != nil {
		return "", "", "", err
	}
	r, err := h.Get(ctx, name)
	if err != nil {
		return "", "", "", err
	}
	if path == "" {
		return name, "", "", nil
	}
	cwd, _ := os.Getwd()
	rel, alt, err = resolvePath(r.Path, cwd, path)
	return name, rel, alt, err
}

// resolvePath makes a command-line path repository-relative, as git does:
// relative to the current directory when that is inside the repository's
// work tree (history app.rs in crates/core is crates/core/app.rs, whether
// or not the file still exists), else to the repository's root; an
// absolute path inside the work tree is made relative to it. "." and ".."
// resolve lexically ("a/../b" is "b"); a path that climbs above the root is
// refused. A path git printed quoted ("caf\351.txt" in double quotes) is
// read back, and the result is quoted for the API when it is not plain
// UTF-8 (model.QuotePath). alt is the path read from the root instead,
// when the current directory made a difference.
func resolvePath(root, cwd, arg string) (rel, alt string, err error) {
	arg = model.UnquotePath(arg)
	if filepath.IsAbs(arg) {
		if r, ok := within(root, filepath.Clean(arg)); ok {
			return model.QuotePath(r), "", nil
		}
		return arg, "", nil // outside the work tree: the service says so
	}
	base := ""
	if r, ok := within(root, cwd); ok {
		base = r
	}
	clean := func(p string) (string, error) {
		p = path.Clean(filepath.ToSlash(p))
		if p == ".." || strings.HasPrefix(p, "../") {
			return "", fmt.Errorf("path %q is outside the repository", arg)
		}
		if p == "." {
			p = ""
		}
		return p, nil
	}
	if rel, err = clean(path.Join(base, filepath.ToSlash(arg))); err != nil {
		return "", "", err
	}
	if base != "" {
		if a, err := clean(arg); err == nil && a != rel && a != "" {
			alt = model.QuotePath(a)
		}
	}
	return model.QuotePath(rel), alt, nil
}

// within returns p relative to root when p is root or inside it,
// comparing both as given and with symbolic links resolved.
func within(root, p string) (string, bool) {
	if root == "" || p == "" {
		return "", false
	}
	try := func(root, p string) (string, bool) {
		r, err := filepath.Rel(root, p)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", false
		}
		if r == "." {
			r = ""
		}
		return filepath.ToSlash(r), true
	}
	if r, ok := try(root, p); ok {
		return r, true
	}
	rr, err1 := filepath.EvalSymlinks(root)
	rp, err2 := evalExisting(p)
	if err1 != nil || err2 != nil {
		return "", false
	}
	return try(rr, rp)
}

// evalExisting resolves the symbolic links of p's longest existing
// prefix (p itself may be a deleted file).
func evalExisting(p string) (string, error) {
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", fmt.Errorf("no existing prefix")
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// parseSince reads "2024-01-31", an RFC 3339 time, or a duration back
// ("90d", "12h", "2w"); "" is the beginning of time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if u, ok := unit[s[len(s)-1]]; ok {
		var n int
		if _, err := fmt.Sscanf(s[:len(s)-1], "%d", &n); err == nil && n >= 0 {
			return now.Add(-time.Duration(n) * u), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a date (2024-01-31), a time (RFC 3339) or a duration (90d, 2w, 12h)", s)
}

// changeLine is what one commit of history or recent shows: its type
// ("-" when unclassified), its summary (else its subject) and a rename.
func changeLine(c retrieve.Change) (class, what, rename string) {
	class = c.Classification
	if class == "" {
		class = "-"
	}
	what = c.Summary
	if what == "" {
		what = c.Subject
	}
	if c.Status == "renamed" && c.OldPath != "" {
		rename = c.OldPath + " → " + c.Path
	}
	return class, what, rename
}

func printChanges(w io.Writer, cs []retrieve.Change) {
	for _, c := range cs {
		class, what, rename := changeLine(c)
		if rename != "" {
			rename = "  (" + rename + ")"
		}
		fmt.Fprintf(w, "%s %s %-13s %s%s\n", short(c.Commit), c.When.Format("2006-01-02"), class, clip(what, 90), rename)
	}
}

func changesMarkdown(w io.Writer, cs []retrieve.Change) {
	rows := make([][]string, len(cs))
	for i, c := range cs {
		class, what, rename := changeLine(c)
		rows[i] = []string{code(short(c.Commit)), c.When.Format("2006-01-02"), class, what, rename}
	}
	mdTable(w, []string{"commit", "date", "type", "summary", "renamed"}, rows)
}

// writeChanges prints history or recent's answer: JSON (a list, never
// null), a Markdown table or lines, or what was looked for when nothing
// was found.
func (a *app) writeChanges(cs []retrieve.Change, format, none string) error {
	switch {
	case format == formatJSON:
		if cs == nil {
			cs = []retrieve.Change{}
		}
		return writeJSON(a.stdout, cs)
	case len(cs) == 0:
		fmt.Fprintln(a.stdout, none)
	case format == formatMarkdown:
		changesMarkdown(a.stdout, cs)
	default:
		printChanges(a.stdout, cs)
	}
	return nil
}
