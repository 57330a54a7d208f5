// Package dump prints everything a sync derived for one repository,
// sorted and without clock times or row ids, so that two syncs of the same
// history can be compared with diff: two builds', or a sync killed and
// resumed and an uninterrupted one. Rows that refer to commits or
// entities name them by hash and key, not by row id.
//
// It prints every table a sync writes (commits and their parents, file
// changes with their language, hunks, issue references, blobs, design
// notes, entities and their changes, the keyword index's rows, lookup
// keys, couplings, test links, code relationships and their nodes, refs,
// the sync and relations state, the queue), every graph quad, and the
// vector index's documents as its log holds them (the live documents after
// replaying the log, each vector digested). The log's bytes depend on how writes were framed, which a
// resumed sync does differently; Options.LogBytes adds their digest.
package dump

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/store"
)

// Options select extra output.
type Options struct {
	// LogBytes adds each vector index file's size and SHA-256 (see the
	// package comment).
	LogBytes bool
}

// tables are the queries of the tables dumped, by name. Clock times and
// row ids are left out; a commit is its hash, an entity its key.
var tables = map[string]string{
	"commits": `SELECT hash, author_name, author_email, author_time, author_tz, committer_name, committer_email,
		committer_time, committer_tz, subject, is_merge, shallow, files_changed, insertions, deletions, redactions,
		message_repaired, branch, rewritten, graphed, classification, labels, summary, severity FROM commits`,
	"commit_parents": `SELECT c.hash, p.idx, lower(hex(p.parent_hash)) FROM commit_parents p JOIN commits c ON c.id = p.commit_id`,
	"file_changes": `SELECT c.hash, f.seq, f.path, f.old_path, f.status, f.language, f.binary, f.skipped, f.insertions,
		f.deletions, lower(hex(f.old_blob)), lower(hex(f.new_blob)), f.similarity, f.follow
		FROM file_changes f JOIN commits c ON c.id = f.commit_id`,
	// A file change's hunks are one row of spans (store/spans.go),
	// printed a hunk a line as when they were a row each.
	"hunks":      `SELECT c.hash, h.seq, h.spans FROM hunks h JOIN commits c ON c.id = h.commit_id`,
	"issue_refs": `SELECT c.hash, r.key, r.ord, r.kind, r.action, r.raw, r.url FROM issue_refs r JOIN commits c ON c.id = r.commit_id`,
	"blobs":      `SELECT key, codec, size, data FROM blob_keys`,
	"design_notes": `SELECT c.hash, n.idx, n.source, n.path, n.line, n.marker, n.text, n.entities
		FROM design_notes n JOIN commits c ON c.id = n.commit_id`,
	"entities": `SELECT key, path, qualified, name, kind, language FROM entities`,
	"entity_changes": `SELECT c.hash, e.key, x.action, x.start_line, x.end_line, x.signature, COALESCE(r.key, '')
		FROM entity_changes x JOIN commits c ON c.id = x.commit_id JOIN entities e ON e.id = x.entity_id
		LEFT JOIN entities r ON r.id = x.replaces`,
	// The keyword index keeps no copy of its text: each row's columns are
	// printed as the index holds them, each token (stemmed) at its offset.
	"search": `SELECT c.hash, v.col, group_concat(v.term || '@' || v.offset, ' ' ORDER BY v.offset, v.term)
		FROM temp.search_terms v JOIN commits c ON c.id = v.doc GROUP BY v.doc, v.col`,
	"lookup_keys": `SELECT k.key, k.live, k.severity, k.time, c.hash FROM lookup_keys k JOIN commits c ON c.id = k.commit_id`,
	"couplings":   `SELECT * FROM couplings`,
	"verified_by": `SELECT * FROM verified_by`,
	"refs":        `SELECT name, kind, target, object FROM refs`,
	"pruned":      `SELECT hash FROM pruned`,
	"sync_state":  `SELECT branch, last_head FROM sync_state`,
	"relations_state": `SELECT COALESCE((SELECT hash FROM commits WHERE id = r.last_commit), r.last_commit), r.stale
		FROM relations_state r`,
	"queue":                `SELECT commit_hash, branch, priority, status, attempts, last_error FROM queue`,
	"fingerprint_backfill": `SELECT c.hash FROM fingerprint_backfill b JOIN commits c ON c.id = b.commit_id`,
	"code_nodes":           `SELECT node FROM code_nodes`,
	"code_relations": `SELECT f.node, r.kind, t.node, c.hash, r.added, r.confidence FROM code_relations r
		JOIN code_nodes f ON f.id = r.from_id JOIN code_nodes t ON t.id = r.to_id JOIN commits c ON c.id = r.commit_id`,
}

