package secrets

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	mrand "math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// planted holds realistic secrets generated for the tests.
type planted struct {
	awsKeyID     string // AKIA + 16 characters of AWS's base32 alphabet
	awsSecret    string // 40 characters of base64
	githubToken  string // ghp_ + 36 alphanumerics
	genericToken string // 40 alphanumerics, after "token:"
	bareToken    string // 40 alphanumerics, no keyword anywhere near
	keyPEM       string // an RSA private key, PKCS#1 PEM
}

const (
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower    = "abcdefghijklmnopqrstuvwxyz"
	digits   = "0123456789"
	alnum    = upper + lower + digits
	base64ch = alnum + "+/"
)

func randString(rng *mrand.Rand, alphabet string, n int) string {
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		// Real tokens of these alphabets contain every class the
		// alphabet has; insist on it so that tests do not depend on
		// luck.
		ok := true
		for _, class := range []string{upper, lower, digits} {
			if strings.ContainsAny(alphabet, class) && !strings.ContainsAny(s, class) {
				ok = false
			}
		}
		if ok {
			return s
		}
	}
}

var (
	keyOnce sync.Once
	keyPEM  string
)

func rsaKeyPEM(t testing.TB) string {
	keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		keyPEM = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	})
	return keyPEM
}

func newPlanted(t testing.TB, seed uint64) planted {
	rng := mrand.New(mrand.NewPCG(seed, 42))
	return planted{
		// AWS access key ids use the base32 alphabet A-Z2-7 after
		// the prefix; gitleaks' rule requires that, and allowlists
		// AWS's documented AKIAIOSFODNN7EXAMPLE.
		awsKeyID:     "AKIA" + randString(rng, upper+"234567", 16),
		awsSecret:    randString(rng, base64ch, 40),
		githubToken:  "ghp_" + randString(rng, alnum, 36),
		genericToken: randString(rng, alnum, 40),
		bareToken:    randString(rng, alnum, 40),
		keyPEM:       rsaKeyPEM(t),
	}
}

// keyBodyLines returns the base64 lines of a PEM block.
func keyBodyLines(pemText string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(pemText), "\n") {
		if !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}

// assertNoKeyMaterial fails if any 8-byte piece of a key body line is in out.
func assertNoKeyMaterial(t *testing.T, out, pemText string) {
	t.Helper()
	for _, l := range keyBodyLines(pemText) {
		for i := 0; i+8 <= len(l); i++ {
			if strings.Contains(out, l[i:i+8]) {
				t.Fatalf("key material %q (from line %q) survived in:\n%s", l[i:i+8], l, out)
			}
		}
	}
}

func prefixLines(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}

func TestRedactPlantedSecrets(t *testing.T) {
	s := newScanner(t)
	p := newPlanted(t, 1)
	message := "Add deployment settings\n\nUse the shared CI token " + p.bareToken + " for now.\n"
	diff := "diff --git a/deploy/settings.env b/deploy/settings.env\n" +
		"new file mode 100644\n" +
		"index 0000000..8c1f2ab\n" +
		"--- /dev/null\n" +
		"+++ b/deploy/settings.env\n" +
		"@@ -0,0 +1,6 @@\n" +
		"+aws_access_key_id = " + p.awsKeyID + "\n" +
		"+aws_secret_access_key = " + p.awsSecret + "\n" +
		"+GITHUB_TOKEN=" + p.githubToken + "\n" +
		"+token: \"" + p.genericToken + "\"\n" +
		"+region = eu-west-1\n" +
		"+bucket = my-app-artifacts\n"
	keyDiff := "diff --git a/deploy/id_rsa b/deploy/id_rsa\n" +
		"--- /dev/null\n+++ b/deploy/id_rsa\n@@ -0,0 +1,27 @@\n" + prefixLines(p.keyPEM, "+")

	cases := []struct {
		name, text string
		secrets    []string
		ids        []string
	}{
		{"commit message", message, []string{p.bareToken}, []string{"high-entropy"}},
		{"diff", diff, []string{p.awsKeyID, p.awsSecret, p.githubToken, p.genericToken},
			[]string{"aws-access-token", "generic-api-key", "github-pat", "generic-api-key"}},
		{"private key", p.keyPEM, nil, []string{"private-key"}},
		{"private key in diff", keyDiff, nil, []string{"private-key"}},
		{"all together", message + diff + keyDiff, []string{p.bareToken, p.awsKeyID, p.awsSecret, p.githubToken, p.genericToken},
			[]string{"high-entropy", "aws-access-token", "generic-api-key", "github-pat", "generic-api-key", "private-key"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, ids := s.Redact(tc.text)
			for _, sec := range tc.secrets {
				if strings.Contains(out, sec) {
					t.Errorf("secret %q survived:\n%s", sec, out)
				}
			}
			if strings.Contains(tc.text, "PRIVATE KEY") {
				assertNoKeyMaterial(t, out, p.keyPEM)
			}
			if !slices.Equal(ids, tc.ids) {
				t.Errorf("ids = %q, want %q\n%s", ids, tc.ids, out)
			}
			// The text around the secrets survives.
			for _, keep := range []string{"aws_secret_access_key = [REDACTED:", "+region = eu-west-1", "Add deployment settings", "+++ b/deploy/id_rsa"} {
				if strings.Contains(tc.text, keep) && !strings.Contains(out, keep) {
					t.Errorf("lost %q:\n%s", keep, out)
				}
			}
			if t.Failed() {
				t.Logf("output:\n%s", out)
			}
		})
	}
}

