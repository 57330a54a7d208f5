package retrieve

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

func TestAsksRemoval(t *testing.T) {
	for q, want := range map[string]bool{
		"why did the scaffolding tool get pulled out of this repo? where did it go?": true,
		"when was the legacy exporter removed":                                       true,
		"почему удалили экспортёр":                                                   true,
		"how has stripFlags changed (the helper that removes flags from args)?":      false,
		"why does the parser crash":                                                  false,
	} {
		if got := asksRemoval(q); got != want {
			t.Errorf("asksRemoval(%q) = %v, want %v", q, got, want)
		}
	}
	if !mostlyDeletes(3, 40) || mostlyDeletes(30, 40) || mostlyDeletes(0, 5) {
		t.Error("mostlyDeletes: want many more deletions than insertions, and enough of them")
	}
}

func TestNamesAny(t *testing.T) {
	names := entityNames([]string{"command.go#cobra.Command.mergePersistentFlags", "a.go#pkg.Find", "b.go#pkg.Find"})
	if !slices.Equal(names, []string{"mergePersistentFlags", "Find"}) {
		t.Fatalf("entityNames = %q", names)
	}
	for subject, want := range map[string]bool{
		"Add only missing persistent flags of parents in mergePersistentFlags": true,
		"Find: skip flag values":                      true,
		"Rework FindSuggestions":                      false, // a longer word
		"merge persistent flags faster":               false, // the name's words, not the name
		"find the subcommand without the flag values": false, // case matters
	} {
		if got := namesAny(subject, names); got != want {
			t.Errorf("namesAny(%q) = %v, want %v", subject, got, want)
		}
	}
}

// rankRepo has a feature added, later removed by a commit whose message
// shares no word with the feature's name, and a commit whose subject names
// the function it changes.
func rankRepo(t *testing.T) (*gittest.Repo, map[string]string) {
	g := gittest.New(t)
	c := map[string]string{}
	var legacy strings.Builder
	legacy.WriteString("package export\n\n")
	for i := range 30 {
		legacy.WriteString("// legacy exporter step " + strings.Repeat("x", i%7) + "\n")
	}
	legacy.WriteString("func legacyExport() {}\n")
	g.Write("export/legacy.go", legacy.String())
	g.Write("export/buffer.go", "package export\n\nfunc bufferSize() int {\n\treturn 4096\n}\n")
	c["add"] = g.Commit("Add the legacy exporter for old dashboards")
	g.Write("export/legacy.go", legacy.String()+"\n// the legacy exporter keeps old dashboards working\n")
	c["doc"] = g.Commit("Explain why the legacy exporter exists: old dashboards")
	g.Write("export/buffer.go", "package export\n\nfunc bufferSize() int {\n\treturn 8192\n}\n")
	c["tune"] = g.Commit("Tune the exporter's buffers for old dashboards")
	g.Git("rm", "-q", "export/legacy.go")
	c["drop"] = g.Commit("Clean up unused code paths")
	g.Write("export/buffer.go", "package export\n\nfunc bufferSize() int {\n\treturn 16384\n}\n")
	c["named"] = g.Commit("Double bufferSize again")
	g.Write("export/buffer.go", "package export\n\n// bigger buffers\nfunc bufferSize() int {\n\treturn 16384 * 2\n}\n")
	c["other"] = g.Commit("Grow the exporter buffer for large dashboards")
	return g, c
}

func TestRankRemovalAndNamedSubjects(t *testing.T) {
	g, c := rankRepo(t)
	s := newSearcher(t, g, true)
	ctx := context.Background()
	top := func(q string) string {
		t.Helper()
		a, err := s.Search(ctx, Request{Query: q})
		if err != nil || len(a.Items) == 0 {
			t.Fatalf("%q: %+v %v", q, a, err)
		}
		return a.Items[0].Commit
	}
	// The removal question's words match the commit that added the
	// exporter; the commit that took it out must come first.
	if got := top("why was the legacy exporter for old dashboards pulled out?"); got != c["drop"] {
		t.Errorf("removal question: top %s, want the deleting commit %s", got, c["drop"])
	}
	// Every commit changed bufferSize; the one whose subject names it is
	// about it.
	if got := top("how did bufferSize evolve"); got != c["named"] {
		t.Errorf("entity question: top %s, want the commit naming bufferSize %s", got, c["named"])
	}
}

