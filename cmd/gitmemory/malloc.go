package main

/*
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

// trim_malloc hands the pages of freed C memory back to the system.
static void trim_malloc(void) {
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

// malloc_report returns malloc_info's XML in a buffer the caller frees,
// or NULL where there is none.
static char *malloc_report(void) {
#ifdef __GLIBC__
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL) {
		return NULL;
	}
	malloc_info(0, f);
	fclose(f);
	return buf;
#else
	return NULL;
#endif
}
*/
import "C"

import (
	"strings"
	"time"
	"unsafe"
)

// trimEvery is how often a long command hands freed C memory back.
//
// tree-sitter's trees are C memory, and glibc keeps what a program frees
// for its own later use. Go runs a parser's cgo calls on whichever thread
// is free, and glibc gives each thread an arena of its own (up to eight
// per core), so a parser's trees end up spread over a dozen arenas whose
// freed pages no other thread reuses: on fmtlib/fmt's sync, whose C++
// headers are parsed whole at most changes, some 250 MB of resident
// memory was such free space. Capping the arenas at one per core avoided
// it (peak 1,149 → 924 MiB) but cost 9 % more CPU in lock waits; a trim
// every 5 s gives it back (1,113 → 898 MiB) for little CPU (fmt level,
// git/git +0.6 % over two rounds and +5.2 % in one), where every 15 s left
// more (979 MiB) and every 2 s cost 4 % (docs/performance.md, "Freed C
// memory").
const trimEvery = 5 * time.Second

// startMallocTrim trims the C heap every trimEvery until stop is called.
func startMallocTrim() (stop func()) {
	t := time.NewTicker(trimEvery)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-t.C:
				trimMalloc()
			case <-done:
				return
			}
		}
	}()
	return func() { t.Stop(); close(done) }
}

// trimMalloc hands the pages of freed C memory back to the system now.
func trimMalloc() { C.trim_malloc() }

// mallocArenas is how many glibc malloc arenas the process has, 0 where
// that is unknown.
func mallocArenas() int {
	p := C.malloc_report()
	if p == nil {
		return 0
	}
	defer C.free(unsafe.Pointer(p))
	return strings.Count(C.GoString(p), "<heap nr=")
}