// TestGitleaksFindings documents what gitleaks itself returns for the
// planted secrets: rule, secret and match.
func TestGitleaksFindings(t *testing.T) {
	s := newScanner(t)
	p := newPlanted(t, 2)
	tests := []struct {
		text, rule, secret, match string
	}{
		{"aws_access_key_id = " + p.awsKeyID + "\n", "aws-access-token", p.awsKeyID, p.awsKeyID},
		{"aws_secret_access_key = " + p.awsSecret + "\n", "generic-api-key", p.awsSecret, "aws_secret_access_key = " + p.awsSecret},
		{"export GH=" + p.githubToken + "\n", "github-pat", p.githubToken, p.githubToken},
		{"token: \"" + p.genericToken + "\"\n", "generic-api-key", p.genericToken, "token: \"" + p.genericToken + "\""},
		{"+" + strings.ReplaceAll(strings.TrimSuffix(p.keyPEM, "\n"), "\n", "\n+") + "\n", "private-key", "", ""},
	}
	for _, tt := range tests {
		fs := s.findings(tt.text)
		if len(fs) != 1 {
			t.Errorf("%q: %d findings, want 1: %+v", tt.text, len(fs), fs)
			continue
		}
		f := fs[0]
		if f.RuleID != tt.rule {
			t.Errorf("%q: rule %q, want %q", tt.text, f.RuleID, tt.rule)
		}
		if tt.rule == "private-key" {
			// The secret is the whole block, from BEGIN to END,
			// including the '+' of every diff line in between.
			want := strings.TrimSuffix(tt.text[1:], "\n")
			if f.Secret != want || f.Match != want {
				t.Errorf("private key: secret %q, match %q, want the whole block", f.Secret, f.Match)
			}
			continue
		}
		if f.Secret != tt.secret || f.Match != tt.match {
			t.Errorf("%q: secret %q match %q, want %q %q", tt.text, f.Secret, f.Match, tt.secret, tt.match)
		}
	}
	// Key ids with 0, 1, 8 or 9 are not real (AWS uses base32) and gitleaks
	// ignores them; Redact still catches them. AWS's documented example is
	// allowlisted by both.
	for _, tt := range []struct{ in, want string }{
		{"id AKIA0123456789ABCDEF\n", "id [REDACTED:aws-access-token]\n"},
		{"id=ASIA9ZZZ8YYY1XXX0WWW;", "id=[REDACTED:aws-access-token];"},
		{"id AKIAIOSFODNN7EXAMPLE\n", "id AKIAIOSFODNN7EXAMPLE\n"},
		{"XAKIA0123456789ABCDEF AKIA0123456789ABCDEFG", "XAKIA0123456789ABCDEF AKIA0123456789ABCDEFG"},
	} {
		if got, _ := s.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// The bare token has no keyword: gitleaks finds nothing, the
	// entropy check does.
	if fs := s.findings("Use the shared CI token " + p.bareToken + " for now.\n"); len(fs) != 0 {
		t.Errorf("gitleaks found %+v in the bare token", fs)
	}
}

func TestRedactPrivateKeyForms(t *testing.T) {
	s := newScanner(t)
	key := rsaKeyPEM(t)
	lines := strings.Split(strings.TrimSuffix(key, "\n"), "\n")
	jsonKey, _ := json.Marshal(map[string]string{"type": "service_account", "private_key": key})
	var goConcat strings.Builder
	goConcat.WriteString("+const testKey = ")
	for i, l := range lines {
		if i > 0 {
			goConcat.WriteString(" +\n+\t")
		}
		goConcat.WriteString("\"" + l + "\\n\"")
	}
	goConcat.WriteString("\n")
	forms := map[string]string{
		"plain":             key,
		"added lines":       prefixLines(key, "+"),
		"removed lines":     prefixLines(key, "-"),
		"context lines":     prefixLines(key, " "),
		"indented":          prefixLines(key, "+\t\t"),
		"cut by hunk end":   prefixLines(strings.Join(lines[:12], "\n")+"\n", "+"),
		"cut by hunk start": prefixLines(strings.Join(lines[12:], "\n")+"\n", "+"),
		"removed, cut":      prefixLines(strings.Join(lines[20:], "\n")+"\n", "-"),
		"JSON":              string(jsonKey) + "\n",
		"Go concatenation":  goConcat.String(),
		"CRLF":              strings.ReplaceAll(key, "\n", "\r\n"),
	}
	for name, text := range forms {
		t.Run(name, func(t *testing.T) {
			text := "@@ -1,3 +1,40 @@\n context before\n" + text + " context after\n"
			out, ids := s.Redact(text)
			var body []string
			for _, l := range keyBodyLines(key) {
				if strings.Contains(text, l) {
					body = append(body, l)
				}
			}
			assertNoKeyMaterial(t, out, strings.Join(body, "\n"))
			if !slices.Contains(ids, "private-key") {
				t.Errorf("ids = %q, want private-key", ids)
			}
			if !strings.Contains(out, "context before") || !strings.Contains(out, "context after") {
				t.Errorf("context lost:\n%s", out)
			}
		})
	}
}

// Realistic non-secrets must pass unchanged, gitleaks and entropy check
// alike.
var nonSecrets = []string{
	"func TestReadFromRepositoryWithoutWorktree2(t *testing.T) {",
	"public class AbstractSingletonProxyFactoryBeanTests2 extends TestCase {",
	"const handleUncaughtExceptionsInAsyncCallbacks3 = require('./lib/handler');",
	"import org.apache.commons.lang3.builder.ReflectionToStringBuilder;",
	"src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerCoordinator2.java",
	"commit 3f9c2a7e4b1d8c6f0a5e2d9b7c4a1f8e6d3b0c9a",
	"Merge: 83db48f 1a2b3c4",
	"digest: sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt",
	"request-id 123e4567-e89b-12d3-a456-426614174000 failed",
	"See https://github.com/golang/go/blob/3f9c2a7e4b1d8c6f0a5e2d9b7c4a1f8e6d3b0c9a/src/net/http/server.go#L2012",
	"https://github.com/advisories/GHSA-fh74-hm69-rqjw",
	"Fixes https://issues.apache.org/jira/browse/KAFKA-12345 and https://bugs.chromium.org/p/chromium/issues/detail?id=1234567",
	"github.com/zricethezav/gitleaks/v8 v8.30.1 h1:PmEvCfVI7ti9dV3s5aMZUY7sS2GxRvG3yzih7E+cS3w=",
	"golang.org/x/exp v0.0.0-20260410095643-746e56fc9e2f/go.mod h1:rTDwxRjufMKAkhTI/Mijd07nday1yOhf9qywjwz5Irw=",
	`"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="`,
	"aGVsbG8gd29ybGQ= is hello world in base64, Zm9vYmFy is foobar",
	`const encodeStd = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"`,
	`alphabet := "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"`,
	"BenchmarkWriteSchedulerLifetimePriorityRFC9218NonIncremental-8   	 1000000	      1042 ns/op",
	"cipher_TLS_DHE_PSK_WITH_AES_128_GCM_SHA256 = 0x00AA",
	"ETHTOOL_LINK_MODE_100000baseKR4_Full_BIT = 0x24",
	"kubectl apply -f deploy/k8s/overlays/production/kustomization.yaml",
	"Signed-off-by: Jane Developer <jane.developer@example.com>",
	"Co-authored-by: dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
	"Bumps [golang.org/x/crypto](https://github.com/golang/crypto) from 0.17.0 to 0.31.0.",
	"apiVersion: apps/v1",
	"password: ${DB_PASSWORD}",
	"token = os.Getenv(\"GITHUB_TOKEN\")",
	"secret_key_base = Rails.application.credentials.secret_key_base",
	"x509.MarshalPKCS1PrivateKey(privateKeyForTestingOnlyDoNotUse)",
	"-----BEGIN CERTIFICATE REQUEST----- is not a private key header",
	"2024-01-15T10:30:00.000Z INFO server started on 0.0.0.0:8080",
	"v1.2.3-rc.1+build.20240115.abcdef0",
}

func TestRedactNonSecrets(t *testing.T) {
	s := newScanner(t)
	for _, text := range nonSecrets {
		out, ids := s.Redact(text + "\n")
		if out != text+"\n" || len(ids) != 0 {
			t.Errorf("non-secret changed: %q\n  -> %q %q", text, out, ids)
		}
	}
	for _, name := range []string{"clean.diff", "auth.diff", "commit.txt"} {
		b := testInput(t, name)
		if out, ids := s.Redact(string(b)); out != string(b) || len(ids) != 0 {
			t.Errorf("%s: redacted %q", name, ids)
		}
	}
}

func TestRedactIdempotent(t *testing.T) {
	s := newScanner(t)
	p := newPlanted(t, 3)
	inputs := []string{
		"",
		"token: \"" + p.genericToken + "\"\n",
		"password = \"" + p.genericToken + p.awsSecret + "\"\n",
		"api_key=" + p.githubToken + p.bareToken + "\n",
		p.keyPEM + p.keyPEM,
		"already [REDACTED:generic-api-key] and [REDACTED:high-entropy]\n",
		"token: \"[REDACTED:generic-api-key]\"\n",
		"https://user:" + p.genericToken + "@example.com/\n",
	}
	for _, in := range inputs {
		out, _ := s.Redact(in)
		out2, ids2 := s.Redact(out)
		if out2 != out || len(ids2) != 0 {
			t.Errorf("not idempotent on %q:\n first: %q\nsecond: %q %q", in, out, out2, ids2)
		}
	}
	// Markers in the input are left alone.
	in := "token: \"[REDACTED:generic-api-key]\"\n"
	if out, ids := s.Redact(in); out != in || len(ids) != 0 {
		t.Errorf("marker input changed: %q %q", out, ids)
	}
}

func TestRedactBytes(t *testing.T) {
	s := newScanner(t)
	p := newPlanted(t, 4)
	in := "export GH=" + p.githubToken + "\n"
	out, ids := s.RedactBytes([]byte(in))
	want, wantIDs := s.Redact(in)
	if string(out) != want || !slices.Equal(ids, wantIDs) {
		t.Errorf("RedactBytes = %q %q, want %q %q", out, ids, want, wantIDs)
	}
}

// TestConcurrentRedact runs Redact from several goroutines on one Scanner
// (run it with -race).
func TestConcurrentRedact(t *testing.T) {
	s := newScanner(t)
	var texts []string
	for seed := range uint64(8) {
		p := newPlanted(t, seed+10)
		texts = append(texts, "token: \""+p.genericToken+"\"\n+aws_access_key_id = "+p.awsKeyID+"\n"+prefixLines(p.keyPEM, "+"))
	}
	texts = append(texts, string(testInput(t, "clean.diff")))
	want := make([]string, len(texts))
	for i, text := range texts {
		want[i], _ = s.Redact(text)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				k := (g + i) % len(texts)
				if got, _ := s.Redact(texts[k]); got != want[k] {
					t.Errorf("goroutine %d: different result for text %d", g, k)
				}
			}
		})
	}
	wg.Wait()
}

