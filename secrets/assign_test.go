package secrets

import (
	"strings"
	"testing"
)

// TestAssignedSecrets: the values of secret-named keys are redacted in
// configuration files, quoted or not; in other text only quoted values
// and environment-style keys count; code and placeholders are left alone.
func TestAssignedSecrets(t *testing.T) {
	s := newScanner(t)
	cases := []struct {
		path, line, secret string // secret "" means nothing is redacted
	}{
		{".env", "SMTP_PASS=hunter2x", "hunter2x"},
		{".env", "+SECRET_KEY_BASE=0123456789abcdef0123456789abcdef01234567", "0123456789abcdef0123456789abcdef01234567"},
		{".env.production", "export DB_PASSWORD='correct horse'", "correct horse"},
		{"config/app.yml", "  password: opensesame42", "opensesame42"},
		{"config/app.yaml", "    client_secret: \"s3cr3t-value\"", "s3cr3t-value"},
		{"app.properties", "spring.datasource.password=tiger123", "tiger123"},
		{"app.properties", "mail.smtp.auth.token = abcd1234efgh", "abcd1234efgh"},
		{"settings.ini", "api_key = zxcvbnm98765", "zxcvbnm98765"},
		{"deploy.sh", "export GITHUB_TOKEN=plainword99", "plainword99"},
		{"main.go", `const apiKey = "k3y-in-c0de"`, ""}, // "const apiKey" is no key at a line start
		{"main.go", `	apiKey := "k3y-in-c0de"`, ""},
		{"main.py", `password = "py-pass-word"`, "py-pass-word"},
		{"main.py", `password = password`, ""},
		{"main.py", `token = get_token()`, ""},
		{".env", "DB_PASSWORD=${DB_PASSWORD}", ""},
		{".env", "PASSWORD_MIN_LENGTH=12", ""},
		{".env", "TOKEN_URL=https://auth.example.com/token", ""},
		{"config.yml", "primary_key: id", ""},
		{"config.yml", "password: true", ""},
		{"config.yml", "password: '********'", ""},
		{"notes.md", "if password == other {", ""},
		{".env", "DATABASE_URL=postgres://app:pg-Pa55word@db.internal:5432/app", "pg-Pa55word"},
		{"README.md", "connect to mysql://root:rootpw99@localhost/db first", "rootpw99"},
		{"README.md", "see https://example.com/path and user@example.com", ""},
		{"docker-compose.yml", "postgres://gitmemory:${POSTGRES_PASSWORD:-gitmemory}@postgres:5432/x", ""},
		// Nothing but separators after the sign (lines of tmux's history
		// made the sync fail its commits): no value.
		{".env", "PASSWORD= ;", ""},
		{"config.yml", "+\tpassword = \t,", ""},
	}
	for _, c := range cases {
		got, _ := s.RedactFile(c.path, c.line)
		if c.secret == "" {
			if got != c.line {
				t.Errorf("%s: %q became %q; want it unchanged", c.path, c.line, got)
			}
			continue
		}
		if strings.Contains(got, c.secret) || !strings.Contains(got, markerPrefix) {
			t.Errorf("%s: %q became %q; want %q redacted", c.path, c.line, got, c.secret)
		}
		if again, ids := s.RedactFile(c.path, got); again != got || len(ids) != 0 {
			t.Errorf("%s: redacting %q again gave %q %v", c.path, got, again, ids)
		}
	}
	// A quoted value in a code file counts; an unquoted one does not.
	if got, _ := s.Redact("db.password=plainvalue"); got != "db.password=plainvalue" {
		t.Errorf("an unquoted lower-case key outside configuration: %q", got)
	}
}

// TestRedactNameIsStableAndUnique: a secret in a name becomes a marker
// that is the same for the same secret and differs between secrets, so
// two redacted paths stay two files.
func TestRedactNameIsStableAndUnique(t *testing.T) {
	s := newScanner(t)
	tokA := "ghp_" + strings.Repeat("A1b2C3d4E5", 3) + "f6G7h8"
	tokB := "ghp_" + strings.Repeat("Z9y8X7w6V5", 3) + "u4T3s2"
	a1, ids := s.RedactName("keys/" + tokA + "/config.json")
	a2, _ := s.RedactName("keys/" + tokA + "/config.json")
	b, _ := s.RedactName("keys/" + tokB + "/config.json")
	if strings.Contains(a1, tokA) || len(ids) != 1 || !strings.HasPrefix(a1, "keys/[REDACTED:github-pat-") || !strings.HasSuffix(a1, "]/config.json") {
		t.Errorf("path with a token: %q %v", a1, ids)
	}
	if a1 != a2 || a1 == b {
		t.Errorf("markers: %q, %q, %q; want the first two equal and the third different", a1, a2, b)
	}
	if again, ids := s.RedactName(a1); again != a1 || len(ids) != 0 {
		t.Errorf("redacting a redacted name again: %q %v", again, ids)
	}
	for _, name := range []string{"src/main.go", "Jane Doe", "jane@example.com", "v1.2.3", "release/2024-01",
		"web/static/main.3f9a8b7c2d1e.js", "internal/gittest/gittest.go"} {
		if got, _ := s.RedactName(name); got != name {
			t.Errorf("an ordinary name %q became %q", name, got)
		}
	}
	author := "deploy bot " + tokA
	if got, _ := s.RedactName(author); strings.Contains(got, tokA) {
		t.Errorf("an author name with a token: %q", got)
	}
}