func TestFuzzyEntityDampedWhenTheHistorySpellsTheName(t *testing.T) {
	g := gittest.New(t)
	g.Write("api/handler.go", "package api\n\nfunc validArgsFunc() {}\n")
	g.Commit("Add validArgsFunc")
	s := newSearcher(t, g, false)
	ctx := context.Background()
	_, before, _, err := s.resolveEntities(ctx, []string{"ValidArgsFunction"})
	if err != nil {
		t.Fatal(err)
	}
	g.Write("api/doc.go", "package api\n")
	g.Commit("Document the ValidArgsFunction field")
	s = newSearcher(t, g, false)
	_, after, _, err := s.resolveEntities(ctx, []string{"ValidArgsFunction"})
	if err != nil {
		t.Fatal(err)
	}
	key := "api/handler.go#api.validArgsFunc"
	if before[key] == 0 || before[key] >= 1 || after[key] != before[key]/2 {
		t.Errorf("strength of %s: %v before the history spelled the name, %v after; want a fuzzy match, then half", key, before[key], after[key])
	}
}

// A merge whose message sums up the commit it brings in matches the
// question as well as that commit does, here better; the commit that did
// the work must come first, the merge still among the results.
func TestRankMergeBelowTheWorkItMerges(t *testing.T) {
	g := gittest.New(t)
	g.Write("upload.go", "package upload\n\nfunc send() {}\n")
	g.Commit("Add the uploader")
	g.Git("checkout", "-q", "-b", "retry")
	g.Write("upload.go", "package upload\n\nfunc send() { retry(3) }\n\nfunc retry(n int) {}\n")
	work := g.Commit("Retry uploads three times when the network drops\n\n" +
		"Mobile clients lose their connection in tunnels and lifts; a single attempt lost the " +
		"user's file, and support tickets piled up. A small fixed count keeps a dead server from " +
		"being hammered while covering the short outages seen in field reports from the beta.")
	g.Git("checkout", "-q", "main")
	g.Write("README.md", "uploader\n")
	g.Commit("Describe the uploader")
	g.Tick()
	g.Git("merge", "-q", "--no-ff", "-m", "Merge branch 'retry': retry uploads when the network drops\n\nUploads are retried three times when the network drops them.", "retry")
	merge := g.Head()
	s := newSearcher(t, g, true)
	a, err := s.Search(context.Background(), Request{Query: "why are uploads retried three times when the network drops?"})
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, it := range a.Items {
		rank[it.Commit] = i + 1
	}
	if rank[work] != 1 || rank[merge] == 0 {
		t.Errorf("ranks: work %d, merge %d (0: absent); want the work first and the merge among the results", rank[work], rank[merge])
		for _, it := range a.Items {
			t.Log(it.Commit[:7], it.Score, it.Components)
		}
	}
}

