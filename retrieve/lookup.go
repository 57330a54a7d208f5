package retrieve

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrEmptyLookup: a lookup needs at least one path or fingerprint.
	ErrEmptyLookup = errors.New("nothing to look up: give a path or a fingerprint")
	// ErrRootPath: a candidate path names the repository root, which would
	// relate to every record.
	ErrRootPath = errors.New("path names the repository root")
	// ErrBadLookup: a limit, window, head or fingerprint is malformed.
	ErrBadLookup = errors.New("invalid lookup")
	// ErrBadLookupConfig: the configuration file cannot be used.
	ErrBadLookupConfig = errors.New("invalid configuration")
)

// LookupQuery is a candidate change.
type LookupQuery struct {
	// Paths the change touches, repository-relative.
	Paths []string
	// Fingerprints: reasons (issue or advisory keys) and paths
	// fingerprints ("paths:" and 16 hex digits).
	Fingerprints []string
	// Head is the change's own commit, if it has one (at least 7 hex
	// digits); it is not returned as related to itself.
	Head string
	// Days overrides LookupConfig.WindowDays and Limit
	// LookupConfig.MaxMatches; 0 keeps the configured value.
	Days, Limit int
}

// LookupMatch is one related record, with seed 000's fields (the only ones in
// JSON) and, for people and tests, why it ranks where it does.
type LookupMatch struct {
	Type    string    `json:"type"`
	Date    time.Time `json:"date"`
	Summary string    `json:"summary"`
	Link    string    `json:"link"`
	ID      string    `json:"id"`

	Severity      Severity `json:"-"`
	Overlap       int      `json:"-"`
	ByPath        bool     `json:"-"`
	ByFingerprint bool     `json:"-"`
}

// LookupResult is a lookup's answer.
type LookupResult struct {
	Head  string   `json:"head,omitempty"`
	Paths []string `json:"paths"`
	// Fingerprints are the canonical fingerprints matched, the paths'
	// derived one included.
	Fingerprints []string  `json:"fingerprints"`
	WindowDays   int       `json:"window_days"`
	Since        time.Time `json:"since"`
	Limit        int       `json:"limit"`
	// More is set when more records match than the limit lets through.
	// The lookup does not count them: counting would read every match,
	// which is what the index lets it avoid.
	More    bool          `json:"more"`
	Matches []LookupMatch `json:"matches"`
}

// Lookup answers candidate changes from one repository's store. It is safe
// for concurrent use; Close it when done.
type Lookup struct {
	st  *store.Store
	cfg LookupConfig
	now func() time.Time

	mu    sync.Mutex           // protects stmts
	stmts map[string]*sql.Stmt // by query text, prepared on first use
}

// NewLookup returns a Lookup over st with configuration cfg (zero fields take
// the defaults). now is the clock the window is measured from; nil is
// time.Now.
func NewLookup(st *store.Store, cfg LookupConfig, now func() time.Time) *Lookup {
	def := DefaultLookupConfig()
	if cfg.MaxMatches <= 0 {
		cfg.MaxMatches = def.MaxMatches
	}
	if cfg.WindowDays <= 0 {
		cfg.WindowDays = def.WindowDays
	}
	if now == nil {
		now = time.Now
	}
	return &Lookup{st: st, cfg: cfg, now: now}
}

// lookupPlan is a query made canonical.
type lookupPlan struct {
	paths     []string
	reasons   []string
	fps       []string // explicit paths fingerprints, not the derived one
	derived   string   // the candidate paths' fingerprint
	head      string
	since     time.Time
	days      int
	limit     int
	fpsReport []string
}

