package vectors

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
)

func projBytes(magic string, dims uint32, w []float32) []byte {
	b := append([]byte(magic), binary.LittleEndian.AppendUint32(nil, dims)...)
	for _, x := range w {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func TestParseProjection(t *testing.T) {
	p, err := parseProjection(projBytes("GMWPROJ1", 2, []float32{0, 2, 1, 0}), 2)
	if err != nil {
		t.Fatal(err)
	}
	v := []float32{3, 5}
	p.apply(v, make([]float32, 2))
	if !slices.Equal(v, []float32{10, 3}) {
		t.Errorf("W·v = %v, want [10 3]", v)
	}
	for _, c := range []struct {
		name string
		b    []byte
		dims int
	}{
		{"magic", projBytes("GMWPROJ0", 2, []float32{1, 0, 0, 1}), 2},
		{"dims unlike the table's", projBytes("GMWPROJ1", 2, []float32{1, 0, 0, 1}), 3},
		{"short", projBytes("GMWPROJ1", 2, []float32{1, 0, 0}), 2},
		{"empty", nil, 2},
	} {
		if _, err := parseProjection(c.b, c.dims); !errors.Is(err, errProjection) {
			t.Errorf("%s: err = %v, want errProjection", c.name, err)
		}
	}
}

// The shipped projection fits the shipped table, and it is no identity:
// it is what makes a subject and its body meet.
func TestShippedProjection(t *testing.T) {
	wv, err := sharedWordVectors()
	if err != nil {
		t.Fatal(err)
	}
	p := wv.proj
	if p == nil {
		t.Fatal("the shipped table has no projection")
	}
	off := 0.0
	for i := range wv.dims {
		for k := range wv.dims {
			if i != k {
				off += math.Abs(float64(p.w[i*wv.dims+k]))
			}
		}
	}
	if off < 1 {
		t.Errorf("off-diagonal mass %v: the projection looks untrained", off)
	}
}
