package retrieve

import (
	"fmt"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// TokenEncoding is the BPE vocabulary Context Packs are counted in:
// cl100k_base, the encoding of the GPT-3.5/GPT-4 family. Other models'
// tokenizers differ by a few percent on English and code, so a budget is a
// close bound for them, not an exact one.
const TokenEncoding = "cl100k_base"

// The encoding is loaded once, on first use: building it from the
// vocabulary takes about 90 ms, which a command that never counts tokens
// should not pay. The vocabulary is embedded in the binary by
// tiktoken-go-loader, so nothing is downloaded at run time.
var tokenizer struct {
	once sync.Once
	enc  *tiktoken.Tiktoken // read-only after once
	err  error
}

func tokenEncoding() (*tiktoken.Tiktoken, error) {
	tokenizer.once.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		tokenizer.enc, tokenizer.err = tiktoken.GetEncoding(TokenEncoding)
		if tokenizer.err != nil {
			tokenizer.err = fmt.Errorf("load %s tokenizer: %w", TokenEncoding, tokenizer.err)
		}
	})
	return tokenizer.enc, tokenizer.err
}

// CountTokens returns the number of cl100k_base tokens in s. Special tokens
// such as "<|endoftext|>" are counted as the plain text they are.
func CountTokens(s string) (int, error) {
	enc, err := tokenEncoding()
	if err != nil {
		return 0, err
	}
	return len(enc.EncodeOrdinary(s)), nil
}

// tokenCounter returns a counting function that cannot fail, for code that
// has already checked that the encoding loads.
func tokenCounter() (func(string) int, error) {
	enc, err := tokenEncoding()
	if err != nil {
		return nil, err
	}
	return func(s string) int { return len(enc.EncodeOrdinary(s)) }, nil
}

// tokenMemo counts the tokens of texts that share most of their lines, as
// the fitter's successive renderings of a pack do. It cuts a text into
// chunks at line breaks that no BPE piece crosses and caches each chunk's
// count, so a rendering costs the tokenizer only its new lines.
//
// Why the sum is exact: cl100k_base first splits text into pieces with a
// regular expression, and merges bytes only within a piece. After a line
// break followed (perhaps after spaces and tabs) by a non-space character,
// a piece always ends: the alternatives that can take a newline
// (`\s*[\r\n]+` and ` ?[^\s\p{L}\p{N}]+[\r\n]*`) stop after the run's last
// newline, and no other alternative matches one. A chunk boundary is put
// only there, so every piece lies within one chunk and the counts add up.
// TestTokenMemoExact holds the sum to the whole text's count.
type tokenMemo struct {
	count func(string) int
	cache map[string]int
}

func newTokenMemo(count func(string) int) *tokenMemo {
	return &tokenMemo{count: count, cache: map[string]int{}}
}

// Count returns the number of tokens in s.
func (m *tokenMemo) Count(s string) int {
	n := 0
	for len(s) > 0 {
		i := tokenChunkEnd(s)
		c, ok := m.cache[s[:i]]
		if !ok {
			c = m.count(s[:i])
			m.cache[s[:i]] = c
		}
		n += c
		s = s[i:]
	}
	return n
}

// tokenChunkEnd is the length of s's first chunk: s up to a newline after
// which the line goes on, after any spaces and tabs, with a character that
// is not white space; all of s if there is none.
func tokenChunkEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' {
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j == len(s) {
			break
		}
		if r, _ := utf8.DecodeRuneInString(s[j:]); !unicode.IsSpace(r) {
			return i + 1
		}
	}
	return len(s)
}
