package graph

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
		return stx.ForEach(func(name []byte, b *boltdb.Bucket) error {
			return dst.Update(func(dtx *boltdb.Tx) error {
				// The top level fills its pages too: it holds Cayley's
				// 2×65,536 value buckets inline (git/git's take 18 MB,
				// and half-full pages doubled them).
				dtx.Cursor().Bucket().FillPercent = 1
				nb, err := dtx.CreateBucket(name)
				if err != nil {
					return err
				}
				return copyBucket(b, nb, func(k, v []byte) ([]byte, bool, error) { return p.rewrite(string(name), k, v) })
			})
		})
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

// copyBucket copies src's keys, values (as rewrite returns them, leaving
// out those it refuses) and nested buckets (as they are) into dst, which
// is filled to the last byte of each page: the copy writes keys in order,
// so no page is split again.
func copyBucket(src, dst *boltdb.Bucket, rewrite func(k, v []byte) ([]byte, bool, error)) error {
	dst.FillPercent = 1
	return src.ForEach(func(k, v []byte) error {
		if v != nil {
			v, keep, err := rewrite(k, v)
			if err != nil || !keep {
				return err
			}
			return dst.Put(k, v)
		}
		nb, err := dst.CreateBucket(k)
		if err != nil {
			return err
		}
		return copyBucket(src.Bucket(k), nb, keepValue)
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
