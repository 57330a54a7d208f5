package extract

import (
	"crypto/sha1"
	"fmt"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// TestPackReaderMatchesGoGit reads every object of a repository repacked
// with deep delta chains (offset and ref deltas) through the pack reader,
// and checks each against go-git's reading and against its own object id.
func TestPackReaderMatchesGoGit(t *testing.T) {
	for _, ofs := range []string{"true", "false"} {
		t.Run("offset-deltas-"+ofs, func(t *testing.T) { checkPackReader(t, ofs) })
	}
}

func checkPackReader(t *testing.T, ofsDeltas string) {
	g := gittest.Generate(t, 300, 5)
	g.Git("-c", "repack.useDeltaBaseOffset="+ofsDeltas, "repack", "-adfq", "--depth=50", "--window=50")
	// A second pack holding a few loose-then-packed objects makes the
	// reader search more than one index.
	g.Write("extra.txt", gittest.Lines("extra", 30))
	g.Write("empty.txt", "")
	g.Commit("extra")
	g.Git("repack", "-dq")
	r := open(t, g.Dir)
	if r.packs == nil || len(r.packs.packs) < 2 {
		t.Fatalf("expected two packs, got %+v", r.packs)
	}
	list := g.Git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
	counts := map[string]int{}
	kept := map[plumbing.Hash][]byte{}
	for _, line := range strings.Split(list, "\n") {
		var hash, typ string
		fmt.Sscan(line, &hash, &typ)
		if typ != "blob" && typ != "tree" {
			continue
		}
		counts[typ]++
		h := plumbing.NewHash(hash)
		// A temporary read (only looked at, valid until the next read)
		// gives the same content, and must not write into what other
		// reads handed out (checked at the end).
		tt, td, err := r.packs.readTemp(h, 1<<40)
		if err != nil || plumbing.ObjectType(tt).String() != typ || objectHash(typ, td) != h || td == nil {
			t.Fatalf("temporary read of %s: type %d, %d bytes, %v", hash, tt, len(td), err)
		}
		pt, data, err := r.packs.read(h, 1<<40)
		if err != nil {
			t.Fatalf("pack read %s: %v", hash, err)
		}
		if plumbing.ObjectType(pt).String() != typ {
			t.Errorf("%s: type %v, want %s", hash, plumbing.ObjectType(pt), typ)
		}
		obj, err := r.store.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			t.Fatal(err)
		}
		want, err := readAll(obj)
		if err != nil {
			t.Fatal(err)
		}
		if data == nil {
			t.Fatalf("%s: nil content (too large) for %d bytes", hash, len(want))
		}
		if string(data) != string(want) {
			t.Fatalf("%s: pack reader and go-git disagree (%d vs %d bytes)", hash, len(data), len(want))
		}
		// Below its size, an object is not rebuilt but its type is known,
		// whether it is stored whole or as a delta.
		if len(data) > 0 {
			lt, ld, err := r.packs.read(h, int64(len(data)-1))
			if err != nil || ld != nil || lt != pt {
				t.Fatalf("%s over the limit: type %d, %d bytes, %v", hash, lt, len(ld), err)
			}
		}
		if sum := objectHash(typ, data); sum != h {
			t.Fatalf("%s: content hashes to %s", hash, sum)
		}
		kept[h] = data
	}
	if counts["blob"] < 100 || counts["tree"] < 100 {
		t.Errorf("too few objects checked: %v", counts)
	}
	if _, ok := kept[plumbing.NewHash("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")]; !ok {
		t.Error("the empty blob was not read")
	}
	// What a read returned is the caller's for good (the tree cache and
	// the entity stage keep it): no later read may write into it.
	for h, data := range kept {
		if sum := objectHash(plumbing.BlobObject.String(), data); sum != h && objectHash("tree", data) != h {
			t.Fatalf("%s changed after later reads", h)
		}
	}
	// An object that is in no pack is read by go-git instead.
	if _, _, err := r.packs.read(plumbing.NewHash(strings.Repeat("ab", 20)), 1<<40); err != errNotInPack {
		t.Errorf("missing object: %v", err)
	}
}

func objectHash(typ string, data []byte) plumbing.Hash {
	return plumbing.Hash(sha1.Sum(append([]byte(fmt.Sprintf("%s %d\x00", typ, len(data))), data...)))
}

