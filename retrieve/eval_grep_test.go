package retrieve

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// TestGitGrepRankerAgreesWithGit ranks questions with the in-memory
// baseline and with git log --grep run word by word, as a developer would,
// on a history with mixed case, merges, multi-line bodies, equal
// timestamps and a message that is not UTF-8: the rankings must be equal.
func TestGitGrepRankerAgreesWithGit(t *testing.T) {
	g := gittest.New(t)
	for i, msg := range []string{
		"Fix the CACHE eviction order",
		"cache: Evict oldest entries first\n\nThe LRU list was walked backwards, so the newest\nentries went first.",
		"Add a --force flag to clean",
		"clean: refuse to delete untracked files unless forced",
		"Docs: mention the Cache size limit",
		"Café: serve the menu from the cache",
	} {
		g.Write("f"+strconv.Itoa(i), msg)
		g.Commit(msg)
	}
	g.Write("latin", "x")
	g.RawCommit([]byte("Caf\xe9 cache fix for the Evict path\n")) // Latin-1, not UTF-8
	g.Git("checkout", "-q", "-b", "topic")
	g.Write("t", "topic")
	g.Commit("topic: cache eviction, again")
	g.Git("checkout", "-q", "main")
	g.Write("m", "main")
	g.Commit("main: unrelated")
	g.Git("merge", "-q", "--no-ff", "-m", "Merge cache eviction topic", "topic") // merges are left out
	// Three words on three lines.
	g.Commit("Evict\nCACHE\nforce")

	ctx := context.Background()
	rank := GitGrepRanker(g.Dir)
	for _, q := range []string{
		"why does the cache evict the oldest entries first?",
		"why does clean refuse to delete files unless I force it?",
		"what limits the cache size?",
		"café",
		"nothing matches zzzz",
	} {
		c := EvalCase{ID: "q", Question: q}
		got, err := rank(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		want := gitGrepEachWord(t, g, c)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%q: ranked %v, git log --grep word by word %v", q, got, want)
		}
		if q != "nothing matches zzzz" && len(got) == 0 {
			t.Errorf("%q: no commit matched", q)
		}
	}
}

// gitGrepEachWord is the baseline as it was first written: a git log
// --grep per word of the question.
func gitGrepEachWord(t *testing.T, g *gittest.Repo, c EvalCase) []Rank {
	words := Normalize(caseText(c))
	slices.Sort(words)
	count := map[string]int{}
	when := map[string]int64{}
	for _, w := range slices.Compact(words) {
		out := g.Git("log", "--format=%H %ct", "-i", "--no-merges", "--fixed-strings", "--grep="+w)
		for line := range strings.Lines(out) {
			hash, ct, _ := strings.Cut(strings.TrimSpace(line), " ")
			if hash == "" {
				continue
			}
			count[hash]++
			when[hash], _ = strconv.ParseInt(ct, 10, 64)
		}
	}
	hashes := slices.Collect(maps.Keys(count))
	slices.SortFunc(hashes, func(a, b string) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(when[b], when[a]), cmp.Compare(a, b))
	})
	return singles(hashes[:min(len(hashes), 10)])
}

// TestGitGrepRankerNotARepository: a directory git does not know gets an
// error that says so, in git's words, at every case.
func TestGitGrepRankerNotARepository(t *testing.T) {
	dir := t.TempDir()
	rank := GitGrepRanker(dir)
	for range 2 {
		_, err := rank(context.Background(), EvalCase{ID: "q", Question: "why cache?"})
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "not a git repository") {
			t.Fatalf("err = %v, want git's not a git repository for %s", err, dir)
		}
	}
}
