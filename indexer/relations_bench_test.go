package indexer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// factsChange is one C file change of a real history, as the entity
// stage has it.
type factsChange struct {
	fc       *model.FileChange
	old, new []byte
}

// gitCChanges returns the C file changes (.c and .h) of the n newest
// non-merge commits of the git mirror, oldest first. It skips the
// benchmark without the mirror.
func gitCChanges(b *testing.B, n int) []factsChange {
	b.Helper()
	dir := os.Getenv("GITMEMORY_BENCH_GIT")
	if dir == "" {
		dir = "/work/.mirror/git+git/repo"
	}
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("no git mirror (GITMEMORY_BENCH_GIT): %v", err)
	}
	git := func(stdin string, args ...string) []byte {
		cmd := exec.Command("git", append([]string{"--git-dir=" + dir}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("git %v: %v", args, err)
		}
		return out
	}
	// Each commit's lines: "commit <hash>", then ":<modes> <old> <new> <status>\t<path>".
	log := git("", "log", "--no-merges", "--no-renames", "--raw", "--no-abbrev", "--format=commit %H", "-n", strconv.Itoa(n), "--", "*.c", "*.h")
	var changes []factsChange
	var batch strings.Builder
	for _, line := range strings.Split(string(log), "\n") {
		meta, path, ok := strings.Cut(line, "\t")
		if !ok || !strings.HasPrefix(meta, ":") {
			continue
		}
		f := strings.Fields(meta)
		fc := &model.FileChange{Path: path, Language: "C", OldBlob: f[2], NewBlob: f[3], Status: model.Modified}
		switch f[4] {
		case "A":
			fc.Status, fc.OldBlob = model.Added, ""
		case "D":
			fc.Status, fc.NewBlob = model.Deleted, ""
		}
		changes = append(changes, factsChange{fc: fc})
		fmt.Fprintf(&batch, "%s\n%s\n", f[2], f[3])
	}
	blobs := git(batch.String(), "cat-file", "--batch")
	next := func() []byte {
		i := bytes.IndexByte(blobs, '\n')
		f := strings.Fields(string(blobs[:i]))
		blobs = blobs[i+1:]
		if len(f) != 3 {
			return nil // the zero hash of an added or deleted side
		}
		size, _ := strconv.Atoi(f[2])
		out := blobs[:size:size]
		blobs = blobs[size+1:]
		return out
	}
	for i := range changes {
		c := &changes[i]
		c.old, c.new = next(), next() // nil for the side an addition or a deletion lacks
		c.fc.Hunks, c.fc.Insertions, c.fc.Deletions = extract.DiffLines(c.old, c.new, 3)
	}
	slices.Reverse(changes)
	return changes
}

// BenchmarkReadFacts runs the entity stage over git's C changes of its
// newest 300 commits, on one parser in commit order as a sync does:
// "entities" finds the entity changes only, "facts" reads each change's
// relationship facts too. The difference between the two is what reading
// the facts costs, in time and allocations; facts also reports the time
// spent in readFacts alone (ns/facts).
func BenchmarkReadFacts(b *testing.B) {
	changes := gitCChanges(b, 300)
	ctx := context.Background()
	for _, facts := range []bool{false, true} {
		name := "entities"
		if facts {
			name = "facts"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var inFacts time.Duration
			n := 0
			for b.Loop() {
				p := entity.NewParser()
				for _, c := range changes {
					var ce commitEntities
					ce.file(ctx, p, c.fc, c.old, c.new)
					if !facts {
						continue
					}
					start := time.Now()
					if f := readFacts(ctx, p, c.fc, c.old, c.new, ce.changes); f != nil {
						n += len(f.calls)
					}
					inFacts += time.Since(start)
				}
				p.Close()
			}
			if facts {
				if n == 0 {
					b.Fatal("no calls read")
				}
				b.ReportMetric(float64(inFacts.Nanoseconds())/float64(b.N), "ns/facts")
			}
		})
	}
}
