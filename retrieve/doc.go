// Package retrieve answers questions from a repository's store. Its first
// part is the lookup fast path of seed 000 (DESIGN.md decision 9): given a
// candidate change (its paths, an optional head sha and optional
// fingerprints), return the related records of the last days, answered from
// SQLite indexes alone, with no embeddings and no graph walk.
//
// # Records
//
// A record is a live indexed commit (rewritten commits are never returned)
// whose event time, its committer time, lies in the window: the last
// Config.WindowDays days (90 by default), or Query.Days. The commit named
// as the candidate's head is the candidate itself and is left out.
//
// # Matching
//
// Candidate paths are normalised with model.NormalizePath: "./a", "a//b",
// "a/", `a\b` and " a " all read as the repository path they name. The root
// ("." or "") is refused, since it would match everything. A record's paths
// are the paths its file changes name, new and old (a rename's source).
// A candidate path and a record path relate when they are equal (weight 2)
// or when one is a directory prefix of the other, either way round (weight
// 1): "src/foo" relates to "src/foo/new.ts" and "src/foo/new.ts" to
// "src/foo", but "src/foo" not to "src/foobar". A record's overlap is the
// sum, over the candidate's paths, of the best weight any of its paths
// earns against that candidate path, so it is at most twice the number of
// candidate paths.
//
// Fingerprints match too, and matches are additive: a record is returned
// when it relates by path OR by fingerprint. A fingerprint is either
//
//   - a reason: an issue, pull request or advisory key that commit messages
//     reference ("#12", "GH-12", "owner/repo#12", "PROJ-7", "CVE-2024-1234"
//     in any case, or the URL), canonicalised as sync stores it and
//     matched against the records' references; any other text is matched
//     literally;
//   - a paths fingerprint, "paths:" and 16 hex digits: the first 64 bits of
//     the SHA-256 of the sorted, de-duplicated, normalised paths joined by
//     NUL bytes (PathsFingerprint). A record's own paths fingerprint is that
//     of its new paths, the set `git diff --name-only` prints. When the
//     candidate has paths, their fingerprint is derived and matched as well.
//
// A fingerprint match adds nothing to the overlap; Match reports how a
// record matched.
//
// # Severity
//
// Records are ranked on seed 000's canonical scale, critical > high >
// medium > low > unknown, mapped from what sync stored (SeverityOf):
//
//	severity  the record
//	critical  a security change (primary type, or a security label) that references a CVE
//	high      primary type security; or secrets were redacted from its message or diff
//	medium    primary type bugfix, revert or performance; or a security label
//	low       any other type: feature, refactor, dependency, configuration, test,
//	          documentation, cleanup, merge
//	unknown   not classified; sorts last
//
// A security label is a secondary label of confidence MinSecurityLabel (0.2)
// or more: one weak word such as "validate" does not raise a feature. Sync
// stores the severity with each commit (SeverityOf is the mapping; the
// store's commit_severity view is its SQL form, and a test holds them
// equal).
//
// # Order and limit
//
// Matches are ordered by severity (highest first), then recency (newest
// event first), then overlap (largest first), then id (the full commit
// hash, ascending). At most Config.MaxMatches (3 by default) are returned,
// or Query.Limit; Result.More says that more matched. Each match carries
// seed 000's fields, and only those in JSON: type (the change type, or
// "commit" when unclassified), date, summary, link (the commit's web page
// when the repository's remote is a known forge URL, else the hash) and id
// (the full hash, stable for de-duplication).
//
// # The index
//
// The lookup reads SQLite indexes only: no embeddings, no graph. Store
// migration 5 keeps, in the writer's transaction, commits.severity and a
// table lookup_keys with a row per commit and key ("=" and a path the
// commit changed, new or old; "/" and each directory above one; "!" and an
// issue key it references) ordered as the answer is (live, severity, event
// time). Every probe of a candidate is then a key, and for each key the
// lookup reads only its first Limit+1 live rows in the window, highest
// severity and newest first: a seek and a few steps per key, however busy
// the path, with no sort and no count. A record that could still tie with
// the last one shown (same severity, same second) is read in full, since
// overlap and id decide between ties. The one query that is linear in the
// window is an explicit paths fingerprint, which cannot be hashed
// backwards: it hashes the path sets of the window's records.
//
// # Configuration
//
// LoadConfig reads the [lookup] section of a TOML file, by convention
// config.toml in the gitmemory home:
//
//	[lookup]
//	max_matches = 3   # matches returned when the caller gives no limit
//	window_days = 90  # how far back records count
package retrieve
