// Package secrets finds and redacts secrets in text before gitmemory stores
// it: commit messages and unified-diff text.
//
// Detection combines four sources:
//
//   - gitleaks' maintained rule set (github.com/zricethezav/gitleaks/v8,
//     the default configuration of `gitleaks detect`, run through its
//     detect.Detector), which names the secret: "aws-access-token",
//     "github-pat", "private-key", "generic-api-key", ...;
//   - a PEM scanner that redacts every "-----BEGIN ... PRIVATE KEY-----"
//     block from its header through its footer, also when the block is cut
//     off by a hunk boundary or every line carries a diff prefix (pem.go);
//   - a check for AWS access key ids with digits outside AWS's base32
//     alphabet, which gitleaks' rule does not accept (awsKeyIDSpans);
//   - a high-entropy check for random tokens no rule names, reported as
//     "high-entropy" (entropy.go).
//
// Every finding is replaced by "[REDACTED:<rule-id>]". For gitleaks findings
// the secret value (Finding.Secret) is replaced wherever it occurs in the
// text; for multi-line findings (private keys) the whole match is.
//
// Speed: gitleaks' DetectString costs about 6-8 ms per 20 KB of diff. Its
// keyword prefilter is per text, and ordinary code contains keywords such as
// "key", "auth", "s." or "sk", so a few rules (generic-api-key above all)
// scan every diff in full at 2-3 MB/s. Scanner runs most rules only on
// small regions around literals their regexps require (window.go) and
// finds exactly the same matches: a 20 KB diff takes 0.2-0.6 ms, a 500-byte
// commit message 4 µs.
//
// Concurrency: a Scanner is safe for concurrent use by several goroutines,
// without locks or pools of detectors. After New it only reads its
// detectors: gitleaks' DetectString reads the compiled configuration and
// keyword tries, counts bytes atomically and allocates its results per
// call (with decoding off, as here: MaxDecodeDepth 0, the library default).
// Scratch buffers come from a sync.Pool.
package secrets

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"
)

// Scanner finds and redacts secrets. It is safe for concurrent use by
// several goroutines; create one with New and share it.
type Scanner struct {
	// all holds every rule. It scans texts containing a rune whose case
	// folding reaches ASCII (see window.go), where the windowing
	// argument does not hold. Built on first use (it takes ~5 MB).
	all *lazyDetector
	// full holds the rules that cannot be windowed; it scans the whole
	// text, and only when lits finds a keyword of one of them (or
	// always, if fullAlways).
	full       *detect.Detector
	fullAlways bool
	// win holds one single-rule detector per windowable rule.
	win []winRule
	// lits finds the literals of the windowed rules and the keywords of
	// the full rules in ASCII-lower-cased text.
	lits *litMatcher
}

// lazyDetector builds a gitleaks detector on first use.
type lazyDetector struct {
	once sync.Once
	cfg  config.Config
	det  *detect.Detector
}

func (l *lazyDetector) get() *detect.Detector {
	l.once.Do(func() { l.det = detect.NewDetector(l.cfg) })
	return l.det
}

type winRule struct {
	det *detect.Detector
	re  *regexp.Regexp // relaxedRegexp of the rule's regexp
	// anchored is anchoredRegexp of the rule's regexp, or nil; made on
	// the first occurrence of the rule's literals (see anchoredExpr).
	anchored func() *regexp.Regexp
	maxNL    int // see ruleShape
	maxW     int
	pre      extent
	chars    charset
}

var (
	configOnce sync.Once
	baseConfig config.Config
	configErr  error
)

// loadConfig returns gitleaks' default configuration, built once.
func loadConfig() (config.Config, error) {
	configOnce.Do(func() {
		// gitleaks logs through a package-level zerolog logger that
		// writes to stderr; silence it so a CLI's output stays clean.
		logging.Logger = zerolog.Nop()
		baseConfig, configErr = readDefaultConfig()
	})
	return baseConfig, configErr
}

// readDefaultConfig does what detect.NewDetectorDefaultConfig does, but
// with a private viper instance instead of the process-global one, so it
// neither clobbers an application's viper settings nor races with other
// callers.
func readDefaultConfig() (config.Config, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return config.Config{}, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return config.Config{}, err
	}
	return vc.Translate()
}

