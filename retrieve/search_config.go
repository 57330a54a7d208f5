package retrieve

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// ErrBadSearchConfig: the [search] section of the configuration file has
// an unknown key or a value out of range.
var ErrBadSearchConfig = errors.New("bad [search] configuration")

// LoadSearchConfig reads the [search] section of the TOML file at path over
// the defaults:
//
//	[search]
//	relevance = 0.8       # seed 003's w1..w5 (see DefaultWeights)
//	recency = 0.05
//	importance = 0.05
//	relationship = 0.1
//	author = 0.05
//	bonus = 0.02          # scale of seed 001's additive points
//	vector = 0.3          # vector share of relevance in hybrid mode
//	fuzzy_threshold = 0.4 # seed 002
//	fuzzy_weight = 0.7
//	stale_days = 90
//	limit = 5
//
// A missing file is the defaults; seed 002's MATCH_THRESHOLD,
// MATCH_FUZZY_WEIGHT and MATCH_KEYWORD_WEIGHT override fuzzy_threshold and
// fuzzy_weight (match.go), and a bad value is an error.
// A missing file is the defaults; an unknown key or a negative value is an
// error, so that a typo does not silently change nothing.
func LoadSearchConfig(path string) (SearchOptions, error) {
	o := SearchOptions{Weights: DefaultWeights()}.withDefaults()
	keys, err := configSection(path, "search")
	if err != nil {
		return o, fmt.Errorf("%w: read %s: %v", ErrBadSearchConfig, path, err)
	}
	w := &o.Weights
	floats := map[string]*float64{"relevance": &w.Relevance, "recency": &w.Recency, "importance": &w.Importance,
		"relationship": &w.Relationship, "author": &w.Author, "bonus": &w.Bonus, "vector": &w.Vector,
		"fuzzy_threshold": &o.FuzzyThreshold, "fuzzy_weight": &o.FuzzyWeight}
	ints := map[string]*int{"stale_days": &o.StaleDays, "limit": &o.Limit}
	for _, kv := range keys {
		name, val, key := kv[0], kv[1], "search."+kv[0]
		if f, ok := floats[name]; ok {
			x, err := strconv.ParseFloat(val, 64)
			if err != nil || x < 0 {
				return o, fmt.Errorf("%w: %s: %s must be a number ≥ 0, not %q", ErrBadSearchConfig, path, key, val)
			}
			*f = x
			continue
		}
		if n, ok := ints[name]; ok {
			x, err := strconv.Atoi(val)
			if err != nil || x < 1 {
				return o, fmt.Errorf("%w: %s: %s must be a whole number ≥ 1, not %q", ErrBadSearchConfig, path, key, val)
			}
			*n = x
			continue
		}
		return o, fmt.Errorf("%w: %s: unknown key %s", ErrBadSearchConfig, path, key)
	}
	for _, kv := range keys {
		if kv[0] == "fuzzy_threshold" || kv[0] == "fuzzy_weight" {
			o.matchFrom = "config"
		}
	}
	return o, applyMatchEnv(os.Getenv, &o)
}
