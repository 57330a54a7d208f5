// Command xstale checks the Stale label's line survival against git blame.
// It samples (commit, file) pairs from an indexed repository's metadata
// database (opened read-only), computes retrieve.LineSurvival, the share of
// the lines the commit added that survive to the newest indexed commit, and
// compares it with the share of them that `git blame --line-porcelain
// <head> -- <path>` credits to the commit, where path is the file followed
// through the renames `git log -M` reports (independently of the walk under
// test). Plain blame, as the index's diffs: whole-file renames followed,
// lines moved or copied credited to the commit that moved them (no -M/-C).
// It prints the agreement on the stale decision (fewer than half survive),
// the mean absolute difference of the fractions, and LineSurvival's time.
//
//	go run ./internal/cmd/xstale -db /tmp/gmeval/repos/jq/meta.db -git /work/.mirror/jqlang+jq/repo -n 100
package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/retrieve"
	_ "github.com/gitmemory/gitmemory/store" // registers the sqlite driver
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "xstale:", err)
		os.Exit(1)
	}
}

// pair is one sampled commit and file, with both measures.
type pair struct {
	hash, path   string
	sv           retrieve.Survival
	blame        int
	took         time.Duration
	ours, theirs float64
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("xstale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", "", "the repository's meta.db (read-only)")
	gitDir := fs.String("git", "", "the repository's git directory")
	head := fs.String("head", "", "the commit to blame at (default: the indexed branch head)")
	n := fs.Int("n", 100, "pairs to sample")
	seed := fs.Uint64("seed", 1, "sampling seed")
	verbose := fs.Bool("v", false, "print every pair")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dbPath == "" || *gitDir == "" {
		return errors.New("-db and -git are required")
	}
	db, err := sql.Open("sqlite", "file:"+*dbPath+"?immutable=1")
	if err != nil {
		return fmt.Errorf("open %s: %w", *dbPath, err)
	}
	defer db.Close()
	if *head == "" {
		if err := db.QueryRowContext(ctx, `SELECT s.last_head FROM sync_state s JOIN repository r
			ON s.branch = r.default_branch`).Scan(head); err != nil {
			return fmt.Errorf("read the indexed head: %w", err)
		}
	}
	cands, err := candidates(ctx, db, *seed)
	if err != nil {
		return err
	}
	b := &blamer{gitDir: *gitDir, head: *head, cache: map[string]map[string]int{}}
	var pairs []pair
	for _, p := range cands {
		if len(pairs) == *n {
			break
		}
		if err := measure(ctx, db, b, &p); err != nil {
			return err
		}
		if p.sv.Added == 0 {
			continue // beyond the files a label reads, or no '+' lines stored
		}
		pairs = append(pairs, p)
		if *verbose {
			fmt.Fprintf(stdout, "%.10s %-40s added %4d ours %.2f blame %.2f %s\n", p.hash, p.path, p.sv.Added,
				p.ours, p.theirs, flags(p.sv))
		}
	}
	report(stdout, pairs)
	return nil
}

