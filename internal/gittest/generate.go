package gittest

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"
)

// Generate builds a repository of n commits on main with git fast-import
// (seconds for thousands of commits, where one git commit per step would
// take minutes). The history is deterministic for a seed and looks like a
// real project's: files in several languages are added, edited, renamed
// and deleted, and every 40th step merges a short topic branch.
func Generate(t testing.TB, n int, seed uint64) *Repo {
	t.Helper()
	return GenerateWith(t, n, seed, GenerateOptions{})
}

// GenerateOptions add what real histories have and Generate's default
// history lacks. The zero value is Generate's history, unchanged.
type GenerateOptions struct {
	// SameSecond gives runs of commits one committer second, as a rebased
	// series has, and dates a few commits before their parents (clock
	// skew), so that only the commit graph orders them.
	SameSecond bool
	// DirMoves moves a whole directory now and then (every file under it,
	// some edited on the way), the way a crate or package is moved.
	DirMoves bool
	// RealCode writes Rust, TypeScript, JavaScript, Java and C files in
	// their own syntax (functions and types an entity parser finds),
	// instead of one C-like line for all.
	RealCode bool
}

// GenerateWith is Generate with options.
func GenerateWith(t testing.TB, n int, seed uint64, opts GenerateOptions) *Repo {
	t.Helper()
	r := New(t)
	g := &generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), files: map[string][]string{}, opts: opts}
	var stream bytes.Buffer
	g.w = &stream
	for g.commits < n {
		if g.commits%40 == 39 && g.commits+5 <= n {
			g.topic()
			continue
		}
		g.step()
	}
	r.fastImport(t, &stream)
	return r
}

// fastImport feeds a fast-import stream to the repository and checks out
// its main branch.
func (r *Repo) fastImport(t testing.TB, stream io.Reader) {
	t.Helper()
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.Dir
	cmd.Stdin = stream
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	r.Git("checkout", "-q", "-f", "main")
}

type generator struct {
	rng     *rand.Rand
	w       *bytes.Buffer
	files   map[string][]string // path → lines, on main
	mark    int
	head    int // mark of main's head
	commits int
	serial  int
	opts    GenerateOptions
	// moved counts directory moves, for new directory names.
	moved int
	// topicOnly holds the files a topic branch added, until its merge;
	// with options, main's edits leave them alone.
	topicOnly map[string]bool
}

var exts = []string{"go", "py", "js", "ts", "rs", "java", "c", "md"}

// step writes one commit of random edits on main.
func (g *generator) step() {
	ops := g.edits()
	g.commit("main", g.message(), ops, g.head, 0)
}

func (g *generator) commit(branch, msg string, ops []string, from, merge int) int {
	g.mark++
	g.commits++
	when := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(g.commits) * 37 * time.Minute).Unix()
	if g.opts.SameSecond {
		// Runs of up to four commits in one second; every 23rd commit an
		// hour before its parent.
		when = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(g.commits/4) * 37 * time.Minute).Unix()
		if g.commits%23 == 0 {
			when -= 3600
		}
	}
	fmt.Fprintf(g.w, "commit refs/heads/%s\nmark :%d\n", branch, g.mark)
	fmt.Fprintf(g.w, "author Dev %d <dev%d@example.com> %d +0100\n", g.commits%7, g.commits%7, when)
	fmt.Fprintf(g.w, "committer Dev %d <dev%d@example.com> %d +0100\n", g.commits%7, g.commits%7, when)
	fmt.Fprintf(g.w, "data %d\n%s\n", len(msg), msg)
	if from > 0 {
		fmt.Fprintf(g.w, "from :%d\n", from)
	}
	if merge > 0 {
		fmt.Fprintf(g.w, "merge :%d\n", merge)
	}
	for _, op := range ops {
		g.w.WriteString(op)
	}
	g.w.WriteString("\n")
	if branch == "main" {
		g.head = g.mark
	}
	return g.mark
}

// edits mutates g.files and returns the fast-import file commands.
func (g *generator) edits() []string {
	var ops []string
	paths := g.paths()
	if g.opts.DirMoves && len(paths) >= 8 && g.rng.IntN(30) == 0 {
		return g.moveDir(paths)
	}
	switch {
	case len(paths) < 8 || g.rng.IntN(10) == 0:
		ops = append(ops, g.add())
	case g.rng.IntN(40) == 0:
		p := paths[g.rng.IntN(len(paths))]
		delete(g.files, p)
		ops = append(ops, "D "+p+"\n")
	case g.rng.IntN(25) == 0:
		p := paths[g.rng.IntN(len(paths))]
		np := g.newPath(p[strings.LastIndexByte(p, '.')+1:])
		g.files[np] = g.files[p]
		delete(g.files, p)
		ops = append(ops, fmt.Sprintf("R %s %s\n", p, np))
		if g.rng.IntN(2) == 0 {
			ops = append(ops, g.modify(np))
		}
	default:
		for k := 0; k < 1+g.rng.IntN(3); k++ {
			ops = append(ops, g.modify(paths[g.rng.IntN(len(paths))]))
		}
	}
	return ops
}

