package vectors

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// localVersion changes whenever the local embedder's features change, so
// that an index built by an older version is rebuilt rather than mixed.
const localVersion = 1

// DefaultLocalDims is the local embedder's default vector size.
const DefaultLocalDims = 384

// maxLocalText bounds the bytes of one text the local embedder reads.
const maxLocalText = 64 << 10

// Feature weights of the local embedder. A stem is the unit; a word's
// character trigrams together weigh trigramWeight, so that inflections
// and compounds ("config", "configuration", "reconfigure") overlap.
const (
	stemWeight    = 1.0
	genericWeight = 0.3 // a stem in genericStems: commit boilerplate
	identWeight   = 1.0
	bigramWeight  = 0.5
	trigramWeight = 0.35
	conceptWeight = 0.7
)

// Local is the default embedder: feature hashing of identifier-aware
// tokens, offline and deterministic (the same text gives the same vector
// in every process and on every machine). Its features are word stems,
// compound identifiers whole, stem bigrams, character trigrams of longer
// words and a small software-engineering thesaurus ("crash" and "panic"
// share a concept), each with sublinear term frequency, hashed with a sign
// into Dims buckets and L2-normalised.
//
// It ranks by shared vocabulary and its near forms; it does not understand
// sentences the way a neural model does. Configure an Ollama or
// OpenAI-compatible embedder for that.
type Local struct {
	dims int
}

// NewLocal returns a local embedder of dims dimensions (DefaultLocalDims
// when dims is 0 or less).
func NewLocal(dims int) *Local {
	if dims <= 0 {
		dims = DefaultLocalDims
	}
	return &Local{dims: dims}
}

// Name is "local-hash-v<version>-<dims>".
func (l *Local) Name() string { return fmt.Sprintf("local-hash-v%d-%d", localVersion, l.dims) }

// Dims is the vector size.
func (l *Local) Dims() int { return l.dims }

// Embed returns the vector of each text.
func (l *Local) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := checkTexts(texts); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = l.vector(t)
	}
	return out, nil
}

// feature accumulates one hashed feature's weight and count.
type feature struct {
	weight float64
	tf     int
}

type bag map[uint64]*feature

func (b bag) add(h uint64, w float64) {
	f := b[h]
	if f == nil {
		f = &feature{weight: w}
		b[h] = f
	}
	f.tf++
}

// vector embeds one non-blank text.
func (l *Local) vector(text string) []float32 {
	text = clip(text, maxLocalText)
	var t terms
	analyze(text, &t)
	b := make(bag, 4*len(t.stems)+len(t.idents)+1)
	for _, id := range t.idents {
		b.add(hashOf('I', id, ""), identWeight)
	}
	for i, s := range t.stems {
		w := stemWeight
		if genericStems[s] {
			w = genericWeight
		}
		b.add(hashOf('S', s, ""), w)
		if c, ok := concepts[s]; ok {
			b.add(hashOf('C', c, ""), conceptWeight*w)
		}
		if i > 0 {
			b.add(hashOf('B', t.stems[i-1], s), bigramWeight)
		}
		addTrigrams(b, s)
	}
	if len(b) == 0 {
		// Only function words or symbols: the text itself is the feature.
		b.add(hashOf('S', strings.ToLower(strings.TrimSpace(text)), ""), stemWeight)
	}
	v := make([]float32, l.dims)
	for h, f := range b {
		x := f.weight * (1 + math.Log(float64(f.tf)))
		if h>>63 == 1 {
			x = -x
		}
		v[(h&(1<<62-1))%uint64(l.dims)] += float32(x)
	}
	if normalize(v) != nil {
		// Every feature cancelled out in its bucket: keep a fixed unit
		// vector rather than none.
		v[0] = 1
	}
	return v
}

// addTrigrams adds the character trigrams of "^stem$" for stems of four
// runes or more, weighted so that together they count trigramWeight.
func addTrigrams(b bag, s string) {
	rs := []rune("^" + s + "$")
	if len(rs) < 6 {
		return
	}
	n := len(rs) - 2
	w := trigramWeight / math.Sqrt(float64(n))
	for i := 0; i < n; i++ {
		b.add(hashOf('T', string(rs[i:i+3]), ""), w)
	}
}

// hashOf is 64-bit FNV-1a of kind, a, a separator and b: stable across
// processes and Go versions, unlike hash/maphash.
func hashOf(kind byte, a, b string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	h = (h ^ uint64(kind)) * prime
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * prime
	}
	if b != "" {
		h = (h ^ 0xff) * prime
		for i := 0; i < len(b); i++ {
			h = (h ^ uint64(b[i])) * prime
		}
	}
	// FNV's high bits mix poorly for short inputs; finish with a
	// murmur3-style avalanche so the sign bit and the bucket are independent.
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
