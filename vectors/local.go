package vectors

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// localVersion changes whenever the local embedder's features change, so
// that an index built by an older version is rebuilt rather than mixed.
const localVersion = 3

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

// Local is the default embedder, offline and deterministic (the same text
// gives the same vector in every process and on every machine). Its vector
// has two halves, each a unit vector weighted so that a cosine mixes them:
//
//   - hashed features of identifier-aware tokens: word stems, compound
//     identifiers whole, stem bigrams, character trigrams of longer words
//     and a small software-engineering thesaurus ("crash" and "panic" share
//     a concept), each with sublinear term frequency, hashed with a sign
//     into dims buckets. They match the words a commit shares with a
//     question, and their near forms;
//   - the smooth-inverse-frequency mean of the text's word vectors from the
//     table shipped in the binary (wordvec.go), which places "uses less RAM"
//     near "reduce memory footprint" and "pretty printed" near "json
//     spaces": a question and a commit that share no word still meet.
//
// It is no sentence model: word order and negation are lost. Configure an
// Ollama or OpenAI-compatible embedder for that.
type Local struct {
	dims int // of the hashed features
	sem  *wordVectors
	err  error // the word-vector table's or projection's, reported by Embed
}

// NewLocal returns a local embedder whose hashed features take dims
// dimensions (DefaultLocalDims when dims is 0 or less), followed by the
// word-vector table's.
func NewLocal(dims int) *Local {
	if dims <= 0 {
		dims = DefaultLocalDims
	}
	sem, err := sharedWordVectors()
	return &Local{dims: dims, sem: sem, err: err}
}

// Name is "local-sem-v<version>-<dims>+<table dims>-<table digest>-<projection
// digest>": a new version of the code, the table or the projection rebuilds
// the index.
func (l *Local) Name() string {
	if l.sem == nil {
		return fmt.Sprintf("local-hash-v%d-%d", localVersion, l.dims)
	}
	if l.sem.proj == nil {
		return fmt.Sprintf("local-sem-v%d-%d+%d-%s", localVersion, l.dims, l.sem.dims, l.sem.id)
	}
	return fmt.Sprintf("local-sem-v%d-%d+%d-%s-%s", localVersion, l.dims, l.sem.dims, l.sem.id, l.sem.proj.id)
}

// Dims is the vector size: the hashed features' and the table's.
func (l *Local) Dims() int { return l.dims + l.semDims() }

func (l *Local) semDims() int {
	if l.sem == nil {
		return 0
	}
	return l.sem.dims
}

// Embed returns the vector of each text.
func (l *Local) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := checkTexts(texts); err != nil {
		return nil, err
	}
	if l.err != nil {
		return nil, l.err
	}
	out := make([][]float32, len(texts))
	var scratch bag
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = l.vectorInto(t, &scratch)
	}
	return out, nil
}

// feature is one hashed feature: its weight (its first occurrence's: a
// trigram's weight depends on the length of the word it came from) and how
// often it occurs.
type feature struct {
	h  uint64
	w  float64
	tf int
}

// bag collects a text's features in the order they first occur, found
// again through an open-addressing table of their indexes. Summing the
// vector in that order makes it the same in every process: summed in a
// map's random order, the floats differed in their last bits from run to
// run. The table is reused from text to text.
type bag struct {
	feats []feature
	slots []int32 // index+1 into feats; 0 is empty
	mask  uint64
	proj  []float32 // scratch for the word vectors' projection
}

// reset empties the bag for a text of at most n features.
func (b *bag) reset(n int) {
	size := 64
	for size < 2*n {
		size *= 2
	}
	if len(b.slots) < size {
		b.slots = make([]int32, size)
	} else {
		clear(b.slots[:size])
	}
	b.mask = uint64(size - 1)
	b.feats = b.feats[:0]
}

func (b *bag) add(h uint64, w float64) {
	for i := h & b.mask; ; i = (i + 1) & b.mask {
		k := b.slots[i]
		if k == 0 {
			b.feats = append(b.feats, feature{h: h, w: w, tf: 1})
			b.slots[i] = int32(len(b.feats))
			return
		}
		if f := &b.feats[k-1]; f.h == h {
			f.tf++
			return
		}
	}
}

// vector embeds one non-blank text.
func (l *Local) vector(text string) []float32 {
	var b bag
	return l.vectorInto(text, &b)
}

// vectorInto embeds one non-blank text, using b as scratch space.
func (l *Local) vectorInto(text string, b *bag) []float32 {
	text = clip(text, maxLocalText)
	var t terms
	analyze(text, &t)
	n := len(t.idents) + 1
	for _, s := range t.stems {
		n += 3 + len(s) // stem, concept, bigram and at most len(s) trigrams
	}
	b.reset(n)
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
	if len(b.feats) == 0 {
		// Only function words or symbols: the text itself is the feature.
		b.add(hashOf('S', strings.ToLower(strings.TrimSpace(text)), ""), stemWeight)
	}
	v := make([]float32, l.Dims())
	lex, sem := v[:l.dims], v[l.dims:]
	for _, f := range b.feats {
		x := f.w
		if f.tf > 1 {
			x *= 1 + math.Log(float64(f.tf))
		}
		if f.h>>63 == 1 {
			x = -x
		}
		lex[(f.h&(1<<62-1))%uint64(l.dims)] += float32(x)
	}
	if normalize(lex) != nil {
		// Every feature cancelled out in its bucket: keep a fixed unit
		// vector rather than none.
		lex[0] = 1
	}
	if l.sem == nil || !l.sem.sentence(text, sem) {
		clear(sem)
		return v
	}
	if p := l.sem.proj; p != nil {
		if len(b.proj) < len(sem) {
			b.proj = make([]float32, len(sem))
		}
		p.apply(sem, b.proj[:len(sem)])
	}
	if normalize(sem) != nil {
		clear(sem)
		return v
	}
	// Both halves are unit vectors: weighted so, the cosine of two texts
	// is (1-semShare) × their hashed features' cosine + semShare × their
	// word vectors'.
	wl, ws := float32(math.Sqrt(1-semShare)), float32(math.Sqrt(semShare))
	for i := range lex {
		lex[i] *= wl
	}
	for i := range sem {
		sem[i] *= ws
	}
	return v
}

// addTrigrams adds the character trigrams of "^stem$" for stems of four
// runes or more, weighted so that together they count trigramWeight.
func addTrigrams(b *bag, s string) {
	if !isASCII(s) {
		addTrigramsRunes(b, s)
		return
	}
	if len(s) < 4 {
		return
	}
	n := len(s)
	w := trigramWeight / math.Sqrt(float64(n))
	// The first and last trigrams hold the markers; the others are
	// substrings, hashed in place.
	var buf [3]byte
	buf[0] = '^'
	copy(buf[1:], s[:2])
	b.add(hashOf('T', string(buf[:]), ""), w)
	for i := 0; i+3 <= len(s); i++ {
		b.add(hashOf('T', s[i:i+3], ""), w)
	}
	copy(buf[:2], s[len(s)-2:])
	buf[2] = '$'
	b.add(hashOf('T', string(buf[:]), ""), w)
}

// addTrigramsRunes is addTrigrams for any UTF-8 stem: trigrams of runes.
func addTrigramsRunes(b *bag, s string) {
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

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
