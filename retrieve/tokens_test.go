package retrieve

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCountTokens checks the counts of cl100k_base on texts whose
// encodings OpenAI publishes ("tiktoken is great!" is [83, 1609, 5963,
// 374, 2294, 0]).
func TestCountTokens(t *testing.T) {
	for text, want := range map[string]int{"": 0, "hello world": 2, "tiktoken is great!": 6, "<|endoftext|>": 7} {
		if got, err := CountTokens(text); err != nil || got != want {
			t.Errorf("CountTokens(%q) = %d, %v; want %d", text, got, err, want)
		}
	}
}

// memoCases are texts at the edges of tokenMemo's chunking: line breaks
// followed by spaces, tabs, other line breaks, Unicode spaces, punctuation
// and digits.
var memoCases = []string{
	"", "a", "\n", "\n\n\n", "a\n", "\na", "\n a", "a\n\n b", "x \n  y", "a\r\nb", "a\n\r\nb", "\t\n\tx",
	"x\n\u00a0y", "x\n \u3000y", "x\n\u2028y", "foo.\n  bar", "1\n2", "123\n456", "'s\n's", "...\n...\n", "  \n  ",
	"+\tfor i := 0; i < 3; i++ {\n+\t\treturn nil\n }\n", "{\"a\":1},\n{\"b\":2}]", "- `abc1234` · 0.9 · x\n- `def` · 1\n\n## H\n",
	"é\nè\n世界\n", "a\n\u0085b", "a\n\fb", "a\n\vb", "x!\n!\n \n!", "word\n word\n\tword\n",
}

func TestTokenMemoExact(t *testing.T) {
	count, err := tokenCounter()
	if err != nil {
		t.Fatal(err)
	}
	memo := newTokenMemo(count)
	check := func(s string) {
		t.Helper()
		if got, want := memo.Count(s), count(s); got != want {
			t.Errorf("memo counts %d tokens in %q, the tokenizer %d", got, s, want)
		}
	}
	for _, s := range memoCases {
		check(s)
	}
	// Random texts over an alphabet of the characters the chunking and
	// the tokenizer's pre-split treat differently.
	alphabet := []string{"a", "Z", "word", "1", "42", " ", "  ", "\t", "\n", "\n", "\r", ".", "\"", "'s", "é", "\u00a0", "世", "`", "-", "+"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		check(b.String())
	}
	if len(memo.cache) == 0 {
		t.Error("the memo cached nothing")
	}
}

func FuzzTokenMemo(f *testing.F) {
	for _, s := range memoCases {
		f.Add(s)
	}
	count, err := tokenCounter()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := newTokenMemo(count).Count(s), count(s); got != want {
			t.Errorf("memo counts %d tokens in %q, the tokenizer %d", got, s, want)
		}
	})
}