func TestNewShares(t *testing.T) {
	a, b := newScanner(t), newScanner(t)
	if a == b || a.all != b.all {
		t.Error("New should return distinct Scanners sharing the compiled rules")
	}
}

// FuzzRedact: Redact never panics, the output holds no secret gitleaks or the
// entropy check found in the input, and redacting the output again changes
// nothing.
func FuzzRedact(f *testing.F) {
	s, err := New()
	if err != nil {
		f.Fatal(err)
	}
	p := newPlanted(f, 5)
	f.Add("token: \"" + p.genericToken + "\"\n")
	f.Add("aws_access_key_id = " + p.awsKeyID + "\naws_secret_access_key = " + p.awsSecret + "\n")
	f.Add(prefixLines(p.keyPEM, "+"))
	f.Add(p.keyPEM[:300])
	f.Add("GH=" + p.githubToken + " " + p.bareToken)
	f.Add("already [REDACTED:generic-api-key] here")
	f.Add("")
	if b, err := os.ReadFile("testdata/commit.txt"); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		out, ids := s.Redact(text)
		for _, sp := range s.spans(text, false) {
			secret := text[sp.start:sp.end]
			if strings.Contains(out, secret) && !onlyMarkers(secret) {
				t.Fatalf("secret %q (%s) survived: %q -> %q", secret, sp.rule, text, out)
			}
		}
		for _, f := range s.findings(text) {
			if f.Secret != "" && strings.Contains(out, f.Secret) && !onlyMarkers(f.Secret) {
				t.Fatalf("gitleaks secret %q (%s) survived: %q -> %q", f.Secret, f.RuleID, text, out)
			}
		}
		if len(ids) > 0 && !strings.Contains(out, markerPrefix) {
			t.Fatalf("ids %q but no marker in %q", ids, out)
		}
		out2, ids2 := s.Redact(out)
		if out2 != out || len(ids2) != 0 {
			t.Fatalf("not idempotent: %q -> %q -> %q (%q)", text, out, out2, ids2)
		}
	})
}

