package graph

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestReleaseMemory: ReleaseMemory takes the bolt file's pages out of the
// process's resident memory, and the store answers as before, so the
// advised range was bolt's own mapping and nothing else.
func TestReleaseMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the mapping's resident size from /proc/self/smaps")
	}
	dir := t.TempDir()
	g := open(t, dir)
	var es []Edge
	for i := range 6000 {
		es = append(es, Edge{From: fmt.Sprintf("commit:%d", i), Type: "MODIFIES", To: fmt.Sprintf("file:f%d.c", i%500)})
	}
	write(t, g, nil, es)
	before := edges(t, g, "file:f7.c", In, "MODIFIES")
	if len(before) != 12 {
		t.Fatalf("file:f7.c has %d MODIFIES edges, want 12", len(before))
	}
	file := filepath.Join(dir, boltFile)
	if kb := mappedKB(t, file); kb < 64 {
		t.Fatalf("the graph's mapping holds %d KiB before the release; the test reads too little to tell", kb)
	}
	if err := g.ReleaseMemory(); err != nil {
		t.Fatal(err)
	}
	if kb := mappedKB(t, file); kb != 0 {
		t.Errorf("the graph's mapping holds %d KiB after the release, want 0", kb)
	}
	check(t, "edges after the release", edges(t, g, "file:f7.c", In, "MODIFIES"), before)
	write(t, g, nil, []Edge{{From: "commit:new", Type: "MODIFIES", To: "file:f7.c"}})
	if got := edges(t, g, "file:f7.c", In, "MODIFIES"); len(got) != 13 {
		t.Errorf("after a write following the release: %d edges, want 13", len(got))
	}
	g.Close()
	if err := g.ReleaseMemory(); !errors.Is(err, ErrClosed) {
		t.Errorf("ReleaseMemory after Close: %v, want ErrClosed", err)
	}
}

// mappedKB sums the resident KiB of this process's mappings of file.
func mappedKB(t *testing.T, file string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	total, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			in = len(fields) >= 6 && fields[5] == file
		case in && len(fields) >= 2 && fields[0] == "Rss:":
			n, _ := strconv.Atoi(fields[1])
			total += n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}
