package api

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/memory"
)

// planted is one kind of secret: its value, built from random characters
// at run time (so this file holds none), and where it goes.
type planted struct {
	kind, value string
}

// secretGen makes reproducible random secret material.
type secretGen struct{ rng *rand.Rand }

func (g secretGen) chars(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.rng.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	hexd   = "0123456789abcdef"
	b64    = alnum + "+/"
	lowerd = "abcdefghijklmnopqrstuvwxyz0123456789"
)

// leakFixture builds a repository with over thirty kinds of secrets in
// commit messages, code diffs, .env, YAML, properties and INI files, file
// paths, author and committer names and e-mails, tag and branch names.
func leakFixture(t *testing.T) (*gittest.Repo, []planted) {
	g := secretGen{rand.New(rand.NewPCG(17, 3))}
	word := func(n int) string { return "Qv" + g.chars(alnum, n) + "!x" }
	p := map[string]string{
		"github-pat":        "ghp_" + g.chars(alnum, 36),
		"github-pat-path":   "ghp_" + g.chars(alnum, 36),
		"github-pat-tag":    "ghp_" + g.chars(alnum, 36),
		"aws-key-id":        "AKIA" + g.chars(upper, 16),
		"aws-key-committer": "AKIA" + g.chars(upper, 16),
		"aws-secret":        g.chars(b64, 40),
		"slack-bot":         "xoxb-" + g.chars("0123456789", 11) + "-" + g.chars("0123456789", 12) + "-" + g.chars(alnum, 24),
		"slack-author":      "xoxb-" + g.chars("0123456789", 11) + "-" + g.chars("0123456789", 12) + "-" + g.chars(alnum, 24),
		"stripe-live":       "sk_live_" + g.chars(alnum, 24),
		"stripe-branch":     "sk_live_" + g.chars(alnum, 24),
		"google-api":        "AIza" + g.chars(alnum+"-_", 35),
		"gitlab-pat":        "glpat-" + g.chars(alnum, 20),
		"npm-token":         "npm_" + g.chars(alnum, 36),
		"sendgrid":          "SG." + g.chars(alnum, 22) + "." + g.chars(alnum, 43),
		"jwt":               "eyJhbGciOiJIUzI1NiJ9.eyJ" + g.chars(alnum, 30) + "." + g.chars(alnum+"-_", 43),
		"entropy-message":   g.chars(alnum, 40),
		"entropy-code":      g.chars(alnum, 36),
		"entropy-path":      g.chars(alnum, 32),
		"entropy-email":     g.chars(alnum, 32),
		"private-key":       g.chars(b64, 64),
		"url-password-code": word(10),
		"url-password-msg":  word(10),
		"env-database-url":  word(12),
		"env-redis-url":     word(12),
		"env-smtp-pass":     word(10),
		"env-secret-hex":    g.chars(hexd, 40),
		"env-export-token":  word(14),
		"yaml-password":     word(10),
		"yaml-client-sec":   word(16),
		"yaml-api-key":      g.chars(lowerd, 24),
		"props-datasource":  word(10),
		"props-smtp":        word(10),
		"props-signing-key": g.chars(hexd, 64),
		"ini-passwd":        word(10),
		"py-password":       word(12),
	}
	r := gittest.New(t)
	r.Write("src/client.go", "package client\n\nvar awsSecret = \""+p["aws-secret"]+"\"\nvar session = \""+p["entropy-code"]+
		"\"\nvar maps = \""+p["google-api"]+"\"\nvar dsn = \"https://svc:"+p["url-password-code"]+"@api.example.com/v1\"\n")
	r.Write("src/tokens.js", "const gitlab = '"+p["gitlab-pat"]+"';\nconst npm = '"+p["npm-token"]+"';\nconst mail = '"+
		p["sendgrid"]+"';\nconst jwt = '"+p["jwt"]+"';\n")
	r.Write("src/settings.py", "password = \""+p["py-password"]+"\"\nDEBUG = False\n")
	r.Write("deploy/key.pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"+p["private-key"]+"\n"+p["private-key"][:48]+
		"\n-----END RSA PRIVATE KEY-----\n")
	commitAs(t, r, "Ada Lovelace <ada@example.com>", "Ada Lovelace", "ada@example.com",
		"feat: add the API client\n\nTemporary token "+p["github-pat"]+" and bot "+p["slack-bot"]+
			" until the vault is up; session "+p["entropy-message"]+"\nstripe "+p["stripe-live"]+
			" db at mysql://root:"+p["url-password-msg"]+"@db.internal/app, key "+p["aws-key-id"])
	r.Write(".env", "DATABASE_URL=postgres://app:"+p["env-database-url"]+"@db.internal:5432/app\nREDIS_URL=redis://:"+
		p["env-redis-url"]+"@cache:6379/0\nSMTP_PASS="+p["env-smtp-pass"]+"\nSECRET_KEY_BASE="+p["env-secret-hex"]+
		"\nexport API_TOKEN='"+p["env-export-token"]+"'\nPORT=8080\n")
	r.Write("config/app.yml", "database:\n  host: db.internal\n  password: "+p["yaml-password"]+"\noauth:\n  client_secret: \""+
		p["yaml-client-sec"]+"\"\n  api_key: "+p["yaml-api-key"]+"\n")
	r.Write("config/app.properties", "spring.datasource.password="+p["props-datasource"]+"\nmail.smtp.password = "+
		p["props-smtp"]+"\njwt.signing.key="+p["props-signing-key"]+"\n")
	r.Write("config/db.ini", "[database]\nuser = app\npasswd = "+p["ini-passwd"]+"\n")
	r.Write("keys/"+p["github-pat-path"]+".json", "{}\n")
	r.Write("uploads/"+p["entropy-path"]+"/data.txt", "payload\n")
	commitAs(t, r, "deploy "+p["slack-author"]+" <svc+"+p["entropy-email"]+"@example.com>", "ci "+p["aws-key-committer"],
		"ci@example.com", "chore: deployment configuration")
	r.Write("keys/"+p["github-pat-path"]+".json", "{\"rotated\": true}\n")
	commitAs(t, r, "Ada Lovelace <ada@example.com>", "Ada Lovelace", "ada@example.com", "fix: rotate the key file")
	r.Git("tag", "deploy-"+p["github-pat-tag"])
	r.Git("branch", "fix/"+p["stripe-branch"])
	var out []planted
	for k, v := range p {
		out = append(out, planted{k, v})
	}
	return r, out
}