// onlyMarkers reports whether s is made of redaction markers only (a secret
// that is itself marker text, which Redact leaves alone).
func onlyMarkers(s string) bool {
	var b strings.Builder
	last := 0
	for _, m := range markerRanges(s) {
		b.WriteString(s[last:m[0]])
		last = m[1]
	}
	b.WriteString(s[last:])
	return strings.TrimSpace(b.String()) == ""
}

func BenchmarkRedact(b *testing.B) {
	s, err := New()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"clean.diff", "auth.diff", "commit.txt"} {
		text := string(testInput(b, name))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				s.Redact(text)
			}
		})
	}
}

// BenchmarkGitleaksWholeText is the reference: gitleaks' DetectString on the
// whole text, as the windowed scan replaces it.
func BenchmarkGitleaksWholeText(b *testing.B) {
	s, err := New()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"clean.diff", "auth.diff", "commit.txt"} {
		text := string(testInput(b, name))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				s.all.get().DetectString(text)
			}
		})
	}
}

// BenchmarkNew measures New after the first call (shared state).
func BenchmarkNew(b *testing.B) {
	if _, err := New(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewFirst measures what the first New does: load gitleaks'
// configuration and prepare the windowed rules.
func BenchmarkNewFirst(b *testing.B) {
	for b.Loop() {
		cfg, err := readDefaultConfig()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := build(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestQuiet: New silences gitleaks' logger, which writes to stderr.
func TestQuiet(t *testing.T) {
	newScanner(t)
	if lvl := logging.Logger.GetLevel(); lvl != zerolog.Disabled {
		t.Errorf("gitleaks logger level %v, want disabled", lvl)
	}
}

// armor wraps random bytes as an ASCII-armored block of the given label,
// 64 base64 characters a line, as gpg and openssl write them.
func armor(rng *mrand.Rand, label string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	enc := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	sb.WriteString("-----BEGIN " + label + "-----\n\n")
	for len(enc) > 64 {
		sb.WriteString(enc[:64] + "\n")
		enc = enc[64:]
	}
	sb.WriteString(enc + "\n-----END " + label + "-----\n")
	return sb.String()
}

// Public keys, certificates and signatures look random but are published
// on purpose: a commit that updates a release's signing key or signatures
// keeps them, and reports no secret.
func TestRedactKeepsPublicBlocks(t *testing.T) {
	s := newScanner(t)
	rng := mrand.New(mrand.NewPCG(7, 7))
	k, err := x509.ParsePKCS1PrivateKey(mustPEM(t, rsaKeyPEM(t)))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{
		"PGP public key": armor(rng, "PGP PUBLIC KEY BLOCK", 1200),
		"PGP signature":  armor(rng, "PGP SIGNATURE", 560),
		"PKIX public":    string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})),
		"certificate":    armor(rng, "CERTIFICATE", 900),
	}
	for name, block := range blocks {
		lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
		forms := map[string]string{
			"plain":             block,
			"added lines":       prefixLines(block, "+"),
			"cut by hunk start": prefixLines(strings.Join(lines[4:], "\n")+"\n", "-"),
		}
		for form, text := range forms {
			t.Run(name+"/"+form, func(t *testing.T) {
				if out, ids := s.Redact(text); out != text || len(ids) != 0 {
					t.Errorf("redacted %q:\n%s", ids, out)
				}
			})
		}
	}
	t.Run("beside a private key", func(t *testing.T) {
		key := rsaKeyPEM(t)
		text := blocks["PGP signature"] + key
		out, ids := s.Redact(text)
		assertNoKeyMaterial(t, out, key)
		if !slices.Contains(ids, "private-key") {
			t.Errorf("ids = %q, want private-key", ids)
		}
		if !strings.HasPrefix(out, blocks["PGP signature"]) {
			t.Errorf("the signature was changed:\n%s", out)
		}
	})
}

func mustPEM(t *testing.T, text string) []byte {
	t.Helper()
	b, _ := pem.Decode([]byte(text))
	if b == nil {
		t.Fatal("no PEM block")
	}
	return b.Bytes
}
