// Command gitmemory turns a Git repository's history into knowledge an AI
// coding assistant can query. See `gitmemory --help`.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"unicode/utf8"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit keeps a long sync's peak memory near its live set;
		// without it the heap grows to twice the live caches before a GC.
		// The sync bounds what it holds live by bytes (object caches,
		// sources in flight, graph transactions: about 380-420 MB on
		// git/git), which leaves the collector room under 530 MiB; with
		// tree-sitter's C memory (about 150-200 MB) and the graph file's
		// mapped pages (up to 290 MB late in the sync) beside it, the
		// whole git/git sync peaks under 1 GiB resident. The limit and
		// extract.DefaultCacheBytes move together: lowering the limit
		// alone makes the collector run more often. (At 896 MiB, with a
		// live heap of 600-700 MB, it ran back to back.)
		debug.SetMemoryLimit(530 << 20)
	}
	stopTrim := startMallocTrim()
	stopProfiles := startProfiles()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stopProfiles()
	stopTrim()
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit code; tests call it
// directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "gitmemory: %s\n", clipMiddle(oneLine(err.Error()), maxErrorBytes))
		return 1
	}
	return 0
}

// oneLine keeps an error to one line, as the brief promises users.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// maxErrorBytes bounds an error line: an error quoting a 100 KB argument
// shows its start and its end, which say what went wrong.
const maxErrorBytes = 1000

// clipMiddle keeps the start and the end of a long s, cut at rune
// boundaries, saying how much was left out.
func clipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*2/3, n/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	from := len(s) - tail
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	return fmt.Sprintf("%s …(%d bytes left out)… %s", s[:head], from-head, s[from:])
}
