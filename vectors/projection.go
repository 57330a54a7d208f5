package vectors

import (
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
)

// wordvecProjection is a linear map applied to a text's summed word
// vectors before they are compared. It was trained (vectors/wordvec/
// project.py) so that a commit's subject lands near its own body and away
// from other commits' bodies: what a change says it does and the symptom
// or reason its body gives then meet, which plain averaged word vectors
// only partly do.
//
//go:embed wordvec/projection.bin
var wordvecProjection []byte

// projection is a loaded projection: dims×dims, row-major, and a digest
// that names it in the embedder's name.
type projection struct {
	id string
	w  []float32
}

var errProjection = errors.New("vectors: bad word-vector projection")

// parseProjection reads "GMWPROJ1", uint32 dims, then dims×dims float32
// row-major, little-endian; dims is the table's, which the projection
// must match.
func parseProjection(b []byte, dims int) (*projection, error) {
	if len(b) < 12 || string(b[:8]) != "GMWPROJ1" {
		return nil, fmt.Errorf("%w: header", errProjection)
	}
	d := int(binary.LittleEndian.Uint32(b[8:12]))
	if d != dims || len(b) != 12+4*d*d {
		return nil, fmt.Errorf("%w: %d dims and %d bytes for a table of %d dims", errProjection, d, len(b), dims)
	}
	w := make([]float32, d*d)
	for i := range w {
		w[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[12+4*i:]))
	}
	sum := sha256.Sum256(b)
	return &projection{id: hex.EncodeToString(sum[:4]), w: w}, nil
}

// apply replaces v by W·v, using tmp (len(v)) as scratch.
func (p *projection) apply(v, tmp []float32) {
	w, d := p.w, len(v)
	for i := range d {
		row := w[i*d : (i+1)*d]
		var s float32
		for k, x := range v {
			s += row[k] * x
		}
		tmp[i] = s
	}
	copy(v, tmp)
}
