package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gitmemory/gitmemory/model"
)

// Writer inserts commits within one transaction through prepared
// statements: SQLite parses each statement once per batch instead of once
// per row, which was most of the write cost.
type Writer struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	// entityIDs caches the ids of the entities this writer has seen;
	// known, the ids committed before its transaction (see KnownEntities).
	entityIDs, known map[string]int64
	// search, notes, entityChanges, lookup and relations hold the
	// arguments of keyword-index, design-note, entity-change, lookup-key
	// and code-relation rows until Flush, which inserts them many per
	// statement.
	search, notes, entityChanges, lookup, relations []any
	// nodeIDs and knownNodes are entityIDs and known for code nodes;
	// olderNodes the older generation of knownNodes (KnownNodes).
	nodeIDs, knownNodes, olderNodes map[string]int64
}

// NewWriter prepares the insert statements in tx; Close them with Close.
func NewWriter(ctx context.Context, tx *sql.Tx) (*Writer, error) {
	w := &Writer{tx: tx, stmts: map[string]*sql.Stmt{}, entityIDs: map[string]int64{}, nodeIDs: map[string]int64{}}
	for name, q := range insertSQL {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("prepare %s: %w", name, err)
		}
		w.stmts[name] = st
	}
	return w, nil
}

// KnownEntities lets the writer take entity ids from known, a cache of
// ids that committed transactions stored, instead of asking SQLite for
// each entity of each batch (an upsert: 1.5 s of CPU over git/git's
// 127k entity changes). The writer only reads it; once the writer's
// transaction has committed, merge SeenEntities into it.
func (w *Writer) KnownEntities(known map[string]int64) { w.known = known }

// SeenEntities returns the entity ids this writer looked up or created.
// They are valid once its transaction has committed.
func (w *Writer) SeenEntities() map[string]int64 { return w.entityIDs }

// Close releases the prepared statements.
func (w *Writer) Close() error {
	err := w.Flush(context.Background())
	for _, st := range w.stmts {
		err = errors.Join(err, st.Close())
	}
	return err
}

var insertSQL = map[string]string{
	"find":   `SELECT id FROM commits WHERE hash = ?`,
	"revive": `UPDATE commits SET rewritten = 0, graphed = 0 WHERE id = ? AND rewritten = 1`,
	"commit": `INSERT INTO commits(hash, author_name, author_email, author_time, author_tz,
		committer_name, committer_email, committer_time, committer_tz, subject, is_merge, shallow,
		files_changed, insertions, deletions, redactions, message_repaired, branch, indexed_at,
		classification, labels, summary)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
	"parent": `INSERT INTO commit_parents VALUES (?,?,?)`,
	"change": `INSERT INTO file_changes(commit_id, seq, path, old_path, status, language, binary, skipped,
		insertions, deletions, old_blob, new_blob, similarity, follow) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
	"hunk":  `INSERT INTO hunks VALUES (?,?,?)`,
	"issue": `INSERT OR IGNORE INTO issue_refs VALUES (?,?,?,?,?,?,?)`,
	"blob":  `INSERT OR REPLACE INTO blobs(id, codec, size, data) VALUES (?, ?, ?, ?)`,
	"entity": `INSERT INTO entities(key, path, qualified, name, kind, language) VALUES (?,?,?,?,?,?)
		ON CONFLICT(key) DO UPDATE SET key = excluded.key RETURNING id`,
	"node": `INSERT INTO code_nodes(node) VALUES (?) ON CONFLICT(node) DO UPDATE SET node = excluded.node RETURNING id`,
}

// InsertCommit writes a commit, its parents, file changes, hunks, issue
// references, blobs, and what was understood of it (classification,
// summary, design notes). It is idempotent: a commit already stored is left
// as it is (and revived if it had been marked rewritten), so re-processing
// after a crash never duplicates anything.
func (w *Writer) InsertCommit(ctx context.Context, u *model.Understood, branch string, now time.Time) error {
	return w.InsertPrepared(ctx, u, nil, branch, now)
}

// Prepared is the part of a commit's write that needs no database: its
// compressed blobs and its keyword-index row. Prepare runs on the workers,
// so that the single writer only executes statements.
type Prepared struct {
	blobs  map[int64]encodedBlob // by slot
	search [6]string
	// lookup are the lookup_keys path keys: "=" and each path the commit
	// changed (new or old), "/" and each directory above one.
	lookup []string
}

