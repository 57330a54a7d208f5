package retrieve

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/viper"
)

// LookupConfig is the lookup's configuration, the [lookup] section of the
// configuration file.
type LookupConfig struct {
	// MaxMatches is how many matches a lookup returns when the caller
	// gives no limit (seed 000's max_matches).
	MaxMatches int `json:"max_matches"`
	// WindowDays is how many days back a record's event time may lie.
	WindowDays int `json:"window_days"`
}

// DefaultLookupConfig is the configuration without a file: three matches (what a
// pull-request comment shows) from the last 90 days.
func DefaultLookupConfig() LookupConfig { return LookupConfig{MaxMatches: 3, WindowDays: 90} }

// LoadLookupConfig reads the [lookup] section of the TOML file at path over the
// defaults. A missing file is the defaults; an unknown key or a value below
// 1 is an error, so that a typo does not silently change nothing.
func LoadLookupConfig(path string) (LookupConfig, error) {
	cfg := DefaultLookupConfig()
	keys, err := configSection(path, "lookup")
	if err != nil {
		return cfg, fmt.Errorf("%w: read %s: %v", ErrBadLookupConfig, path, err)
	}
	fields := map[string]*int{"max_matches": &cfg.MaxMatches, "window_days": &cfg.WindowDays}
	for _, kv := range keys {
		key := "lookup." + kv[0]
		dst, ok := fields[kv[0]]
		if !ok {
			return cfg, fmt.Errorf("%w: %s: unknown key %s (known: max_matches, window_days)", ErrBadLookupConfig, path, key)
		}
		n, err := strconv.Atoi(kv[1])
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("%w: %s: %s must be a whole number of at least 1, not %q", ErrBadLookupConfig, path, key, kv[1])
		}
		*dst = n
	}
	return cfg, nil
}

// configSection returns the keys and values of one [section] of the TOML
// file at path, in viper's order; a missing file has none.
func configSection(path, section string) ([][2]string, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	v := viper.New()
	v.SetConfigFile(path)
	v.SetConfigType("toml")
	if err := v.ReadInConfig(); err != nil {
		return nil, err
	}
	var out [][2]string
	for _, key := range v.AllKeys() {
		if sec, name, _ := strings.Cut(key, "."); sec == section {
			out = append(out, [2]string{name, v.GetString(key)})
		}
	}
	return out, nil
}
