package retrieve

import (
	"fmt"
	"strings"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/model"
)

const pathsPrefix = model.PathsFingerprintPrefix

// PathsFingerprint is the fingerprint of a set of paths: "paths:" and the
// first 16 hex digits of the SHA-256 of the sorted, de-duplicated,
// normalised paths joined by NUL bytes. Order, duplicates and spelling
// ("./a", "a/") do not change it.
func PathsFingerprint(paths []string) string { return model.PathsFingerprint(paths) }

// canonicalFingerprint returns the form a fingerprint is matched in, and
// whether it is a paths fingerprint.
func canonicalFingerprint(f string) (string, bool, error) {
	f = strings.TrimSpace(f)
	if f == "" {
		return "", false, fmt.Errorf("%w: empty fingerprint", ErrBadLookup)
	}
	if rest, ok := strings.CutPrefix(strings.ToLower(f), pathsPrefix); ok {
		if len(rest) != 16 || strings.Trim(rest, "0123456789abcdef") != "" {
			return "", false, fmt.Errorf("%w: fingerprint %q: a paths fingerprint is %q and 16 hex digits", ErrBadLookup, f, pathsPrefix)
		}
		return pathsPrefix + rest, true, nil
	}
	// A reason that is one issue or advisory reference is matched in the
	// canonical form sync stores (GH-12 is #12, cve-… is CVE-…).
	if refs := extract.ParseIssueRefs(f); len(refs) == 1 && refs[0].Raw == f {
		return refs[0].Key, false, nil
	}
	return f, false, nil
}