func (l *Lookup) plan(q LookupQuery) (*lookupPlan, error) {
	p := &lookupPlan{days: cmp.Or(q.Days, l.cfg.WindowDays), limit: cmp.Or(q.Limit, l.cfg.MaxMatches)}
	if q.Days < 0 || q.Limit < 0 {
		return nil, fmt.Errorf("%w: days and limit must be positive (0 keeps the configured value)", ErrBadLookup)
	}
	var err error
	if p.paths, err = normalizeCandidatePaths(q.Paths); err != nil {
		return nil, err
	}
	if p.head, err = canonicalHead(q.Head); err != nil {
		return nil, err
	}
	if len(p.paths) > 0 {
		p.derived = PathsFingerprint(p.paths)
		p.fpsReport = append(p.fpsReport, p.derived)
	}
	for _, f := range q.Fingerprints {
		fp, isPaths, err := canonicalFingerprint(f)
		if err != nil {
			return nil, err
		}
		if slices.Contains(p.fpsReport, fp) {
			continue
		}
		p.fpsReport = append(p.fpsReport, fp)
		if isPaths {
			p.fps = append(p.fps, fp)
		} else {
			p.reasons = append(p.reasons, fp)
		}
	}
	if len(p.paths) == 0 && len(p.fpsReport) == 0 {
		return nil, ErrEmptyLookup
	}
	p.since = l.now().AddDate(0, 0, -p.days).Truncate(time.Second) // event times are whole seconds
	return p, nil
}

// normalizeCandidatePaths returns the distinct normalised paths, sorted.
func normalizeCandidatePaths(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, raw := range paths {
		p := model.NormalizePath(raw)
		if p == "" {
			return nil, fmt.Errorf("%w: %q would match every record; name files or directories", ErrRootPath, raw)
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func canonicalHead(h string) (string, error) {
	h = strings.ToLower(strings.TrimSpace(h))
	if h == "" {
		return "", nil
	}
	if len(h) < 7 || len(h) > 64 || strings.Trim(h, "0123456789abcdef") != "" {
		return "", fmt.Errorf("%w: head %q is not a commit hash (7 or more hex digits)", ErrBadLookup, h)
	}
	return h, nil
}

// Run looks a candidate change up.
func (l *Lookup) Run(ctx context.Context, q LookupQuery) (*LookupResult, error) {
	p, err := l.plan(q)
	if err != nil {
		return nil, err
	}
	probes := p.probes()
	keys := probeKeys(probes)
	excluded, err := l.headIDs(ctx, p.head)
	if err != nil {
		return nil, err
	}
	found, cut, err := l.top(ctx, p, keys, len(excluded))
	if err != nil {
		return nil, err
	}
	byFP, err := l.scanFingerprints(ctx, p, found)
	if err != nil {
		return nil, err
	}
	order := rankRecords(found, excluded)
	if len(order) >= p.limit {
		// A key cut off at a row tied with the record at the limit may hide
		// more ties, which overlap and id can still move up.
		if b := order[p.limit-1]; slices.ContainsFunc(cut, b.ties) {
			if err := l.readTies(ctx, keys, b, found); err != nil {
				return nil, err
			}
			order = rankRecords(found, excluded)
		}
	}
	// Past the limit, only records tied with the last one on severity and
	// recency can still move up.
	selected := order
	if len(order) > p.limit {
		end := p.limit
		for end < len(order) && order[end].ties(order[p.limit-1]) {
			end++
		}
		selected = order[:end]
	}
	matches, err := l.matches(ctx, p, probes, selected, byFP)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(matches, compareLookupMatches)
	res := &LookupResult{Head: p.head, Paths: p.paths, Fingerprints: p.fpsReport, WindowDays: p.days, Since: p.since,
		Limit: p.limit, More: len(order) > p.limit, Matches: matches[:min(len(matches), p.limit)]}
	if res.Paths == nil {
		res.Paths = []string{}
	}
	if res.Fingerprints == nil {
		res.Fingerprints = []string{}
	}
	return res, nil
}

// Close releases the prepared statements.
func (l *Lookup) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	for _, st := range l.stmts {
		err = errors.Join(err, st.Close())
	}
	l.stmts = nil
	return err
}

// compareLookupMatches orders by severity, recency and overlap, all
// descending, then by id ascending.
func compareLookupMatches(a, b LookupMatch) int {
	return cmp.Or(
		cmp.Compare(b.Severity, a.Severity),
		b.Date.Compare(a.Date),
		cmp.Compare(b.Overlap, a.Overlap),
		strings.Compare(a.ID, b.ID))
}

func commitZone(offset int) *time.Location {
	if offset == 0 {
		return time.UTC
	}
	return time.FixedZone("", offset)
}