// Dump writes the dump of the repository data directory dir.
func Dump(ctx context.Context, dir string, w io.Writer, opts Options) error {
	st, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	names := make([]string, 0, len(tables))
	for t := range tables {
		names = append(names, t)
	}
	slices.Sort(names)
	// One connection, so that the temporary vocabulary table is visible to
	// the query that reads it.
	conn, err := st.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE temp.search_terms USING fts5vocab(main, search, instance)`); err != nil {
		return fmt.Errorf("keyword index terms: %w", err)
	}
	bw := bufio.NewWriter(w)
	for _, t := range names {
		if err := dumpTable(ctx, conn, t, tables[t], bw); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	if err := dumpGraph(ctx, filepath.Join(dir, "graph"), bw); err != nil {
		return err
	}
	if err := dumpVectors(filepath.Join(dir, "vectors"), bw, opts); err != nil {
		return err
	}
	return bw.Flush()
}

func dumpTable(ctx context.Context, db *sql.Conn, table, query string, w io.Writer) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return err
	}
	var lines []string
	vals := make([]any, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if table == "hunks" {
			hs, err := hunkLines(vals)
			if err != nil {
				return err
			}
			lines = append(lines, hs...)
			continue
		}
		var b strings.Builder
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('\t')
			}
			switch v := v.(type) {
			case []byte:
				fmt.Fprintf(&b, "%x", sha256.Sum256(v))
			case string:
				b.WriteString(strings.NewReplacer("\\", `\\`, "\n", `\n`, "\t", `\t`).Replace(v))
			default:
				fmt.Fprint(&b, v)
			}
		}
		lines = append(lines, b.String())
	}
	if err := rows.Err(); err != nil {
		return err
	}
	slices.Sort(lines)
	fmt.Fprintf(w, "== %s (%d rows)\n", table, len(lines))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

// hunkLines are the lines of a file change's hunks: hash, seq, the hunk's
// index and its four numbers.
func hunkLines(vals []any) ([]string, error) {
	spans, ok := vals[2].([]byte)
	if !ok {
		return nil, fmt.Errorf("spans of %v change %v: %T, not bytes", vals[0], vals[1], vals[2])
	}
	hs, err := store.DecodeSpans(spans)
	if err != nil {
		return nil, fmt.Errorf("%v change %v: %w", vals[0], vals[1], err)
	}
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = fmt.Sprintf("%v\t%v\t%d\t%d\t%d\t%d\t%d", vals[0], vals[1], i, h.OldStart, h.OldLines, h.NewStart, h.NewLines)
	}
	return out, nil
}

func dumpGraph(ctx context.Context, dir string, w io.Writer) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(w, "== graph (none)")
		return nil
	}
	g, err := graph.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer g.Close()
	var lines []string
	err = g.EachQuad(ctx, func(q quad.Quad) error {
		lines = append(lines, q.NQuad())
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(lines)
	fmt.Fprintf(w, "== graph (%d quads)\n", len(lines))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

// The vector index's files (vectors/marker.go, vectors/log.go): index.json
// names the embedder and the collection, whose directory holds the log.
const (
	markerFile = "index.json"
	logFile    = "vectors.log"
	logMagic   = "GMVLOG1\n"
	opPut      = 1
	opDelete   = 2
	opSparse   = 3
	opQuant    = 4
	opDoc      = 5
)

// dumpVectors prints the marker and the live documents of each log.
func dumpVectors(dir string, w io.Writer, opts Options) error {
	data, err := os.ReadFile(filepath.Join(dir, markerFile))
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(w, "== vectors (none)")
		return nil
	}
	if err != nil {
		return err
	}
	var m struct {
		Format     int    `json:"format"`
		Embedder   string `json:"embedder"`
		Dims       int    `json:"dims"`
		Collection string `json:"collection"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("vector marker: %w", err)
	}
	docs, err := replayLog(filepath.Join(dir, m.Collection, logFile))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== vectors (format %d, embedder %s, %d dimensions, collection %s, %d documents)\n",
		m.Format, m.Embedder, m.Dims, m.Collection, len(docs))
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		fmt.Fprintf(w, "%s\t%s\n", id, docs[id])
	}
	if !opts.LogBytes {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasSuffix(p, ".end") { // the clean-end mark: the log's size, then its mtime
			size, _, _ := strings.Cut(string(b), " ")
			b = []byte(size)
		}
		fmt.Fprintf(w, "file %s %d %x\n", rel, len(b), sha256.Sum256(b))
		return nil
	})
}

