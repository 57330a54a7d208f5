// Command xcrash proves that a killed sync resumes to the end an
// uninterrupted one reaches: it syncs a repository once without
// interruption, then kills syncs of it with SIGKILL at random moments
// (separately, and several times in a row on one store), resumes each, and
// compares internal/dump's output (every table, graph quad and vector
// document) with the clean sync's. It exits 1 if any differs.
//
//	go build -o /tmp/gitmemory ./cmd/gitmemory
//	go run ./internal/cmd/xcrash -bin /tmp/gitmemory -separate 20 -chained 5 /path/to/repo
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"

	"github.com/gitmemory/gitmemory/internal/crashcheck"
)

func main() {
	bin := flag.String("bin", "gitmemory", "the gitmemory binary to run")
	separate := flag.Int("separate", 20, "syncs killed once each, then resumed")
	chained := flag.Int("chained", 5, "kills of one sync in a row before it may finish (0: none)")
	seed := flag.Uint64("seed", 1, "seed of the kill moments")
	batch := flag.Int("batch", 0, "commits per batch (GITMEMORY_BATCH_SIZE; 0: the default)")
	dir := flag.String("dir", "", "directory for the homes (default: a temporary one, removed)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: xcrash [flags] REPO")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	work := *dir
	if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "xcrash"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(work)
	}
	env := os.Environ()
	if *batch > 0 {
		env = append(env, fmt.Sprintf("GITMEMORY_BATCH_SIZE=%d", *batch))
	}
	rep, err := crashcheck.Run(context.Background(), crashcheck.Config{
		Command: func(home string, args ...string) *exec.Cmd {
			cmd := exec.Command(*bin, append([]string{"--home", home}, args...)...)
			cmd.Env = env
			return cmd
		},
		Repo: flag.Arg(0), Dir: work, Separate: *separate, Chained: *chained, Seed: *seed, Log: os.Stdout,
	})
	if err != nil {
		fail(err)
	}
	fmt.Printf("%d of %d killed-and-resumed syncs identical to the clean one\n", rep.Identical(), len(rep.Results))
	if rep.Identical() != len(rep.Results) {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "xcrash:", err)
	os.Exit(1)
}