// A why-question about how something behaves now is most often answered
// by the commit that changed a default, which matches its words no better
// than the commits that built the behaviour. It comes first for such a
// question, and only for such a question.
func TestRankChangedDefaultForBehaviourQuestions(t *testing.T) {
	g := gittest.New(t)
	g.Write("log.go", "package log\n\nfunc paint(s string) string { return s }\n")
	built := g.Commit("Colour the log output on terminals\n\nThe log output gets colours for levels on terminals.")
	g.Write("log.go", "package log\n\nvar colour = true\n\nfunc paint(s string) string { return s }\n")
	flipped := g.Commit("Turn colour on by default for the log output\n\nMost terminals support it.")
	g.Write("README.md", "log\n")
	g.Commit("Describe the logger")
	s := newSearcher(t, g, true)
	wantTops(t, s, map[string]string{
		"why is the log output in colour now on my terminal?": flipped,
		"where does the log output get colours on terminals?": built,
	})
	if !askedFor("why does it no longer page the output?", IntentExplain).behaviour ||
		askedFor("why does the parser crash on empty input?", IntentExplain).behaviour ||
		askedFor("what changed the default pager", IntentResearch).behaviour {
		t.Error("askedFor: behaviour wants a why-question about how something behaves now")
	}
	for subject, want := range map[string]bool{
		"Make maintainer-mode default to disabled": true,
		"No 'json spaces' by default":              true,
		"Включить цвет по умолчанию":               true,
		"Add the defaultPager setting":             true,
		"Fix the undefaulted flag":                 false,
		"Colour the log output on terminals":       false,
	} {
		if got := changesDefault(subject); got != want {
			t.Errorf("changesDefault(%q) = %v, want %v", subject, got, want)
		}
	}
}

// A question that says when something changed lifts the commits of that
// time over ones that match as well from another year; without a time,
// the better match stays first.
func TestRankCommitsOfTheTimeTheQuestionNames(t *testing.T) {
	g := gittest.New(t) // gittest's clock starts in March 2024, an hour a commit
	g.Write("cache.go", "package cache\n\nfunc evict() {}\n")
	early := g.Commit("Evict the oldest cache entries first\n\nThe cache drops its oldest entries when it is full.")
	for range 24 * 366 {
		g.Tick()
	}
	g.Write("cache.go", "package cache\n\nfunc evict() {}\n\nfunc full() bool { return false }\n")
	later := g.Commit("Evict cache entries when the cache is full\n\nThe cache now evicts its entries at a size limit.")
	s := newSearcher(t, g, true)
	wantTops(t, s, map[string]string{
		"why did the cache start evicting entries when full in early 2024?": early,
		"why did the cache start evicting entries in 2025?":                 later,
	})
	d := func(y int, m time.Month) int64 { return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).Unix() }
	for q, want := range map[string]windows{
		"it broke in 2019":                         {{d(2018, 12), d(2020, 2)}},
		"in early 2019 it got slow":                {{d(2018, 12), d(2019, 7)}},
		"around mid-2023":                          {{d(2023, 3), d(2023, 11)}},
		"in late 2024":                             {{d(2024, 6), d(2025, 2)}},
		"in December 2012 a switch appeared":       {{d(2012, 11), d(2013, 2)}},
		"around 2012 and 2013 the reply vanished":  {{d(2011, 12), d(2014, 2)}},
		"в начале 2019 года":                       {{d(2018, 12), d(2019, 7)}},
		"the year 2000 problem, RFC 2822, C99, 42": {{d(1999, 12), d(2001, 2)}},
		"no time at all":                           nil,
	} {
		if got := whenWindows(q); !slices.Equal(got, want) {
			t.Errorf("whenWindows(%q) = %v, want %v", q, got, want)
		}
	}
}

// A question about where a capability came from prefers the commit that
// added it over a later fix that matches as well; a question about a
// failure keeps the fix first.
func TestRankFeatureCommitsForWhereACapabilityCameFrom(t *testing.T) {
	g := gittest.New(t)
	g.Write("cache.go", "package cache\n\nfunc evict() {}\n")
	added := g.Commit("Add eviction of old entries to the cache")
	g.Write("cache.go", "package cache\n\nfunc evict() { _ = 1 }\n")
	fixed := g.Commit("Fix eviction of old entries in the cache")
	s := newSearcher(t, g, true)
	wantTops(t, s, map[string]string{
		"when did the cache gain eviction of old entries?":     added,
		"why does eviction of old entries in the cache break?": fixed,
	})
	wantAsked(t, "feature", func(a asks) bool { return a.feature },
		"since when can scripts encode JSON?", "why was the JSON encoder added to scripts?")
}