// replayLog applies a vector log's complete frames as the index does when
// it loads (a put replaces the document of its id within its commit, a
// delete drops every document of a commit; a torn last frame is ignored)
// and returns each live document's metadata and vector digest by id.
func replayLog(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(string(data), logMagic) {
		if len(data) < len(logMagic) && strings.HasPrefix(logMagic, string(data)) {
			return map[string]string{}, nil
		}
		return nil, fmt.Errorf("%s is not a vector log", path)
	}
	byCommit := map[string]map[string]string{}
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	for p := data[len(logMagic):]; len(p) >= 8; {
		n := int(binary.LittleEndian.Uint32(p))
		if n == 0 || 8+n > len(p) {
			break // torn
		}
		payload := p[8 : 8+n]
		if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(p[4:]) {
			if 8+n == len(p) {
				break // the last frame, partly written
			}
			return nil, fmt.Errorf("%s: bad frame checksum", path)
		}
		if err := applyOps(payload, byCommit); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		p = p[8+n:]
	}
	out := map[string]string{}
	for _, docs := range byCommit {
		for id, d := range docs {
			out[id] = d
		}
	}
	return out, nil
}

// applyOps decodes one frame's ops (vectors/log.go's format).
func applyOps(p []byte, byCommit map[string]map[string]string) error {
	bad := errors.New("truncated vector log op")
	uvarint := func() (int, bool) {
		v, n := binary.Uvarint(p)
		if n <= 0 || v > 1<<31 {
			return 0, false
		}
		p = p[n:]
		return int(v), true
	}
	str := func() (string, bool) {
		n, ok := uvarint()
		if !ok || n > len(p) {
			return "", false
		}
		s := string(p[:n])
		p = p[n:]
		return s, true
	}
	var table []string // op 5's classifications, by their place in the frame
	for len(p) > 0 {
		op := p[0]
		p = p[1:]
		switch op {
		case opPut, opSparse, opQuant, opDoc:
			var id, commit string
			var meta []string
			var ok bool
			if op == opDoc {
				var replace bool
				id, commit, meta, replace, ok = docHead(&p, &table)
				if ok && replace {
					delete(byCommit, commit)
				}
				op = opQuant // its vector is stored as op 4's
			} else {
				id, commit, meta, ok = putHead(str, uvarint)
			}
			if !ok {
				return bad
			}
			dims, ok := uvarint()
			if !ok {
				return bad
			}
			var vec []byte
			if vec, p, ok = vectorBytes(op, dims, p); !ok {
				return bad
			}
			sort.Strings(meta)
			if byCommit[commit] == nil {
				byCommit[commit] = map[string]string{}
			}
			byCommit[commit][id] = fmt.Sprintf("%s\tdims=%d vector=%x", strings.Join(meta, " "), dims, sha256.Sum256(vec))
		case opDelete:
			c, ok := str()
			if !ok {
				return bad
			}
			delete(byCommit, c)
		default:
			return fmt.Errorf("unknown vector log op %d", op)
		}
	}
	return nil
}

