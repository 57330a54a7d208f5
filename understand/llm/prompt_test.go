package llm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/model"
)

func TestUserPrompt(t *testing.T) {
	c := &model.Commit{
		Hash:    "0123456789abcdef0123456789abcdef01234567",
		Message: "Fix race in queue\n\nThe worker read the slice without the lock.\n" + strings.Repeat("x", 3000),
		Changes: []model.FileChange{
			{Path: "queue/queue.go", Status: model.Modified, Insertions: 12, Deletions: 3},
			{Path: "queue/new.go", OldPath: "queue/old.go", Status: model.Renamed, Deletions: 2},
			{Path: "docs/logo.png", Status: model.Added, Binary: true},
			{Path: "evil\nname.go", Status: model.Deleted, Deletions: 7},
		},
	}
	u := &model.Understood{Commit: c, Classification: model.Classification{
		Primary:   model.Label{Type: model.Bugfix, Confidence: 0.82},
		Secondary: []model.Label{{Type: model.Test, Confidence: 0.4}},
	}}
	got := userPrompt([]*model.Understood{u})
	for _, want := range []string{
		"### Commit 1 (0123456789ab)\n",
		"Classification: bugfix (0.82), also test (0.40)\n",
		"Subject: Fix race in queue\n",
		"Body:\nThe worker read the slice without the lock.\n",
		"Files changed (4, +12 -12):\n",
		"  M queue/queue.go +12 -3\n",
		"  R queue/old.go -> queue/new.go +0 -2\n",
		"  A docs/logo.png (binary)\n",
		"  D evil name.go +0 -7\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "x"); n > maxBodyRunes {
		t.Errorf("body not truncated: %d x's", n)
	}
	if cs := readPrompt(got); len(cs) != 1 || cs[0].Subject != "Fix race in queue" {
		t.Errorf("test reader sees %+v", cs)
	}
}

func TestUserPromptManyFiles(t *testing.T) {
	c := &model.Commit{Hash: "ab", Message: "Vendor update"}
	for i := range 40 {
		c.Changes = append(c.Changes, model.FileChange{Path: fmt.Sprintf("vendor/f%d.go", i), Status: model.Added, Insertions: 1})
	}
	got := userPrompt([]*model.Understood{{Commit: c}})
	if !strings.Contains(got, "  ... and 20 more files\n") || strings.Contains(got, "vendor/f20.go") ||
		!strings.Contains(got, "vendor/f19.go") || strings.Contains(got, "Classification") {
		t.Errorf("prompt of 40 files:\n%s", got)
	}
}
