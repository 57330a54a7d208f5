package secrets

import (
	"fmt"
	"os"
	"slices"
	"testing"
)

func TestScratchRegions(t *testing.T) {
	s, _ := New()
	b, _ := os.ReadFile("testdata/clean.diff")
	text := string(b)
	lower := []byte(text)
	for i := range lower {
		if 'A' <= lower[i] && lower[i] <= 'Z' {
			lower[i] += 32
		}
	}
	lines := newLineIndex(text, nil)
	var wins []window
	full := false
	s.lits.find(lower, func(pos, n int, rules []int32) {
		for _, r := range rules {
			if r == triggerFull {
				full = true
				fmt.Println("full trigger", string(lower[pos:pos+n]))
				continue
			}
			a, b := s.win[r].window(lines, pos, n)
			wins = append(wins, window{r, a, b})
		}
	})
	slices.SortFunc(wins, func(x, y window) int {
		if x.rule != y.rule {
			return int(x.rule - y.rule)
		}
		return x.start - y.start
	})
	stats := map[string][2]int{}
	for i := 0; i < len(wins); {
		cur := wins[i]
		j := i + 1
		for j < len(wins) && wins[j].rule == cur.rule && wins[j].start < cur.end {
			cur.end = max(cur.end, wins[j].end)
			j++
		}
		var id string
		for k := range s.win[cur.rule].det.Config.Rules {
			id = k
		}
		st := stats[id]
		st[0]++
		st[1] += cur.end - cur.start
		stats[id] = st
		i = j
	}
	fmt.Println(full, stats)
}
