package secrets

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestHighEntropy(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	raw := make([]byte, 32)
	for i := range raw {
		raw[i] = byte(rng.IntN(256))
	}
	tests := []struct {
		text string
		want []string // tokens reported
	}{
		// Generic random tokens.
		{"token: \"Xq7mK2pL9vR4tZ8wN3bY6cH1jF5gD0sA2eU7iO4k\"", []string{"Xq7mK2pL9vR4tZ8wN3bY6cH1jF5gD0sA2eU7iO4k"}},
		{"deploy with Xq7mK2pL9vR4tZ8wN3bY6cH1jF5gD0sA2eU7iO4k today", []string{"Xq7mK2pL9vR4tZ8wN3bY6cH1jF5gD0sA2eU7iO4k"}},
		{"id Xq7mK2pL9vR4tZ8wN3bY6cH1jF5gD0 (30 bytes)", []string{"Xq7mK2pL9vR4tZ8wN3bY6cH1jF5gD0"}},
		{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY1", []string{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY1"}},
		{"SESSION_SECRET=Zk3vQ9tWm2Lp8Rx4Yb7Nc1Hd6Fg0Js5K", []string{"Zk3vQ9tWm2Lp8Rx4Yb7Nc1Hd6Fg0Js5K"}},
		{"secret: " + base64.StdEncoding.EncodeToString(raw), []string{base64.StdEncoding.EncodeToString(raw)}},
		{"key=" + base64.RawURLEncoding.EncodeToString(raw), []string{base64.RawURLEncoding.EncodeToString(raw)}},
		{"+" + base64.StdEncoding.EncodeToString(raw) + "\n", []string{base64.StdEncoding.EncodeToString(raw)}}, // diff marker kept
		{"https://discord.com/api/webhooks/123456789012345678/Vq3nR8sT1uW6xY0zA4bC7dE9fG2hJ5kL8mN1pQ3rS6tU9vW2xY5z", []string{"Vq3nR8sT1uW6xY0zA4bC7dE9fG2hJ5kL8mN1pQ3rS6tU9vW2xY5z"}},

		// Identifiers, paths, hashes, ids, URLs: not secrets.
		{"TestReadFromRepositoryWithoutWorktree2", nil},
		{"BenchmarkWriteSchedulerLifetimePriorityRFC9218NonIncremental", nil},
		{"OpcodeVecI32x4ExtMulHighI16x8S", nil},
		{"handleUncaughtExceptionsInAsyncCallbacks3", nil},
		{"AbstractSingletonProxyFactoryBean2Tests", nil},
		{"ETHTOOL_LINK_MODE_100000baseKR4_Full_BIT", nil},
		{"src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerCoordinator2.java", nil},
		{"node_modules/@babel/plugin-transform-modules-commonjs2/lib/index.js", nil},
		{"3f9c2a7e4b1d8c6f0a5e2d9b7c4a1f8e6d3b0c9a", nil},
		{"3F9C2A7E4B1D8C6F0A5E2D9B7C4A1F8E6D3B0C9A", nil},
		{"sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945", nil},
		{"123e4567-e89b-12d3-a456-426614174000", nil},
		{"v0.0.0-20260410095643-746e56fc9e2f", nil},
		{"https://github.com/golang/go/blob/3f9c2a7e4b1d8c6f0a5e2d9b7c4a1f8e6d3b0c9a/src/net/http/server.go", nil},
		{"https://github.com/advisories/GHSA-fh74-hm69-rqjw", nil},
		{"https://groups.google.com/g/golang-nuts/c/h5oSN5t3Au4/m/KaNQREhZh0QJ", nil},
		{"h1:PmEvCfVI7ti9dV3s5aMZUY7sS2GxRvG3yzih7E+cS3w=", nil},
		{"sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==", nil},
		{base64.StdEncoding.EncodeToString([]byte("hello, world")), nil},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", nil},
		{"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", nil},
		{"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1a", nil},
		{"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1b", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, sp := range highEntropySpans(tt.text, nil) {
			got = append(got, tt.text[sp.start:sp.end])
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%q: got %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestHighEntropyRandomTokens measures the miss rate on random tokens of
// the usual secret alphabets.
func TestHighEntropyRandomTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for _, alphabet := range []string{alnum, base64ch, alnum + "-_"} {
		for _, n := range []int{30, 32, 40, 64} {
			miss, total := 0, 0
			for range 2000 {
				tok := randString(rng, alphabet, n)
				total++
				if len(highEntropySpans(" "+tok+" ", nil)) != 1 {
					miss++
				}
			}
			rate := float64(miss) / float64(total)
			if limit := map[int]float64{30: 0.03, 32: 0.01, 40: 0.005, 64: 0.001}[n]; rate > limit {
				t.Errorf("alphabet of %d, length %d: miss rate %.3f > %.3f", len(alphabet), n, rate, limit)
			}
		}
	}
}

// TestHighEntropyNeverHex: pure hex strings are never reported, whatever
// their length or case.
func TestHighEntropyNeverHex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, hexch := range []string{"0123456789abcdef", "0123456789ABCDEF", "0123456789abcdefABCDEF"} {
		for range 500 {
			tok := randString(rng, hexch, 30+rng.IntN(100))
			if sp := highEntropySpans(tok, nil); len(sp) != 0 {
				t.Fatalf("hex %q reported", tok)
			}
		}
	}
}

func TestShannon(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want float64
	}{
		{"", 0},
		{"aaaa", 0},
		{"abab", 1},
		{"abcd", 2},
		{"0123456789abcdef", 4},
	} {
		if got := shannonString(tt.s); got != tt.want {
			t.Errorf("shannon(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// shannonString is the Shannon entropy of s in bits per byte.
func shannonString(s string) float64 {
	var counts [256]uint32
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	if len(s) == 0 {
		return 0
	}
	return shannon(&counts, len(s))
}

// TestHighEntropyPublicMaterial: signatures, key fingerprints and wrapped
// encoded payloads are public or data, and are not reported; a token
// beside a payload, a payload of two lines, or one with spaces, still is.
func TestHighEntropyPublicMaterial(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	token := randString(rng, alnum, 40)
	line := func() string { return randString(rng, base64ch, 76) }
	payload := "+" + line() + "\n+" + line() + "\n+" + line() + "\n+" + randString(rng, base64ch, 20) + "==\n"
	sig := "MEUCIQ" + randString(rng, base64ch, 90)
	short := "MEMCH" + randString(rng, base64ch, 87)
	for _, tt := range []struct {
		name string
		text string
		want int
	}{
		{"npm signature", `"signatures":[{"keyid":"SHA256:jl3bwswu80PjjokCgh0o2w5c2U4LhQAE57gj9cz1kzA","sig":"` + sig + `"},{"sig":"` + short + `"}]`, 0},
		{"wrapped payload", "+sources = \"\"\"\n" + payload + "+\"\"\"\n", 0},
		{"token after a payload", payload + "+API_TOKEN = \"" + token + "\"\n", 1},
		{"two long lines", "+" + line() + "\n+" + line() + "\n", 2},
		{"lines with spaces", "+x " + line() + "\n+x " + line() + "\n+x " + line() + "\n", 3},
		{"lines of other lengths", "+" + line() + "\n+" + line()[:70] + "x\n+" + line() + "\n", 3},
	} {
		if got := len(highEntropySpans(tt.text, nil)); got != tt.want {
			t.Errorf("%s: %d reported, want %d", tt.name, got, tt.want)
		}
	}
}
