package graph

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	boltdb "github.com/boltdb/bolt"
)

// Bolt fills the pages it splits about half, and Cayley's keys (hashes)
// arrive in no order, so a graph written by a sync takes about twice the
// bytes it holds: git/git's, 242 MB, holds 128 MB. Compact copies it into
// a new file with full pages; it runs after a sync, when the file has
// grown to twice its size after the last compaction (and past
// compactMinBytes), so a large first sync is compacted once and small
// incremental ones seldom, or when an older layout compacted it.
const (
	compactedFile = boltFile + ".compacted" // the size after the last compaction
	compactTmp    = boltFile + ".tmp"
)

// compactMinBytes: a smaller graph is never compacted (a variable for the
// tests).
var compactMinBytes int64 = 32 << 20

// CompactIfGrown compacts the bolt graph in dir, which no one may have
// open, if it has doubled since it was last compacted or an older layout
// compacted it. It reports the
// file's size before and after; both are 0 when it did nothing, as for a
// graph on PostgreSQL (an address that is not a directory of ours).
func CompactIfGrown(dir string) (before, after int64, err error) {
	fi, err := os.Stat(filepath.Join(dir, boltFile))
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("compact graph: %w", err)
	}
	last, layout := lastCompaction(dir)
	if fi.Size() < compactMinBytes || (fi.Size() < 2*last && layout >= compactLayout) {
		return 0, 0, nil
	}
	after, err = compactBolt(dir, fi.Size())
	if err != nil {
		return 0, 0, fmt.Errorf("compact graph %s: %w", dir, err)
	}
	return fi.Size(), after, nil
}

// compactBolt copies every bucket of the graph into a temporary file with
// full pages and renames it over the graph. A process killed during the
// copy leaves the graph as it was, and a temporary file the next
// compaction overwrites.
func compactBolt(dir string, size int64) (int64, error) {
	path, tmp := filepath.Join(dir, boltFile), filepath.Join(dir, compactTmp)
	src, err := boltdb.Open(path, 0o600, &boltdb.Options{ReadOnly: true, Timeout: DefaultOpenTimeout})
	if errors.Is(err, boltdb.ErrTimeout) {
		return 0, ErrLocked
	}
	if err != nil {
		return 0, err
	}
	defer src.Close()
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	// The mapping sized up front, and one sync at the end: growing the map
	// and syncing as it goes took six times the CPU.
	dst, err := boltdb.Open(tmp, 0o600, &boltdb.Options{InitialMmapSize: int(size), NoGrowSync: true})
	if err != nil {
		return 0, err
	}
	dst.NoSync = true
	err = src.View(func(stx *boltdb.Tx) error {
		p, err := newPruner(stx)
		if err != nil {
			return err
		}
		c := &copier{src: src, srcSize: stx.Size(), dst: dst}
		if err := c.begin(); err != nil {
			return err
		}
		defer func() { c.tx.Rollback() }()
		err = stx.ForEach(func(name []byte, b *boltdb.Bucket) error {
			if err := c.put(nil, name, nil); err != nil {
				return err
			}
			return c.walk([][]byte{name}, b, func(k, v []byte) ([]byte, bool, error) { return p.rewrite(string(name), k, v) })
		})
		if err != nil {
			return err
		}
		return c.tx.Commit()
	})
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return 0, err
	}
	fi, err := os.Stat(tmp)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return 0, err
	}
	mark := fmt.Sprintf("%d %d\n", fi.Size(), compactLayout)
	return fi.Size(), os.WriteFile(filepath.Join(dir, compactedFile), []byte(mark), 0o600)
}

// compactLayout numbers what compactBolt writes; a graph compacted by an
// older one (1: the top level's pages half full, 2: removed quads and
// write times kept) is compacted once more, whatever its growth.
const compactLayout = 3

