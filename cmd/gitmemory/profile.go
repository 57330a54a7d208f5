package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"time"
)

// startProfiles writes CPU and heap profiles when GITMEMORY_CPUPROFILE or
// GITMEMORY_MEMPROFILE name files: for measuring a real sync. The heap
// profile written at the end holds what was allocated over the run; what
// was live at a given moment needs GITMEMORY_HEAPPROFILE (see
// startHeapSnapshots).
func startProfiles() func() {
	cpu, mem := os.Getenv("GITMEMORY_CPUPROFILE"), os.Getenv("GITMEMORY_MEMPROFILE")
	if cpu != "" {
		if f, err := os.Create(cpu); err == nil {
			pprof.StartCPUProfile(f)
		}
	}
	stopSnapshots := startHeapSnapshots(os.Getenv("GITMEMORY_HEAPPROFILE"), os.Getenv("GITMEMORY_HEAPPROFILE_EVERY"))
	return func() {
		stopSnapshots()
		if cpu != "" {
			pprof.StopCPUProfile()
		}
		if mem != "" {
			if f, err := os.Create(mem); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}
	}
}

// startHeapSnapshots writes a heap profile to PREFIX.1, PREFIX.2, … every
// interval (GITMEMORY_HEAPPROFILE_EVERY, a Go duration, 20s by default),
// each after a forced collection so that its inuse_space is the live heap
// of that moment rather than of the last cycle: the live heap late in a
// long sync is what the memory limit has to leave room for.
func startHeapSnapshots(prefix, every string) func() {
	if prefix == "" {
		return func() {}
	}
	interval := 20 * time.Second
	if every != "" {
		d, err := time.ParseDuration(every)
		if err != nil || d <= 0 {
			fmt.Fprintf(os.Stderr, "gitmemory: GITMEMORY_HEAPPROFILE_EVERY=%q is not a positive duration such as 20s\n", every)
			os.Exit(2)
		}
		interval = d
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			case <-t.C:
				writeHeap(fmt.Sprintf("%s.%d", prefix, n))
			}
		}
	}()
	return func() { close(stop); <-done }
}

// writeHeap writes one snapshot and says on stderr how the process's
// resident memory splits between the Go runtime and the rest (tree-sitter's
// C allocations, mapped files), which no Go profile shows.
func writeHeap(path string) {
	runtime.GC()
	// Read before writing the profile, which takes long enough for the
	// sync's other goroutines to allocate a hundred megabytes more.
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	rss := residentMemory()
	f, err := os.Create(path)
	if err != nil {
		return
	}
	pprof.Lookup("heap").WriteTo(f, 0)
	f.Close()
	const mib = 1 << 20
	fmt.Fprintf(os.Stderr, "heap snapshot %s: live heap %d MiB, Go runtime %d MiB (%d MiB released), %s, %d malloc arenas\n", path,
		s[1].Value.Uint64()/mib, s[0].Value.Uint64()/mib, s[2].Value.Uint64()/mib, rss, mallocArenas())
}

// residentMemory reads the process's resident set by kind from
// /proc/self/status (Linux only; elsewhere it says so).
func residentMemory() string {
	status, err := procStatus()
	if err != nil {
		return "resident memory unknown"
	}
	var parts []string
	for _, k := range []string{"VmHWM", "VmRSS", "RssAnon", "RssFile"} {
		if v, ok := status[k]; ok {
			parts = append(parts, k+" "+v)
		}
	}
	return strings.Join(parts, ", ")
}

// procStatus reads /proc/self/status into its fields' values ("VmRSS":
// "1234 kB").
func procStatus() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, err
	}
	status := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			status[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	return status, nil
}
