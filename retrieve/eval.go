package retrieve

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// EvalCase is one line of an evaluation file: a question (or a path, for a
// file-history case) and the full shas of the commits that answer it.
type EvalCase struct {
	ID       string `json:"id"`
	Kind     string `json:"kind,omitempty"`
	Question string `json:"question,omitempty"`
	Path     string `json:"path,omitempty"`
	// Split is "dev" (tune on it) or "test" (report it, never tune on
	// it); a case without one is dev.
	Split    string   `json:"split,omitempty"`
	Expected []string `json:"expected"`
}

// The splits of an evaluation set.
const (
	SplitDev  = "dev"
	SplitTest = "test"
)

// OfSplit returns the cases of one split, in order.
func OfSplit(cases []EvalCase, split string) []EvalCase {
	var out []EvalCase
	for _, c := range cases {
		if c.Split == split {
			out = append(out, c)
		}
	}
	return out
}

// ReadEvalCases parses a JSONL evaluation file, one case a line (blank
// lines and lines starting with # are skipped), with line-numbered errors.
func ReadEvalCases(r io.Reader) ([]EvalCase, error) {
	var out []EvalCase
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var c EvalCase
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		switch {
		case c.ID == "":
			return nil, fmt.Errorf("line %d: no id", n)
		case seen[c.ID]:
			return nil, fmt.Errorf("line %d: id %q repeated", n, c.ID)
		case (c.Question == "") == (c.Path == ""):
			return nil, fmt.Errorf("line %d (%s): give a question or a path, not both or neither", n, c.ID)
		case len(c.Expected) == 0:
			return nil, fmt.Errorf("line %d (%s): no expected commits", n, c.ID)
		case c.Split != "" && c.Split != SplitDev && c.Split != SplitTest:
			return nil, fmt.Errorf("line %d (%s): split %q: want dev or test", n, c.ID, c.Split)
		}
		if c.Split == "" {
			c.Split = SplitDev
		}
		for _, e := range c.Expected {
			if len(e) != 40 || strings.Trim(strings.ToLower(e), "0123456789abcdef") != "" {
				return nil, fmt.Errorf("line %d (%s): %q is not a full commit sha", n, c.ID, e)
			}
		}
		if c.Kind == "" {
			c.Kind = "question"
			if c.Path != "" {
				c.Kind = "history"
			}
		}
		seen[c.ID] = true
		out = append(out, c)
	}
	return out, sc.Err()
}

// Ranker ranks commits for a case, best first.
type Ranker func(ctx context.Context, c EvalCase) ([]Rank, error)

// Rank is the commits one result names: a commit, and the other copies of
// its change that the result stands for (Item.Copies).
type Rank []string

// singles makes each commit a result of its own.
func singles(hashes []string) []Rank {
	out := make([]Rank, len(hashes))
	for i, h := range hashes {
		out[i] = Rank{h}
	}
	return out
}

// Scores are recall at 5 and 10 and the mean reciprocal rank, over all
// cases and per kind.
type Scores struct {
	Cases    int     `json:"cases"`
	Recall5  float64 `json:"recall@5"`
	Recall10 float64 `json:"recall@10"`
	MRR      float64 `json:"mrr"`
}

// EvalReport is one ranker's scores.
type EvalReport struct {
	Ranker string            `json:"ranker"`
	Split  string            `json:"split,omitempty"`
	All    Scores            `json:"all"`
	ByKind map[string]Scores `json:"by_kind"`
	// Misses lists the cases whose first expected commit is not in the
	// top 10, for looking at causes.
	Misses []string `json:"misses,omitempty"`
}

// Evaluate runs a ranker over the cases. Recall@k is the share of a case's
// expected commits in its top k, averaged over cases; the reciprocal rank
// is that of the first expected commit found (0 beyond the top 10).
func Evaluate(ctx context.Context, name string, cases []EvalCase, rank Ranker) (*EvalReport, error) {
	rep := &EvalReport{Ranker: name, ByKind: map[string]Scores{}}
	for _, c := range cases {
		got, err := rank(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, c.ID, err)
		}
		got = got[:min(len(got), 10)]
		r5, r10, rr := 0.0, 0.0, 0.0
		for _, e := range c.Expected {
			if i := slices.IndexFunc(got, func(r Rank) bool { return slices.Contains(r, e) }); i >= 0 {
				r10++
				if i < 5 {
					r5++
				}
				if rr == 0 || 1/float64(i+1) > rr {
					rr = 1 / float64(i+1)
				}
			}
		}
		n := float64(len(c.Expected))
		if rr == 0 {
			rep.Misses = append(rep.Misses, c.ID)
		}
		for _, k := range []string{"", c.Kind} {
			s := rep.ByKind[k]
			s.Cases++
			s.Recall5 += r5 / n
			s.Recall10 += r10 / n
			s.MRR += rr
			rep.ByKind[k] = s
		}
	}
	for k, s := range rep.ByKind {
		if s.Cases > 0 {
			s.Recall5 /= float64(s.Cases)
			s.Recall10 /= float64(s.Cases)
			s.MRR /= float64(s.Cases)
		}
		rep.ByKind[k] = s
	}
	rep.All = rep.ByKind[""]
	delete(rep.ByKind, "")
	return rep, nil
}

