package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The generated repository the README's examples are about: a token
// parser, a fix that states its reason and names an issue, a rename, and
// documentation, dated within the last 40 days so that recent and lookup
// find them with their default windows.
var history = []struct {
	daysAgo int
	files   map[string]string // path → content; "" deletes
	move    [2]string         // git mv from, to
	message string
}{
	{40, map[string]string{
		"go.mod":                      "module example.com/myproject\n\ngo 1.22\n",
		"internal/auth/token.go":      "package auth\n\nimport \"strings\"\n\n// Token is a parsed API token.\ntype Token struct{ User string }\n\n// ParseToken reads \"user:secret\".\nfunc ParseToken(s string) (Token, error) {\n\tuser, _, _ := strings.Cut(s, \":\")\n\treturn Token{User: user}, nil\n}\n",
		"internal/auth/token_test.go": "package auth\n\nimport \"testing\"\n\nfunc TestParseToken(t *testing.T) {\n\tif tok, _ := ParseToken(\"ann:x\"); tok.User != \"ann\" {\n\t\tt.Fatal(tok)\n\t}\n}\n",
	}, [2]string{}, "feat: parse API tokens"},
	{20, map[string]string{
		"internal/auth/token.go": "package auth\n\nimport (\n\t\"errors\"\n\t\"strings\"\n\t\"time\"\n)\n\n// Token is a parsed API token.\ntype Token struct {\n\tUser    string\n\tExpires time.Time\n}\n\nvar errExpired = errors.New(\"token expired\")\n\n// ParseToken reads \"user:secret:expiry\".\nfunc ParseToken(s string) (Token, error) {\n\tparts := strings.Split(s, \":\")\n\texp, _ := time.Parse(time.RFC3339, parts[len(parts)-1])\n\tif time.Now().After(exp) {\n\t\treturn Token{}, errExpired\n\t}\n\treturn Token{User: parts[0], Expires: exp}, nil\n}\n",
	}, [2]string{}, "fix: reject expired tokens\n\nA token past its expiry date stayed valid, because ParseToken never read\nthe expiry: a leaked token worked forever. Fixes #12."},
	{10, nil, [2]string{"internal/auth/token.go", "internal/auth/parse.go"}, "refactor: move token parsing to parse.go"},
	{5, map[string]string{
		"README.md": "# myproject\n\nTokens expire: see internal/auth/parse.go.\n",
	}, [2]string{}, "docs: describe token expiry"},
}

// generate builds the repository at dir and writes ~/my-questions.jsonl,
// an evaluation set about it, in home.
func generate(dir, home string) error {
	git := func(env []string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out)), nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := git(nil, "init", "-q", "-b", "main"); err != nil {
		return err
	}
	var hashes []string
	for _, c := range history {
		for path, content := range c.files {
			full := filepath.Join(dir, path)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
				return err
			}
		}
		if c.move[0] != "" {
			if _, err := git(nil, "mv", c.move[0], c.move[1]); err != nil {
				return err
			}
		}
		if _, err := git(nil, "add", "-A"); err != nil {
			return err
		}
		when := time.Now().AddDate(0, 0, -c.daysAgo).Format(time.RFC3339)
		env := []string{"GIT_AUTHOR_NAME=Ann Example", "GIT_AUTHOR_EMAIL=ann@example.com", "GIT_AUTHOR_DATE=" + when,
			"GIT_COMMITTER_NAME=Ann Example", "GIT_COMMITTER_EMAIL=ann@example.com", "GIT_COMMITTER_DATE=" + when}
		if _, err := git(env, "-c", "commit.gpgsign=false", "commit", "-q", "-m", c.message); err != nil {
			return err
		}
		h, err := git(nil, "rev-parse", "HEAD")
		if err != nil {
			return err
		}
		hashes = append(hashes, h)
	}
	set := fmt.Sprintf(`{"id":"q1","kind":"why","question":"why are expired tokens rejected?","expected":[%q],"split":"dev"}
{"id":"h1","kind":"history","path":"internal/auth/parse.go","expected":[%q],"split":"test"}
`, hashes[1], hashes[0])
	return os.WriteFile(filepath.Join(home, "my-questions.jsonl"), []byte(set), 0o644)
}
