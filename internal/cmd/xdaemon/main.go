// Command xdaemon measures a running daemon from outside, over its API on
// loopback (found through daemon.json in -home):
//
//	latency: commit to -repo (a work tree the daemon watches) and time
//	         until the API's history of the committed file shows it;
//	load:    -c concurrent clients, each asking -n queries (questions from
//	         -questions, plus history, recent and lookup calls); p50, p99
//	         and errors;
//	idle:    the daemon's CPU time and RSS over -for, from /proc.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gitmemory/gitmemory/api"
)

func main() {
	home := flag.String("home", "", "the gitmemory home the daemon serves")
	repoName := flag.String("name", "", "the repository's registered name")
	repoDir := flag.String("repo", "", "latency: the repository's work tree, to commit to")
	runs := flag.Int("runs", 10, "latency: commits to time")
	conc := flag.Int("c", 100, "load: concurrent clients")
	n := flag.Int("n", 5, "load: requests per client")
	questions := flag.String("questions", "", "load: questions, one per line")
	mix := flag.String("mix", "query,history,recent,lookup", "load: request kinds, round robin")
	path := flag.String("path", "Makefile", "load: the path for history, recent and lookup")
	pathsFile := flag.String("paths", "", "load: a file of paths, one per line, taken in turn instead of -path (defeats the answer cache)")
	dur := flag.Duration("for", time.Minute, "idle: how long to watch")
	unique := flag.Bool("unique", false, "load: make every question distinct (defeats the daemon's answer cache)")
	flag.Parse()
	if flag.NArg() != 1 || *home == "" {
		fail(fmt.Errorf("usage: xdaemon -home H -name N [flags] latency|load|idle"))
	}
	ctx := context.Background()
	c := api.Discover(ctx, *home)
	if c == nil {
		fail(fmt.Errorf("no daemon answers for %s", *home))
	}
	var err error
	switch flag.Arg(0) {
	case "latency":
		err = latency(ctx, c, *repoName, *repoDir, *runs)
	case "load":
		paths := []string{*path}
		if *pathsFile != "" {
			b, rerr := os.ReadFile(*pathsFile)
			if rerr != nil {
				fail(rerr)
			}
			paths = strings.Fields(string(b))
		}
		err = load(ctx, c, *repoName, *questions, strings.Split(*mix, ","), paths, *conc, *n, *unique)
	case "idle":
		err = idle(*home, *dur)
	default:
		err = fmt.Errorf("unknown measurement %q", flag.Arg(0))
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "xdaemon:", err)
	os.Exit(1)
}

