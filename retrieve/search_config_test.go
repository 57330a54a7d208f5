package retrieve

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestLoadSearchConfig(t *testing.T) {
	dir := t.TempDir()
	o, err := LoadSearchConfig(filepath.Join(dir, "missing.toml"))
	if err != nil || o.Weights != DefaultWeights() || o.FuzzyThreshold != 0.4 || o.Limit != 5 {
		t.Fatalf("defaults: %+v %v", o, err)
	}
	path := filepath.Join(dir, "config.toml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("[lookup]\nmax_matches = 9\n[search]\nrelevance = 0.5\nfuzzy_threshold = 0.6\nlimit = 7\n")
	o, err = LoadSearchConfig(path)
	if err != nil || o.Weights.Relevance != 0.5 || o.FuzzyThreshold != 0.6 || o.Limit != 7 || o.Weights.Recency != DefaultWeights().Recency {
		t.Errorf("read: %+v %v", o, err)
	}
	for _, bad := range []string{"[search]\nrelevanse = 0.5\n", "[search]\nrecency = -1\n", "[search]\nlimit = 0\n",
		"[search]\nlimit = many\n", "[search\n"} {
		write(bad)
		if _, err := LoadSearchConfig(path); !errors.Is(err, ErrBadSearchConfig) {
			t.Errorf("%q: err = %v, want ErrBadSearchConfig", bad, err)
		}
	}
}
