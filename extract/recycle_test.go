package extract

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// TestRecycledBuffersWereNotLent reads, oldest first as a sync does, every
// version of large files stored as deep delta chains, through an offset
// cache small enough that its generations turn every few objects and the
// buffers of chain objects are written again. Every content handed out
// must still be what it was once all are read, temporary reads included.
func TestRecycledBuffersWereNotLent(t *testing.T) {
	g := gittest.New(t)
	r := rand.New(rand.NewPCG(5, 6))
	files := map[string][]string{}
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		files[name] = strings.Split(gittest.Lines(name, 2000+r.IntN(2000)), "\n")
	}
	for i := range 40 {
		for name, lines := range files {
			for range 20 {
				k := r.IntN(len(lines))
				lines[k] = fmt.Sprintf("%s edit %d.%d", name, i, k)
			}
			if r.IntN(3) == 0 {
				lines = append(lines, fmt.Sprintf("%s grows %d", name, i))
			}
			files[name] = lines
			g.Write(name, strings.Join(lines, "\n"))
		}
		g.Commit(fmt.Sprintf("edit %d", i))
	}
	g.Git("repack", "-adfq", "--depth=50", "--window=50")
	pr, err := openPacks(filepath.Join(g.Dir, ".git", "objects"), 256<<10)
	if err != nil || pr == nil {
		t.Fatalf("open packs: %v", err)
	}
	defer pr.close()
	list := g.Git("rev-list", "--objects", "--reverse", "main")
	kept := map[plumbing.Hash][]byte{}
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue // a commit
		}
		h := plumbing.NewHash(f[0])
		if _, data, err := pr.readTemp(h, 1<<40); err != nil || objectHash("blob", data) != h {
			t.Fatalf("temporary read of %s: %v", h, err)
		}
		typ, data, err := pr.read(h, 1<<40)
		if err != nil || typ != objBlob {
			t.Fatalf("read %s: type %d, %v", h, typ, err)
		}
		kept[h] = data
	}
	for h, data := range kept {
		if objectHash("blob", data) != h {
			t.Fatalf("%s changed after later reads", h)
		}
	}
	if pr.recycle.reused == 0 || len(kept) < 100 {
		t.Errorf("%d buffers reused over %d blobs read: the test does not exercise reuse", pr.recycle.reused, len(kept))
	}
}

func TestSizeClass(t *testing.T) {
	seen := map[int]int64{}
	for n := int64(minRecycle); n < 1<<22; n += 1 + n/97 {
		c, class := sizeClass(n)
		if c < n || c > n+n/8 {
			t.Fatalf("class of %d is %d bytes", n, c)
		}
		if prev, ok := seen[class]; ok && prev != c {
			t.Fatalf("class %d is %d and %d bytes", class, prev, c)
		}
		seen[class] = c
		if c2, class2 := sizeClass(c); c2 != c || class2 != class {
			t.Fatalf("a class's size %d is in class %d (%d bytes), not %d", c, class2, c2, class)
		}
	}
}