// lastCompaction reads the size after the last compaction and the layout
// it wrote ("<size> <layout>"; a size alone is layout 1); 0, 0 if none.
func lastCompaction(dir string) (size int64, layout int) {
	b, err := os.ReadFile(filepath.Join(dir, compactedFile))
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, 0
	}
	size, _ = strconv.ParseInt(f[0], 10, 64)
	layout = 1
	if len(f) > 1 {
		layout, _ = strconv.Atoi(f[1])
	}
	return size, layout
}

// compactTxBytes bounds the keys and values one transaction of the copy
// writes. A transaction keeps every node it writes in the Go heap until it
// commits, and then allocates every dirty page before writing one: copied
// a top-level bucket a transaction, Homebrew's 949 MB graph peaked at
// 1.7 GB resident (1.3 GB anonymous); in transactions of 8 MiB, with the
// source's pages dropped from the resident set after each, at 440 MB, in
// half the time. (A variable for the tests.)
var compactTxBytes = 8 << 20

// copier copies buckets into dst in transactions of compactTxBytes.
type copier struct {
	src     *boltdb.DB
	srcSize int64
	dst     *boltdb.DB
	tx      *boltdb.Tx
	size    int
	path    [][]byte       // of cur, the bucket written last
	cur     *boltdb.Bucket // nil after a commit
}

func (c *copier) begin() error {
	tx, err := c.dst.Begin(true)
	if err != nil {
		return err
	}
	// The top level fills its pages too: it holds Cayley's 2×65,536 value
	// buckets inline (git/git's take 18 MB, and half-full pages doubled
	// them).
	tx.Cursor().Bucket().FillPercent = 1
	c.tx, c.size, c.cur = tx, 0, nil
	return nil
}

// put writes k and v (a bucket when v is nil) into the bucket at path,
// committing first when the transaction is full.
func (c *copier) put(path [][]byte, k, v []byte) error {
	if c.size >= compactTxBytes {
		if err := c.tx.Commit(); err != nil {
			return err
		}
		if err := dropMapping(c.src, c.srcSize); err != nil {
			return err
		}
		if err := c.begin(); err != nil {
			return err
		}
	}
	c.size += len(k) + len(v)
	if len(path) == 0 {
		_, err := c.tx.CreateBucket(k)
		return err
	}
	b, err := c.bucket(path)
	if err != nil {
		return err
	}
	if v == nil {
		_, err := b.CreateBucket(k)
		return err
	}
	return b.Put(k, v)
}

// bucket returns the bucket at path in the open transaction.
func (c *copier) bucket(path [][]byte) (*boltdb.Bucket, error) {
	if c.cur != nil && slices.EqualFunc(c.path, path, bytes.Equal) {
		return c.cur, nil
	}
	b := c.tx.Bucket(path[0])
	for _, p := range path[1:] {
		if b == nil {
			break
		}
		b = b.Bucket(p)
	}
	if b == nil {
		return nil, fmt.Errorf("bucket %q missing from the copy", path)
	}
	b.FillPercent = 1
	c.cur, c.path = b, slices.Clone(path)
	return b, nil
}

// walk copies src, the bucket at path: its keys, its values (as rewrite
// returns them, leaving out those it refuses) and its nested buckets (as
// they are). Each bucket of the copy is filled to the last byte of each
// page: the copy writes keys in order, so no page is split again.
func (c *copier) walk(path [][]byte, src *boltdb.Bucket, rewrite func(k, v []byte) ([]byte, bool, error)) error {
	return src.ForEach(func(k, v []byte) error {
		if v != nil {
			v, keep, err := rewrite(k, v)
			if err != nil || !keep {
				return err
			}
			return c.put(path, k, v)
		}
		if err := c.put(path, k, nil); err != nil {
			return err
		}
		return c.walk(append(path[:len(path):len(path)], k), src.Bucket(k), keepValue)
	})
}

func keepValue(_, v []byte) ([]byte, bool, error) { return v, true, nil }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