// commitAs commits everything with the given author and committer.
func commitAs(t *testing.T, r *gittest.Repo, author, committerName, committerEmail, msg string) {
	t.Helper()
	r.Tick()
	r.Git("add", "-A")
	cmd := exec.Command("git", "commit", "-q", "--author", author, "-m", msg)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), "GIT_COMMITTER_NAME="+committerName, "GIT_COMMITTER_EMAIL="+committerEmail,
		"GIT_AUTHOR_DATE=2024-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2024-01-02T03:04:05Z",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "HOME="+r.Dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
}

// leakWindow is the length of the pieces of each secret searched for: a
// stored fragment this long is a leak, and random text of this length
// does not turn up by chance.
const leakWindow = 10

// leakFinder reports where any piece of a planted secret appears.
type leakFinder struct {
	t       *testing.T
	pieces  map[string]string // piece -> kind
	found   map[string]bool   // "kind in where", reported once
	scanned int
}

func newLeakFinder(t *testing.T, ps []planted) *leakFinder {
	f := &leakFinder{t: t, pieces: map[string]string{}, found: map[string]bool{}}
	for _, p := range ps {
		for i := 0; i+leakWindow <= len(p.value); i++ {
			f.pieces[p.value[i:i+leakWindow]] = p.kind
		}
	}
	return f
}

func (f *leakFinder) check(where string, data []byte) {
	f.scanned += len(data)
	if len(data) < leakWindow {
		return
	}
	for i := 0; i+leakWindow <= len(data); i++ {
		if kind, ok := f.pieces[string(data[i:i+leakWindow])]; ok && !f.found[kind+" in "+where] {
			f.found[kind+" in "+where] = true
			f.t.Errorf("secret %s leaked in %s: …%q…", kind, where, data[max(0, i-30):min(len(data), i+leakWindow+30)])
		}
	}
}

// checkCompressed also searches every zstd frame and gzip stream that
// starts anywhere in data, decompressed.
func (f *leakFinder) checkCompressed(where string, data []byte) {
	f.check(where, data)
	for _, magic := range [][]byte{{0x28, 0xb5, 0x2f, 0xfd}, {0x1f, 0x8b, 0x08}} {
		for off := 0; ; {
			i := bytes.Index(data[off:], magic)
			if i < 0 {
				break
			}
			at := off + i
			off = at + 1
			var r io.Reader
			if magic[0] == 0x28 {
				d, err := zstd.NewReader(bytes.NewReader(data[at:]))
				if err != nil {
					continue
				}
				r = d.IOReadCloser()
			} else if z, err := gzip.NewReader(bytes.NewReader(data[at:])); err == nil {
				r = z
			} else {
				continue
			}
			plain, _ := io.ReadAll(io.LimitReader(r, 64<<20)) // what decodes before an error
			f.check(fmt.Sprintf("%s (compressed at %d)", where, at), plain)
		}
	}
}

