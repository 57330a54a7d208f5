package gittest

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// FromMessages builds a linear history on main with one commit per
// message, each adding a small file of its own, through git fast-import:
// a history of hundreds of chosen messages in a fraction of a second,
// where Commit would run git twice a commit.
func FromMessages(t testing.TB, msgs []string) *Repo {
	t.Helper()
	r := New(t)
	var stream bytes.Buffer
	for i, msg := range msgs {
		when := Epoch.Add(time.Duration(i+1) * time.Hour).Unix()
		fmt.Fprintf(&stream, "commit refs/heads/main\nmark :%d\n", i+1)
		fmt.Fprintf(&stream, "author Ada Lovelace <ada@example.com> %d +0200\n", when)
		fmt.Fprintf(&stream, "committer Ada Lovelace <ada@example.com> %d +0200\n", when)
		fmt.Fprintf(&stream, "data %d\n%s\n", len(msg), msg)
		if i > 0 {
			fmt.Fprintf(&stream, "from :%d\n", i)
		}
		body := fmt.Sprintf("note %d\n", i)
		fmt.Fprintf(&stream, "M 100644 inline notes/n%04d.txt\ndata %d\n%s\n", i, len(body), body)
	}
	r.fastImport(t, &stream)
	r.tick = len(msgs)
	return r
}
