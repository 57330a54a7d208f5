package dump

import (
	"encoding/binary"
	"math"
	"testing"
)

// put encodes one put op as vectors/log.go writes it, dense or sparse.
func put(sparse bool, id, commit string, vec []float32) []byte {
	str := func(b []byte, s string) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	op := byte(opPut)
	if sparse {
		op = opSparse
	}
	b := str([]byte{op}, id)
	b = binary.AppendUvarint(b, 1)
	b = str(str(b, "commit"), commit)
	b = binary.AppendUvarint(b, uint64(len(vec)))
	if !sparse {
		for _, x := range vec {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		return b
	}
	mask := make([]byte, (len(vec)+7)/8)
	var stored []byte
	for i, x := range vec {
		if math.Float32bits(x) != 0 {
			mask[i/8] |= 1 << (i % 8)
			stored = binary.LittleEndian.AppendUint32(stored, math.Float32bits(x))
		}
	}
	return append(append(b, mask...), stored...)
}

// A vector prints the same whichever encoding the log used for it, so that
// stores written before and after the sparse encoding compare equal.
func TestSparseAndDensePutsPrintAlike(t *testing.T) {
	vec := []float32{0, 0, 0.25, 0, 0, 0, 0, 0, 0, -1, 0}
	dense, sparse := map[string]map[string]string{}, map[string]map[string]string{}
	if err := applyOps(put(false, "commit:c1", "c1", vec), dense); err != nil {
		t.Fatal(err)
	}
	if err := applyOps(put(true, "commit:c1", "c1", vec), sparse); err != nil {
		t.Fatal(err)
	}
	d, s := dense["c1"]["commit:c1"], sparse["c1"]["commit:c1"]
	if d == "" || d != s {
		t.Fatalf("dense %q, sparse %q", d, s)
	}
	other := map[string]map[string]string{}
	if err := applyOps(put(true, "commit:c1", "c1", []float32{0, 0, 0.25}), other); err != nil {
		t.Fatal(err)
	}
	if other["c1"]["commit:c1"] == d {
		t.Fatal("a different vector printed the same")
	}
	if err := applyOps(put(true, "commit:c1", "c1", vec)[:20], map[string]map[string]string{}); err == nil {
		t.Fatal("a truncated sparse put was accepted")
	}
}

// quantVec is a vector as ops 4 and 5 store it: dims, mask, exponent and
// a byte per stored element (here every element, at 2^-7).
func quantVec(b []byte, q []int8) []byte {
	b = binary.AppendUvarint(b, uint64(len(q)))
	mask := make([]byte, (len(q)+7)/8)
	for i := range q {
		mask[i/8] |= 1 << (i % 8)
	}
	b = binary.AppendVarint(append(b, mask...), -7)
	for _, x := range q {
		b = append(b, byte(x))
	}
	return b
}

// An op 5 document prints as the op 4 put with its id and metadata spelled
// out; its replace flag drops the commit's earlier documents, and a
// classification it refers back to is the frame's earlier one.
func TestDocPutsPrintAsQuantPuts(t *testing.T) {
	const hash = "00112233445566778899aabbccddeeff00112233"
	str := func(b []byte, s string) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	q := []int8{3, -5, 127}
	spelled := func(id, kind string) []byte {
		b := str([]byte{opQuant}, id)
		b = binary.AppendUvarint(b, 6)
		for _, kv := range [][2]string{{"classification", "bugfix"}, {"commit", hash}, {"kind", kind},
			{"paths", "a.go\nb.go"}, {"rewritten", "true"}, {"time", "-86400"}} {
			b = str(str(b, kv[0]), kv[1])
		}
		return quantVec(b, q)
	}
	raw := []byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11, 0x22, 0x33}
	doc := func(flags byte, note int, class []byte) []byte {
		b := append([]byte{opDoc, flags}, raw...)
		if flags&2 != 0 {
			b = binary.AppendUvarint(b, uint64(note))
		}
		b = append(binary.AppendVarint(b, -86400), class...)
		return quantVec(str(b, "a.go\nb.go"), q)
	}
	want := map[string]map[string]string{}
	if err := applyOps(append(spelled("commit:"+hash, "commit"), spelled("note:"+hash+":3", "note")...), want); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]string{hash: {"note:" + hash + ":9": "an earlier document"}}
	class := append(binary.AppendUvarint(nil, 2*uint64(len("bugfix"))), "bugfix"...) // new; 1 refers back to it
	if err := applyOps(append(doc(1|4, 0, class), doc(2|4, 3, []byte{1})...), got); err != nil {
		t.Fatal(err)
	}
	if len(got[hash]) != 2 || got[hash]["commit:"+hash] != want[hash]["commit:"+hash] ||
		got[hash]["note:"+hash+":3"] != want[hash]["note:"+hash+":3"] {
		t.Fatalf("op 5 printed\n%q\nop 4\n%q", got, want)
	}
	if err := applyOps(doc(4, 0, []byte{1}), map[string]map[string]string{}); err == nil {
		t.Fatal("a reference to a classification the frame does not have was accepted")
	}
}