// caseText is what the baselines search for: the question, or the path's
// words for a history case.
func caseText(c EvalCase) string {
	if c.Question != "" {
		return c.Question
	}
	return strings.NewReplacer("/", " ", ".", " ", "_", " ").Replace(c.Path)
}

// GitGrepRanker is the first baseline: git log --grep as a developer
// would use it, one content word of the question at a time
// (case-insensitive), ranking the commits by how many of the words their
// message holds, newest first among equals.
//
// It reads HEAD's messages once and matches in memory, as `git log -i
// --fixed-strings --no-merges --grep=WORD` does in the C locale (ASCII
// letters of either case): a git log per word took minutes over a large
// history's cases.
func GitGrepRanker(repoPath string) Ranker {
	var (
		once    sync.Once
		log     *grepLog
		loadErr error
	)
	return func(ctx context.Context, c EvalCase) ([]Rank, error) {
		once.Do(func() { log, loadErr = readGrepLog(ctx, repoPath) })
		if loadErr != nil {
			return nil, loadErr
		}
		words := Normalize(caseText(c))
		slices.Sort(words)
		count := map[int]int{}
		for _, w := range slices.Compact(words) {
			for _, i := range log.matching(w) {
				count[i]++
			}
		}
		idx := slices.Collect(maps.Keys(count))
		slices.SortFunc(idx, func(a, b int) int {
			ca, cb := log.commits[a], log.commits[b]
			return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(cb.time, ca.time), cmp.Compare(ca.hash, cb.hash))
		})
		hashes := make([]string, 0, 10)
		for _, i := range idx[:min(len(idx), 10)] {
			hashes = append(hashes, log.commits[i].hash)
		}
		return singles(hashes), nil
	}
}

// grepLog is HEAD's non-merge commits with their messages, ASCII
// lower-cased, and the commits each word matched so far.
type grepLog struct {
	commits []grepCommit
	memo    map[string][]int
}

type grepCommit struct {
	hash, message string
	time          int64
}

func readGrepLog(ctx context.Context, repoPath string) (*grepLog, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", repoPath, "log", "-z", "--no-merges",
		"--format=%H %ct%n%B").Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return nil, fmt.Errorf("git log in %s: %w: %s", repoPath, err, bytes.TrimSpace(ee.Stderr))
	}
	if err != nil {
		return nil, fmt.Errorf("git log in %s: %w", repoPath, err)
	}
	l := &grepLog{memo: map[string][]int{}}
	for rec := range strings.SplitSeq(string(out), "\x00") {
		head, msg, _ := strings.Cut(rec, "\n")
		hash, ct, ok := strings.Cut(head, " ")
		if !ok {
			continue
		}
		t, _ := strconv.ParseInt(ct, 10, 64)
		l.commits = append(l.commits, grepCommit{hash: hash, time: t, message: asciiLower(msg)})
	}
	return l, nil
}

// matching is the indexes of the commits whose message holds w.
func (l *grepLog) matching(w string) []int {
	w = asciiLower(w)
	if m, ok := l.memo[w]; ok {
		return m
	}
	var m []int
	for i, c := range l.commits {
		if strings.Contains(c.message, w) {
			m = append(m, i)
		}
	}
	l.memo[w] = m
	return m
}

// asciiLower lower-cases ASCII letters only, as git's -i does for a
// fixed string in the C locale; other bytes, in UTF-8 or not, stay as
// they are.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// MessageBM25Ranker is the second baseline: plain BM25 over commit
// messages (subject and body, no identifier parts, no other signal).
func MessageBM25Ranker(s *Searcher) Ranker {
	return func(ctx context.Context, c EvalCase) ([]Rank, error) {
		hits, err := Keyword(ctx, s.st, KeywordQuery{Terms: Normalize(caseText(c)), Limit: 10, MessagesOnly: true})
		if err != nil {
			return nil, err
		}
		out := make([]Rank, len(hits))
		for i, h := range hits {
			out[i] = Rank{h.Commit}
		}
		return out, nil
	}
}

// SearchRanker ranks with gitmemory itself: Search for a question, the key
// commits of its history (history --key) for a path.
func SearchRanker(s *Searcher, mode Mode) Ranker {
	return func(ctx context.Context, c EvalCase) ([]Rank, error) {
		if c.Path != "" {
			cs, err := KeyHistory(ctx, s.st, HistoryQuery{Path: c.Path, Limit: 10})
			if err != nil {
				return nil, err
			}
			return singles(commitsOfChanges(cs)), nil
		}
		a, err := s.Search(ctx, Request{Query: c.Question, Mode: mode, Limit: 10})
		if err != nil {
			return nil, err
		}
		out := make([]Rank, len(a.Items))
		for i, it := range a.Items {
			out[i] = append(Rank{it.Commit}, it.Copies...)
		}
		return out, nil
	}
}

func commitsOfChanges(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Commit
	}
	return out
}
