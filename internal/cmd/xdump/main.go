// Command xdump prints everything a sync derived for one repository, sorted
// and without timestamps, so that two builds' syncs of the same history can
// be compared with diff: a speed change must not change the output.
//
//	go run ./internal/cmd/xdump $GITMEMORY_HOME/repos/NAME > dump.txt
//
// It prints the understanding columns of commits, design notes, entities,
// entity changes, couplings, test links and hunks from SQLite, every graph
// quad, and a digest of the vector log.
package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/store"
)

// tables are the derived tables and the columns compared: every column but
// row ids and clock times.
var tables = map[string]string{
	"commits":        "hash, classification, labels, summary, redactions",
	"design_notes":   "*",
	"entities":       "*",
	"entity_changes": "*",
	"couplings":      "*",
	"verified_by":    "*",
	"hunks":          "*",
	"file_changes":   "*",
	"lookup_keys":    "*",
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: xdump REPO_DATA_DIR")
		os.Exit(2)
	}
	if err := dump(context.Background(), os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "xdump:", err)
		os.Exit(1)
	}
}

func dump(ctx context.Context, dir string, w io.Writer) error {
	st, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	names := make([]string, 0, len(tables))
	for t := range tables {
		names = append(names, t)
	}
	slices.Sort(names)
	for _, t := range names {
		if err := dumpTable(ctx, st.DB, t, tables[t], w); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	if err := dumpGraph(ctx, filepath.Join(dir, "graph"), w); err != nil {
		return err
	}
	return dumpVectors(filepath.Join(dir, "vectors"), w)
}

func dumpTable(ctx context.Context, db *sql.DB, table, cols string, w io.Writer) error {
	rows, err := db.QueryContext(ctx, "SELECT "+cols+" FROM "+table)
	if err != nil {
		return err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return err
	}
	var lines []string
	vals := make([]any, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		var b strings.Builder
		for i, v := range vals {
			if strings.HasSuffix(names[i], "_at") || names[i] == "id" {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('\t')
			}
			if bs, ok := v.([]byte); ok {
				fmt.Fprintf(&b, "%x", sha256.Sum256(bs))
			} else {
				fmt.Fprint(&b, v)
			}
		}
		lines = append(lines, b.String())
	}
	if err := rows.Err(); err != nil {
		return err
	}
	slices.Sort(lines)
	fmt.Fprintf(w, "== %s (%d rows)\n", table, len(lines))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

func dumpGraph(ctx context.Context, dir string, w io.Writer) error {
	g, err := graph.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer g.Close()
	var lines []string
	err = g.EachQuad(ctx, func(q quad.Quad) error {
		lines = append(lines, q.NQuad())
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(lines)
	fmt.Fprintf(w, "== graph (%d quads)\n", len(lines))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

// dumpVectors digests each file of the vector index: the log is written
// in commit order, so equal syncs give equal bytes.
func dumpVectors(dir string, w io.Writer) error {
	fmt.Fprintln(w, "== vectors")
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasSuffix(p, ".end") {
			// The clean-end mark: the log's size, then its mtime.
			size, _, _ := strings.Cut(string(b), " ")
			b = []byte(size)
		}
		fmt.Fprintf(w, "%s %d %x\n", rel, len(b), sha256.Sum256(b))
		return nil
	})
}
