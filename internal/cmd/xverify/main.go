// Command xverify checks gitmemory against git on a real repository and
// prints every mismatch:
//
//   - history: `gitmemory history` of each path against git log --follow
//     --no-merges (a file) or git log --full-history --no-merges (a
//     directory), whole lists, in order;
//   - numstat: each non-merge commit's stored file changes (status, paths,
//     similarity, line counts) against git log --raw --numstat -M -C;
//   - graph: the graph and vector index a sync wrote against a replay of
//     both from SQLite alone, quad for quad and document for document;
//   - entity: the history of functions and methods alive at the head
//     against git log -L over their lines.
//
// A mismatch with a known, deliberate cause (docs/exactness.md) is counted
// as explained, with the cause; the others are unexplained, and make the
// exit status 1.
//
//	go run ./internal/cmd/xverify /path/to/repo              # syncs it into a temporary home first
//	go run ./internal/cmd/xverify -home H -name N /path/to/repo
//	go run ./internal/cmd/xverify -checks history -top 29 -sample 0 /path/to/repo
//	go run ./internal/cmd/xverify -bin ./gitmemory-old -home H -name N -checks history -top 29 REPO
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/memory"
)

type config struct {
	repo, home, name, bin string
	gitDir                string // where git runs (prepareGit)
	head                  string
	top, sample           int
	entities              int
	jobs                  int
	verbose, dirs, keep   bool
	tmpHome               string
	h                     *memory.Home
}

func main() {
	var c config
	checks := flag.String("checks", "history,numstat,graph,entity", "the checks to run")
	flag.StringVar(&c.home, "home", "", "a gitmemory home holding the repository already synced (default: sync into a temporary one)")
	flag.StringVar(&c.name, "name", "", "the repository's name in -home")
	flag.StringVar(&c.bin, "bin", "", "history: ask this gitmemory binary (`history --json`, at most 500 commits) instead of this build")
	flag.IntVar(&c.top, "top", 100, "history: the N most-changed paths")
	flag.IntVar(&c.sample, "sample", 2000, "history: paths in all, the most-changed and a fixed sample of the rest (0: every path)")
	flag.IntVar(&c.entities, "entities", 200, "entity: functions per language")
	flag.IntVar(&c.jobs, "j", runtime.NumCPU(), "git processes at once")
	flag.BoolVar(&c.verbose, "v", false, "print every comparison")
	flag.BoolVar(&c.dirs, "dirs", true, "history: directories too, not files alone")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary home a sync went into")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: xverify [flags] REPO")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	c.repo = flag.Arg(0)
	ctx := context.Background()
	if err := c.setup(ctx); err != nil {
		fail(err)
	}
	if c.tmpHome != "" && !c.keep {
		defer os.RemoveAll(c.tmpHome)
	}
	cleanup, err := c.prepareGit(ctx)
	if err != nil {
		fail(err)
	}
	atExit = cleanup
	defer cleanup()
	unexplained := 0
	for _, check := range strings.Split(*checks, ",") {
		start := time.Now()
		var n int
		var err error
		switch strings.TrimSpace(check) {
		case "history":
			n, err = c.history(ctx)
		case "numstat":
			n, err = c.numstat(ctx)
		case "graph":
			n, err = c.graph(ctx)
		case "entity":
			n, err = c.entity(ctx)
		default:
			err = fmt.Errorf("unknown check %q", check)
		}
		if err != nil {
			fail(fmt.Errorf("%s: %w", check, err))
		}
		fmt.Printf("  (%s in %s)\n", check, time.Since(start).Round(time.Millisecond))
		unexplained += n
	}
	fmt.Printf("unexplained mismatches: %d\n", unexplained)
	if unexplained > 0 {
		if c.tmpHome != "" && !c.keep {
			os.RemoveAll(c.tmpHome)
		}
		cleanup()
		os.Exit(1)
	}
}

// setup syncs the repository into a temporary home unless -home names one,
// and finds the head the index holds.
func (c *config) setup(ctx context.Context) error {
	if c.home == "" {
		dir, err := os.MkdirTemp("", "xverify")
		if err != nil {
			return err
		}
		c.home, c.name, c.tmpHome = dir, "r", dir
		h, err := memory.OpenHome(dir)
		if err != nil {
			return err
		}
		if _, err := h.Add(ctx, c.repo, memory.AddOptions{Name: c.name}); err != nil {
			return err
		}
		start := time.Now()
		res, err := h.Sync(ctx, c.name, memory.SyncOptions{})
		if err != nil {
			return err
		}
		fmt.Printf("synced %s into %s: %d commits in %s\n", c.repo, dir, res.Indexed, time.Since(start).Round(time.Millisecond))
	}
	if c.bin != "" {
		return c.setupBin(ctx)
	}
	h, err := memory.OpenHome(c.home)
	if err != nil {
		return err
	}
	c.h = h
	if c.name == "" {
		if c.name, err = h.Resolve(ctx, c.repo); err != nil {
			return err
		}
	}
	r, err := h.Get(ctx, c.name)
	if err != nil {
		return err
	}
	c.repo = r.Path
	st, err := h.Status(ctx, c.name, false)
	if err != nil {
		return err
	}
	for _, b := range st.Branches {
		if c.head == "" {
			c.head = b.LastHead
		}
	}
	if c.head == "" {
		return fmt.Errorf("%s has no synced branch", c.name)
	}
	fmt.Printf("repository %s (%s), head %s\n", c.name, c.repo, c.head[:12])
	return nil
}

// setupBin reads the head from the -bin binary's status, leaving its
// store to it (this build would migrate it to a schema the binary may not
// know).
func (c *config) setupBin(ctx context.Context) error {
	if c.name == "" {
		return fmt.Errorf("-bin needs -home and -name")
	}
	out, err := exec.CommandContext(ctx, c.bin, "--home", c.home, "status", c.name, "--json").Output()
	if err != nil {
		return fmt.Errorf("%s status: %w", c.bin, err)
	}
	var st struct {
		Path     string `json:"path"`
		Branches []struct {
			LastHead string `json:"last_head"`
		} `json:"branches"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return err
	}
	if len(st.Branches) == 0 {
		return fmt.Errorf("%s has no synced branch", c.name)
	}
	c.repo, c.head = st.Path, st.Branches[0].LastHead
	fmt.Printf("repository %s (%s), head %s, history from %s\n", c.name, c.repo, c.head[:12], c.bin)
	return nil
}

// atExit removes what xverify made for git, also on failure.
var atExit = func() {}

func fail(err error) {
	atExit()
	fmt.Fprintln(os.Stderr, "xverify:", err)
	os.Exit(2)
}
