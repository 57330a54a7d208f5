package api

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/retrieve"
)

// Validation of requests before anything is opened: every refusal is a
// FieldError naming the field, with the offending value clipped, so a
// client learns what to fix and a 100 KB argument is not echoed back.

// clipLen bounds a value quoted in an error message.
const clipLen = 80

// CheckRepo admits only the name of a registered repository: never a
// path, so a request cannot open anything outside the registry.
func (l *Local) CheckRepo(ctx context.Context, repo string) error {
	if repo == "" {
		return badField("repository", "a repository name is required")
	}
	if memory.ValidName(repo) != nil {
		return badField("repository", "%q: use letters, digits, '.', '_' and '-' (at most 100), starting with a letter or digit",
			Clip(repo, clipLen))
	}
	_, err := l.Home.Get(ctx, repo)
	return err
}

// checkPathQuery validates what history and recent share.
func (l *Local) checkPathQuery(ctx context.Context, repo, path string, limit int) error {
	if err := l.CheckRepo(ctx, repo); err != nil {
		return err
	}
	if err := checkPath("path", path); err != nil {
		return err
	}
	return checkLimit(limit)
}

// modes are the search modes a query may ask for; "" and "auto" pick the
// best the stores allow.
var modes = []string{"", "auto", string(retrieve.ModeHybrid), string(retrieve.ModeVector),
	string(retrieve.ModeKeyword), string(retrieve.ModeBasic)}

func (l *Local) checkQuery(ctx context.Context, q *QueryRequest) error {
	if err := l.CheckRepo(ctx, q.Repo); err != nil {
		return err
	}
	if strings.TrimSpace(q.Query) == "" {
		return badField("query", "the query is empty")
	}
	if len(q.Query) > MaxQueryBytes || !utf8.ValidString(q.Query) {
		return badField("query", "must be UTF-8 of at most %d bytes (got %d bytes)", MaxQueryBytes, len(q.Query))
	}
	if q.Intent != "" && !retrieve.ValidIntent(q.Intent) {
		return badField("intent", "%q: want one of %s", Clip(q.Intent, clipLen), strings.Join(retrieve.Intents, ", "))
	}
	if !contains(modes, q.Mode) {
		return badField("mode", "%q: want hybrid, vector, keyword or basic (or omit it for the best available)", Clip(q.Mode, clipLen))
	}
	if q.Tokens < 0 || q.Tokens > MaxTokens {
		return badField("token_budget", "%d: want 1 to %d (0 for the default)", q.Tokens, MaxTokens)
	}
	if q.Format == "" {
		q.Format = retrieve.FormatMarkdown
	}
	if q.Format != retrieve.FormatMarkdown && q.Format != retrieve.FormatJSON {
		return badField("format", "%q: want markdown or json", Clip(q.Format, clipLen))
	}
	if err := checkQueryOptions(q); err != nil {
		return err
	}
	return checkLimit(q.Limit)
}

func checkLookup(q *LookupRequest) error {
	if len(q.Paths) == 0 && len(q.Fingerprints) == 0 {
		return badField("paths", "nothing to look up: give paths or fingerprints")
	}
	if n := len(q.Paths) + len(q.Fingerprints); n > MaxPaths {
		return badField("paths", "%d paths and fingerprints: at most %d", n, MaxPaths)
	}
	for _, p := range q.Paths {
		if err := checkPath("paths", p); err != nil {
			return err
		}
	}
	for _, f := range q.Fingerprints {
		if err := checkFingerprint(f); err != nil {
			return err
		}
	}
	if h := strings.TrimSpace(q.Head); h != "" && (len(h) < 7 || len(h) > 64 || strings.Trim(strings.ToLower(h), "0123456789abcdef") != "") {
		return badField("head", "%q is not a commit hash (7 to 64 hex digits)", Clip(h, clipLen))
	}
	if err := checkDays(q.Days); err != nil {
		return err
	}
	return checkLimit(q.Limit)
}

// checkFingerprint admits an issue or advisory reference, a reason, or a
// paths fingerprint of the canonical shape.
func checkFingerprint(f string) error {
	if err := checkPath("fingerprints", f); err != nil {
		return err
	}
	t := strings.ToLower(strings.TrimSpace(f))
	if t == "" {
		return badField("fingerprints", "an empty fingerprint")
	}
	if rest, ok := strings.CutPrefix(t, model.PathsFingerprintPrefix); ok &&
		(len(rest) != 16 || strings.Trim(rest, "0123456789abcdef") != "") {
		return badField("fingerprints", "%q: a paths fingerprint is %q and 16 hex digits", Clip(f, clipLen), model.PathsFingerprintPrefix)
	}
	return nil
}

func checkEntity(q EntityRequest) error {
	if q.Name == "" || len(q.Name) > MaxPathBytes || !utf8.ValidString(q.Name) {
		return badField("name", "an entity name of 1 to %d bytes of UTF-8 is required", MaxPathBytes)
	}
	if len(q.Kind) > 40 || strings.ContainsFunc(q.Kind, func(r rune) bool { return !('a' <= r && r <= 'z' || r == '_') }) {
		return badField("kind", "%q: want a lower-case entity kind such as function, method or class", Clip(q.Kind, clipLen))
	}
	return checkLimit(q.Limit)
}

// checkPath rejects what cannot be a repository-relative path: too long,
// not UTF-8, NUL bytes, or an escape upwards. Paths are only ever matched
// against indexed ones, never opened, so this is about clear errors.
func checkPath(field, p string) error {
	if len(p) > MaxPathBytes || !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return badField(field, "a path must be UTF-8 without NUL of at most %d bytes (got %d bytes)", MaxPathBytes, len(p))
	}
	if strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") ||
		strings.HasSuffix(p, "/..") {
		return badField(field, "%q is outside the repository: give a repository-relative path", Clip(p, clipLen))
	}
	return nil
}

// maxDays bounds a look back (about 2,700 years: anything is "all").
const maxDays = 1_000_000

func checkDays(n int) error {
	if n < 0 || n > maxDays {
		return badField("days", "%d: want a positive number of days, at most %d", n, maxDays)
	}
	return nil
}

func checkLimit(n int) error {
	if n < 0 || n > MaxLimit {
		return badField("limit", "%d: want a positive number, at most %d", n, MaxLimit)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