// checkSQLite dumps every value of every table of a SQLite database,
// decompressing blobs.
func (f *leakFinder) checkSQLite(path string) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		f.t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		f.t.Fatalf("%s: %v", path, err)
	}
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	for _, tbl := range tables {
		rs, err := db.Query(`SELECT * FROM "` + tbl + `"`)
		if err != nil {
			continue // a virtual table's shadow may refuse a plain scan
		}
		cols, _ := rs.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rs.Next() {
			rs.Scan(ptrs...)
			for i, v := range vals {
				where := fmt.Sprintf("%s table %s column %s", filepath.Base(path), tbl, cols[i])
				switch v := v.(type) {
				case []byte:
					f.checkCompressed(where, v)
				case string:
					f.check(where, []byte(v))
				}
			}
		}
		rs.Close()
	}
}

// TestNoSecretIsStoredOrAnswered plants over thirty kinds of secrets,
// syncs, and then looks for any ten-byte piece of any of them in every
// file of the home (SQLite tables dumped, blobs and any compressed
// stream decompressed, graph and vector files read raw) and in the
// answers to every kind of request.
func TestNoSecretIsStoredOrAnswered(t *testing.T) {
	r, ps := leakFixture(t)
	if len(ps) < 30 {
		t.Fatalf("%d kinds of secrets planted, want at least 30", len(ps))
	}
	h, err := memory.OpenHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := h.Add(ctx, r.Dir, memory.AddOptions{Name: "leaky"}); err != nil {
		t.Fatal(err)
	}
	res, err := h.Sync(ctx, "leaky", memory.SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 3 || res.Redactions < 30 {
		t.Errorf("indexed %d commits with %d redactions; want 3 and at least 30", res.Indexed, res.Redactions)
	}
	f := newLeakFinder(t, ps)
	f.checkAnswers(ctx, NewLocal(h), res)
	if err := h.ReleaseAll(); err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(h.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(h.Dir, path)
		f.checkCompressed(rel, data)
		if bytes.HasPrefix(data, []byte("SQLite format 3\x00")) {
			f.checkSQLite(path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 || f.scanned < 100_000 {
		t.Errorf("scanned %d files, %d bytes: the home is not what this test expects", files, f.scanned)
	}
	t.Logf("%d kinds of secrets; %d files and %d bytes searched", len(ps), files, f.scanned)
}

// checkAnswers asks every kind of question and searches the answers.
func (f *leakFinder) checkAnswers(ctx context.Context, l *Local, synced any) {
	t := f.t
	record := func(what string, v any, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", what, err)
			return
		}
		b, _ := json.Marshal(v)
		f.check("answer to "+what, b)
	}
	record("sync", synced, nil)
	rs, err := l.List(ctx)
	record("list", rs, err)
	st, err := l.Status(ctx, "leaky", true)
	record("status", st, err)
	recent, err := l.Recent(ctx, RecentRequest{Repo: "leaky", Days: 1_000_000})
	record("recent", recent, err)
	paths, commits := map[string]bool{}, map[string]bool{}
	for _, c := range recent {
		commits[c.Commit] = true
	}
	for _, dir := range []string{"src", "config", "keys", "uploads", "deploy", ".env"} {
		hs, err := l.History(ctx, HistoryRequest{Repo: "leaky", Path: dir})
		record("history of "+dir, hs, err)
		for _, c := range hs {
			paths[c.Path] = true
		}
	}
	redacted := 0
	for p := range paths {
		if strings.Contains(p, "[REDACTED:") {
			redacted++
		}
	}
	if len(commits) != 3 || redacted == 0 {
		t.Errorf("recent: %d commits, paths %v; want 3 commits and a redacted path", len(commits), paths)
	}
	for p := range paths {
		hs, err := l.History(ctx, HistoryRequest{Repo: "leaky", Path: p})
		record("history of "+p, hs, err)
		if strings.HasPrefix(p, "keys/[REDACTED:") && len(hs) != 2 {
			t.Errorf("history of the redacted path %s: %d commits, want both that changed it", p, len(hs))
		}
	}
	var ps []string
	for p := range paths {
		ps = append(ps, p)
	}
	lk, err := l.Lookup(ctx, LookupRequest{Repo: "leaky", Paths: ps, Days: 1_000_000})
	record("lookup", lk, err)
	for _, q := range []string{"why was the API client added with a temporary token", "deployment configuration database password",
		"rotate the key file", "stripe session bot vault"} {
		for _, format := range []string{"markdown", "json"} {
			ans, err := l.Query(ctx, QueryRequest{Repo: "leaky", Query: q, Format: format, Debug: true})
			record("query "+q, ans, err)
		}
	}
	ent, err := l.Entity(ctx, EntityRequest{Repo: "leaky", Name: "client"})
	if err == nil {
		record("entity", ent, nil)
	}
}
