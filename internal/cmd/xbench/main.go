// Command xbench measures extraction alone on a real repository: the newest
// N first-parent commits of HEAD, with W workers. It is a development tool
// for comparing against `git log --numstat`.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/gitmemory/gitmemory/extract"
)

func main() {
	n := flag.Int("n", 3000, "commits")
	workers := flag.Int("w", 2, "workers")
	prof := flag.String("cpuprofile", "", "write a CPU profile")
	memprof := flag.String("memprofile", "", "write a heap profile at the end")
	flag.Parse()
	if *prof != "" {
		f, _ := os.Create(*prof)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	path := flag.Arg(0)
	out, err := exec.Command("git", "-C", path, "rev-list", "-n", fmt.Sprint(*n), "HEAD").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hashes := strings.Fields(string(out))
	start := time.Now()
	var wg sync.WaitGroup
	var repos []*extract.Repo
	var mu sync.Mutex
	files, hunks := 0, 0
	next := make(chan int)
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := extract.Open(path, extract.Options{})
			mu.Lock()
			repos = append(repos, r)
			mu.Unlock()
			if err != nil {
				panic(err)
			}
			for lo := range next {
				for i := lo; i < min(lo+16, len(hashes)); i++ {
					c, err := r.Extract(hashes[len(hashes)-1-i])
					if err != nil {
						panic(err)
					}
					mu.Lock()
					files += len(c.Changes)
					for _, fc := range c.Changes {
						hunks += len(fc.Hunks)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for lo := 0; lo < len(hashes); lo += 16 {
		next <- lo
	}
	close(next)
	wg.Wait()
	d := time.Since(start)
	if *memprof != "" {
		f, _ := os.Create(*memprof)
		runtime.GC()
		pprof.WriteHeapProfile(f)
		f.Close()
	}
	fmt.Printf("%d commits, %d files, %d hunks in %s: %.0f commits/s\n", len(hashes), files, hunks, d, float64(len(hashes))/d.Seconds())
}
