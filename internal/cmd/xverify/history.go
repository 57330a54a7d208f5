package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gitmemory/gitmemory/retrieve"
)

// git runs git in the repository and returns its output.
func (c *config) git(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", c.gitDir, "-c", "core.quotepath=off"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// historyPath is one path to compare and what git says of it.
type historyPath struct {
	path    string
	dir     bool
	changes int
	want    []string
	got     []string
	err     error
}

// history compares `history` with git log for the sampled paths.
func (c *config) history(ctx context.Context) (int, error) {
	paths, err := c.historyPaths(ctx)
	if err != nil {
		return 0, err
	}
	jobs := make(chan *historyPath)
	var wg sync.WaitGroup
	var done atomic.Int64
	start := time.Now()
	for range max(1, c.jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				p.err = c.compareHistory(ctx, p)
				// A large repository takes long: say how far it is, and
				// each unexplained difference at once.
				if p.err == nil && !slices.Equal(p.got, p.want) {
					fmt.Fprintf(os.Stderr, "  MISMATCH %s\n", describe(p))
				}
				if n := done.Add(1); n%100 == 0 {
					fmt.Fprintf(os.Stderr, "history: %d of %d paths in %s\n", n, len(paths), time.Since(start).Round(time.Second))
				}
			}
		}()
	}
	for _, p := range paths {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	same, unexplained, files, dirs := 0, 0, 0, 0
	for _, p := range paths {
		if p.err != nil {
			return 0, p.err
		}
		if p.dir {
			dirs++
		} else {
			files++
		}
		switch {
		case slices.Equal(p.got, p.want):
			same++
			if c.verbose {
				fmt.Printf("  ok %s (%d commits)\n", p.path, len(p.want))
			}
		default:
			unexplained++
			fmt.Printf("  MISMATCH %s\n", describe(p))
		}
	}
	fmt.Printf("history: %d paths (%d files, %d directories; the %d most-changed and a sample), %d identical to git, %d unexplained\n",
		len(paths), files, dirs, min(c.top, len(paths)), same, unexplained)
	return unexplained, nil
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// describe says where two histories part.
func describe(p *historyPath) string {
	kind := "file, git log --follow"
	if p.dir {
		kind = "directory, git log --full-history"
	}
	i := 0
	for i < len(p.got) && i < len(p.want) && p.got[i] == p.want[i] {
		i++
	}
	at := func(l []string) string {
		if i < len(l) {
			return l[i][:12]
		}
		return "(end)"
	}
	missing, extra := minus(p.want, p.got), minus(p.got, p.want)
	return fmt.Sprintf("%s (%s): git %d commits, gitmemory %d; first difference at #%d: git %s, gitmemory %s; missing %s; extra %s",
		p.path, kind, len(p.want), len(p.got), i+1, at(p.want), at(p.got), short(missing), short(extra))
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}

func short(hs []string) string {
	if len(hs) == 0 {
		return "none"
	}
	var parts []string
	for _, h := range hs[:min(5, len(hs))] {
		parts = append(parts, h[:min(12, len(h))])
	}
	if len(hs) > 5 {
		parts = append(parts, fmt.Sprintf("… (%d)", len(hs)))
	}
	return strings.Join(parts, " ")
}

// historyPaths are the paths to compare: every path a non-merge commit
// changed (files), and the directories above them, the most-changed first
// (-top), then a fixed sample of the rest by hash (-sample in all; 0 for
// every path).
func (c *config) historyPaths(ctx context.Context) ([]*historyPath, error) {
	out, err := c.git(ctx, "log", "--no-merges", "--no-renames", "--format=", "--name-only", "-z", c.head)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	dirs := map[string]int{}
	for _, p := range strings.Split(string(out), "\x00") {
		p = strings.TrimPrefix(p, "\n")
		if p == "" {
			continue
		}
		counts[p]++
		for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
			dirs[p[:i]]++
		}
	}
	var all []*historyPath
	for p, n := range counts {
		all = append(all, &historyPath{path: p, changes: n})
	}
	for d, n := range dirs {
		if _, isFile := counts[d]; !isFile && c.dirs {
			all = append(all, &historyPath{path: d, dir: true, changes: n})
		}
	}
	slices.SortFunc(all, func(a, b *historyPath) int {
		return cmp.Or(cmp.Compare(b.changes, a.changes), cmp.Compare(a.path, b.path))
	})
	if c.sample <= 0 || len(all) <= c.sample {
		return all, nil
	}
	top := all[:min(c.top, len(all))]
	rest := slices.Clone(all[len(top):])
	hash := func(p string) string { s := sha1.Sum([]byte(p)); return string(s[:]) }
	slices.SortFunc(rest, func(a, b *historyPath) int { return cmp.Compare(hash(a.path), hash(b.path)) })
	return append(slices.Clone(top), rest[:max(0, c.sample-len(top))]...), nil
}

// compareHistory fills in both lists. A history has no deliberate
// difference from git's: gitmemory's follow sources are git's, copies of
// files a commit did not change included.
func (c *config) compareHistory(ctx context.Context, p *historyPath) error {
	args := []string{"log", "--no-merges", "--format=%H"}
	if p.dir {
		args = append(args, "--full-history")
	} else {
		args = append(args, "--follow")
	}
	out, err := c.git(ctx, append(args, c.head, "--", p.path)...)
	if err != nil {
		return err
	}
	p.want = strings.Fields(string(out))
	if p.got, err = c.gitmemoryHistory(ctx, p.path); err != nil {
		return err
	}
	if c.bin != "" && len(p.want) > 500 {
		p.want = p.want[:500]
	}
	return nil
}

// gitmemoryHistory is the path's whole history, from this build or from
// the -bin binary.
func (c *config) gitmemoryHistory(ctx context.Context, path string) ([]string, error) {
	var cs []retrieve.Change
	if c.bin != "" {
		cmd := exec.CommandContext(ctx, c.bin, "--home", c.home, "history", "--repo", c.name, "--json", "--limit", "500", "--", path)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s history %s: %w", c.bin, path, err)
		}
		if err := json.Unmarshal(out, &cs); err != nil {
			return nil, err
		}
	} else {
		var err error
		if cs, err = c.h.History(ctx, c.name, retrieve.HistoryQuery{Path: path, Limit: 1 << 30}); err != nil {
			return nil, err
		}
	}
	hs := make([]string, len(cs))
	for i, ch := range cs {
		hs[i] = ch.Commit
	}
	return hs, nil
}