// Prepare computes a commit's Prepared. Call it once the commit is final
// (redacted, understood, with its entities).
func Prepare(u *model.Understood) *Prepared {
	c := u.Commit
	p := &Prepared{blobs: map[int64]encodedBlob{slotMessage: encodeBlob([]byte(c.Message))}, search: searchRow(u)}
	if c.RawMessage != nil {
		p.blobs[slotRawMessage] = encodeBlob(c.RawMessage)
	}
	for seq, fc := range c.Changes {
		if len(fc.Hunks) > 0 {
			p.blobs[slotDiff+int64(seq)] = encodeBlob([]byte(FormatHunks(fc.Hunks)))
		}
	}
	p.lookup = lookupPathKeys(c.Changes)
	return p
}

// lookupPathKeys are a commit's path keys of lookup_keys, each once, and
// its paths fingerprint ("#paths:…"), so that a lookup by fingerprint is an
// index read rather than a hash of every record's paths.
func lookupPathKeys(changes []model.FileChange) []string {
	seen := map[string]bool{}
	var out []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if len(changes) > 0 {
		paths := make([]string, len(changes))
		for i, fc := range changes {
			paths[i] = fc.Path
		}
		add(FingerprintKey(model.PathsFingerprint(paths)))
	}
	for _, fc := range changes {
		for _, path := range []string{fc.Path, fc.OldPath} {
			if path == "" {
				continue
			}
			add("=" + path)
			for i := 1; i < len(path); i++ { // a '/' at 0 makes no directory, as the migration's SQL
				if path[i] == '/' {
					add("/" + path[:i])
				}
			}
		}
	}
	return out
}

// InsertPrepared is InsertCommit with the commit's Prepared (nil computes
// it here).
func (w *Writer) InsertPrepared(ctx context.Context, u *model.Understood, p *Prepared, branch string, now time.Time) error {
	c := u.Commit
	var id int64
	err := w.stmts["find"].QueryRowContext(ctx, c.Hash).Scan(&id)
	if err == nil {
		_, err = w.stmts["revive"].ExecContext(ctx, id)
		return err
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("look up commit %s: %w", c.Hash, err)
	}
	if p == nil {
		p = Prepare(u)
	}
	files, ins, del := c.Totals()
	_, offA := c.Author.When.Zone()
	_, offC := c.Committer.When.Zone()
	res, err := w.stmts["commit"].ExecContext(ctx,
		c.Hash, c.Author.Name, c.Author.Email, c.Author.When.Unix(), offA,
		c.Committer.Name, c.Committer.Email, c.Committer.When.Unix(), offC,
		c.Subject(), c.IsMerge, c.Shallow, files, ins, del, c.Redactions, c.RawMessage != nil, branch, now.Unix(),
		string(u.Classification.Primary.Type), labelsJSON(u.Classification), u.Summary)
	if err != nil {
		return fmt.Errorf("insert commit %s: %w", c.Hash, err)
	}
	if id, err = res.LastInsertId(); err != nil {
		return err
	}
	for i, p := range c.Parents {
		b, err := objectID(p)
		if err == nil && len(b) == 0 {
			err = fmt.Errorf("empty parent hash")
		}
		if err != nil {
			return fmt.Errorf("insert parent of %s: %w", c.Hash, err)
		}
		if _, err := w.stmts["parent"].ExecContext(ctx, id, i, b); err != nil {
			return fmt.Errorf("insert parent of %s: %w", c.Hash, err)
		}
	}
	// The blobs in the order of their ids, so that each is appended.
	if err := putEncoded(ctx, w.stmts["blob"], c.Hash, id, slotMessage, p.blobs[slotMessage]); err != nil {
		return err
	}
	if c.RawMessage != nil {
		if err := putEncoded(ctx, w.stmts["blob"], c.Hash, id, slotRawMessage, p.blobs[slotRawMessage]); err != nil {
			return err
		}
	}
	if err := w.insertChanges(ctx, id, c, p); err != nil {
		return err
	}
	for i, n := range u.Notes {
		ents, _ := json.Marshal(n.Entities)
		w.notes = append(w.notes, id, i, n.Source, n.Path, n.Line, n.Marker, n.Text, string(ents))
	}
	if err := w.insertEntities(ctx, id, u.Entities); err != nil {
		return err
	}
	if err := w.insertRelations(ctx, id, u.Relations); err != nil {
		return err
	}
	w.search = append(w.search, id, p.search[0], p.search[1], p.search[2], p.search[3], p.search[4], p.search[5])
	for _, k := range p.lookup {
		w.lookup = append(w.lookup, k, id)
	}
	for i, r := range c.IssueRefs {
		if _, err := w.stmts["issue"].ExecContext(ctx, id, r.Key, i, r.Kind, string(r.Action), r.Raw, r.URL); err != nil {
			return fmt.Errorf("insert issue ref of %s: %w", c.Hash, err)
		}
	}
	return nil
}

