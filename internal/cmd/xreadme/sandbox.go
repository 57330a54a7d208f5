package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// exampleTimeout bounds one example; the slowest, the quick start, builds
// gitmemory and indexes this project's history.
const exampleTimeout = 5 * time.Minute

// sandbox is where the examples run: a private HOME with the generated
// repository under ~/src/myproject and gitmemory first on the PATH.
type sandbox struct {
	tmp, home, project string
	env                []string
	clones             int
	background         *exec.Cmd  // a background example still running
	backgroundDone     chan error // its Wait's result
}

func newSandbox(tmp, bin, project string) (*sandbox, error) {
	s := &sandbox{tmp: tmp, home: filepath.Join(tmp, "home"), project: project}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", k == "XDG_DATA_HOME", k == "PATH", strings.HasPrefix(k, "GITMEMORY_"), strings.HasPrefix(k, "GIT_"):
		default:
			env = append(env, kv)
		}
	}
	s.env = append(env, "HOME="+s.home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// Go's caches default to directories under HOME: keep the real ones,
	// or the quick start's go build would start from nothing.
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output(); err == nil {
		vals := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
			if i < len(vals) && vals[i] != "" {
				s.env = append(s.env, k+"="+vals[i])
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(s.home, "src"), 0o755); err != nil {
		return nil, err
	}
	if err := generate(filepath.Join(s.home, "src", "myproject"), s.home); err != nil {
		return nil, fmt.Errorf("generate the example repository: %w", err)
	}
	return s, nil
}

// runAll runs the examples in order and stops at the first that fails.
func (s *sandbox) runAll(readme string, examples []example) (ran, skipped int, err error) {
	defer s.stopBackground()
	for _, ex := range examples {
		where := fmt.Sprintf("%s:%d", readme, ex.Line)
		if ex.How == runSkip {
			fmt.Printf("skip %s: %s\n", where, ex.Reason)
			skipped++
			continue
		}
		fmt.Printf("run  %s: %s\n", where, firstLine(ex.Script))
		if err := s.runOne(ex); err != nil {
			return ran, skipped, fmt.Errorf("%s: %w", where, err)
		}
		ran++
	}
	return ran, skipped, nil
}

func (s *sandbox) runOne(ex example) error {
	had := s.background
	if ex.How != runClone {
		// Each example starts from one registered, synced repository,
		// whatever the examples before it did (remove, say); an add
		// example from none.
		prepare := "gitmemory sync ~/src/myproject -q"
		if strings.HasPrefix(ex.Script, "gitmemory add ") {
			prepare = "gitmemory remove myproject >/dev/null 2>&1 || true"
		}
		if out, err := s.shell(s.home, prepare); err != nil {
			return fmt.Errorf("preparing the example repository: %v\n%s", err, out)
		}
	}
	var err error
	switch {
	case ex.How == runClone:
		err = s.runClone(ex.Script)
	case ex.How == runBackground || strings.HasPrefix(ex.Script, "gitmemory daemon"):
		err = s.startBackground(ex.Script)
		if err == nil && ex.How != runBackground {
			err = s.stopBackground() // a table's daemon: up, then down cleanly
		}
	case strings.HasPrefix(ex.Script, "gitmemory mcp"):
		_, err = s.shell(s.home, ex.Script+" </dev/null") // ends at the end of its input
	default:
		var out string
		out, err = s.shell(s.home, ex.Script)
		if err != nil {
			err = fmt.Errorf("%v\n%s", err, out)
		}
	}
	if err == nil && had != nil {
		err = s.stopBackground() // it was kept for this example only
	}
	return err
}

// shell runs script with bash -euo pipefail in dir and returns its
// combined output.
func (s *sandbox) shell(dir, script string, extraEnv ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, s.env...), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if verbose {
		os.Stdout.Write(out.Bytes())
	}
	if ctx.Err() != nil {
		return out.String(), fmt.Errorf("still running after %s", exampleTimeout)
	}
	return out.String(), err
}

// runClone runs script in a fresh clone of the project, with a home of
// its own so that the clone is not a second repository of the shared one.
func (s *sandbox) runClone(script string) error {
	s.clones++
	dir := filepath.Join(s.tmp, fmt.Sprintf("clone%d", s.clones))
	if out, err := exec.Command("git", "clone", "-q", s.project, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("clone %s: %v: %s", s.project, err, out)
	}
	home := filepath.Join(s.tmp, fmt.Sprintf("clone%d-home", s.clones))
	out, err := s.shell(dir, script, "GITMEMORY_HOME="+home)
	if err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}

// startBackground starts script in its own process group and waits for
// the daemon it starts to announce itself in the home.
func (s *sandbox) startBackground(script string) error {
	if s.background != nil {
		return errors.New("a background example is already running")
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script+"\nwait")
	cmd.Dir, cmd.Env = s.home, s.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	marker := s.daemonMarker()
	deadline := time.After(30 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			s.background = cmd
			s.backgroundDone = exited
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("ended before it was up: %v\n%s", err, out.String())
		case <-deadline:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			return fmt.Errorf("not up after 30 s:\n%s", out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// daemonMarker is where a daemon of the sandbox's default home announces
// itself, and withdraws the announcement when it shuts down cleanly.
func (s *sandbox) daemonMarker() string {
	return filepath.Join(s.home, ".local", "share", "gitmemory", "daemon.json")
}

// stopBackground sends SIGTERM to the background example's process group
// and checks that it stops within 20 s and, if it started a daemon, that
// the daemon withdrew its announcement as a clean shutdown does.
func (s *sandbox) stopBackground() error {
	cmd := s.background
	if cmd == nil {
		return nil
	}
	s.background = nil
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.backgroundDone:
	case <-time.After(20 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return errors.New("the background example did not stop within 20 s of SIGTERM")
	}
	for wait := 0; ; wait++ {
		if _, err := os.Stat(s.daemonMarker()); err != nil {
			return nil
		}
		if wait == 100 {
			return errors.New("the daemon did not shut down cleanly: its announcement is still in the home")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func firstLine(s string) string {
	line, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	if more {
		line += " …"
	}
	return line
}
