package main

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
)

// TestTrimMallocReturnsFreedTrees frees every other of many parse trees,
// leaving holes glibc keeps for itself, and checks that trimMalloc gives
// most of them back to the system.
func TestTrimMallocReturnsFreedTrees(t *testing.T) {
	if mallocArenas() == 0 {
		t.Skip("malloc_trim is glibc's; this C library keeps no arenas to trim")
	}
	runtime.LockOSThread() // one thread, so one arena holds all the trees
	defer runtime.UnlockOSThread()
	var src strings.Builder
	src.WriteString("package p\n")
	for i := range 400 {
		fmt.Fprintf(&src, "func f%d(a, b int) int { if a > b { return a*%d } ; return b + %d }\n", i, i, i)
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(golang.GetLanguage())
	var kept, freed []*sitter.Tree
	for i := range 100 {
		tree, err := p.ParseCtx(context.Background(), nil, []byte(src.String()))
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			kept = append(kept, tree)
		} else {
			freed = append(freed, tree)
		}
	}
	defer func() {
		for _, tree := range kept {
			tree.Close()
		}
	}()
	before := anonResident(t)
	for _, tree := range freed {
		tree.Close()
	}
	closed := anonResident(t)
	trimMalloc()
	after := anonResident(t)
	t.Logf("resident anonymous memory: %d MiB with all trees, %d MiB with half closed, %d MiB trimmed",
		before>>20, closed>>20, after>>20)
	// Half the trees are some 70 MB; glibc keeps most of it until trimmed.
	if closed-after < 20<<20 {
		t.Errorf("trimming gave back %d KiB of the trees closed, want at least 20 MiB", (closed-after)>>10)
	}
}

// anonResident is the process's resident anonymous memory in bytes.
func anonResident(t *testing.T) int64 {
	status, err := procStatus()
	if err != nil {
		t.Skip("no /proc/self/status to read resident memory from")
	}
	v, ok := status["RssAnon"]
	if !ok {
		t.Skip("no RssAnon in /proc/self/status")
	}
	kb, err := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return kb << 10
}
