package retrieve

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestReadEvalCasesErrors(t *testing.T) {
	sha := strings.Repeat("a", 40)
	for name, in := range map[string]string{
		"bad json":      `{"id": "q1", "question": "x", "expected": [`,
		"unknown field": `{"id": "q1", "question": "x", "expected": ["` + sha + `"], "answer": 1}`,
		"no id":         `{"question": "x", "expected": ["` + sha + `"]}`,
		"repeated id":   `{"id": "q1", "question": "x", "expected": ["` + sha + `"]}` + "\n" + `{"id": "q1", "question": "y", "expected": ["` + sha + `"]}`,
		"both":          `{"id": "q1", "question": "x", "path": "a.go", "expected": ["` + sha + `"]}`,
		"neither":       `{"id": "q1", "expected": ["` + sha + `"]}`,
		"no expected":   `{"id": "q1", "question": "x", "expected": []}`,
		"short sha":     `{"id": "q1", "question": "x", "expected": ["abc123"]}`,
		"not hex":       `{"id": "q1", "question": "x", "expected": ["` + strings.Repeat("z", 40) + `"]}`,
		"bad split":     `{"id": "q1", "question": "x", "split": "train", "expected": ["` + sha + `"]}`,
	} {
		if _, err := ReadEvalCases(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	cases, err := ReadEvalCases(strings.NewReader("# a comment\n\n" +
		`{"id": "q1", "question": "x", "expected": ["` + sha + `"]}` + "\n" + `{"id": "h1", "path": "a.go", "expected": ["` + sha + `"]}`))
	if err != nil || len(cases) != 2 || cases[0].Kind != "question" || cases[1].Kind != "history" {
		t.Errorf("cases %+v, err %v", cases, err)
	}
	// A case without a split is dev; OfSplit keeps a split's cases in order.
	cases, err = ReadEvalCases(strings.NewReader(`{"id": "a", "question": "x", "expected": ["` + sha + `"]}` + "\n" +
		`{"id": "b", "question": "y", "split": "test", "expected": ["` + sha + `"]}` + "\n" +
		`{"id": "c", "question": "z", "split": "dev", "expected": ["` + sha + `"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if dev, test := OfSplit(cases, SplitDev), OfSplit(cases, SplitTest); len(dev) != 2 || dev[0].ID != "a" || dev[1].ID != "c" ||
		len(test) != 1 || test[0].ID != "b" {
		t.Errorf("dev %+v, test %+v", dev, test)
	}
}

func TestEvaluate(t *testing.T) {
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	cases := []EvalCase{
		{ID: "1", Kind: "why", Question: "x", Expected: []string{a}},    // rank 1
		{ID: "2", Kind: "why", Question: "y", Expected: []string{b, c}}, // b at rank 6, c missing
		{ID: "3", Kind: "when", Question: "z", Expected: []string{c}},   // missing
	}
	ranked := map[string][]string{
		"1": {a},
		"2": {"1", "2", "3", "4", "5", b, "7"},
		"3": {a, b},
	}
	rep, err := Evaluate(context.Background(), "t", cases, func(_ context.Context, c EvalCase) ([]Rank, error) {
		return singles(ranked[c.ID]), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	if rep.All.Cases != 3 || !near(rep.All.Recall5, 1.0/3) || !near(rep.All.Recall10, 1.5/3) || !near(rep.All.MRR, (1+1.0/6)/3) {
		t.Errorf("all = %+v", rep.All)
	}
	if w := rep.ByKind["why"]; w.Cases != 2 || !near(w.Recall10, 0.75) || !near(w.MRR, (1+1.0/6)/2) {
		t.Errorf("why = %+v", w)
	}
	if len(rep.Misses) != 1 || rep.Misses[0] != "3" {
		t.Errorf("misses = %v", rep.Misses)
	}

	// A result that stands for two copies of a change finds both.
	copies := []EvalCase{{ID: "4", Kind: "why", Question: "w", Expected: []string{b, c}}}
	rep, err = Evaluate(context.Background(), "t", copies, func(context.Context, EvalCase) ([]Rank, error) {
		return []Rank{{a}, {c, b}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !near(rep.All.Recall5, 1) || !near(rep.All.MRR, 0.5) {
		t.Errorf("copies = %+v, want both found at rank 2", rep.All)
	}
}
