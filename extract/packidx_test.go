package extract

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// TestPackIndexFormats writes one pack's index in each format git writes
// (version 1; version 2 with and without 8-byte offsets) and checks that
// every object is found at the offset `git show-index` gives, and that
// absent objects are not found.
func TestPackIndexFormats(t *testing.T) {
	g := gittest.Generate(t, 120, 3)
	g.Git("repack", "-adq")
	packs, _ := filepath.Glob(filepath.Join(g.Dir, ".git", "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	for _, version := range []string{"1", "2", "2,64"} {
		t.Run(version, func(t *testing.T) {
			idxPath := filepath.Join(t.TempDir(), "p.idx")
			g.Git("index-pack", "--index-version="+version, "-o", idxPath, packs[0])
			data, err := os.ReadFile(idxPath)
			if err != nil {
				t.Fatal(err)
			}
			x, err := parseIndex(data)
			if err != nil {
				t.Fatal(err)
			}
			large := 0
			want := readShowIndex(t, idxPath)
			for h, off := range want {
				got, ok := x.find(h)
				if !ok || got != off {
					t.Fatalf("%s: offset %d, %v; want %d", h, got, ok, off)
				}
				if off > 64 {
					large++
				}
				// The hash one above is (almost surely) absent.
				next := h
				next[19]++
				if _, ok := want[next]; !ok {
					if got, ok := x.find(next); ok {
						t.Fatalf("absent %s found at %d", next, got)
					}
				}
			}
			if len(want) < 300 || x.n != len(want) {
				t.Fatalf("%d objects listed, index of %d", len(want), x.n)
			}
			if version == "2,64" && len(x.large) != 8*large {
				t.Errorf("%d bytes of 8-byte offsets for %d objects past 64", len(x.large), large)
			}
		})
	}
}

// readShowIndex lists an index's objects and offsets as git reads them.
func readShowIndex(t *testing.T, idxPath string) map[plumbing.Hash]int64 {
	t.Helper()
	f, err := os.Open(idxPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("git", "show-index")
	cmd.Stdin = f
	b, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	want := map[plumbing.Hash]int64{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var off int64
		var hash string
		if _, err := fmt.Sscan(line, &off, &hash); err != nil {
			t.Fatalf("show-index line %q: %v", line, err)
		}
		want[plumbing.NewHash(hash)] = off
	}
	return want
}

func TestPackIndexRejectsCorrupt(t *testing.T) {
	fan := func(counts ...uint32) []byte {
		b := make([]byte, 1024)
		for i, c := range counts {
			b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
		}
		return b
	}
	v2 := append([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}, fan()...)
	cases := map[string][]byte{
		"empty":             nil,
		"version 3":         append([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 3}, make([]byte, 1100)...),
		"no trailer":        v2,
		"fan-out decreases": append(fan(5, 2), make([]byte, 40+24*5)...),
		"short v1 table":    append(fan(5, 5), make([]byte, 40+24*4)...),
		"short v2 table":    append(append([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}, fan(3, 3)...), make([]byte, 40+28*2)...),
	}
	for name, data := range cases {
		if _, err := parseIndex(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzParseIndex: whatever the bytes, parsing and lookups never panic, and
// a lookup finds only what the index lists.
func FuzzParseIndex(f *testing.F) {
	f.Add(append([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}, make([]byte, 1064)...), []byte("0123456789abcdefghij"))
	f.Fuzz(func(t *testing.T, data, hash []byte) {
		x, err := parseIndex(data)
		if err != nil {
			return
		}
		var h plumbing.Hash
		copy(h[:], hash)
		if _, ok := x.find(h); ok && x.n == 0 {
			t.Fatal("found an object in an empty index")
		}
		for i := 0; i < x.n && i < 64; i++ {
			copy(h[:], x.name(i))
			x.find(h)
		}
	})
}

// TestRefsPeelTags lists tags of every kind from packed objects: an
// annotated tag names its commit, through tags of tags; a lightweight tag
// is its commit; a tag of a tree names none.
func TestRefsPeelTags(t *testing.T) {
	g := gittest.Generate(t, 20, 4)
	head := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	g.Git("tag", "light")
	g.Git("tag", "-a", "-m", "annotated", "annotated")
	g.Git("tag", "-a", "-m", "of a tag", "nested", "annotated")
	g.Git("tag", "-a", "-m", "of a tree", "tree", "HEAD^{tree}")
	g.Git("repack", "-adq")
	refs, err := open(t, g.Dir).Refs(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"light": head, "annotated": head, "nested": head, "tree": ""}
	for _, r := range refs {
		if w, ok := want[r.Name]; ok {
			if r.Kind != "tag" || r.Target != w {
				t.Errorf("%s: %s target %q, want %q", r.Name, r.Kind, r.Target, w)
			}
			delete(want, r.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("tags not listed: %v", want)
	}
}

// TestOpenPackBadFiles: an empty or corrupt index, or an index without
// its pack, fails to open with an error that names the file.
func TestOpenPackBadFiles(t *testing.T) {
	g := gittest.Generate(t, 10, 5)
	g.Git("repack", "-adq")
	idxs, _ := filepath.Glob(filepath.Join(g.Dir, ".git", "objects", "pack", "*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("indexes: %v", idxs)
	}
	good, err := os.ReadFile(idxs[0])
	if err != nil {
		t.Fatal(err)
	}
	p, err := openPack(idxs[0])
	if err != nil {
		t.Fatalf("the repository's own pack: %v", err)
	}
	(&packReader{packs: []*pack{p}}).close()
	dir := t.TempDir()
	cases := map[string][]byte{"empty": {}, "corrupt": good[:len(good)/2], "no pack": good}
	for name, data := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".idx")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if name != "no pack" {
			// A pack beside it, so that only the index is at fault.
			os.WriteFile(strings.TrimSuffix(path, ".idx")+".pack", []byte("PACK"), 0o644)
		}
		_, err := openPack(path)
		if err == nil || !strings.Contains(err.Error(), filepath.Base(strings.TrimSuffix(path, ".idx"))) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
