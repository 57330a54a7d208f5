package retrieve

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/gitmemory/gitmemory/store"
)

// Seed 002's environment variables: the threshold a name must reach to
// match an entity, and the weights of the fuzzy and keyword parts of the
// match score. They override [search] fuzzy_threshold and fuzzy_weight.
const (
	EnvMatchThreshold     = "MATCH_THRESHOLD"
	EnvMatchFuzzyWeight   = "MATCH_FUZZY_WEIGHT"
	EnvMatchKeywordWeight = "MATCH_KEYWORD_WEIGHT"
)

// Seed 002's defaults.
const (
	DefaultMatchThreshold   = 0.4
	DefaultMatchFuzzyWeight = 0.7
)

// ErrBadMatchEnv: a MATCH_* variable is not a number from 0 to 1, or the
// two weights do not add up to 1.
var ErrBadMatchEnv = errors.New("bad match setting")

// MatchSettings are the name-matching settings in force, as --debug
// shows them.
type MatchSettings struct {
	Threshold     float64 `json:"threshold"`
	FuzzyWeight   float64 `json:"fuzzy_weight"`
	KeywordWeight float64 `json:"keyword_weight"`
	// From says where each came from: "default", "config" or the variable.
	From string `json:"from"`
}

// Match returns the options' name-matching settings.
func (o SearchOptions) Match() MatchSettings {
	if o.matchFrom == "" {
		o.matchFrom = "default"
	}
	return MatchSettings{Threshold: o.FuzzyThreshold, FuzzyWeight: o.FuzzyWeight, KeywordWeight: 1 - o.FuzzyWeight, From: o.matchFrom}
}

// applyMatchEnv reads the MATCH_* variables over o. Each must be a number
// from 0 to 1; with one weight given the other is the rest of 1, with both
// they must add up to 1 (the score is a weighted sum; seed 002). A zero
// threshold or fuzzy weight is refused: the search reads zero as "unset"
// and would use the default instead, silently.
func applyMatchEnv(getenv func(string) string, o *SearchOptions) error {
	read := func(name string) (float64, bool, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return 0, false, nil
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || x < 0 || x > 1 {
			return 0, false, fmt.Errorf("%w: %s=%q: want a number from 0 to 1", ErrBadMatchEnv, name, v)
		}
		return x, true, nil
	}
	th, thSet, err := read(EnvMatchThreshold)
	if err != nil {
		return err
	}
	fw, fwSet, err := read(EnvMatchFuzzyWeight)
	if err != nil {
		return err
	}
	kw, kwSet, err := read(EnvMatchKeywordWeight)
	if err != nil {
		return err
	}
	if thSet && th == 0 {
		return fmt.Errorf("%w: %s=0: want more than 0 (every name would match)", ErrBadMatchEnv, EnvMatchThreshold)
	}
	if fwSet && fw == 0 || kwSet && kw == 1 {
		return fmt.Errorf("%w: a fuzzy weight of 0 (%s=0 or %s=1) is not supported: want a fuzzy share above 0", ErrBadMatchEnv, EnvMatchFuzzyWeight, EnvMatchKeywordWeight)
	}
	var from []string
	if thSet {
		o.FuzzyThreshold = th
		from = append(from, EnvMatchThreshold)
	}
	switch {
	case fwSet && kwSet:
		if math.Abs(fw+kw-1) > 1e-9 {
			return fmt.Errorf("%w: %s=%g and %s=%g add up to %g: the weights of a weighted sum must add up to 1",
				ErrBadMatchEnv, EnvMatchFuzzyWeight, fw, EnvMatchKeywordWeight, kw, fw+kw)
		}
		o.FuzzyWeight = fw
		from = append(from, EnvMatchFuzzyWeight, EnvMatchKeywordWeight)
	case fwSet:
		o.FuzzyWeight = fw
		from = append(from, EnvMatchFuzzyWeight)
	case kwSet:
		o.FuzzyWeight = 1 - kw
		from = append(from, EnvMatchKeywordWeight)
	}
	if len(from) > 0 {
		o.matchFrom = strings.Join(from, ", ")
	}
	return nil
}

// MatchScore is seed 002's score of a name for a query: fuzzyWeight ×
// the normalised Levenshtein similarity (case-insensitive) + the rest ×
// the share of identifier parts in common.
func MatchScore(q, name string, fuzzyWeight float64) float64 {
	lq, ln := strings.ToLower(q), strings.ToLower(name)
	d := levenshtein.ComputeDistance(lq, ln)
	fuzzy := 1 - float64(d)/float64(max(len(lq), len(ln), 1))
	qp, np := store.IdentifierParts(q), store.IdentifierParts(name)
	shared := 0
	for _, p := range qp {
		if slices.Contains(np, p) {
			shared++
		}
	}
	kw := 0.0
	if n := max(len(qp), len(np)); n > 0 {
		kw = float64(shared) / float64(n)
	}
	return fuzzyWeight*fuzzy + (1-fuzzyWeight)*kw
}

// BestMatch is the name of names with the highest MatchScore for q, and
// the score; ties go to the first.
func BestMatch(q string, names []string, fuzzyWeight float64) (string, float64) {
	best, bestScore := "", -1.0
	for _, n := range names {
		if s := MatchScore(q, n, fuzzyWeight); s > bestScore {
			best, bestScore = n, s
		}
	}
	return best, bestScore
}
