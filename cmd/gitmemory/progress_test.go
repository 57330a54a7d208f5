package main

import (
	"time"

	"github.com/gitmemory/gitmemory/indexer"
)

func progressAt(done, total int, elapsed time.Duration) indexer.Progress {
	return indexer.Progress{Done: done, Total: total, Elapsed: elapsed}
}
