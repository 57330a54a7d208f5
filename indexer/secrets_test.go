package indexer

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/store"
)

// Planted secrets, built at run time so that this file itself does not
// look like a leak to scanners.
var (
	awsKeyID     = "AKIA" + "Q7N3WZ5RJX2KD4PT"
	awsSecret    = "wJa1rXUtnF3MI" + "/K7MDENG/bPxRfiCYzq9Lk2Bh8Tn"
	githubToken  = "ghp_" + "R8f2kQz7XvN4mT1pLw9cYb3HsJ6dUe0AaGiK"
	entropyToken = "tK9" + "vQ2xLmZ8rWp4Yc7NbF3jHs6DgE1aUo5Ri0Te"
	keyBody      = []string{
		"MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Eb8Ps8ab0fbyPrWEncxXFeQ8mNR",
		"kKXb9TpGt9s1XLsbvR0iPc2pB5oX3AGfz8vLqWsd+NeXFT1yXa5P3KcUJuHYd0aV",
		"q3GhM2pC7tZ0eS9Lw4kN8xR6fV2bJ5uA1yQ3nH7mT9cK4rW8sE0gD6iF2oP5lB1z",
	}
)

func TestPlantedSecretsNeverStored(t *testing.T) {
	g := gittest.New(t)
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Join(keyBody, "\n") + "\n-----END RSA PRIVATE KEY-----\n"
	g.Write("deploy/key.pem", key)
	g.Write("config/prod.env", "aws_access_key_id = "+awsKeyID+"\naws_secret_access_key = "+awsSecret+"\n")
	g.Write("ci.yml", "env:\n  GITHUB_TOKEN: "+githubToken+"\n")
	g.Write("client.go", "package client\n\nvar session = \""+entropyToken+"\"\n")
	g.Commit("add deployment config\n\nTemporary token " + githubToken + " until the vault is up.")
	g.Write("notes.txt", "rotate "+awsKeyID+" soon\n")
	g.Commit("note: rotate " + awsKeyID)

	dir := t.TempDir()
	st := openStoreIn(t, dir)
	res := sync(t, g.Dir, st, Options{})
	if res.Indexed != 2 || res.Redactions < 6 || res.RedactedCommits != 2 {
		t.Errorf("indexed %d, %d redactions in %d commits", res.Indexed, res.Redactions, res.RedactedCommits)
	}
	c, _, err := st.GetCommit(t.Context(), g.Git("rev-parse", "HEAD~1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Message, "[REDACTED:") || c.Redactions == 0 {
		t.Errorf("message not redacted: %q", c.Message)
	}
	st.Close()

	planted := append([]string{awsKeyID, awsSecret, githubToken, entropyToken}, keyBody...)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range planted {
			// Blobs are compressed: also look for the secret in the
			// decompressed form by asking the store below.
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s contains a planted secret %q", path, s[:8])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Compressed blobs would hide a secret from the byte scan: read them all.
	st, err = store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB.Query(`SELECT key FROM blob_keys`)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for rows.Next() {
		var k string
		rows.Scan(&k)
		keys = append(keys, k)
	}
	rows.Close()
	for _, k := range keys {
		data, err := store.GetBlob(t.Context(), st.DB, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range planted {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("blob %s contains a planted secret %q", k, s[:8])
			}
		}
	}
	if len(keys) < 6 {
		t.Errorf("only %d blobs stored", len(keys))
	}
}
