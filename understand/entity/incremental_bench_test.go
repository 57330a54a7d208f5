package entity

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/model"
)

// benchChange is a file change with its hunks, as an indexer has it.
type benchChange struct {
	old, new Version
	hunks    []model.Hunk
}

func withHunks(changes []fileChange) []benchChange {
	out := make([]benchChange, len(changes))
	for i, fc := range changes {
		hunks, _, _ := extract.DiffLines(fc.old.Src, fc.new.Src, 0)
		out[i] = benchChange{old: fc.old, new: fc.new, hunks: hunks}
	}
	return out
}

// benchHistory processes a file's history oldest first, each iteration
// with a new Parser (so the first change pays for parsing the file), by
// Changes ("incremental") and by Diff of Entities with the blob cache
// ("full", the path Changes replaces). Besides ns/op for the history, it
// reports the median and mean time of one change.
func benchHistory(b *testing.B, lang string, changes []benchChange) {
	ctx := context.Background()
	run := func(b *testing.B, change func(p *Parser, c benchChange) error) {
		var times []time.Duration
		for b.Loop() {
			p := NewParser()
			p.SetLineDiff(lineDiff)
			for _, c := range changes {
				start := time.Now()
				if err := change(p, c); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			p.Close()
		}
		slices.Sort(times)
		var sum time.Duration
		for _, d := range times {
			sum += d
		}
		b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "ns/change-median")
		b.ReportMetric(float64(sum.Nanoseconds())/float64(len(times)), "ns/change-mean")
		b.ReportMetric(float64(times[len(times)*9/10].Nanoseconds()), "ns/change-p90")
	}
	b.Run("incremental", func(b *testing.B) {
		run(b, func(p *Parser, c benchChange) error {
			_, err := p.Changes(ctx, lang, c.old, c.new, c.hunks)
			return err
		})
	})
	b.Run("full", func(b *testing.B) {
		run(b, func(p *Parser, c benchChange) error {
			var olds, news []Entity
			var err error
			if c.old.Src != nil {
				if olds, err = p.Entities(ctx, lang, c.old.Path, c.old.Hash, c.old.Src); err != nil {
					return err
				}
			}
			if c.new.Src != nil {
				if news, err = p.Entities(ctx, lang, c.new.Path, c.new.Hash, c.new.Src); err != nil {
					return err
				}
			}
			Diff(olds, news, c.hunks)
			return nil
		})
	})
}

// BenchmarkChangesDiffC runs the last 300 changes of git's diff.c (about
// 200 KB); it needs the mirror of git. Run it with -benchtime=1x: one
// iteration of the full path parses 300 versions.
func BenchmarkChangesDiffC(b *testing.B) {
	benchHistory(b, "C", withHunks(gitHistory(b, "git+git", "diff.c", 300)))
}

// BenchmarkChangesSynthetic runs 200 random changes of a 5,000-line Go
// file: a line changed in a function, a function added or deleted.
func BenchmarkChangesSynthetic(b *testing.B) {
	benchHistory(b, "Go", syntheticHistory(200))
}

// syntheticHistory returns n changes of a generated Go file that stays
// valid: functions inserted and deleted between others, lines changed.
func syntheticHistory(n int) []benchChange {
	src := string(source("package bench\n\nimport \"sync\"\n", goBlock, 5000))
	// Blocks start at top-level comments and declarations.
	var blocks []string
	for _, part := range strings.SplitAfter(src, "\n}\n") {
		blocks = append(blocks, part)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	old := version("bench.go", []byte(src))
	var changes []benchChange
	for i := range n {
		at := 1 + rnd.IntN(len(blocks)-2)
		switch rnd.IntN(4) {
		case 0: // a new function
			blocks = slices.Insert(blocks, at, fmt.Sprintf("\nfunc added%d(x int) int {\n\treturn x * %d\n}\n", i, i))
		case 1: // a function deleted
			blocks = slices.Delete(blocks, at, at+1)
		default: // a line changed
			b := strings.Replace(blocks[at], "s.", "s .", 1)
			blocks[at] = strings.Replace(b, "sum", fmt.Sprintf("total%d", i), 1)
		}
		new := version("bench.go", []byte(strings.Join(blocks, "")))
		hunks, _, _ := extract.DiffLines(old.Src, new.Src, 0)
		changes = append(changes, benchChange{old: old, new: new, hunks: hunks})
		old = new
	}
	return changes
}
