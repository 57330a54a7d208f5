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
