package vectors

import (
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
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
//go:embed wordvec/table.bin
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

// parseWordVectors reads the GMWVEC1 format (little-endian, uncompressed):
// the magic, word count and dimensions, then each word with its corpus
// count, then the int8 rows, then each row's float32 scale. It reads the
// table in place: a sync of one commit loads it in every process, and
// gunzipping it alone took about 45 ms (gzip saved 10 % of its 5 MB).
func parseWordVectors(data []byte) (*wordVectors, error) {
	const headLen = 16
	if len(data) < headLen {
		return nil, fmt.Errorf("%w: %d bytes, shorter than its header", errWordvec, len(data))
	}
	magic := data[:8]
	n64, dims64 := binary.LittleEndian.Uint32(data[8:]), binary.LittleEndian.Uint32(data[12:])
	if string(magic) != "GMWVEC1\n" || dims64 == 0 || dims64 > maxWordvecDims || n64 == 0 || n64 > 1<<22 {
		return nil, fmt.Errorf("%w: header %q %d×%d", errWordvec, magic, n64, dims64)
	}
	n, dims := int(n64), int(dims64)
	words, counts, off, err := parseWordList(data, headLen, n)
	if err != nil {
		return nil, err
	}
	if want := off + n*dims + 4*n; len(data) != want {
		return nil, fmt.Errorf("%w: %d bytes, the header and words call for %d", errWordvec, len(data), want)
	}
	codes, scales := data[off:off+n*dims], data[off+n*dims:]
	// The digest is of the whole table, as it was of the gzipped
	// table's content: an index built with either has the same id.
	sum := sha256.Sum256(data)
	wv := &wordVectors{id: hex.EncodeToString(sum[:4]), dims: dims, list: words, index: make(map[string]int32, n),
		rows: make([]float32, n*dims)}
	total := 0.0
	for _, c := range counts {
		total += c
	}
	total = math.Max(total, 1)
	mean := make([]float64, dims)
	for i, w := range words {
		weight := sifA / (sifA + counts[i]/total)
		scale := float64(math.Float32frombits(binary.LittleEndian.Uint32(scales[4*i:])))
		row, code := wv.rows[i*dims:(i+1)*dims], codes[i*dims:(i+1)*dims]
		for k := range row {
			// The same operations in the same order as ever: the
			// rows, and so every stored vector, stay bit for bit.
			x := float64(int8(code[k])) * scale * weight
			row[k] = float32(x)
			mean[k] += x * counts[i] / total
		}
		if _, dup := wv.index[w]; !dup {
			wv.index[w] = int32(i)
		}
	}
	// The common direction: the frequency-weighted mean of the weighted
	// vectors. Taken out of every word, it no longer makes any two texts
	// look alike.
	mean32 := make([]float32, dims)
	for k, m := range mean {
		mean32[k] = float32(m)
	}
	for i := range n {
		row := wv.rows[i*dims : (i+1)*dims]
		for k := range row {
			row[k] -= mean32[k]
		}
	}
	return wv, nil
}

// parseWordList reads n words and their corpus counts from data at off,
// returning the offset after them. The words are substrings of one string
// copied from the table: one allocation instead of one per word.
func parseWordList(data []byte, off, n int) ([]string, []float64, int, error) {
	end := off
	for i := range n {
		if end >= len(data) {
			return nil, nil, 0, fmt.Errorf("%w: word %d: table ends", errWordvec, i)
		}
		end += 1 + int(data[end]) + 4
	}
	if end > len(data) {
		return nil, nil, 0, fmt.Errorf("%w: word %d: table ends", errWordvec, n-1)
	}
	text := string(data[off:end])
	words, counts := make([]string, n), make([]float64, n)
	p := 0
	for i := range n {
		l := int(text[p])
		words[i] = text[p+1 : p+1+l]
		counts[i] = float64(binary.LittleEndian.Uint32(data[off+p+1+l:]))
		p += 5 + l
	}
	return words, counts, end, nil
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
