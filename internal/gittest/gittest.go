// Package gittest builds real Git repositories for tests, driving the git
// binary with fixed dates and identities so that hashes are reproducible.
package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Epoch is the date of a Repo's first commit; each commit is an hour later.
var Epoch = time.Date(2024, 3, 1, 9, 0, 0, 0, time.FixedZone("", 2*3600))

// Repo is a repository under construction.
type Repo struct {
	T    testing.TB
	Dir  string
	tick int
}

// New initialises a repository with branch main in a temporary directory.
func New(t testing.TB, args ...string) *Repo {
	t.Helper()
	r := &Repo{T: t, Dir: t.TempDir()}
	r.Git(append([]string{"init", "-q", "-b", "main"}, args...)...)
	return r
}

// Git runs git in the repository and returns its trimmed output, failing
// the test on error.
func (r *Repo) Git(args ...string) string {
	r.T.Helper()
	out, err := r.TryGit(args...)
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TryGit runs git and returns its output and error.
func (r *Repo) TryGit(args ...string) (string, error) {
	when := Epoch.Add(time.Duration(r.tick) * time.Hour).Format(time.RFC3339)
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=Ada Lovelace", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_AUTHOR_DATE="+when,
		"GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_COMMITTER_DATE="+when,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "HOME="+r.Dir)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Write creates or replaces a file (and its directories).
func (r *Repo) Write(path, content string) {
	r.T.Helper()
	full := filepath.Join(r.Dir, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// Commit stages everything and commits with message; it returns the hash.
func (r *Repo) Commit(message string) string {
	r.T.Helper()
	r.tick++
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", message)
	return r.Head()
}

// Tick advances the clock used for the next git command by one hour.
func (r *Repo) Tick() { r.tick++ }

// Head returns the hash HEAD points at.
func (r *Repo) Head() string { return r.Git("rev-parse", "HEAD") }

// Lines returns n numbered lines of text, for files that diffs can align.
func Lines(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", prefix, i)
	}
	return b.String()
}

// RawCommit writes a commit object with exactly the given message bytes on
// top of HEAD (git itself would re-encode invalid UTF-8) and moves the
// current branch to it. It returns the new hash.
func (r *Repo) RawCommit(message []byte) string {
	r.T.Helper()
	r.tick++
	r.Git("add", "-A")
	tree := r.Git("write-tree")
	when := Epoch.Add(time.Duration(r.tick) * time.Hour).Unix()
	obj := fmt.Sprintf("tree %s\nparent %s\nauthor Ada Lovelace <ada@example.com> %d +0200\ncommitter Ada Lovelace <ada@example.com> %d +0200\n\n",
		tree, r.Head(), when, when)
	path := filepath.Join(r.T.TempDir(), "commit")
	if err := os.WriteFile(path, append([]byte(obj), message...), 0o644); err != nil {
		r.T.Fatal(err)
	}
	hash := r.Git("hash-object", "-t", "commit", "-w", "--literally", path)
	r.Git("update-ref", "HEAD", hash)
	return hash
}

// PartialClone clones r as `git clone --filter=blob:limit=<limit>` does,
// into a temporary directory: blobs larger than limit bytes stay out of
// the clone, as in a partial clone whose promisor remote is away.
func (r *Repo) PartialClone(limit int) *Repo {
	r.T.Helper()
	r.Git("config", "uploadpack.allowFilter", "true")
	c := &Repo{T: r.T, Dir: r.T.TempDir(), tick: r.tick}
	c.Git("clone", "-q", "--no-local", "--no-checkout", fmt.Sprintf("--filter=blob:limit=%d", limit), "file://"+r.Dir, ".")
	return c
}
