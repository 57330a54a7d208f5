package retrieve

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/store"
)

// keyProbe is one lookup_keys key that a candidate path or reason asks for,
// with the weight a record holding it earns for that candidate path.
type keyProbe struct {
	key    string
	cand   int // index into lookupPlan.paths; -1 for a reason
	weight int
}

// The key prefixes of lookup_keys (store migration 5).
const (
	keyPath   = "=" // a path the commit changed, new or old
	keyDir    = "/" // a directory above one
	keyReason = "!" // an issue key the message references
)

// probes lists what the plan asks the index: per candidate path c, the
// records that changed c (weight 2), changed something under c (1), or
// changed a directory prefix of c, a path that later became a directory or
// was one (1); per reason, the records referencing it (0).
func (p *lookupPlan) probes() []keyProbe {
	var out []keyProbe
	for i, c := range p.paths {
		out = append(out, keyProbe{keyPath + c, i, 2}, keyProbe{keyDir + c, i, 1})
		for j := range len(c) {
			if c[j] == '/' {
				out = append(out, keyProbe{keyPath + c[:j], i, 1})
			}
		}
	}
	for _, r := range p.reasons {
		out = append(out, keyProbe{keyReason + r, -1, 0})
	}
	return out
}

// rankedRecord is a record the index found, before its details are read.
type rankedRecord struct {
	id       int64
	severity Severity
	time     int64
}

func (a rankedRecord) ties(b rankedRecord) bool { return a.severity == b.severity && a.time == b.time }

func compareRanked(a, b rankedRecord) int {
	return cmp.Or(cmp.Compare(b.severity, a.severity), cmp.Compare(b.time, a.time))
}

// rankRecords orders the records found, the excluded left out, on
// severity and recency.
func rankRecords(found map[int64]rankedRecord, excluded map[int64]bool) []rankedRecord {
	order := make([]rankedRecord, 0, len(found))
	for id, r := range found {
		if !excluded[id] {
			order = append(order, r)
		}
	}
	slices.SortFunc(order, compareRanked)
	return order
}