// subConfig returns cfg restricted to the given rules.
func subConfig(cfg config.Config, rules []config.Rule) config.Config {
	sub := config.Config{
		Title:       cfg.Title,
		Description: cfg.Description,
		Rules:       make(map[string]config.Rule, len(rules)),
		Keywords:    make(map[string]struct{}),
		Allowlists:  cfg.Allowlists,
	}
	for _, r := range rules {
		sub.Rules[r.RuleID] = r
		sub.OrderedRules = append(sub.OrderedRules, r.RuleID)
		for _, k := range r.Keywords {
			sub.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	return sub
}

var (
	planOnce sync.Once
	plan     *Scanner
	planErr  error
)

// New returns a Scanner using gitleaks' default rules. The first call loads
// and compiles gitleaks' configuration and prepares the windowed rules
// (about 50 ms of CPU, ~20 MB of heap); later calls share that read-only state and
// cost nothing.
func New() (*Scanner, error) {
	planOnce.Do(func() {
		cfg, err := loadConfig()
		if err != nil {
			planErr = err
			return
		}
		plan, planErr = build(cfg)
	})
	if planErr != nil {
		return nil, planErr
	}
	s := *plan
	return &s, nil
}

// build prepares a Scanner for the gitleaks configuration cfg.
func build(cfg config.Config) (*Scanner, error) {
	s := &Scanner{all: &lazyDetector{cfg: cfg}}

	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range cfg.Rules {
			if !yield(id) {
				return
			}
		}
	})
	// Rules referenced by composite rules must stay with them.
	required := map[string]bool{}
	for _, id := range ids {
		for _, rr := range cfg.Rules[id].RequiredRules {
			required[rr.RuleID] = true
		}
	}
	var fullRules []config.Rule
	var fullKeywords []string
	mb := newLitMatcherBuilder()
	for _, id := range ids {
		r := cfg.Rules[id]
		if r.Regex != nil && r.Path == nil && len(r.RequiredRules) == 0 &&
			!required[id] && !r.SkipReport && len(r.Keywords) > 0 {
			sh, ok := analyzeRegexp(r.Regex.String(), r.Keywords)
			var relaxed *regexp.Regexp
			if ok && sh.windowable(r.Keywords) {
				var err error
				relaxed, err = relaxedRegexp(r.Regex.String())
				ok = err == nil
			}
			if ok && sh.windowable(r.Keywords) {
				idx := len(s.win)
				s.win = append(s.win, winRule{
					det:      detect.NewDetector(subConfig(cfg, []config.Rule{r})),
					re:       relaxed,
					anchored: sync.OnceValue(func() *regexp.Regexp { return anchoredRegexp(sh.anchoredExpr()) }),
					maxNL:    sh.maxNL,
					maxW:     sh.maxW,
					pre:      sh.pre,
					chars:    sh.chars,
				})
				for _, l := range sh.lits {
					mb.add(l, int32(idx))
				}
				continue
			}
		}
		fullRules = append(fullRules, r)
		if r.Path != nil && !r.Path.MatchString("") {
			// A path rule fires only on fragments with a
			// matching file path; Redact passes none.
			continue
		}
		if len(r.Keywords) == 0 {
			// gitleaks runs a rule without keywords on every
			// text.
			s.fullAlways = true
			continue
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			if len(k) < minLitLen || !isASCII(k) {
				s.fullAlways = true
			}
			fullKeywords = append(fullKeywords, k)
		}
	}
	if len(fullRules) > 0 {
		s.full = detect.NewDetector(subConfig(cfg, fullRules))
		for _, k := range fullKeywords {
			if len(k) >= minLitLen {
				mb.add(k, triggerFull)
			}
		}
	}
	s.lits = mb.build()
	return s, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// span is a byte range of the text to redact.
type span struct {
	start, end int
	rule       string
}

// Redact returns text with every finding replaced by "[REDACTED:<rule-id>]"
// and the rule ids found, one per redacted span, in text order. Findings
// that overlap become one span, named by the most specific rule: a named
// gitleaks rule, then gitleaks' generic-api-key, then high-entropy.
//
// Redact is idempotent: redacting its output again finds nothing new. To
// get there it rescans its own output when it redacted something (a marker
// can complete a match that was not there before) and repeats until nothing
// new is found; ids from such later passes are appended.
func (s *Scanner) Redact(text string) (string, []string) {
	return s.redact(text, false, nil)
}

// RedactFile is Redact for text from the file at path (a diff's hunks):
// in a configuration file (.env, properties, YAML, INI, TOML) the value
// of any key that names a secret is redacted, quoted or not.
func (s *Scanner) RedactFile(path, text string) (string, []string) {
	return s.redact(text, configPath(path), nil)
}

// RedactName is Redact for a name that identifies something: a file path,
// an author's or committer's name or e-mail, a ref name. Each secret is
// replaced by "[REDACTED:<rule-id>-<hash>]", where hash is 8 hex digits of
// a SHA-256 of the secret: the same secret always gives the same marker
// and different ones (almost surely) different markers, so a redacted
// path still names one file, the same in every commit, and its history
// stays whole.
//
// A path is redacted segment by segment ('/' is part of what the entropy
// check takes for a token): the directories around a secret stay, so the
// file is still found under them.
func (s *Scanner) RedactName(name string) (string, []string) {
	if !strings.Contains(name, "/") {
		return s.redact(name, false, hashedRule)
	}
	var ids []string
	parts := strings.Split(name, "/")
	for i, p := range parts {
		var found []string
		parts[i], found = s.redact(p, false, hashedRule)
		ids = append(ids, found...)
	}
	if len(ids) == 0 {
		return name, nil
	}
	return strings.Join(parts, "/"), ids
}

// redact runs the passes of Redact; mark names a span's marker.
func (s *Scanner) redact(text string, config bool, mark func(rule, secret string) string) (string, []string) {
	var ids []string
	for pass := 0; pass < maxPasses; pass++ {
		spans := s.spans(text, config)
		spans = dropMarkerOnly(text, spans)
		if len(spans) == 0 {
			break
		}
		var newIDs []string
		text, newIDs = apply(text, spans, mark)
		ids = append(ids, newIDs...)
	}
	return text, ids
}

// maxPasses bounds the rescans of Redact. Each pass that changes the text
// replaces at least one byte that is not part of a marker by a marker, so
// the loop ends long before this in practice.
const maxPasses = 8

// RedactBytes is Redact for a byte slice. It returns a new slice.
func (s *Scanner) RedactBytes(b []byte) ([]byte, []string) {
	out, ids := s.Redact(string(b))
	return []byte(out), ids
}

// spans returns the unmerged spans to redact in text.
func (s *Scanner) spans(text string, config bool) []span {
	var out []span
	for _, f := range s.findings(text) {
		out = appendFindingSpans(text, f, out)
	}
	out = privateKeySpans(text, out)
	out = awsKeyIDSpans(text, out)
	out = highEntropySpans(text, out)
	out = assignmentSpans(text, config, out)
	out = urlPasswordSpans(text, out)
	return withoutPublic(text, out)
}

// appendFindingSpans appends a span for every occurrence in text of the
// finding's secret (or of its whole match, for multi-line secrets such as
// private keys).
func appendFindingSpans(text string, f report.Finding, out []span) []span {
	target := f.Secret
	if strings.Contains(f.Match, "\n") && (strings.Contains(target, "\n") || f.RuleID == "private-key") {
		target = f.Match
	}
	if target == "" || !strings.Contains(text, target) {
		// The secret is not verbatim in the text (gitleaks trims
		// newlines off matches); fall back to the match.
		target = strings.Trim(f.Match, "\n")
	}
	if target == "" {
		return out
	}
	for off := 0; ; {
		i := strings.Index(text[off:], target)
		if i < 0 {
			break
		}
		out = append(out, span{start: off + i, end: off + i + len(target), rule: f.RuleID})
		off += i + len(target)
	}
	return out
}

// findings runs the gitleaks rules over text.
func (s *Scanner) findings(text string) []report.Finding {
	if hasFoldRune(text) {
		return s.all.get().DetectString(text)
	}
	buf := getBuffers(len(text))
	defer putBuffers(buf)
	lower := buf.lower[:len(text)]
	for i := 0; i < len(text); i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	lines := newLineIndex(text, buf.nl[:0])
	buf.nl = lines.nl

	occs := buf.occs[:0]
	runFull := s.fullAlways
	s.lits.find(lower, func(pos, n int, r int32) {
		if r == triggerFull {
			runFull = true
			return
		}
		occs = append(occs, s.win[r].occurrence(text, lines, r, pos, n))
	})
	buf.occs = occs

	var out []report.Finding
	if runFull && s.full != nil {
		out = append(out, s.full.DetectString(text)...)
	}
	slices.SortFunc(occs, func(x, y occurrence) int {
		if x.rule != y.rule {
			return int(x.rule - y.rule)
		}
		return x.tightA - y.tightA
	})
	for i := 0; i < len(occs); {
		j := i + 1
		for j < len(occs) && occs[j].rule == occs[i].rule {
			j++
		}
		out = s.scanRule(text, lines, occs[i:j], out)
		i = j
	}
	return dedupGeneric(out)
}

// scanRule runs one windowed rule over the occurrences of its literals,
// sorted by tightA. First a relaxed form of the rule's regexp tests each
// occurrence: anchored at the literal if the regexp allows that, otherwise
// on the tight regions (merged where they overlap); no match there rules the
// occurrence out. Then the wide regions are merged, and gitleaks scans
// each merged wide region that holds an occurrence whose tight region
// matched. See window.go for why this finds exactly the matches a
// whole-text scan finds.
func (s *Scanner) scanRule(text string, lines lineIndex, occs []occurrence, out []report.Finding) []report.Finding {
	w := &s.win[occs[0].rule]
	found := false
	anchored := w.anchored()
	if anchored != nil {
		// Test each occurrence with the part of the regexp that
		// starts at the literal.
		for i := range occs {
			if anchored.MatchString(text[occs[i].pos:occs[i].tightB]) {
				occs[i].active = true
				found = true
			}
		}
	}
	for i := 0; anchored == nil && i < len(occs); {
		a, b := occs[i].tightA, occs[i].tightB
		j := i + 1
		for j < len(occs) && occs[j].tightA < b {
			b = max(b, occs[j].tightB)
			j++
		}
		if w.re.MatchString(text[a:b]) {
			found = true
			for k := i; k < j; k++ {
				occs[k].active = true
			}
		}
		i = j
	}
	if !found {
		return out
	}
	slices.SortFunc(occs, func(x, y occurrence) int { return x.wideA - y.wideA })
	// gitleaks reports, as Finding.Line of a match on the last line of a
	// text that does not end in '\n', everything from the start of the
	// text. Scan the whole text if such a match is possible.
	if last := occs[len(occs)-1]; last.wideB == len(text) && !strings.HasSuffix(text, "\n") {
		for i := len(occs) - 1; i >= 0; i-- {
			if occs[i].active && occs[i].wideB == len(text) {
				return append(out, w.det.DetectString(text)...)
			}
		}
	}
	for i := 0; i < len(occs); {
		a, b := occs[i].wideA, occs[i].wideB
		active := occs[i].active
		j := i + 1
		for j < len(occs) && occs[j].wideA < b {
			b = max(b, occs[j].wideB)
			active = active || occs[j].active
			j++
		}
		if active {
			base := lines.line(a)
			for _, f := range w.det.DetectString(text[a:b]) {
				// Make line numbers absolute, as a whole-text
				// scan reports them (the region starts on line
				// base).
				f.StartLine += base
				f.EndLine += base
				out = append(out, f)
			}
		}
		i = j
	}
	return out
}

// dedupGeneric drops a generic-rule finding when a specific rule found a
// secret containing it on the same line. gitleaks does the same within one
// DetectString call; the windowed scan spreads rules over several calls.
func dedupGeneric(fs []report.Finding) []report.Finding {
	out := make([]report.Finding, 0, len(fs))
	for i, f := range fs {
		keep := true
		if strings.Contains(strings.ToLower(f.RuleID), "generic") {
			for j, g := range fs {
				if i != j && f.StartLine == g.StartLine && f.RuleID != g.RuleID &&
					strings.Contains(g.Secret, f.Secret) &&
					!strings.Contains(strings.ToLower(g.RuleID), "generic") {
					keep = false
					break
				}
			}
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

// hasFoldRune reports whether text contains a rune that case-folds or
// lower-cases to an ASCII letter: U+017F (ſ), U+0130 (İ), U+212A (K).
func hasFoldRune(text string) bool {
	return strings.Contains(text, "\u017f") || strings.Contains(text, "\u0130") ||
		strings.Contains(text, "\u212a")
}

// buffers are per-call scratch space, pooled to keep Redact allocation-light.
type buffers struct {
	lower []byte
	nl    []int
	occs  []occurrence
}

var bufPool = sync.Pool{New: func() any { return new(buffers) }}

func getBuffers(n int) *buffers {
	b := bufPool.Get().(*buffers)
	if cap(b.lower) < n {
		b.lower = make([]byte, n)
	}
	return b
}

func putBuffers(b *buffers) {
	if cap(b.lower) > 1<<20 {
		b.lower = nil // do not pin huge buffers
	}
	if cap(b.nl) > 1<<16 {
		b.nl = nil
	}
	if cap(b.occs) > 1<<14 {
		b.occs = nil
	}
	bufPool.Put(b)
}
