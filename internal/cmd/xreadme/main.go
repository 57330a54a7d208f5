// Command xreadme runs the README's shell examples, so that a renamed
// command or flag fails CI instead of a user:
//
//	xreadme -bin DIR [-readme README.md] [-v]
//
// DIR holds a built gitmemory. Every ```sh block and every `gitmemory ...`
// cell of a table's example column runs with bash -euo pipefail, in a
// private HOME (so ~/.local/share/gitmemory is a fresh home) outside any
// work tree, after ~/src/myproject, a generated repository, is registered
// and synced as the only repository. A <!-- ci: ... --> comment right above
// a block changes how it runs: "clone" runs it in a fresh clone of this
// project with a home of its own, "background" keeps it running through
// the next example and then stops it with SIGTERM, "skip: REASON" does not
// run it and prints why. Table commands of the long-running kind are
// checked the same way: gitmemory daemon must come up and stop cleanly,
// gitmemory mcp must end at the end of its input.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

func main() {
	readme := flag.String("readme", "README.md", "the README to run")
	bin := flag.String("bin", "", "the directory holding the gitmemory binary to run (required)")
	flag.BoolVar(&verbose, "v", false, "print each example's output")
	flag.Parse()
	if err := run(*readme, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "xreadme:", err)
		os.Exit(1)
	}
}

// verbose makes every example's output visible, not only a failure's.
var verbose bool

func run(readme, bin string) error {
	if bin == "" {
		return fmt.Errorf("-bin is required: the directory holding a built gitmemory")
	}
	f, err := os.Open(readme)
	if err != nil {
		return err
	}
	examples, err := parseExamples(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", readme, err)
	}
	project, err := filepath.Abs(filepath.Dir(readme))
	if err != nil {
		return err
	}
	bin, err = filepath.Abs(bin)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gitmemory-readme-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	s, err := newSandbox(tmp, bin, project)
	if err != nil {
		return err
	}
	start := time.Now()
	ran, skipped, err := s.runAll(readme, examples)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d examples ran, %d skipped, in %s\n", readme, ran, skipped, time.Since(start).Round(100*time.Millisecond))
	return nil
}
