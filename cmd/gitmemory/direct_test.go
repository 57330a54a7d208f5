package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/retrieve"
)

// show says why a file has no line counts: its content is binary, or the
// repository lacks it (a partial clone), rather than +0 -0.
func TestPrintCommitSkippedFiles(t *testing.T) {
	var b bytes.Buffer
	printCommit(&b, &retrieve.CommitDetail{Hash: strings.Repeat("a", 40), Message: "Add assets", Files: []retrieve.CommitFile{
		{Path: "big.bin", Status: "modified", Skipped: "missing"},
		{Path: "logo.png", Status: "added", Skipped: "binary"},
		{Path: "main.go", Status: "modified", Insertions: 3, Deletions: 1},
	}})
	for _, want := range []string{
		" modified big.bin (lines unknown: the repository lacks the file's content)\n",
		" added    logo.png (binary)\n",
		" modified main.go (+3 -1)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
}
