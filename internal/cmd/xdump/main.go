// Command xdump prints everything a sync derived for one repository, sorted
// and without clock times or row ids, so that two syncs of the same history
// can be compared with diff: a speed change must not change the output, and
// a sync killed and resumed must end with the output of an uninterrupted
// one. See internal/dump for what it prints.
//
//	go run ./internal/cmd/xdump $GITMEMORY_HOME/repos/NAME > dump.txt
//	go run ./internal/cmd/xdump -log-bytes DIR   # also the vector files' digests
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/gitmemory/gitmemory/internal/dump"
)

func main() {
	logBytes := flag.Bool("log-bytes", false, "also print each vector index file's size and SHA-256 (its framing differs after a resumed sync)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: xdump [-log-bytes] REPO_DATA_DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := dump.Dump(context.Background(), flag.Arg(0), os.Stdout, dump.Options{LogBytes: *logBytes}); err != nil {
		fmt.Fprintln(os.Stderr, "xdump:", err)
		os.Exit(1)
	}
}
