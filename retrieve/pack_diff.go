package retrieve

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// packDiffSource is a diff candidate's full text and the new-file line
// ranges to keep first when it is cut: those of the entities the query
// named that the commit changed in the file.
type packDiffSource struct {
	text  string
	focus [][2]int
}

// packDiffs chooses the diffs to show: the results' changes to the files
// and entities the query named first, then the other files of the top
// three results, by result rank and file order. Diff text is read only
// for these, until packMaxDiffs are found.
func packDiffs(ctx context.Context, db *sql.DB, cs []*packCommit, m packMatch) ([]DiffItem, []packRefs, []packDiffSource, error) {
	type cand struct {
		c     *packCommit
		f     packFile
		tier  int
		focus [][2]int
		ents  []string
	}
	var all []cand
	for _, c := range cs {
		for _, f := range c.files {
			if f.binary || f.skipped != "" {
				continue
			}
			x := cand{c: c, f: f, tier: 2}
			for _, e := range c.ents {
				if e.path != f.path {
					continue
				}
				if m.keys[e.key] {
					x.focus = append(x.focus, [2]int{e.start, e.end})
					x.ents = append([]string{e.qualified}, x.ents...)
				} else {
					x.ents = append(x.ents, e.qualified)
				}
			}
			switch {
			case m.file(f.path) || len(x.focus) > 0:
				x.tier = 0
			case c.rank < 3:
				x.tier = 1
			}
			if x.tier < 2 {
				all = append(all, x)
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].tier < all[j].tier })
	var items []DiffItem
	var refs []packRefs
	var srcs []packDiffSource
	for _, x := range all {
		if len(items) == packMaxDiffs {
			break
		}
		text, err := loadPackDiff(ctx, db, x.c.hash, x.f.seq)
		if err != nil {
			return nil, nil, nil, err
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		src := packDiffSource{text: text, focus: x.focus}
		expl := strings.TrimSpace(x.c.class + " in " + packShort(x.c.hash) + ": " + packClip(x.c.text(), 120))
		if len(x.ents) > 0 {
			expl += "; changes " + strings.Join(x.ents[:min(len(x.ents), 3)], ", ")
		}
		items = append(items, DiffItem{Commit: x.c.hash, Path: x.f.path, Diff: trimDiff(src, packMaxDiffLines), Explanation: expl})
		refs = append(refs, packRefs{commits: []string{x.c.hash}, files: []string{x.f.path}})
		srcs = append(srcs, src)
	}
	return items, refs, srcs, nil
}

// trimDiff cuts a diff to at most maxLines lines, hunk headers and the
// closing note included. Hunks that overlap the focus ranges are chosen
// first, then the others in file order; the chosen are shown in file
// order. A first hunk longer than the limit is cut. Lines longer than
// packMaxLineRunes runes are cut too. A cut diff ends with a line saying
// how many lines were left out.
func trimDiff(src packDiffSource, maxLines int) string {
	hunks := store.ParseHunks(src.text)
	total := 0
	for _, h := range hunks {
		total += 1 + strings.Count(h.Text, "\n")
	}
	order := make([]int, len(hunks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return hunkOverlaps(hunks[order[a]], src.focus) && !hunkOverlaps(hunks[order[b]], src.focus)
	})
	budget := maxLines
	if total > maxLines {
		budget-- // room for the closing note
	}
	chosen := map[int]string{}
	shown := 0
	for _, i := range order {
		h := hunks[i]
		lines := strings.SplitAfter(h.Text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if 1+len(lines) > budget-shown {
			if len(chosen) > 0 || budget-shown < 2 {
				continue
			}
			lines = lines[:budget-shown-1]
		}
		chosen[i] = strings.Join(lines, "")
		shown += 1 + len(lines)
	}
	var b strings.Builder
	for i, h := range hunks {
		text, ok := chosen[i]
		if !ok {
			continue
		}
		h.Text = text
		b.WriteString(store.FormatHunks([]model.Hunk{h}))
	}
	out := clipLines(b.String())
	if shown < total {
		out += fmt.Sprintf("… %d more lines\n", total-shown)
	}
	return out
}

func hunkOverlaps(h model.Hunk, ranges [][2]int) bool {
	end := h.NewStart + max(h.NewLines, 1) - 1
	for _, r := range ranges {
		if h.NewStart <= r[1] && r[0] <= end {
			return true
		}
	}
	return false
}

// clipLines cuts each line of s to packMaxLineRunes runes: a minified line
// would spend a budget on one unreadable line.
func clipLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if utf8.RuneCountInString(l) > packMaxLineRunes {
			nl := strings.HasSuffix(l, "\n")
			l = string([]rune(l)[:packMaxLineRunes]) + "…"
			if nl {
				l += "\n"
			}
			lines[i] = l
		}
	}
	return strings.Join(lines, "")
}