func git(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Bench", "-c", "user.email=bench@example.com"}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func latency(ctx context.Context, c *api.Client, name, dir string, runs int) error {
	var took []time.Duration
	for i := range runs {
		file := fmt.Sprintf("xdaemon-bench/%d-%d.txt", time.Now().UnixNano(), i)
		if err := os.MkdirAll(filepath.Join(dir, "xdaemon-bench"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(file+"\n"), 0o644); err != nil {
			return err
		}
		if out, err := git(dir, "add", file); err != nil {
			return fmt.Errorf("git add: %s", out)
		}
		start := time.Now()
		if out, err := git(dir, "commit", "-q", "-m", "bench: latency probe "+strconv.Itoa(i)); err != nil {
			return fmt.Errorf("git commit: %s", out)
		}
		head, _ := git(dir, "rev-parse", "HEAD")
		for {
			cs, err := c.History(ctx, api.HistoryRequest{Repo: name, Path: file})
			if err == nil && len(cs) > 0 && cs[0].Commit == head {
				break
			}
			if time.Since(start) > time.Minute {
				return fmt.Errorf("commit %s not queryable after a minute (%v)", head[:12], err)
			}
			time.Sleep(2 * time.Millisecond)
		}
		took = append(took, time.Since(start))
		fmt.Printf("commit %s queryable after %s\n", head[:12], took[i].Round(time.Millisecond))
		time.Sleep(300 * time.Millisecond)
	}
	slices.Sort(took)
	fmt.Printf("commit to queryable: median %s, max %s over %d commits\n", took[len(took)/2].Round(time.Millisecond),
		took[len(took)-1].Round(time.Millisecond), len(took))
	return nil
}

func load(ctx context.Context, c *api.Client, name, questions string, mix []string, paths []string, conc, n int, unique bool) error {
	qs := []string{"why was this changed?"}
	if questions != "" {
		b, err := os.ReadFile(questions)
		if err != nil {
			return err
		}
		qs = strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' })
	}
	type result struct {
		kind string
		took time.Duration
		err  error
	}
	results := make(chan result, conc*n)
	t0 := time.Now() // also makes -unique questions differ between runs
	var wg sync.WaitGroup
	startAll := make(chan struct{})
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-startAll
			for i := range n {
				k := mix[(w+i)%len(mix)]
				path := paths[(w*n+i)%len(paths)]
				t := time.Now()
				var err error
				switch k {
				case "query":
					q := qs[(w*n+i)%len(qs)]
					if unique {
						q = fmt.Sprintf("%s (%d/%d/%d)", q, t0.UnixNano()%1e6, w, i)
					}
					_, err = c.Query(ctx, api.QueryRequest{Repo: name, Query: q})
				case "history":
					_, err = c.History(ctx, api.HistoryRequest{Repo: name, Path: path, Limit: 20 + w%7})
				case "recent":
					_, err = c.Recent(ctx, api.RecentRequest{Repo: name, Days: 30})
				case "lookup":
					_, err = c.Lookup(ctx, api.LookupRequest{Repo: name, Paths: []string{path}})
				default:
					err = fmt.Errorf("unknown kind %q", k)
				}
				results <- result{k, time.Since(t), err}
			}
		}()
	}
	t0 = time.Now()
	close(startAll)
	wg.Wait()
	wall := time.Since(t0)
	close(results)
	by := map[string][]time.Duration{}
	var all []time.Duration
	errs := 0
	for r := range results {
		if r.err != nil {
			errs++
			if errs <= 3 {
				fmt.Println("error:", r.err)
			}
			continue
		}
		by[r.kind] = append(by[r.kind], r.took)
		all = append(all, r.took)
	}
	report := func(label string, ds []time.Duration) {
		if len(ds) == 0 {
			return
		}
		slices.Sort(ds)
		p := func(q float64) time.Duration {
			return ds[min(len(ds)-1, int(q*float64(len(ds))))].Round(100 * time.Microsecond)
		}
		fmt.Printf("%-8s n=%-5d p50 %-9s p90 %-9s p99 %-9s max %s\n", label, len(ds), p(0.5), p(0.9), p(0.99), ds[len(ds)-1].Round(time.Millisecond))
	}
	for _, k := range mix {
		report(k, by[k])
	}
	report("all", all)
	fmt.Printf("%d clients × %d requests in %s (%.0f req/s), %d errors\n", conc, n, wall.Round(time.Millisecond),
		float64(conc*n)/wall.Seconds(), errs)
	return nil
}

// idle samples the daemon's CPU time (utime+stime) and RSS from /proc.
func idle(home string, d time.Duration) error {
	b, err := os.ReadFile(filepath.Join(home, api.DaemonFile))
	if err != nil {
		return err
	}
	var a api.Announcement
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	pid := a.PID
	cpu := func() (time.Duration, error) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0, err
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		ut, _ := strconv.Atoi(f[11])
		st, _ := strconv.Atoi(f[12])
		return time.Duration(ut+st) * 10 * time.Millisecond, nil // USER_HZ = 100
	}
	rss := func() string {
		f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return "?"
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
				return strings.TrimSpace(v)
			}
		}
		return "?"
	}
	c0, err := cpu()
	if err != nil {
		return err
	}
	time.Sleep(d)
	c1, err := cpu()
	if err != nil {
		return err
	}
	fmt.Printf("daemon pid %d idle for %s: %s CPU (%.3f%% of one core), RSS %s\n", pid, d, c1-c0,
		100*float64(c1-c0)/float64(d), rss())
	return nil
}
