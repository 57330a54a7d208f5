package retrieve

import (
	"errors"
	"math"
	"testing"
)

func TestMatchEnv(t *testing.T) {
	for _, c := range []struct {
		env       map[string]string
		threshold float64
		fuzzy     float64
		from      string
		bad       bool
	}{
		{map[string]string{}, 0.4, 0.7, "default", false}, // seed 002's defaults
		{map[string]string{"MATCH_THRESHOLD": "0.99"}, 0.99, 0.7, "MATCH_THRESHOLD", false},
		{map[string]string{"MATCH_FUZZY_WEIGHT": "0.6"}, 0.4, 0.6, "MATCH_FUZZY_WEIGHT", false},
		{map[string]string{"MATCH_KEYWORD_WEIGHT": "0.25"}, 0.4, 0.75, "MATCH_KEYWORD_WEIGHT", false},
		{map[string]string{"MATCH_FUZZY_WEIGHT": "0.5", "MATCH_KEYWORD_WEIGHT": "0.5"}, 0.4, 0.5, "MATCH_FUZZY_WEIGHT, MATCH_KEYWORD_WEIGHT", false},
		{env: map[string]string{"MATCH_FUZZY_WEIGHT": "0.5", "MATCH_KEYWORD_WEIGHT": "0.4"}, bad: true},
		{env: map[string]string{"MATCH_THRESHOLD": "1.2"}, bad: true},
		{env: map[string]string{"MATCH_THRESHOLD": "-0.1"}, bad: true},
		{env: map[string]string{"MATCH_THRESHOLD": "0"}, bad: true},
		{env: map[string]string{"MATCH_THRESHOLD": "NaN"}, bad: true},
		{env: map[string]string{"MATCH_FUZZY_WEIGHT": "x"}, bad: true},
		{env: map[string]string{"MATCH_KEYWORD_WEIGHT": "1"}, bad: true},
	} {
		o := SearchOptions{}.withDefaults()
		err := applyMatchEnv(func(k string) string { return c.env[k] }, &o)
		if c.bad {
			if !errors.Is(err, ErrBadMatchEnv) {
				t.Errorf("%v: error %v, want ErrBadMatchEnv", c.env, err)
			}
			continue
		}
		m := o.Match()
		if err != nil || m.Threshold != c.threshold || m.FuzzyWeight != c.fuzzy || math.Abs(m.KeywordWeight-(1-c.fuzzy)) > 1e-9 || m.From != c.from {
			t.Errorf("%v: %+v, %v; want threshold %g, fuzzy %g from %s", c.env, m, err, c.threshold, c.fuzzy, c.from)
		}
	}
}

func TestMatchScore(t *testing.T) {
	// Summ → Sum: one edit in four letters, no shared identifier part.
	if got := MatchScore("Summ", "Sum", 0.7); math.Abs(got-0.525) > 1e-9 {
		t.Errorf("MatchScore(Summ, Sum) = %g, want 0.525", got)
	}
	// parseConfig → parse_config: the same parts, so the keyword share is whole.
	if got := MatchScore("parseConfig", "parse_config", 0.7); got < 0.3 || got <= MatchScore("parseConfig", "parseCount", 0) {
		t.Errorf("shared parts do not count: %g", got)
	}
	if best, s := BestMatch("Ad", []string{"Sub", "Add", "Mul"}, 0.7); best != "Add" || s < 0.4 {
		t.Errorf("BestMatch(Ad) = %s %g", best, s)
	}
}
