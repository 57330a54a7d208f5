package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitmemory/gitmemory/internal/crashcheck"
	"github.com/gitmemory/gitmemory/internal/dump"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/store"
)

// graph checks that the graph and the vector index hold exactly what
// SQLite does: a copy of the repository's store has its graph, vectors and
// relations dropped and rebuilt by a sync from SQLite alone (every commit's
// edges and documents replayed, co-evolution and test links recomputed),
// and everything dumped must be what the sync wrote, quad for quad.
func (c *config) graph(ctx context.Context) (int, error) {
	tmp, err := os.MkdirTemp("", "xverify-replay")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	src := c.h.DataDir(c.name)
	dst := filepath.Join(tmp, "repos", c.name)
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return 0, err
	}
	for _, f := range []string{store.DBFile, store.DBFile + "-wal", store.DBFile + "-shm"} {
		if err := copyFile(filepath.Join(src, f), filepath.Join(dst, f)); err != nil && !os.IsNotExist(err) {
			return 0, err
		}
	}
	st, err := store.Open(ctx, dst)
	if err != nil {
		return 0, err
	}
	_, err = st.DB.ExecContext(ctx, `UPDATE commits SET graphed = 0; DELETE FROM couplings; DELETE FROM verified_by;
		UPDATE relations_state SET stale = 1, last_commit = 0`)
	st.Close()
	if err != nil {
		return 0, err
	}
	h, err := memory.OpenHome(tmp)
	if err != nil {
		return 0, err
	}
	if _, err := h.Sync(ctx, c.name, memory.SyncOptions{}); err != nil {
		return 0, fmt.Errorf("replay: %w", err)
	}
	var a, b strings.Builder
	if err := dump.Dump(ctx, src, &a, dump.Options{}); err != nil {
		return 0, err
	}
	if err := dump.Dump(ctx, dst, &b, dump.Options{}); err != nil {
		return 0, err
	}
	quads := section(a.String(), "== graph")
	docs := section(a.String(), "== vectors")
	if d := crashcheck.Diff(a.String(), b.String()); d != "" {
		fmt.Printf("  MISMATCH the replay from SQLite differs from what the sync wrote:\n%s", d)
		fmt.Printf("graph: %s; %s: the replay from SQLite differs (unexplained)\n", quads, docs)
		return 1, nil
	}
	fmt.Printf("graph: %s and %s; replayed from SQLite: identical, edge for edge and document for document\n", quads, docs)
	return 0, nil
}

// section returns a dump section's header ("graph (28339 quads)").
func section(d, prefix string) string {
	i := strings.Index(d, prefix)
	if i < 0 {
		return prefix + " (none)"
	}
	line, _, _ := strings.Cut(d[i+3:], "\n")
	return line
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
