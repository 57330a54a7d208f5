// Command xevalset maintains the evaluation sets in eval/.
//
//	xevalset split FILE.jsonl        give every case without a split one, in place
//	xevalset check FILE.jsonl REPO   check every case against the repository
//
// split assigns dev and test by a hash of the set's name and the case's id,
// alternating within each kind, so that neither the person tuning nor the
// person writing chooses which cases are held out, and each kind is split
// evenly. A case that already has a split keeps it: re-running split after
// adding cases never moves a case from test to dev.
//
// check validates what a blind question set promises: every expected sha
// is a non-merge commit reachable from HEAD, every history path exists at
// HEAD, and no question shares a run of three words with the subject or
// body of a commit it expects.
package main

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/retrieve"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "split":
		err = split(os.Args[2])
	case len(os.Args) == 4 && os.Args[1] == "check":
		err = check(os.Args[2], os.Args[3])
	default:
		err = fmt.Errorf("usage: xevalset split FILE.jsonl | xevalset check FILE.jsonl REPO")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "xevalset:", err)
		os.Exit(1)
	}
}

func read(path string) ([]retrieve.EvalCase, []map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	cases, err := retrieve.ReadEvalCases(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	// The raw objects tell which cases had a split written (ReadEvalCases
	// fills in dev for those without).
	var raw []map[string]any
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return nil, nil, err
		}
		raw = append(raw, m)
	}
	return cases, raw, nil
}

func split(path string) error {
	cases, raw, err := read(path)
	if err != nil {
		return err
	}
	set := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	key := func(id string) string {
		h := sha256.Sum256([]byte(set + "/" + id))
		return fmt.Sprintf("%x", h)
	}
	byKind := map[string][]int{}
	for i, c := range cases {
		byKind[c.Kind] = append(byKind[c.Kind], i)
	}
	for _, idx := range byKind {
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(key(cases[a].ID), key(cases[b].ID)) })
		// Count the kind's existing assignments so that new cases even
		// the split out rather than restart the alternation.
		dev, test := 0, 0
		for _, i := range idx {
			switch raw[i]["split"] {
			case retrieve.SplitDev:
				dev++
			case retrieve.SplitTest:
				test++
			}
		}
		for _, i := range idx {
			if _, ok := raw[i]["split"]; ok {
				continue
			}
			cases[i].Split = retrieve.SplitDev
			if test < dev {
				cases[i].Split = retrieve.SplitTest
				test++
			} else {
				dev++
			}
		}
	}
	var buf bytes.Buffer
	for _, c := range cases {
		line, err := json.Marshal(c)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func check(path, repo string) error {
	cases, _, err := read(path)
	if err != nil {
		return err
	}
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).Output()
		return string(out), err
	}
	head, err := git("rev-parse", "HEAD")
	if err != nil {
		return fmt.Errorf("%s: not a repository: %w", repo, err)
	}
	head = strings.TrimSpace(head)
	bad := 0
	fail := func(c retrieve.EvalCase, format string, args ...any) {
		bad++
		fmt.Printf("%s: %s\n", c.ID, fmt.Sprintf(format, args...))
	}
	for _, c := range cases {
		for _, sha := range c.Expected {
			parents, err := git("rev-list", "--parents", "-n", "1", sha)
			switch {
			case err != nil:
				fail(c, "%s: no such commit", sha)
				continue
			case len(strings.Fields(parents)) > 2:
				fail(c, "%s is a merge", sha)
			}
			if _, err := git("merge-base", "--is-ancestor", sha, head); err != nil {
				fail(c, "%s is not reachable from HEAD", sha)
			}
			if c.Question == "" {
				continue
			}
			msg, err := git("log", "-1", "--format=%B", sha)
			if err != nil {
				fail(c, "%s: %v", sha, err)
				continue
			}
			if run := sharedRun(c.Question, msg, 3); run != "" {
				fail(c, "shares %q with the message of %s", run, sha[:12])
			}
		}
		if c.Path != "" {
			if _, err := git("cat-file", "-e", head+":"+c.Path); err != nil {
				fail(c, "path %s does not exist at HEAD", c.Path)
			}
		}
	}
	fmt.Printf("%s: %d cases (%d dev, %d test), %d problems\n", path, len(cases),
		len(retrieve.OfSplit(cases, retrieve.SplitDev)), len(retrieve.OfSplit(cases, retrieve.SplitTest)), bad)
	if bad > 0 {
		return fmt.Errorf("%d problems", bad)
	}
	return nil
}

// sharedRun returns the first run of n words that a and b share, compared
// lower-cased with punctuation stripped, or "".
func sharedRun(a, b string, n int) string {
	wa, wb := words(a), words(b)
	runs := map[string]bool{}
	for i := 0; i+n <= len(wb); i++ {
		runs[strings.Join(wb[i:i+n], " ")] = true
	}
	for i := 0; i+n <= len(wa); i++ {
		if r := strings.Join(wa[i:i+n], " "); runs[r] {
			return r
		}
	}
	return ""
}

func words(s string) []string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		w = strings.TrimFunc(w, func(r rune) bool { return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127) })
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}