// putHead reads the id and metadata of an op 1, 3 or 4 put, each
// metadata entry as key=value.
func putHead(str func() (string, bool), uvarint func() (int, bool)) (id, commit string, meta []string, ok bool) {
	if id, ok = str(); !ok {
		return
	}
	n, ok := uvarint()
	if !ok {
		return
	}
	meta = make([]string, 0, n)
	for range n {
		k, ok1 := str()
		v, ok2 := str()
		if !ok1 || !ok2 {
			return id, commit, meta, false
		}
		if k == "commit" {
			commit = v
		}
		meta = append(meta, k+"="+strings.ReplaceAll(v, "\n", `\n`))
	}
	return id, commit, meta, true
}

// docHead reads an op 5 put up to its vector: flags (1 the commit's
// documents dropped first, 2 a note, 4 rewritten), the commit's 20 bytes,
// the note's index for a note, the time as a varint, the classification
// (a new string or a reference to one earlier in the frame) and the
// paths; it rebuilds the id and metadata an op 4 put spells out.
func docHead(p *[]byte, table *[]string) (id, commit string, meta []string, replace, ok bool) {
	b := *p
	if len(b) < 21 {
		return
	}
	flags := b[0]
	commit, b = hex.EncodeToString(b[1:21]), b[21:]
	id, kind := "commit:"+commit, "commit"
	if flags&2 != 0 {
		note, n := binary.Uvarint(b)
		if n <= 0 {
			return
		}
		id, kind, b = fmt.Sprintf("note:%s:%d", commit, note), "note", b[n:]
	}
	t, n := binary.Varint(b)
	if n <= 0 {
		return
	}
	b = b[n:]
	ref, n := binary.Uvarint(b)
	if n <= 0 {
		return
	}
	b = b[n:]
	var class string
	if ref%2 == 1 {
		if ref/2 >= uint64(len(*table)) {
			return
		}
		class = (*table)[ref/2]
	} else {
		if ref/2 > uint64(len(b)) {
			return
		}
		class, b = string(b[:ref/2]), b[ref/2:]
		*table = append(*table, class)
	}
	size, n := binary.Uvarint(b)
	if n <= 0 || size > uint64(len(b[n:])) {
		return
	}
	paths := string(b[n : n+int(size)])
	*p = b[n+int(size):]
	meta = []string{"classification=" + class, "commit=" + commit, "kind=" + kind,
		"paths=" + strings.ReplaceAll(paths, "\n", `\n`), fmt.Sprintf("rewritten=%t", flags&4 != 0),
		fmt.Sprintf("time=%d", t)}
	return id, commit, meta, flags&1 != 0, true
}

// vectorBytes reads a put's vector from p as dense little-endian floats,
// expanding a sparse one (a mask of the stored elements, then those
// elements as floats, or as an exponent and int8s), so that every
// encoding of a vector prints alike; it returns the rest of p.
func vectorBytes(op byte, dims int, p []byte) (vec, rest []byte, ok bool) {
	if op == opPut {
		if 4*dims > len(p) {
			return nil, nil, false
		}
		return p[:4*dims], p[4*dims:], true
	}
	mask := (dims + 7) / 8
	if mask > len(p) {
		return nil, nil, false
	}
	vec = make([]byte, 4*dims)
	stored, exp := p[mask:], 0
	if op == opQuant {
		e, n := binary.Varint(stored)
		if n <= 0 {
			return nil, nil, false
		}
		stored, exp = stored[n:], int(e)
	}
	for i := range dims {
		if p[i/8]&(1<<(i%8)) == 0 {
			continue
		}
		if op == opQuant {
			if len(stored) < 1 {
				return nil, nil, false
			}
			x := float32(int8(stored[0])) * float32(math.Ldexp(1, exp))
			binary.LittleEndian.PutUint32(vec[4*i:], math.Float32bits(x))
			stored = stored[1:]
			continue
		}
		if len(stored) < 4 {
			return nil, nil, false
		}
		copy(vec[4*i:], stored[:4])
		stored = stored[4:]
	}
	return vec, stored, true
}