func TestPackHeaderParsing(t *testing.T) {
	// type 3 (blob), size 1000 = 0b1111101000: low nibble 1000, then 0111110.
	data := []byte{0x80 | 3<<4 | 0x8, 0x3e}
	typ, size, n, err := header(data, 0)
	if err != nil || typ != 3 || size != 1000 || n != 2 {
		t.Errorf("header: %d %d %d %v", typ, size, n, err)
	}
	if _, _, _, err := header([]byte{0x80 | 3<<4}, 0); err == nil {
		t.Error("truncated header accepted")
	}
	if _, _, _, err := header(data, 5); err == nil {
		t.Error("offset outside the pack accepted")
	}
	// Offset encoding: 0x81 0x00 is (1+1)<<7 | 0 = 256.
	if d, k := ofsDistance([]byte{0x81, 0x00}); d != 256 || k != 2 {
		t.Errorf("ofsDistance: %d %d", d, k)
	}
	if _, k := ofsDistance([]byte{0x81}); k != 0 {
		t.Error("truncated distance accepted")
	}
}

// FuzzParseTree: any bytes either fail to parse or give entries whose
// names contain no NUL and whose object ids are in the tree, and parsing
// never panics.
func FuzzParseTree(f *testing.F) {
	f.Add([]byte("100644 a.txt\x00" + strings.Repeat("\x01", 20) + "40000 dir\x00" + strings.Repeat("\x02", 20)))
	f.Add([]byte("100644 \x00"))
	f.Add([]byte("9 x\x00" + strings.Repeat("\x00", 20)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		tr, err := parseTree(raw)
		if err != nil {
			return
		}
		for i := range tr.Entries {
			if name := tr.name(&tr.Entries[i]); strings.ContainsRune(name, 0) {
				t.Fatalf("entry name with NUL: %q", name)
			}
			if h := tr.rawHash(&tr.Entries[i]); len(h) != 20 {
				t.Fatalf("object id of %d bytes", len(h))
			}
		}
	})
}

// FuzzPackHeader: header and ofsDistance never panic or read outside
// their input, whatever the bytes.
func FuzzPackHeader(f *testing.F) {
	f.Add([]byte{0xb8, 0x3e}, int64(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, int64(0))
	f.Fuzz(func(t *testing.T, data []byte, off int64) {
		if _, size, n, err := header(data, off); err == nil && (n <= 0 || size < 0) {
			t.Fatalf("header n=%d size=%d", n, size)
		}
		if d, n := ofsDistance(data); n > len(data) || d < 0 {
			t.Fatalf("ofsDistance %d %d", d, n)
		}
	})
}

// FuzzPackAt reads an object out of arbitrary pack bytes: corrupt headers,
// deltas and zlib streams must give errors, never a panic or a hang.
func FuzzPackAt(f *testing.F) {
	f.Add([]byte{0x33, 0x78, 0x9c, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0x02, 0x4d, 0x01, 0x27}, int64(0))
	f.Add([]byte{0x33, 0x78, 0x9c, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0x02, 0x4d, 0x01, 0x27, 0x65, 0x0c, 0x78, 0x9c, 0x63, 0x64, 0x64, 0x4c, 0x4c, 0x02, 0x00}, int64(12))
	f.Fuzz(func(t *testing.T, data []byte, off int64) {
		pr := &packReader{packs: []*pack{{idx: &packIndex{fanout: make([]byte, 1024)}, data: data}}, cache: newOffsetCache(1 << 20)}
		typ, out, err := pr.at(0, off, 1<<20, false)
		if err == nil && (typ < objCommit || typ > objTag) && out != nil {
			t.Fatalf("type %d without error", typ)
		}
	})
}

// TestAlternates reads a `clone --shared` repository, whose objects live
// in the original's packs, through the pack reader.
func TestAlternates(t *testing.T) {
	g := gittest.Generate(t, 50, 9)
	g.Git("repack", "-adq")
	clone := t.TempDir() + "/shared"
	g.Git("clone", "-q", "--shared", g.Dir, clone)
	r := open(t, clone)
	if r.packs == nil || len(r.packs.packs) == 0 {
		t.Fatal("the alternate's packs were not found")
	}
	head := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	if _, _, err := r.packs.read(plumbing.NewHash(head), 1<<40); err != nil {
		t.Fatalf("head commit through the alternate's pack: %v", err)
	}
	c := extract(t, r, head)
	if len(c.Parents) == 0 || c.Message == "" {
		t.Errorf("extracted %+v", c)
	}
}
