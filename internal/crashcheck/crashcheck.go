// Package crashcheck kills real sync processes with SIGKILL at random
// moments, resumes them, and compares what each resumed sync derived with
// what an uninterrupted sync of the same repository derived (internal/dump:
// every table, every graph quad, the vector index's documents). It backs
// the crash test of cmd/gitmemory and the xcrash command.
package crashcheck

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gitmemory/gitmemory/internal/dump"
)

// Config describes a check.
type Config struct {
	// Command returns the command line of gitmemory with its home set to
	// home and the given arguments (add, sync), not started.
	Command func(home string, args ...string) *exec.Cmd
	// Repo is the repository's path.
	Repo string
	// Dir holds the homes (a temporary directory).
	Dir string
	// Separate is the number of syncs killed once each and resumed.
	Separate int
	// Chained is the number of kills of one sync, each resuming the last,
	// before it is let finish.
	Chained int
	// Seed makes the kill moments reproducible.
	Seed uint64
	// Log, if set, receives a line per run.
	Log io.Writer
}

// Result is one killed-and-resumed sync.
type Result struct {
	Name string
	// KilledAt are the moments of the kills that landed before the sync
	// ended; Finished counts the syncs that ended before their kill.
	KilledAt []time.Duration
	Finished int
	// Diff summarises how the resumed sync's dump differs from the clean
	// one's; empty when they are identical.
	Diff string
}

// Report is a whole check.
type Report struct {
	Clean     time.Duration
	CleanDump string
	Results   []Result
}

// Identical counts the results identical to the clean sync.
func (r *Report) Identical() int {
	n := 0
	for _, res := range r.Results {
		if res.Diff == "" {
			n++
		}
	}
	return n
}

// Run performs the check: one clean sync, then the killed ones.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5bd1e995))
	rep := &Report{}
	clean := filepath.Join(cfg.Dir, "clean")
	if err := add(cfg, clean); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := sync(ctx, cfg, clean); err != nil {
		return nil, fmt.Errorf("clean sync: %w", err)
	}
	rep.Clean = time.Since(start)
	var err error
	if rep.CleanDump, err = dumpHome(ctx, clean); err != nil {
		return nil, err
	}
	logf(cfg, "clean sync: %s, dump %d lines", rep.Clean.Round(time.Millisecond), strings.Count(rep.CleanDump, "\n"))
	// Kill moments spread over the whole clean duration, start-up included.
	moment := func() time.Duration { return time.Duration(rng.Int64N(int64(rep.Clean))) }
	for i := range cfg.Separate {
		res, err := resumeAfter(ctx, cfg, rep, fmt.Sprintf("separate-%02d", i+1), []time.Duration{moment()})
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, res)
	}
	if cfg.Chained > 0 {
		// Each within its share of the clean duration, so that each lands
		// while the syncs killed before it left work to do.
		kills := make([]time.Duration, cfg.Chained)
		for i := range kills {
			kills[i] = time.Duration(rng.Int64N(int64(rep.Clean) / int64(cfg.Chained)))
		}
		res, err := resumeAfter(ctx, cfg, rep, fmt.Sprintf("chained-%d", cfg.Chained), kills)
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, res)
	}
	return rep, nil
}

// resumeAfter runs a sync per kill moment in one new home, each killed at
// its moment, then one sync to the end, and compares the dump.
func resumeAfter(ctx context.Context, cfg Config, rep *Report, name string, kills []time.Duration) (Result, error) {
	res := Result{Name: name}
	home := filepath.Join(cfg.Dir, name)
	defer os.RemoveAll(home)
	if err := add(cfg, home); err != nil {
		return res, err
	}
	for _, k := range kills {
		killed, err := killAt(ctx, cfg, home, k)
		if err != nil {
			return res, err
		}
		if killed {
			res.KilledAt = append(res.KilledAt, k)
		} else {
			res.Finished++
		}
	}
	if err := sync(ctx, cfg, home); err != nil {
		return res, fmt.Errorf("%s: resumed sync: %w", name, err)
	}
	got, err := dumpHome(ctx, home)
	if err != nil {
		return res, err
	}
	res.Diff = Diff(rep.CleanDump, got)
	status := "identical"
	if res.Diff != "" {
		status = "DIFFERENT:\n" + res.Diff
	}
	logf(cfg, "%s: killed at %v (%d ended first): %s", name, res.KilledAt, res.Finished, status)
	return res, nil
}