// moveDir moves every file of one directory to a new directory, editing
// some of them in the same commit.
func (g *generator) moveDir(paths []string) []string {
	p := paths[g.rng.IntN(len(paths))]
	dir := p[:strings.LastIndexByte(p, '/')]
	g.moved++
	to := fmt.Sprintf("moved%d/%s", g.moved, dir[strings.LastIndexByte(dir, '/')+1:])
	var ops []string
	for _, q := range paths {
		if !strings.HasPrefix(q, dir+"/") || strings.Contains(q[len(dir)+1:], "/") {
			continue
		}
		nq := to + "/" + q[len(dir)+1:]
		g.files[nq] = g.files[q]
		delete(g.files, q)
		ops = append(ops, fmt.Sprintf("R %s %s\n", q, nq))
		if g.rng.IntN(3) == 0 {
			ops = append(ops, g.modify(nq))
		}
	}
	return ops
}

func (g *generator) paths() []string {
	out := make([]string, 0, len(g.files))
	for p := range g.files {
		if g.opts != (GenerateOptions{}) && g.topicOnly[p] {
			continue
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (g *generator) newPath(ext string) string {
	g.serial++
	dirs := []string{"src", "src/core", "pkg/api", "lib", "docs", "internal/store"}
	return fmt.Sprintf("%s/file%d.%s", dirs[g.serial%len(dirs)], g.serial, ext)
}

func (g *generator) add() string {
	p := g.newPath(exts[g.rng.IntN(len(exts))])
	lines := make([]string, 20+g.rng.IntN(200))
	for i := range lines {
		lines[i] = g.line(p, i)
	}
	g.files[p] = lines
	return g.inline(p)
}

func (g *generator) modify(p string) string {
	lines := append([]string(nil), g.files[p]...)
	for k := 0; k < 1+g.rng.IntN(4); k++ {
		i := g.rng.IntN(len(lines) + 1)
		switch g.rng.IntN(3) {
		case 0:
			lines = append(lines[:i], append([]string{g.line(p, g.rng.IntN(1000))}, lines[i:]...)...)
		case 1:
			if i < len(lines) && len(lines) > 5 {
				lines = append(lines[:i], lines[i+1:]...)
			}
		default:
			if i < len(lines) {
				lines[i] = g.line(p, g.rng.IntN(1000))
			}
		}
	}
	g.files[p] = lines
	return g.inline(p)
}

func (g *generator) line(p string, i int) string {
	words := []string{"retry", "cache", "parse", "token", "buffer", "config", "index", "query", "lock", "flush"}
	w1, w2 := words[g.rng.IntN(len(words))], words[g.rng.IntN(len(words))]
	ext := p[strings.LastIndexByte(p, '.')+1:]
	if g.opts.RealCode {
		n := g.rng.IntN(100)
		switch ext {
		case "rs":
			return fmt.Sprintf("pub fn %s_%d() -> u32 { %s(%d) }", w1, i, w2, n)
		case "ts":
			return fmt.Sprintf("export function %s%d(): number { return %s(%d); }", w1, i, w2, n)
		case "js":
			return fmt.Sprintf("function %s%d() { return %s(%d); }", w1, i, w2, n)
		case "java":
			return fmt.Sprintf("class %s%d { int run() { return %s(%d); } }", strings.ToUpper(w1[:1])+w1[1:], i, w2, n)
		}
	}
	switch ext {
	case "go":
		return fmt.Sprintf("func %s%d() { %s(%d) }", w1, i, w2, g.rng.IntN(100))
	case "py":
		return fmt.Sprintf("def %s_%d(): return %s(%d)", w1, i, w2, g.rng.IntN(100))
	case "md":
		return fmt.Sprintf("The %s step %d keeps the %s small.", w1, i, w2)
	default:
		return fmt.Sprintf("int %s_%d(void) { return %s(%d); }", w1, i, w2, g.rng.IntN(100))
	}
}

func (g *generator) inline(p string) string {
	body := strings.Join(g.files[p], "\n") + "\n"
	return fmt.Sprintf("M 100644 inline %s\ndata %d\n%s\n", p, len(body), body)
}

func (g *generator) message() string {
	kinds := []string{"fix: handle empty %s", "feat: add %s support", "refactor: simplify %s", "perf: speed up %s", "docs: explain %s"}
	subjects := []string{"retry loop", "cache eviction", "token parser", "config reload", "index flush"}
	msg := fmt.Sprintf(kinds[g.rng.IntN(len(kinds))], subjects[g.rng.IntN(len(subjects))])
	if g.rng.IntN(3) == 0 {
		msg += fmt.Sprintf("\n\nBecause the old code could deadlock under load. Fixes #%d", 1+g.rng.IntN(500))
	}
	return msg
}

// topic writes a branch of three commits off main and merges it back with
// a merge commit, touching files main does not touch meanwhile.
func (g *generator) topic() {
	base := g.head
	branch := fmt.Sprintf("topic%d", g.commits)
	var topicOps []string
	tip := base
	g.topicOnly = map[string]bool{}
	defer func() { g.topicOnly = nil }()
	for k := 0; k < 3; k++ {
		op := g.add()
		g.topicOnly[op[len("M 100644 inline "):strings.IndexByte(op, '\n')]] = true
		topicOps = append(topicOps, op)
		tip = g.commit(branch, fmt.Sprintf("feat: topic work %d", k), []string{op}, tip, 0)
	}
	g.step()
	// The merge's tree is main's plus the topic's files: restate them.
	g.commit("main", "Merge branch '"+branch+"'", topicOps, g.head, tip)
}
