package gittest

import (
	"strconv"
	"testing"
)

func TestGenerate(t *testing.T) {
	r := Generate(t, 300, 1)
	n, _ := strconv.Atoi(r.Git("rev-list", "--count", "main"))
	if n < 300 {
		t.Errorf("%d commits, want at least 300", n)
	}
	merges, _ := strconv.Atoi(r.Git("rev-list", "--count", "--merges", "main"))
	renames := r.Git("log", "--format=", "--diff-filter=R", "-M", "--name-only", "main")
	if merges < 5 || renames == "" {
		t.Errorf("%d merges, renames %q", merges, renames)
	}
	// Deterministic: the same seed gives the same history.
	if a, b := r.Head(), Generate(t, 300, 1).Head(); a != b {
		t.Errorf("heads differ for one seed: %s %s", a, b)
	}
}

func TestFromMessages(t *testing.T) {
	r := FromMessages(t, []string{"First change", "Second change\n\nWith a body."})
	if got := r.Git("log", "--format=%s|%b", "main"); got != "Second change|With a body.\nFirst change|" {
		t.Errorf("log:\n%s", got)
	}
	if got := r.Git("show", "--format=", "--name-only", "HEAD"); got != "notes/n0001.txt" {
		t.Errorf("second commit's files: %q", got)
	}
	r.Write("next.txt", "x\n")
	if r.Commit("Third"); r.Git("rev-list", "--count", "main") != "3" {
		t.Error("Commit does not continue the history")
	}
}