func logf(cfg Config, format string, args ...any) {
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, format+"\n", args...)
	}
}

func add(cfg Config, home string) error {
	cmd := cfg.Command(home, "add", cfg.Repo, "--name", "r")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("add: %v\n%s", err, out)
	}
	return nil
}

// sync runs a sync to its end.
func sync(ctx context.Context, cfg Config, home string) error {
	cmd := cfg.Command(home, "sync", "r", "--quiet")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return ctx.Err()
}

// killAt starts a sync and kills it with SIGKILL after d, unless it ends
// first (then killed is false; a failure is an error).
func killAt(ctx context.Context, cfg Config, home string, d time.Duration) (killed bool, err error) {
	cmd := cfg.Command(home, "sync", "r", "--quiet")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return false, fmt.Errorf("sync before its kill: %v\n%s", err, out.String())
		}
		return false, nil
	case <-time.After(d):
		cmd.Process.Signal(syscall.SIGKILL)
		err := <-done
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return true, nil
		}
		return err != nil, nil // it ended just as it was killed
	case <-ctx.Done():
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		return false, ctx.Err()
	}
}

func dumpHome(ctx context.Context, home string) (string, error) {
	var b strings.Builder
	if err := dump.Dump(ctx, filepath.Join(home, "repos", "r"), &b, dump.Options{}); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Diff summarises how dump b differs from dump a: per section, the lines
// only in one of them (at most three of each shown). Empty when equal.
func Diff(a, b string) string {
	if a == b {
		return ""
	}
	sa, sb := sections(a), sections(b)
	var out strings.Builder
	var names []string
	seen := map[string]bool{}
	for _, s := range append(sa.order, sb.order...) {
		if !seen[s] {
			seen[s] = true
			names = append(names, s)
		}
	}
	for _, name := range names {
		la, lb := sa.lines[name], sb.lines[name]
		onlyA, onlyB := minus(la, lb), minus(lb, la)
		if len(onlyA) == 0 && len(onlyB) == 0 {
			continue
		}
		fmt.Fprintf(&out, "  %s: %d lines only in the clean sync, %d only in the resumed one\n", name, len(onlyA), len(onlyB))
		for _, l := range onlyA[:min(3, len(onlyA))] {
			fmt.Fprintf(&out, "    - %s\n", clip(l))
		}
		for _, l := range onlyB[:min(3, len(onlyB))] {
			fmt.Fprintf(&out, "    + %s\n", clip(l))
		}
	}
	if out.Len() == 0 {
		return "  (the same lines in another order)\n"
	}
	return out.String()
}

type dumpSections struct {
	order []string
	lines map[string][]string
}

func sections(d string) dumpSections {
	s := dumpSections{lines: map[string][]string{}}
	cur := ""
	sc := bufio.NewScanner(strings.NewReader(d))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		l := sc.Text()
		if name, ok := strings.CutPrefix(l, "== "); ok {
			cur, _, _ = strings.Cut(name, " (")
			s.order = append(s.order, cur)
			continue
		}
		s.lines[cur] = append(s.lines[cur], l)
	}
	return s
}

// minus returns the lines of a not in b, as multisets.
func minus(a, b []string) []string {
	n := map[string]int{}
	for _, l := range b {
		n[l]++
	}
	var out []string
	for _, l := range a {
		if n[l] > 0 {
			n[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
