package mcpserver

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/retrieve"
)

// listAnswer renders the first n of total numbered lines.
func listAnswer(total int) func(n int) *answer[[]string] {
	return func(n int) *answer[[]string] {
		var b strings.Builder
		items := make([]string, n)
		for i := range n {
			items[i] = fmt.Sprintf("item %d: a line about one commit and what it changed", i)
			b.WriteString(items[i] + "\n")
		}
		leftOut(&b, total-n, "item")
		return &answer[[]string]{text: b.String(), out: items}
	}
}

func TestFitListIsLargestThatFits(t *testing.T) {
	t.Parallel()
	const total, budget = 60, 300
	render := listAnswer(total)
	a, err := fitList(budget, total, render)
	if err != nil {
		t.Fatal(err)
	}
	n := len(a.out)
	if n == 0 || n == total {
		t.Fatalf("%d of %d items shown", n, total)
	}
	if ok, _ := fits(a, budget); !ok {
		t.Errorf("%d items do not fit", n)
	}
	if ok, _ := fits(render(n+1), budget); ok {
		t.Errorf("%d items would fit too", n+1)
	}
	if want := fmt.Sprintf("… %d more items; raise token_budget", total-n); !strings.Contains(a.text, want) {
		t.Errorf("text lacks %q", want)
	}
	if a, err := fitList(budget, 3, listAnswer(3)); err != nil || len(a.out) != 3 {
		t.Errorf("a short list is cut: %v", err)
	}
	if _, err := fitList(3, total, render); !errors.Is(err, errTooSmall) {
		t.Errorf("budget 3: %v", err)
	}
}

func TestFitEventsDropsListsLast(t *testing.T) {
	t.Parallel()
	head := EntityOutput{Repository: "demo", Entity: Entity{Key: "a.go#F", Kind: "function", Path: "a.go"}}
	for i := range 60 {
		head.Others = append(head.Others, fmt.Sprintf("method pkg/very/long/path/file%d.go#pkg.Type%d.F", i, i))
	}
	events := []EntityEvent{{Commit: strings.Repeat("a", 40), Date: "2024-03-01T10:00:00Z", Action: "introduces", Summary: "add F"}}
	a, err := fitEvents(150, head, events)
	if err != nil {
		t.Fatal(err)
	}
	if a.out.Others != nil || len(a.out.Events) != 1 || !strings.Contains(a.text, "left out to fit token_budget") {
		t.Errorf("answer:\n%s", a.text)
	}
	if n, _ := retrieve.CountTokens(a.text); n > 150 {
		t.Errorf("%d tokens", n)
	}
}