// candidates lists, in a random order, the files non-merge live commits
// added lines to. Merges are left out (blame gives their diff's lines to
// the merged branch's commits), and so are copies (the diff is against the
// copy's source, while blame without -C credits the whole new file).
func candidates(ctx context.Context, db *sql.DB, seed uint64) ([]pair, error) {
	rows, err := db.QueryContext(ctx, `SELECT c.hash, f.path FROM file_changes f JOIN commits c ON c.id = f.commit_id
		WHERE c.is_merge = 0 AND c.rewritten = 0 AND f.status NOT IN ('deleted', 'copied') AND f.binary = 0 AND f.skipped = ''
			AND f.insertions > 0 ORDER BY c.id, f.seq`)
	if err != nil {
		return nil, fmt.Errorf("list pairs: %w", err)
	}
	defer rows.Close()
	var all []pair
	for rows.Next() {
		var p pair
		if err := rows.Scan(&p.hash, &p.path); err != nil {
			return nil, err
		}
		all = append(all, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all, nil
}

// measure fills p's survival, both fractions and the time ours took.
func measure(ctx context.Context, db *sql.DB, b *blamer, p *pair) error {
	start := time.Now()
	svs, err := retrieve.LineSurvival(ctx, db, p.hash)
	p.took = time.Since(start)
	if err != nil {
		return fmt.Errorf("survival %s: %w", p.hash, err)
	}
	i := slices.IndexFunc(svs, func(s retrieve.Survival) bool { return s.Path == p.path })
	if i < 0 {
		return nil
	}
	p.sv = svs[i]
	where, err := b.pathAtHead(ctx, p.hash, p.path)
	if err != nil {
		return err
	}
	counts, err := b.blame(ctx, where)
	if err != nil {
		return err
	}
	p.blame = min(counts[p.hash], p.sv.Added)
	p.ours = float64(p.sv.Alive) / float64(p.sv.Added)
	p.theirs = float64(p.blame) / float64(p.sv.Added)
	return nil
}

// blamer counts, per file at head, the lines git blame gives each commit.
type blamer struct {
	gitDir, head string
	cache        map[string]map[string]int
}

// pathAtHead follows path forward through the renames git log -M finds
// after commit c (in topological order, merges not diffed), independently
// of the walk under test.
func (b *blamer) pathAtHead(ctx context.Context, c, path string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "--git-dir", b.gitDir, "log", "--reverse", "--topo-order", "-M",
		"--diff-filter=R", "--name-status", "--format=", c+".."+b.head).Output()
	if err != nil {
		return "", fmt.Errorf("renames after %s: %w", c, err)
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) == 3 && strings.HasPrefix(f[0], "R") && f[1] == path {
			path = f[2]
		}
	}
	return path, nil
}

func (b *blamer) blame(ctx context.Context, path string) (map[string]int, error) {
	if c, ok := b.cache[path]; ok {
		return c, nil
	}
	counts := map[string]int{}
	b.cache[path] = counts
	exists := exec.CommandContext(ctx, "git", "--git-dir", b.gitDir, "cat-file", "-e", b.head+":"+path)
	if exists.Run() != nil {
		return counts, nil // not at head: nothing survives
	}
	cmd := exec.CommandContext(ctx, "git", "--git-dir", b.gitDir, "blame", "--line-porcelain", b.head, "--", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("blame %s: %w", path, err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		if line != "" && line[0] == '\t' {
			continue // the line's content
		}
		if h, rest, ok := strings.Cut(line, " "); ok && len(h) == 40 && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			counts[h]++
		}
	}
	if err := errors.Join(sc.Err(), cmd.Wait()); err != nil {
		return nil, fmt.Errorf("blame %s: %w", path, err)
	}
	return counts, nil
}

func flags(sv retrieve.Survival) string {
	var f []string
	if sv.Now != sv.Path {
		f = append(f, "now="+sv.Now)
	}
	if sv.Capped {
		f = append(f, "capped")
	}
	if sv.Approx {
		f = append(f, "approx")
	}
	return strings.Join(f, " ")
}

// report prints agreement, the mean absolute difference and timings.
func report(w io.Writer, pairs []pair) {
	var agree, staleOurs, staleBlame, capped, approx, n int
	var diff float64
	var took []time.Duration
	for _, p := range pairs {
		n++
		so, sb := 2*p.sv.Alive < p.sv.Added, 2*p.blame < p.sv.Added
		if so == sb {
			agree++
		}
		staleOurs += b2i(so)
		staleBlame += b2i(sb)
		capped += b2i(p.sv.Capped)
		approx += b2i(p.sv.Approx)
		diff += math.Abs(p.ours - p.theirs)
		took = append(took, p.took)
	}
	if n == 0 {
		fmt.Fprintln(w, "no pairs")
		return
	}
	slices.Sort(took)
	fmt.Fprintf(w, "pairs %d  stale by blame %d, by us %d  agreement %d/%d (%.1f%%)  mean |Δ fraction| %.3f\n",
		n, staleBlame, staleOurs, agree, n, 100*float64(agree)/float64(n), diff/float64(n))
	fmt.Fprintf(w, "capped %d  approx %d  LineSurvival per commit p50 %v p90 %v max %v\n",
		capped, approx, took[n/2], took[n*9/10], took[n-1])
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