// A question about why something was taken out prefers the small commit
// that removed it over the commits that added and fixed it, which match
// the question's words as well; a question about where it came from
// keeps the commit that added it first.
func TestRankRemovalsForWhySomethingWasTakenOut(t *testing.T) {
	g := gittest.New(t)
	g.Write("ui.go", "package ui\n\nfunc mouse() {}\n\nfunc draw() {}\n")
	added := g.Commit("Support the mouse in the list: click an entry to select it")
	g.Write("ui.go", "package ui\n\nfunc mouse() { _ = 1 }\n\nfunc draw() {}\n")
	g.Commit("Fix the offset of a mouse click on a wrapped entry in the list")
	g.Write("ui.go", "package ui\n\nfunc draw() {}\n")
	removed := g.Commit("Remove mouse support")
	s := newSearcher(t, g, true)
	wantTops(t, s, map[string]string{
		"the list used to support the mouse: what made them take that out?": removed,
		"when did the list gain mouse support to click an entry?":           added,
	})
	wantAsked(t, "takenOut", func(a asks) bool { return a.takenOut },
		"why was the shortcut taken out of the sort?", "why does the sort take so long?")
	wantMatches(t, "removesSubject", removesSubject, map[string]bool{
		"Remove mouse support": true, "pqsort.c: remove the insertion sort shortcut": true,
		"Disable chain commands": true, "Removing dead code is good": false, "Add remove button": false,
	})
}

// wantMatches checks which subjects rx matches.
func wantMatches(t *testing.T, name string, rx *regexp.Regexp, subjects map[string]bool) {
	t.Helper()
	for subject, want := range subjects {
		if got := rx.MatchString(subject); got != want {
			t.Errorf("%s(%q) = %v, want %v", name, subject, got, want)
		}
	}
}

// wantAsked checks that askedFor reads an ask from the question yes and
// not from the question no.
func wantAsked(t *testing.T, name string, ask func(asks) bool, yes, no string) {
	t.Helper()
	if !ask(askedFor(yes, ClassifyIntent(yes))) || ask(askedFor(no, ClassifyIntent(no))) {
		t.Errorf("askedFor: %s wants %q and not %q", name, yes, no)
	}
}

// wantTops asks each question and checks which commit comes first.
func wantTops(t *testing.T, s *Searcher, tops map[string]string) {
	t.Helper()
	for q, want := range tops {
		a, err := s.Search(context.Background(), Request{Query: q})
		if err != nil || len(a.Items) < 2 {
			t.Fatalf("%q: %+v %v", q, a, err)
		}
		if a.Items[0].Commit != want {
			t.Errorf("%q: top %s, want %s", q, a.Items[0].Commit, want)
		}
	}
}

// A question describing a symptom in a sentence is answered by the
// commit whose body explains it, not by one whose subject names the same
// things: the keyword index weighs a subject's words twice a body's, the
// message alone weighs them alike (messageShare).
func TestRankTheMessageThatExplainsTheSymptom(t *testing.T) {
	g := gittest.New(t)
	for i, subject := range []string{"Start the help renderer", "Add a man page", "Wrap long descriptions", "Sort subcommands"} {
		g.Write("help/render.go", fmt.Sprintf("package help\n\nfunc render() int { return %d }\n", i))
		g.Commit(subject)
	}
	g.Write("help/render.go", "package help\n\nfunc render() int { return 7 }\n")
	named := g.Commit("help: columns of repeated options")
	g.Write("help/render.go", "package help\n\nfunc render() int { return 8 }\n")
	explains := g.Commit("help: count a value's width once\n\nThe help columns came out misaligned for an option that may\n" +
		"be repeated: its value was measured for every occurrence.")
	s := newSearcher(t, g, false)
	a, err := s.Search(context.Background(), Request{Query: "why were the help columns misaligned for a repeated option?", Mode: ModeKeyword})
	if err != nil || len(a.Items) < 2 {
		t.Fatalf("%+v %v", a, err)
	}
	if a.Items[0].Commit != explains {
		t.Errorf("top %s, want %s (the one naming columns of repeated options is %s)", a.Items[0].Commit, explains, named)
	}
}
