// Command xunderstand runs the deterministic understand stage (Classify,
// Summarize, DesignNotes) over the newest N commits of HEAD and prints what
// it derives, one line per fact, so that two builds can be compared with
// cmp: a change meant to make the stage faster must not change a byte.
// On stderr it reports the time spent in each of the three calls alone,
// extraction excluded. It is a development tool.
//
//	xunderstand [-n 20000] [-cpuprofile f] REPO > out.txt
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/understand"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "xunderstand:", err)
		os.Exit(1)
	}
}

// timings are the totals spent in each understand call.
type timings struct{ classify, summarize, notes time.Duration }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("xunderstand", flag.ContinueOnError)
	n := fs.Int("n", 20000, "commits, newest first from HEAD")
	prof := fs.String("cpuprofile", "", "write a CPU profile to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: xunderstand [-n N] [-cpuprofile f] REPO")
	}
	path := fs.Arg(0)
	out, err := exec.CommandContext(ctx, "git", "-C", path, "rev-list", "-n", fmt.Sprint(*n), "HEAD").Output()
	if err != nil {
		return fmt.Errorf("git rev-list: %w", err)
	}
	repo, err := extract.Open(path, extract.Options{})
	if err != nil {
		return err
	}
	defer repo.Close()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	w := bufio.NewWriter(stdout)
	var t timings
	hashes := strings.Fields(string(out))
	for _, h := range hashes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := understandOne(repo, h, w, &t); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "%d commits: classify %.3fs summarize %.3fs notes %.3fs\n", len(hashes),
		t.classify.Seconds(), t.summarize.Seconds(), t.notes.Seconds())
	return w.Flush()
}

// understandOne loads and diffs one commit as the indexer does (without
// redaction, which does not matter for a comparison) and prints what the
// understand stage makes of it, timing each call.
func understandOne(repo *extract.Repo, hash string, w io.Writer, t *timings) error {
	l, err := repo.Load(hash)
	if err != nil {
		return err
	}
	c := l.FinishWith(nil)
	start := time.Now()
	cl := understand.Classify(c)
	t1 := time.Now()
	sum := understand.Summarize(c, cl)
	t2 := time.Now()
	notes := understand.DesignNotes(c)
	t3 := time.Now()
	t.classify += t1.Sub(start)
	t.summarize += t2.Sub(t1)
	t.notes += t3.Sub(t2)
	printCommit(w, c.Hash, cl, sum, notes)
	return nil
}

// printCommit writes one commit's results, strings quoted so that each is on one line.
func printCommit(w io.Writer, hash string, cl model.Classification, sum string, notes []model.DesignNote) {
	fmt.Fprintf(w, "commit %s\nclass %s %v", hash, cl.Primary.Type, cl.Primary.Confidence)
	for _, l := range cl.Secondary {
		fmt.Fprintf(w, " %s %v", l.Type, l.Confidence)
	}
	fmt.Fprintf(w, "\nsummary %q\n", sum)
	for _, n := range notes {
		fmt.Fprintf(w, "note %q %q %q %d %q %q %q\n", n.Commit, n.Source, n.Path, n.Line, n.Marker, n.Text, n.Entities)
	}
}