func probeKeys(probes []keyProbe) []string {
	keys := make([]string, 0, len(probes))
	for _, pr := range probes {
		keys = append(keys, pr.key)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// headIDs are the stored commits the head names (a hash or its prefix).
func (l *Lookup) headIDs(ctx context.Context, head string) (map[int64]bool, error) {
	out := map[int64]bool{}
	if head == "" {
		return out, nil
	}
	rows, err := l.st.DB.QueryContext(ctx, `SELECT id FROM commits WHERE hash >= ? AND hash < ?`, head, head+"g")
	if err != nil {
		return nil, fmt.Errorf("look up head %s: %w", head, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// topSQL reads, for each of slots keys, the first n (the last parameter)
// live rows in the window in the index's own order, highest severity and
// then newest first: a seek and a few steps per key and severity, never a
// sort, however many rows the key has. Unused slots get the key "", which
// no row has. Each shape is prepared once per Lookup; SQLite allows 500
// parts in a compound select.
func topSQL(slots int) string {
	parts := make([]string, slots)
	for i := range parts {
		parts[i] = fmt.Sprintf(`SELECT * FROM (SELECT commit_id, severity, time, %d FROM lookup_keys
			WHERE key = ?%d AND live = 1 AND severity IN (4, 3, 2, 1, 0) AND time >= ?%d
			ORDER BY severity DESC, time DESC LIMIT ?%d)`, i, i+1, slots+1, slots+2)
	}
	return strings.Join(parts, "\nUNION ALL ")
}

// The statement shapes prepared once per Lookup: a few keys (one
// candidate path and its directories) or many.
var topShapes = []int{4, 16}

// top finds the records that rank highest on severity and recency for any
// of the keys. Each key yields its first limit+1 (+ excluded) rows, so
// every record among the first limit+1 of the union is found (a key's rows
// hold distinct records). It also returns the last row of each key that
// filled its quota: records tied with it may have been cut off.
func (l *Lookup) top(ctx context.Context, p *lookupPlan, keys []string, excluded int) (map[int64]rankedRecord, []rankedRecord, error) {
	found := map[int64]rankedRecord{}
	var cut []rankedRecord
	n := p.limit + 1 + excluded
	for len(keys) > 0 {
		slots := topShapes[len(topShapes)-1]
		for _, s := range topShapes {
			if len(keys) <= s {
				slots = s
				break
			}
		}
		chunk := keys[:min(slots, len(keys))]
		keys = keys[len(chunk):]
		stmt, err := l.prepared(ctx, topSQL(slots))
		if err != nil {
			return nil, nil, err
		}
		args := make([]any, slots+2)
		for i := range slots {
			args[i] = ""
			if i < len(chunk) {
				args[i] = chunk[i]
			}
		}
		args[slots], args[slots+1] = p.since.Unix(), n
		last, err := topChunk(ctx, stmt, args, n, found)
		if err != nil {
			return nil, nil, err
		}
		cut = append(cut, last...)
	}
	return found, cut, nil
}

func topChunk(ctx context.Context, stmt *sql.Stmt, args []any, n int, found map[int64]rankedRecord) ([]rankedRecord, error) {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("lookup: %w", err)
	}
	defer rows.Close()
	count := map[int]int{}
	last := map[int]rankedRecord{}
	for rows.Next() {
		var r rankedRecord
		var k int
		if err := rows.Scan(&r.id, &r.severity, &r.time, &k); err != nil {
			return nil, fmt.Errorf("lookup: %w", err)
		}
		found[r.id] = r
		count[k]++
		last[k] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("lookup: %w", err)
	}
	var cut []rankedRecord
	for k, c := range count {
		if c == n {
			cut = append(cut, last[k])
		}
	}
	return cut, nil
}

// readTies reads every record of the keys tied with b on severity and
// recency. It is needed only when two records of one severity were
// committed in the same second and a key's quota ended between them.
func (l *Lookup) readTies(ctx context.Context, keys []string, b rankedRecord, found map[int64]rankedRecord) error {
	for chunk := range slices.Chunk(keys, 500) {
		args := []any{b.severity, b.time}
		for _, k := range chunk {
			args = append(args, k)
		}
		rows, err := l.st.DB.QueryContext(ctx, `SELECT DISTINCT commit_id FROM lookup_keys
			WHERE live = 1 AND severity = ? AND time = ? AND key IN (`+store.Marks(len(chunk))+`)`, args...)
		if err != nil {
			return fmt.Errorf("lookup ties: %w", err)
		}
		for rows.Next() {
			r := b
			if err := rows.Scan(&r.id); err != nil {
				rows.Close()
				return fmt.Errorf("lookup ties: %w", err)
			}
			found[r.id] = r
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return fmt.Errorf("lookup ties: %w", err)
		}
	}
	return nil
}

// prepared returns the statement for query, prepared on first use.
func (l *Lookup) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.stmts[query]; st != nil {
		return st, nil
	}
	st, err := l.st.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare lookup: %w", err)
	}
	if l.stmts == nil {
		l.stmts = map[string]*sql.Stmt{}
	}
	l.stmts[query] = st
	return st, nil
}

// scanFingerprints adds the records whose paths fingerprint is one the
// caller gave explicitly, and returns them. Each record's fingerprint is a
// lookup key ("#paths:…"), read by the index; until a store made before
// that has had its records' keys added (store.FingerprintBackfill, at the
// next sync), the window's records are hashed instead.
func (l *Lookup) scanFingerprints(ctx context.Context, p *lookupPlan, found map[int64]rankedRecord) (map[int64]bool, error) {
	byFP := map[int64]bool{}
	if len(p.fps) == 0 {
		return byFP, nil
	}
	indexed, err := l.st.FingerprintsIndexed(ctx)
	if err != nil {
		return nil, fmt.Errorf("scan paths fingerprints: %w", err)
	}
	if indexed {
		return l.fingerprintKeys(ctx, p, found)
	}
	rows, err := l.st.DB.QueryContext(ctx, `SELECT id, severity, committer_time,
		(SELECT group_concat(path, char(0)) FROM file_changes WHERE commit_id = commits.id)
		FROM commits WHERE committer_time >= ? AND rewritten = 0`, p.since.Unix())
	if err != nil {
		return nil, fmt.Errorf("scan paths fingerprints: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r rankedRecord
		var paths sql.NullString
		if err := rows.Scan(&r.id, &r.severity, &r.time, &paths); err != nil {
			return nil, fmt.Errorf("scan paths fingerprints: %w", err)
		}
		if paths.Valid && slices.Contains(p.fps, PathsFingerprint(strings.Split(paths.String, "\x00"))) {
			found[r.id] = r
			byFP[r.id] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("scan paths fingerprints: %w", err)
	}
	return byFP, nil
}

// fingerprintKeys is scanFingerprints by the lookup keys.
func (l *Lookup) fingerprintKeys(ctx context.Context, p *lookupPlan, found map[int64]rankedRecord) (map[int64]bool, error) {
	byFP := map[int64]bool{}
	args := []any{p.since.Unix()}
	for _, fp := range p.fps {
		args = append(args, store.FingerprintKey(fp))
	}
	// ?1 before the bare ?s, which number on from it.
	err := store.EachRow(ctx, l.st.DB, `SELECT commit_id, severity, time FROM lookup_keys
		WHERE time >= ?1 AND live = 1 AND key IN (`+store.Marks(len(p.fps))+`)`, args, func(r *sql.Rows) error {
		var rec rankedRecord
		if err := r.Scan(&rec.id, &rec.severity, &rec.time); err != nil {
			return err
		}
		found[rec.id], byFP[rec.id] = rec, true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("paths fingerprints: %w", err)
	}
	return byFP, nil
}

// detailSQL reads up to detailIDs records and, for each, the keys it holds
// among up to detailKeys probed ones (unused slots are 0 and ""), with
// the repository's remote for links: one prepared statement for the whole
// answer in the common case.
const detailIDs, detailKeys = 8, 16

var detailSQL = fmt.Sprintf(`SELECT c.id, c.hash, c.committer_time, c.committer_tz, c.severity, c.classification,
	c.summary, c.subject, c.files_changed, COALESCE((SELECT remote_url FROM repository WHERE id = 1), ''),
	COALESCE((SELECT group_concat(k.key, char(0)) FROM lookup_keys k WHERE k.commit_id = c.id AND k.key IN (%s)), '')
	FROM commits c WHERE c.id IN (%s)`,
	store.Marks(detailKeys), store.Marks(detailIDs))

// recordDetail is a selected record as detailSQL reads it.
type recordDetail struct {
	LookupMatch
	files int
	keys  []string
}

// matches reads the selected records' details and how they match: the
// overlap from the keys they hold, and fingerprints.
func (l *Lookup) matches(ctx context.Context, p *lookupPlan, probes []keyProbe, selected []rankedRecord, byFP map[int64]bool) ([]LookupMatch, error) {
	if len(selected) == 0 {
		return []LookupMatch{}, nil
	}
	details, err := l.details(ctx, selected, probeKeys(probes))
	if err != nil {
		return nil, err
	}
	byKey := map[string][]keyProbe{}
	for _, pr := range probes {
		byKey[pr.key] = append(byKey[pr.key], pr)
	}
	out := make([]LookupMatch, 0, len(details))
	var exact []int64 // records that may share the candidate's paths fingerprint
	for id, d := range details {
		best := map[int]int{} // candidate path → its best weight
		reason := false
		for _, k := range d.keys {
			for _, pr := range byKey[k] {
				if pr.cand < 0 {
					reason = true
				} else {
					best[pr.cand] = max(best[pr.cand], pr.weight)
				}
			}
		}
		exactAll := len(p.paths) > 0
		for c := range p.paths {
			d.Overlap += best[c]
			exactAll = exactAll && best[c] == 2
		}
		if exactAll && d.files == len(p.paths) {
			exact = append(exact, id)
		}
		d.ByPath, d.ByFingerprint = d.Overlap > 0, reason || byFP[id]
		details[id] = d
	}
	derived, err := l.derivedMatches(ctx, p, exact)
	if err != nil {
		return nil, err
	}
	for id, d := range details {
		d.ByFingerprint = d.ByFingerprint || derived[id]
		out = append(out, d.LookupMatch)
	}
	return out, nil
}

// details runs detailSQL over the selected records and the probed keys, a
// slot-full at a time.
func (l *Lookup) details(ctx context.Context, selected []rankedRecord, keys []string) (map[int64]recordDetail, error) {
	stmt, err := l.prepared(ctx, detailSQL)
	if err != nil {
		return nil, err
	}
	out := map[int64]recordDetail{}
	if len(keys) == 0 {
		keys = []string{""} // still one pass, for the details
	}
	for ids := range slices.Chunk(selected, detailIDs) {
		for ks := range slices.Chunk(keys, detailKeys) {
			args := make([]any, detailKeys+detailIDs)
			for i := range detailKeys {
				args[i] = ""
				if i < len(ks) {
					args[i] = ks[i]
				}
			}
			for i := range detailIDs {
				args[detailKeys+i] = 0
				if i < len(ids) {
					args[detailKeys+i] = ids[i].id
				}
			}
			if err := readDetails(ctx, stmt, args, out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func readDetails(ctx context.Context, stmt *sql.Stmt, args []any, out map[int64]recordDetail) error {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("load records: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, when int64
		var tz int
		var d recordDetail
		var class, summary, subject, remote, keys string
		if err := rows.Scan(&id, &d.ID, &when, &tz, &d.Severity, &class, &summary, &subject, &d.files, &remote, &keys); err != nil {
			return fmt.Errorf("load records: %w", err)
		}
		if prev, ok := out[id]; ok {
			d.keys = prev.keys // another slot-full of keys
		}
		if keys != "" {
			d.keys = append(d.keys, strings.Split(keys, "\x00")...)
		}
		d.Type, d.Date, d.Summary = cmp.Or(class, "commit"), time.Unix(when, 0).In(commitZone(tz)), cmp.Or(summary, subject)
		d.Link = CommitLink(remote, d.ID)
		out[id] = d
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load records: %w", err)
	}
	return nil
}

// derivedMatches reports which records have the candidate's paths
// fingerprint. ids are those that changed every candidate path and as
// many files as it has: their new paths are hashed to be sure.
func (l *Lookup) derivedMatches(ctx context.Context, p *lookupPlan, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := l.st.DB.QueryContext(ctx, `SELECT commit_id, path FROM file_changes WHERE commit_id IN (`+
		store.Marks(len(ids))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("load record paths: %w", err)
	}
	defer rows.Close()
	sets := map[int64][]string{}
	for rows.Next() {
		var id int64
		var path string
		if err := rows.Scan(&id, &path); err != nil {
			return nil, fmt.Errorf("load record paths: %w", err)
		}
		sets[id] = append(sets[id], path)
	}
	for id, paths := range sets {
		out[id] = PathsFingerprint(paths) == p.derived
	}
	return out, rows.Err()
}
