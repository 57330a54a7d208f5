// Command xfollow prints the follow source extraction records for every
// file a commit created: the path git log --follow continues with at that
// commit. It reads commit hashes, one a line, from stdin, extracts them in
// that order and prints one line per created file:
//
//	<commit> TAB <path> TAB <follow source, or nothing>
//
// (with -renames, a second line, indented by a tab, with the file's
// status, old path and similarity: the commit's own rename and copy
// detection) and, on stderr, the CPU time that loading the commits took
// (reading them, their tree diffs and rename detection; not the line
// diffs). Two builds' outputs over the same commits show whether a change
// to rename detection kept every follow source; bench/follow-vs-git.sh
// compares them with git's.
//
//	git -C REPO log --reverse --no-merges --no-renames --diff-filter=A --format=%H |
//	    go run ./internal/cmd/xfollow REPO > follow.txt
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/model"
)

func main() {
	prof := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	renames := flag.Bool("renames", false, "also print, after each created file, its status, old path and similarity")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: xfollow [-cpuprofile FILE] [-renames] REPO < commits")
		os.Exit(2)
	}
	if err := profiled(*prof, func() error { return run(flag.Arg(0), *renames, os.Stdin, os.Stdout, os.Stderr) }); err != nil {
		fmt.Fprintln(os.Stderr, "xfollow:", err)
		os.Exit(1)
	}
}

// profiled runs f, with a CPU profile written to path unless it is empty.
func profiled(path string, f func() error) error {
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		return errors.Join(err, out.Close())
	}
	err = f()
	pprof.StopCPUProfile()
	return errors.Join(err, out.Close())
}

func run(path string, renames bool, in io.Reader, stdout, stderr io.Writer) error {
	r, err := extract.Open(path, extract.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	var load time.Duration
	wall0 := time.Now()
	commits, files := 0, 0
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if sc.Text() == "" {
			continue
		}
		cpu0 := cpuTime()
		l, err := r.Load(sc.Text())
		load += cpuTime() - cpu0
		if err != nil {
			return err
		}
		commits++
		for _, fc := range l.Finish().Changes {
			if created(fc.Status) {
				files++
				fmt.Fprintf(out, "%s\t%s\t%s\n", sc.Text(), fc.Path, fc.Follow)
				if renames {
					fmt.Fprintf(out, "\t%s %s %d%%\n", fc.Status, fc.OldPath, fc.Similarity)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d commits, %d created files: load CPU %.2f s, all %.2f s wall\n",
		commits, files, load.Seconds(), time.Since(wall0).Seconds())
	return nil
}

func created(s model.ChangeStatus) bool {
	return s == model.Added || s == model.Renamed || s == model.Copied
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