// labelsJSON stores a classification's labels, primary first.
func labelsJSON(cl model.Classification) string {
	if cl.Primary.Type == "" {
		return ""
	}
	b, _ := json.Marshal(append([]model.Label{cl.Primary}, cl.Secondary...))
	return string(b)
}

func (w *Writer) insertChanges(ctx context.Context, id int64, c *model.Commit, p *Prepared) error {
	for seq, fc := range c.Changes {
		oldBlob, err1 := objectID(fc.OldBlob)
		newBlob, err2 := objectID(fc.NewBlob)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("change %s of %s: %w", fc.Path, c.Hash, err)
		}
		_, err := w.stmts["change"].ExecContext(ctx, id, seq, fc.Path, fc.OldPath, string(fc.Status), fc.Language,
			fc.Binary, string(fc.Skipped), fc.Insertions, fc.Deletions, oldBlob, newBlob, fc.Similarity, fc.Follow)
		if err != nil {
			return fmt.Errorf("insert change %s of %s: %w", fc.Path, c.Hash, err)
		}
		if len(fc.Hunks) > 0 {
			if _, err := w.stmts["hunk"].ExecContext(ctx, id, seq, EncodeSpans(fc.Hunks)); err != nil {
				return fmt.Errorf("insert hunks of %s: %w", c.Hash, err)
			}
			if err := putEncoded(ctx, w.stmts["blob"], c.Hash, id, slotDiff+int64(seq), p.blobs[slotDiff+int64(seq)]); err != nil {
				return err
			}
		}
	}
	return nil
}

