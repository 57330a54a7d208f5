package retrieve

import (
	"fmt"

	"github.com/gitmemory/gitmemory/model"
)

// Severity is seed 000's canonical severity scale; a larger value ranks
// first. The zero value is SeverityUnknown.
type Severity int

// The canonical scale.
const (
	SeverityUnknown Severity = iota
	SeverityLow
	SeverityMedium
	SeverityHigh
	SeverityCritical
)

var severityNames = [...]string{"unknown", "low", "medium", "high", "critical"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return "unknown"
	}
	return severityNames[s]
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name, so a result survives the API.
func (s *Severity) UnmarshalText(b []byte) error {
	for i, n := range severityNames {
		if n == string(b) {
			*s = Severity(i)
			return nil
		}
	}
	return fmt.Errorf("unknown severity %q", b)
}

// MinSecurityLabel is the confidence from which a secondary security label
// counts as a security flag. The classifier gives a lone weak word
// ("validate") 0.11 and a plainer one ("escape") 0.2.
const MinSecurityLabel = 0.2

// SeverityFlags are what sync recorded about a commit beyond its primary type that
// bear on its severity.
type SeverityFlags struct {
	SecurityLabel bool // a security label: primary, or secondary of at least MinSecurityLabel
	Advisory      bool // the message references a CVE
	Redacted      bool // secrets were redacted from its message or diff
}

// SeverityOf maps a commit's primary change type and flags to the canonical
// scale (the package documentation has the table). Sync stores the same
// mapping as commits.severity (store migration 5, view commit_severity),
// which the lookup ranks by; a test holds the two equal.
func SeverityOf(primary model.ChangeType, f SeverityFlags) Severity {
	security := primary == model.Security || f.SecurityLabel
	switch {
	case security && f.Advisory:
		return SeverityCritical
	case primary == model.Security || f.Redacted:
		return SeverityHigh
	case primary == model.Bugfix || primary == model.Revert || primary == model.Performance || f.SecurityLabel:
		return SeverityMedium
	case primary != "":
		return SeverityLow
	}
	return SeverityUnknown
}
