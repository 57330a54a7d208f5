package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/indexer"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/understand/llm"
)

func (a *app) syncCmd() *cobra.Command {
	var quiet bool
	var name string
	var out outputFlags
	var workers int
	var retry bool
	var pf policyFlags
	var lf llmFlags
	c := &cobra.Command{
		Use:   "sync [NAME|PATH]",
		Short: "Index new commits of a repository",
		Long: `Index the commits of a registered repository's tracked branches that are not
indexed yet: the whole history the first time, then only what is new. A force
push, rebase or reset is detected: commits no longer reachable are marked
rewritten (kept, but excluded from answers) and the new history is indexed.

A sync can be stopped at any moment (Ctrl-C, kill) and run again: it resumes
where it stopped. Only one sync of a repository runs at a time.

A commit that fails (an unreadable object, say) is retried by later syncs,
waiting longer each time, and given up after 5 attempts; 'gitmemory status'
lists the errors. --retry-failed retries them all now, given-up ones too.

Without an argument, syncs the repository containing the current directory if
it is registered, else every registered repository. A PATH that is not
registered yet is registered first (as 'gitmemory add PATH' would).`,
		Example: `  gitmemory sync myproject
  gitmemory sync .                 # register if needed, then index
  gitmemory sync ~/src/api2 --name api-v2
  gitmemory sync api --all-branches
  gitmemory sync api --retry-failed   # after fixing what made commits fail
  gitmemory sync --format json | jq '.[].indexed'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := out.get(c)
			if err != nil {
				return err
			}
			jsonOut := format == formatJSON
			h, err := a.home()
			if err != nil {
				return err
			}
			names, err := a.syncTargets(c.Context(), h, args, pf.policy(c), name)
			if err != nil {
				return err
			}
			llmCfg, err := lf.config()
			if err != nil {
				return err
			}
			svc, _, err := a.service(c.Context())
			if err != nil {
				return err
			}
			daemon, viaDaemon := svc.(*api.Client)
			if viaDaemon && (llmCfg != nil || retry || c.Flags().Changed("workers") || hasPolicy(pf.policy(c))) {
				return fmt.Errorf("a daemon keeps this home's repositories and syncs them itself: stop it to sync with --llm, --workers, --retry-failed or a new policy")
			}
			var failed error
			var results []syncReport
			for _, name := range names {
				var rep syncReport
				if viaDaemon {
					if !quiet && !jsonOut {
						fmt.Fprintf(a.stderr, "%s: syncing through the running daemon (%s)…\n", name, daemon.BaseURL)
					}
					rep, err = daemonSync(c.Context(), daemon, name)
				} else {
					rep, err = a.syncOne(c.Context(), h, name, pf.policy(c), syncTuning{workers: workers, retry: retry}, quiet || jsonOut, llmCfg)
				}
				if err != nil {
					if len(names) == 1 {
						return err
					}
					failed = errors.Join(failed, fmt.Errorf("%s: %w", name, err))
					continue
				}
				results = append(results, rep)
				if !jsonOut {
					fmt.Fprintln(a.stdout, summary(rep))
				}
			}
			if jsonOut {
				if len(args) == 1 && len(results) == 1 {
					return errors.Join(writeJSON(a.stdout, results[0]), failed)
				}
				return errors.Join(writeJSON(a.stdout, results), failed)
			}
			return failed
		},
	}
	out.register(c, formatText, formatText, formatJSON)
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	c.Flags().StringVar(&name, "name", "", "with a PATH not registered yet: the name to register it under (default: the directory's name)")
	c.Flags().IntVar(&workers, "workers", 0, "extraction workers (default: number of CPUs)")
	c.Flags().BoolVar(&retry, "retry-failed", false, "retry every failed commit now, including those given up on")
	pf.register(c)
	lf.register(c)
	return c
}

// llmFlags configure the optional LLM summariser.
type llmFlags struct {
	provider, url, model string
	timeout              time.Duration
	batch, concurrency   int
}

func (l *llmFlags) register(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&l.provider, "llm", "", `summarise commits with an LLM: "ollama" or "openai" (any OpenAI-compatible
server; the key comes from OPENAI_API_KEY). Without it, summaries are
extractive and deterministic. A failing LLM never fails the sync`)
	f.StringVar(&l.url, "llm-url", "", "the LLM server's base URL (default http://127.0.0.1:11434 for ollama, https://api.openai.com/v1 for openai)")
	f.StringVar(&l.model, "llm-model", "", "the model to ask (required with --llm)")
	f.DurationVar(&l.timeout, "llm-timeout", llm.DefaultTimeout, "timeout of one LLM request")
	f.IntVar(&l.batch, "llm-batch", llm.DefaultBatchSize, "commits per LLM request")
	f.IntVar(&l.concurrency, "llm-concurrency", llm.DefaultMaxConcurrency, "LLM requests in flight")
}

// config returns the summariser's configuration, nil without --llm.
func (l *llmFlags) config() (*llm.Config, error) {
	if l.provider == "" {
		return nil, nil
	}
	p, err := llm.ParseProvider(l.provider)
	if err != nil {
		return nil, err
	}
	cfg := llm.Config{Provider: p, BaseURL: l.url, Model: l.model, Timeout: l.timeout, BatchSize: l.batch,
		MaxConcurrency: l.concurrency, APIKey: os.Getenv("OPENAI_API_KEY")}.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("--llm: %w", err)
	}
	return &cfg, nil
}

// syncTargets resolves the command's argument to repository names,
// registering an unregistered repository path (under name, when given).
func (a *app) syncTargets(ctx context.Context, h *memory.Home, args []string, pol memory.Policy, name string) ([]string, error) {
	if name != "" && len(args) == 0 {
		return nil, fmt.Errorf("--name names a repository being registered: give its PATH too (gitmemory sync PATH --name NAME)")
	}
	if len(args) == 0 {
		if wd, err := os.Getwd(); err == nil {
			if name, err := h.Resolve(ctx, wd); err == nil {
				return []string{name}, nil
			}
		}
		// By name, not by loading each: a damaged store fails its own
		// sync, not everyone's.
		names, err := h.Names()
		if err != nil {
			return nil, err
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("no repositories registered: gitmemory add PATH (or gitmemory sync PATH)")
		}
		return names, nil
	}
	known, err := h.Resolve(ctx, args[0])
	if err == nil {
		if name != "" && name != known {
			return nil, fmt.Errorf("%s is registered as %q, not %q: sync it by that name", args[0], known, name)
		}
		return []string{known}, nil
	}
	if !errors.Is(err, memory.ErrUnknownRepo) || !looksLikePath(args[0]) {
		// A bare word is a name: "unknown repository", with a suggestion.
		return nil, err
	}
	r, err := h.Add(ctx, args[0], memory.AddOptions{Name: name, Policy: pol})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(a.stderr, "registered %s as %q\n", r.Path, r.Name)
	return []string{r.Name}, nil
}

func looksLikePath(s string) bool {
	if strings.ContainsAny(s, `/\`) || s == "." || s == ".." {
		return true
	}
	_, err := os.Stat(s)
	return err == nil
}

// syncReport is the JSON shape of one repository's sync.
type syncReport struct {
	Name string `json:"name"`
	*indexer.Result
}

// syncTuning is how a sync from the command line runs.
type syncTuning struct {
	workers int
	retry   bool
}

func (a *app) syncOne(ctx context.Context, h *memory.Home, name string, pol memory.Policy, tune syncTuning, quiet bool,
	llmCfg *llm.Config) (syncReport, error) {
	bar := newProgressBar(a.stderr, name, quiet)
	res, err := h.Sync(ctx, name, memory.SyncOptions{
		Policy:   pol,
		Progress: bar.update,
		Tune:     func(o *indexer.Options) { o.Workers, o.RetryFailed = tune.workers, tune.retry },
		LLM:      llmCfg,
	})
	bar.finish()
	if errors.Is(err, context.Canceled) {
		return syncReport{}, fmt.Errorf("sync of %s interrupted; what was written is kept: run 'gitmemory sync %s' to resume", name, name)
	}
	if err != nil {
		return syncReport{}, err
	}
	if res.Pruned > 0 {
		a.recordDeletion(h.Dir, "prune", name, "commits", res.Pruned, "by", "retention")
	}
	return syncReport{Name: name, Result: res}, nil
}

// daemonSync asks the daemon to sync now and waits: the daemon coalesces
// this request with its own loop, so a sync never runs twice at once.
func daemonSync(ctx context.Context, c *api.Client, name string) (syncReport, error) {
	res, err := c.Sync(ctx, name)
	if err != nil {
		return syncReport{}, fmt.Errorf("sync through the daemon: %w", err)
	}
	return syncReport{Name: name, Result: res}, nil
}

func hasPolicy(p memory.Policy) bool {
	return p.Mode != nil || len(p.Branches) > 0 || p.KeepDays != nil || p.KeepCommits != nil || p.Graph != nil
}

// summary is the one-line outcome of a sync.
func summary(r syncReport) string {
	res := r.Result
	if res.Empty {
		return fmt.Sprintf("%s: repository has no commits yet; nothing to index", r.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s indexed", r.Name, plural(res.Indexed, "commit"))
	if res.Duration > 0 && res.Indexed > 0 {
		fmt.Fprintf(&b, " in %s (%.0f commits/s)", res.Duration.Round(time.Millisecond), float64(res.Indexed)/res.Duration.Seconds())
	}
	var names []string
	for _, br := range res.Branches {
		names = append(names, br.Name+"@"+short(br.Head))
	}
	fmt.Fprintf(&b, ", %s", strings.Join(names, " "))
	if res.Retried > 0 {
		fmt.Fprintf(&b, ", %d failed commits retried", res.Retried)
	}
	if res.Failed > 0 {
		fmt.Fprintf(&b, ", %d FAILED (gitmemory status %s)", res.Failed, r.Name)
	}
	if res.LLMFailed > 0 {
		fmt.Fprintf(&b, ", %d LLM summaries failed (kept extractive: %s)", res.LLMFailed, res.LLMError)
	}
	if res.Rewritten > 0 {
		fmt.Fprintf(&b, ", %d rewritten (history was force-pushed or reset)", res.Rewritten)
	}
	if res.Revived > 0 {
		fmt.Fprintf(&b, ", %d reachable again", res.Revived)
	}
	if res.Pruned > 0 {
		fmt.Fprintf(&b, ", %d pruned by retention", res.Pruned)
	}
	if res.Redactions > 0 {
		fmt.Fprintf(&b, ", %s redacted in %s", plural(res.Redactions, "secret"), plural(res.RedactedCommits, "commit"))
	}
	if c := res.EntityCheck; c != nil {
		fmt.Fprintf(&b, "; entity check: %d derived versions, %d differ from a whole parse (%d with syntax errors)",
			c.Derived, c.Differing, c.Broken)
	}
	if res.Shallow {
		fmt.Fprintf(&b, "; shallow clone: history before %d cut-off parent(s) is not available", len(res.Missing))
	}
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