// objectID is the bytes of a hex object id as file_changes stores them;
// "" is an empty blob (an empty slice: the driver binds nil as NULL).
func objectID(h string) ([]byte, error) {
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("object id %q is not hex: %w", h, err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// FormatHunks renders hunks as the body of a unified diff, with git's
// "@@ -a,b +c,d @@" headers.
func FormatHunks(hunks []model.Hunk) string {
	var b strings.Builder
	for _, h := range hunks {
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(h.OldStart, h.OldLines), hunkRange(h.NewStart, h.NewLines))
		b.WriteString(h.Text)
	}
	return b.String()
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// ParseHunks reads hunks back from FormatHunks' output.
func ParseHunks(text string) []model.Hunk {
	var hunks []model.Hunk
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if strings.HasPrefix(line, "@@ ") {
			var h model.Hunk
			h.OldStart, h.OldLines, h.NewStart, h.NewLines = parseHeader(line)
			hunks = append(hunks, h)
			continue
		}
		if len(hunks) > 0 {
			hunks[len(hunks)-1].Text += line + "\n"
		}
	}
	return hunks
}

func parseHeader(line string) (os, ol, ns, nl int) {
	var a, b string
	fmt.Sscanf(line, "@@ -%s +%s @@", &a, &b)
	os, ol = parseRange(a)
	ns, nl = parseRange(b)
	return
}

func parseRange(r string) (start, n int) {
	n = 1
	if s, c, ok := strings.Cut(r, ","); ok {
		fmt.Sscan(s, &start)
		fmt.Sscan(c, &n)
		return start, n
	}
	fmt.Sscan(r, &start)
	return start, n
}

// CommitInfo is a stored commit's metadata row.
type CommitInfo struct {
	ID              int64
	Hash            string
	Parents         []string
	Author          model.Signature
	Committer       model.Signature
	Subject         string
	IsMerge         bool
	Shallow         bool
	Files           int
	Insertions      int
	Deletions       int
	Redactions      int
	MessageRepaired bool
	Branch          string
	Rewritten       bool
	Classification  model.Classification
	Summary         string
}

// GetCommit loads a stored commit with its file changes, hunks (with text),
// issue references and full message. It returns ErrNotFound for a hash that
// is not stored.
func (s *Store) GetCommit(ctx context.Context, hash string) (*model.Commit, *CommitInfo, error) {
	info, err := s.commitInfo(ctx, hash)
	if err != nil {
		return nil, nil, err
	}
	c := &model.Commit{Hash: info.Hash, Parents: info.Parents, Author: info.Author, Committer: info.Committer,
		IsMerge: info.IsMerge, Shallow: info.Shallow, Redactions: info.Redactions}
	msg, err := GetBlob(ctx, s.DB, MessageKey(hash))
	if err != nil {
		return nil, nil, err
	}
	c.Message = string(msg)
	if info.MessageRepaired {
		if c.RawMessage, err = GetBlob(ctx, s.DB, RawMessageKey(hash)); err != nil {
			return nil, nil, err
		}
	}
	if c.Changes, err = s.changes(ctx, info.ID, hash); err != nil {
		return nil, nil, err
	}
	if c.IssueRefs, err = s.issueRefs(ctx, info.ID); err != nil {
		return nil, nil, err
	}
	if c.Refs, err = s.refsAt(ctx, hash); err != nil {
		return nil, nil, err
	}
	return c, info, nil
}

// GetUnderstood loads a stored commit with its classification, summary,
// design notes, entity changes and code relationships.
func (s *Store) GetUnderstood(ctx context.Context, hash string) (*model.Understood, *CommitInfo, error) {
	c, info, err := s.GetCommit(ctx, hash)
	if err != nil {
		return nil, nil, err
	}
	u := &model.Understood{Commit: c, Classification: info.Classification, Summary: info.Summary}
	rows, err := s.DB.QueryContext(ctx, `SELECT source, path, line, marker, text, entities FROM design_notes
		WHERE commit_id = ? ORDER BY idx`, info.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("design notes of %s: %w", hash, err)
	}
	defer rows.Close()
	for rows.Next() {
		n := model.DesignNote{Commit: hash}
		var ents string
		if err := rows.Scan(&n.Source, &n.Path, &n.Line, &n.Marker, &n.Text, &ents); err != nil {
			return nil, nil, err
		}
		if ents != "" && ents != "null" {
			if err := json.Unmarshal([]byte(ents), &n.Entities); err != nil {
				return nil, nil, fmt.Errorf("design note entities of %s: %w", hash, err)
			}
		}
		u.Notes = append(u.Notes, n)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if u.Entities, err = s.entityChanges(ctx, info.ID); err != nil {
		return nil, nil, err
	}
	if u.Relations, err = s.commitRelations(ctx, info.ID); err != nil {
		return nil, nil, err
	}
	return u, info, nil
}

func (s *Store) commitInfo(ctx context.Context, hash string) (*CommitInfo, error) {
	var in CommitInfo
	var labels string
	var at, ct int64
	var atz, ctz int
	err := s.DB.QueryRowContext(ctx, `SELECT id, hash, author_name, author_email, author_time, author_tz,
		committer_name, committer_email, committer_time, committer_tz, subject, is_merge, shallow,
		files_changed, insertions, deletions, redactions, message_repaired, branch, rewritten, labels, summary
		FROM commits WHERE hash = ?`, hash).Scan(&in.ID, &in.Hash, &in.Author.Name, &in.Author.Email, &at, &atz,
		&in.Committer.Name, &in.Committer.Email, &ct, &ctz, &in.Subject, &in.IsMerge, &in.Shallow,
		&in.Files, &in.Insertions, &in.Deletions, &in.Redactions, &in.MessageRepaired, &in.Branch, &in.Rewritten,
		&labels, &in.Summary)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("commit %s: %w", hash, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load commit %s: %w", hash, err)
	}
	if labels != "" {
		var ls []model.Label
		if err := json.Unmarshal([]byte(labels), &ls); err != nil || len(ls) == 0 {
			return nil, fmt.Errorf("labels of %s: %v", hash, err)
		}
		in.Classification = model.Classification{Primary: ls[0], Secondary: ls[1:]}
	}
	in.Author.When = time.Unix(at, 0).In(zone(atz))
	in.Committer.When = time.Unix(ct, 0).In(zone(ctz))
	rows, err := s.DB.QueryContext(ctx, `SELECT lower(hex(parent_hash)) FROM commit_parents WHERE commit_id = ? ORDER BY idx`, in.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		in.Parents = append(in.Parents, p)
	}
	return &in, rows.Err()
}

func zone(offset int) *time.Location {
	if offset == 0 {
		return time.UTC
	}
	return time.FixedZone("", offset)
}

func (s *Store) changes(ctx context.Context, id int64, hash string) ([]model.FileChange, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT seq, path, old_path, status, language, binary, skipped,
		insertions, deletions, lower(hex(old_blob)), lower(hex(new_blob)), similarity, follow FROM file_changes
		WHERE commit_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.FileChange
	for rows.Next() {
		var fc model.FileChange
		var seq int
		var status, skipped string
		if err := rows.Scan(&seq, &fc.Path, &fc.OldPath, &status, &fc.Language, &fc.Binary, &skipped,
			&fc.Insertions, &fc.Deletions, &fc.OldBlob, &fc.NewBlob, &fc.Similarity, &fc.Follow); err != nil {
			return nil, err
		}
		fc.Status, fc.Skipped = model.ChangeStatus(status), model.SkipReason(skipped)
		out = append(out, fc)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for seq := range out {
		text, err := GetBlob(ctx, s.DB, DiffKey(hash, seq))
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[seq].Hunks = ParseHunks(string(text))
	}
	return out, nil
}

func (s *Store) issueRefs(ctx context.Context, id int64) ([]model.IssueRef, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT key, kind, action, raw, url FROM issue_refs WHERE commit_id = ? ORDER BY ord`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.IssueRef
	for rows.Next() {
		var r model.IssueRef
		var action string
		if err := rows.Scan(&r.Key, &r.Kind, &action, &r.Raw, &r.URL); err != nil {
			return nil, err
		}
		r.Action = model.IssueAction(action)
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteCommit removes a commit and everything stored about it: rows in
// every table (by cascade) and its message and diff blobs.
func DeleteCommit(ctx context.Context, tx *sql.Tx, hash string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE id >= (SELECT id FROM commits WHERE hash = ?1) << 32
		AND id < ((SELECT id FROM commits WHERE hash = ?1) + 1) << 32`, hash); err != nil {
		return fmt.Errorf("delete blobs of %s: %w", hash, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM commits WHERE hash = ?`, hash); err != nil {
		return fmt.Errorf("delete commit %s: %w", hash, err)
	}
	return nil
}

// refsAt names the branches and tags pointing at a commit, as git log
// --decorate does ("main", "tag: v1.0"); remote-tracking branches too.
func (s *Store) refsAt(ctx context.Context, hash string) ([]string, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT name, kind FROM refs WHERE target = ? ORDER BY kind, name`, hash)
	if err != nil {
		return nil, fmt.Errorf("refs of %s: %w", hash, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, kind string
		if err := rows.Scan(&name, &kind); err != nil {
			return nil, err
		}
		if kind == "tag" {
			name = "tag: " + name
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// Known answers, for many hashes in a row, whether a commit needs no
// processing: it is stored and live, or a retention policy pruned it.
// Close it when done.
type Known struct {
	stmt *sql.Stmt
}

// PrepareKnown prepares the lookup that discovery and verification share.
func (s *Store) PrepareKnown(ctx context.Context) (*Known, error) {
	stmt, err := s.DB.PrepareContext(ctx, `SELECT (SELECT COUNT(*) FROM commits WHERE hash = ?1 AND rewritten = 0)
		+ (SELECT COUNT(*) FROM pruned WHERE hash = ?1)`)
	if err != nil {
		return nil, fmt.Errorf("prepare known-commit lookup: %w", err)
	}
	return &Known{stmt: stmt}, nil
}

// Has reports whether hash is known.
func (k *Known) Has(ctx context.Context, hash string) (bool, error) {
	var n int
	if err := k.stmt.QueryRowContext(ctx, hash).Scan(&n); err != nil {
		return false, fmt.Errorf("look up %s: %w", hash, err)
	}
	return n > 0, nil
}

// Close releases the prepared statement.
func (k *Known) Close() error { return k.stmt.Close() }
