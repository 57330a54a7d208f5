package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gitmemory/gitmemory/store"
)

// fileRow is one file change as both sides describe it.
type fileRow struct {
	status     string // A, D, M, R, C (git's letters; a type change is M)
	path, old  string
	similarity int
	ins, del   int // -1, -1: binary
}

func (r fileRow) String() string {
	s := r.status
	if r.status == "R" || r.status == "C" {
		s += fmt.Sprintf("%03d %s →", r.similarity, r.old)
	}
	return fmt.Sprintf("%s %s +%d -%d", s, r.path, r.ins, r.del)
}

// storedRow adds what the store knows besides: why a file was not diffed.
type storedRow struct {
	fileRow
	skipped string
	binary  bool
}

// numstat compares every non-merge commit's stored file changes with git
// log --raw --numstat -M -C: the same files with the same status (renames
// and copies with their source and similarity) and line counts. gitmemory
// detects copies as git's -C does, so that is the reference. Files it does
// not diff (vendored, generated, over 1 MiB) have no counts: deliberate.
func (c *config) numstat(ctx context.Context) (int, error) {
	out, err := c.git(ctx, "log", "--no-merges", "-M", "-C", "--raw", "--numstat", "--no-abbrev", "-z", "--format=%x01%H", c.head)
	if err != nil {
		return 0, err
	}
	want := parseNumstat(string(out))
	got, err := c.storedChanges(ctx)
	if err != nil {
		return 0, err
	}
	commits, rows, same := 0, 0, 0
	explained := map[string]int{}
	unexplained := 0
	for hash, w := range want {
		commits++
		g, ok := got[hash]
		if !ok {
			unexplained++
			fmt.Printf("  MISMATCH %s: not stored\n", hash[:12])
			continue
		}
		byPath := map[string]storedRow{}
		for _, r := range g {
			byPath[r.path] = r
		}
		for _, wr := range w {
			rows++
			gr, ok := byPath[wr.path]
			delete(byPath, wr.path)
			switch {
			case ok && gr.fileRow == wr:
				same++
			case ok && gr.skipped != "" && gr.skipped != "binary" && gr.status == wr.status && gr.old == wr.old &&
				gr.similarity == wr.similarity && gr.ins == 0 && gr.del == 0:
				explained["a "+gr.skipped+" file is stored without line counts"]++
			case ok && gr.binary && wr.ins == -1 && gr.status == wr.status && gr.old == wr.old && gr.similarity == wr.similarity:
				same++ // binary on both sides
			default:
				unexplained++
				stored := "nothing"
				if ok {
					stored = gr.fileRow.String()
					if gr.skipped != "" {
						stored += " (skipped: " + gr.skipped + ")"
					}
				}
				fmt.Printf("  MISMATCH %s %s: git %s, stored %s\n", hash[:12], wr.path, wr, stored)
			}
		}
		for _, gr := range byPath {
			unexplained++
			fmt.Printf("  MISMATCH %s %s: git nothing, stored %s\n", hash[:12], gr.path, gr.fileRow)
		}
	}
	for hash := range got {
		if _, ok := want[hash]; !ok {
			unexplained++
			fmt.Printf("  MISMATCH %s: stored, not in git log --no-merges\n", hash[:12])
		}
	}
	fmt.Printf("numstat: %d commits, %d file changes, %d identical to git log --raw --numstat -M -C, %d explained, %d unexplained\n",
		commits, rows, same, sum(explained), unexplained)
	for _, k := range sortedKeys(explained) {
		fmt.Printf("  explained: %d × %s\n", explained[k], k)
	}
	return unexplained, nil
}

// parseNumstat reads git log --raw --numstat -z --format=%x01%H: per
// commit, the raw records (status and paths) and then the numstat ones
// (counts), in the same order.
func parseNumstat(out string) map[string][]fileRow {
	res := map[string][]fileRow{}
	for _, rec := range strings.Split(out, "\x01")[1:] {
		f := strings.Split(rec, "\x00")
		hash := strings.TrimSpace(f[0])
		var rows []fileRow
		n := 0 // numstat records read
		for i := 1; i < len(f); i++ {
			field := strings.TrimLeft(f[i], "\n")
			switch {
			case field == "":
			case strings.HasPrefix(field, ":"):
				meta := strings.Fields(field)
				st := meta[len(meta)-1]
				r := fileRow{status: st[:1]}
				if r.status == "T" {
					r.status = "M"
				}
				if r.status == "R" || r.status == "C" {
					r.similarity, _ = strconv.Atoi(st[1:])
					r.old, r.path = f[i+1], f[i+2]
					i += 2
				} else {
					r.path = f[i+1]
					i++
				}
				rows = append(rows, r)
			default: // "ins\tdel\tpath" or "ins\tdel\t" then old, new
				parts := strings.SplitN(field, "\t", 3)
				if len(parts) < 3 || n >= len(rows) {
					continue
				}
				r := &rows[n]
				n++
				r.ins, r.del = count(parts[0]), count(parts[1])
				if parts[2] == "" {
					i += 2
				}
			}
		}
		res[hash] = rows
	}
	return res
}

func count(s string) int {
	if s == "-" {
		return -1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// storedChanges reads every live non-merge commit's file changes.
func (c *config) storedChanges(ctx context.Context) (map[string][]storedRow, error) {
	out := map[string][]storedRow{}
	err := c.h.ReadStore(ctx, c.name, func(st *store.Store) error {
		return store.EachRow(ctx, st.DB, `SELECT c.hash, f.status, f.path, f.old_path, f.similarity, f.insertions, f.deletions,
			f.skipped, f.binary FROM file_changes f JOIN commits c ON c.id = f.commit_id
			WHERE c.is_merge = 0 AND c.rewritten = 0`, nil, func(rows *sql.Rows) error {
			var hash, status string
			var r storedRow
			if err := rows.Scan(&hash, &status, &r.path, &r.old, &r.similarity, &r.ins, &r.del, &r.skipped, &r.binary); err != nil {
				return err
			}
			r.status = map[string]string{"added": "A", "deleted": "D", "modified": "M", "renamed": "R", "copied": "C"}[status]
			if r.binary {
				r.ins, r.del = -1, -1
			}
			out[hash] = append(out[hash], r)
			return nil
		})
	})
	// Commits with no file change at all (empty commits) have no rows.
	err2 := c.h.ReadStore(ctx, c.name, func(st *store.Store) error {
		hs, err := store.Strings(ctx, st.DB, `SELECT hash FROM commits WHERE is_merge = 0 AND rewritten = 0`)
		for _, h := range hs {
			if _, ok := out[h]; !ok {
				out[h] = nil
			}
		}
		return err
	})
	if err == nil {
		err = err2
	}
	for _, rows := range out {
		slices.SortFunc(rows, func(a, b storedRow) int { return strings.Compare(a.path, b.path) })
	}
	return out, err
}
