package vectors

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"
)

// wordvecTable is the word-vector table the local embedder ships with:
// English and software words in a dense space where words used alike sit
// near each other ("faster" and "performance", "crash" and "segfault"),
// so that a question and a commit that say the same thing in other words
// still meet. vectors/wordvec/README.md says where it comes from and how
// build.sh regenerates it.
//
//go:embed wordvec/table.bin.gz
var wordvecTable []byte

// wordVectors is a loaded table: each word's unit vector, scaled by its
// smooth inverse frequency weight (Arora et al., "A simple but
// tough-to-beat baseline for sentence embeddings"), less the common
// direction every text shares.
type wordVectors struct {
	id    string // a digest of the table, so that another table means a rebuild
	dims  int
	list  []string // by row
	index map[string]int32
	rows  []float32   // len(list) × dims
	proj  *projection // applied to a text's summed rows; nil: none
}

func (wv *wordVectors) words() []string { return wv.list }

var (
	wordvecOnce sync.Once
	wordvecData *wordVectors
	wordvecErr  error
)

// sharedWordVectors loads the embedded table and its projection once per
// process.
func sharedWordVectors() (*wordVectors, error) {
	wordvecOnce.Do(func() {
		wordvecData, wordvecErr = parseWordVectors(wordvecTable)
		if wordvecErr == nil {
			wordvecData.proj, wordvecErr = parseProjection(wordvecProjection, wordvecData.dims)
		}
	})
	return wordvecData, wordvecErr
}

// semShare is the word vectors' part of the local embedder's cosine; the
// hashed features have the rest. Chosen on the evaluation sets' dev
// splits (docs/evaluation.md): 0.3 and 0.5 gave the same hybrid ranking,
// and 0.5 the better why-questions.
const semShare = 0.5

// sifA is the smooth inverse frequency constant: a word of probability p
// weighs sifA/(sifA+p), so that "the" counts little and "segfault" fully.
const sifA = 1e-3

// maxWordvecDims bounds a table's vectors, so that a damaged header does
// not allocate without bound.
const maxWordvecDims = 1024

var errWordvec = errors.New("vectors: bad word-vector table")

// parseWordVectors reads the GMWVEC1 format (little-endian, gzipped): the
// magic, word count and dimensions, then each word with its corpus count,
// then the int8 rows, then each row's float32 scale.
func parseWordVectors(gz []byte) (*wordVectors, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errWordvec, err)
	}
	// The digest is of the table, not of its gzip wrapping, whose header
	// holds a time.
	sum := sha256.New()
	r := bufio.NewReader(io.TeeReader(zr, sum))
	var head struct {
		Magic   [8]byte
		N, Dims uint32
	}
	if err := binary.Read(r, binary.LittleEndian, &head); err != nil {
		return nil, fmt.Errorf("%w: header: %v", errWordvec, err)
	}
	if string(head.Magic[:]) != "GMWVEC1\n" || head.Dims == 0 || head.Dims > maxWordvecDims || head.N == 0 || head.N > 1<<22 {
		return nil, fmt.Errorf("%w: header %q %d×%d", errWordvec, head.Magic, head.N, head.Dims)
	}
	n, dims := int(head.N), int(head.Dims)
	words := make([]string, n)
	counts := make([]float64, n)
	total := 0.0
	for i := range words {
		l, err := r.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("%w: word %d: %v", errWordvec, i, err)
		}
		b := make([]byte, int(l)+4)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("%w: word %d: %v", errWordvec, i, err)
		}
		words[i] = string(b[:l])
		counts[i] = float64(binary.LittleEndian.Uint32(b[l:]))
		total += counts[i]
	}
	codes := make([]int8, n*dims)
	if err := binary.Read(r, binary.LittleEndian, codes); err != nil {
		return nil, fmt.Errorf("%w: rows: %v", errWordvec, err)
	}
	scales := make([]float32, n)
	if err := binary.Read(r, binary.LittleEndian, scales); err != nil {
		return nil, fmt.Errorf("%w: scales: %v", errWordvec, err)
	}
	wv := &wordVectors{id: hex.EncodeToString(sum.Sum(nil)[:4]), dims: dims, list: words, index: make(map[string]int32, n), rows: make([]float32, n*dims)}
	mean := make([]float64, dims)
	for i, w := range words {
		weight := sifA / (sifA + counts[i]/math.Max(total, 1))
		row := wv.rows[i*dims : (i+1)*dims]
		for k := range row {
			x := float64(codes[i*dims+k]) * float64(scales[i]) * weight
			row[k] = float32(x)
			mean[k] += x * counts[i] / math.Max(total, 1)
		}
		if _, dup := wv.index[w]; !dup {
			wv.index[w] = int32(i)
		}
	}
	// The common direction: the frequency-weighted mean of the weighted
	// vectors. Taken out of every word, it no longer makes any two texts
	// look alike.
	for i := range n {
		row := wv.rows[i*dims : (i+1)*dims]
		for k := range row {
			row[k] -= float32(mean[k])
		}
	}
	return wv, nil
}

// sentence adds the table's vectors of text's words into out (len dims)
// and reports whether any word was known. Words are split exactly as the
// table was built (vectors/wordvec/README.md): runs of letters and digits,
// split before an upper-case letter that follows a lower-case letter or a
// digit ("utf8Decode": utf8, Decode) and before the last capital of an
// acronym followed by lower case ("HTTPServer": HTTP, Server; but "APIs"
// stays whole), lower-cased, kept from two runes with a letter.
func (wv *wordVectors) sentence(text string, out []float32) bool {
	found := false
	var run []rune
	var buf []byte
	word := func(rs []rune) {
		if len(rs) < 2 {
			return
		}
		buf = buf[:0]
		letter := false
		for _, r := range rs {
			letter = letter || unicode.IsLetter(r)
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		}
		if !letter {
			return
		}
		if i, ok := wv.index[string(buf)]; ok {
			row := wv.rows[int(i)*wv.dims : (int(i)+1)*wv.dims]
			for k, x := range row {
				out[k] += x
			}
			found = true
		}
	}
	flush := func() {
		start := 0
		for i := 1; i < len(run); i++ {
			r, prev := run[i], run[i-1]
			if !unicode.IsUpper(r) {
				continue
			}
			split := unicode.IsLower(prev) || unicode.IsDigit(prev)
			if !split && unicode.IsUpper(prev) && i+1 < len(run) && unicode.IsLower(run[i+1]) {
				split = !(i+2 == len(run) && run[i+1] == 's')
			}
			if split {
				word(run[start:i])
				start = i
			}
		}
		word(run[start:])
		run = run[:0]
	}
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			run = append(run, r)
			continue
		}
		if len(run) > 0 {
			flush()
		}
	}
	if len(run) > 0 {
		flush()
	}
	return found
}
