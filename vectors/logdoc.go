package vectors

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Op 5 stores a document whose id and metadata are those Doc gives it
// without repeating what follows from the rest:
//
//	doc   = flags commit:20 [note:uvarint] time:varint class paths
//	flags = bit 0: the commit's stored documents are dropped first (the
//	        delete an upsert writes before a commit's documents);
//	        bit 1: a note (kind "note", id "note:<commit>:<note>"),
//	        else a commit (kind "commit", id "commit:<commit>");
//	        bit 2: rewritten "true", else "false"
//	commit = the hash's 20 bytes (metadata "commit", 40 lowercase hex digits)
//	time   = the committer time, Unix seconds (metadata "time" in decimal)
//	class  = uvarint n: n even, a string of n/2 bytes follows and joins the
//	         frame's table; n odd, the table's (n-1)/2-th string
//	paths  = uvarint length, bytes
//
// Op 4 spelled out the id, the six metadata keys, the hash twice and the
// time in decimal: about 200 bytes a document besides its vector, and a
// delete op of 42 bytes before each commit's. Op 5 took git/git's log
// (124,494 documents) from 66.5 MB to 45.1 MB.
const (
	docReplace   = 1
	docNote      = 2
	docRewritten = 4
)

// docShape is what op 5 keeps of a document's id and metadata.
type docShape struct {
	flags byte
	hash  [20]byte
	note  int
	time  int64
	class string
	paths string
}

// shapeOf returns the document's shape when its id and metadata are
// exactly what op 5 rebuilds; otherwise the document is written as op 4.
func shapeOf(id string, meta map[string]string) (docShape, bool) {
	var s docShape
	if len(meta) != 6 {
		return s, false
	}
	commit, kind := meta[MetaCommit], meta[MetaKind]
	if len(commit) != 40 || strings.ToLower(commit) != commit {
		return s, false
	}
	if _, err := hex.Decode(s.hash[:], []byte(commit)); err != nil {
		return s, false
	}
	switch {
	case kind == KindCommit && id == CommitID(commit):
	case kind == KindNote && strings.HasPrefix(id, KindNote+":"+commit+":"):
		n, err := strconv.Atoi(id[len(KindNote)+42:])
		if err != nil || n < 0 || id != NoteID(commit, n) {
			return s, false
		}
		s.flags, s.note = docNote, n
	default:
		return s, false
	}
	t, err := strconv.ParseInt(meta[MetaTime], 10, 64)
	if err != nil || strconv.FormatInt(t, 10) != meta[MetaTime] {
		return s, false
	}
	s.time = t
	switch meta[MetaRewritten] {
	case "true":
		s.flags |= docRewritten
	case "false":
	default:
		return s, false
	}
	class, ok1 := meta[MetaClassification]
	paths, ok2 := meta[MetaPaths]
	s.class, s.paths = class, paths
	return s, ok1 && ok2
}

// putDoc appends a put, as op 5 when the document has the usual shape.
// With replace, the commit's stored documents are dropped first: a flag
// of op 5, else a delete op before the put.
func (e *encoder) putDoc(id string, meta map[string]string, vec []float32, replace bool) {
	s, ok := shapeOf(id, meta)
	if !ok {
		if replace {
			e.delCommit(meta[MetaCommit])
		}
		e.put(id, meta, vec)
		return
	}
	if replace {
		s.flags |= docReplace
	}
	e.buf = append(e.buf, opPutDoc, s.flags)
	e.buf = append(e.buf, s.hash[:]...)
	if s.flags&docNote != 0 {
		e.buf = binary.AppendUvarint(e.buf, uint64(s.note))
	}
	e.buf = binary.AppendVarint(e.buf, s.time)
	e.ref(s.class)
	e.str(s.paths)
	e.quantVec(vec)
}

// ref appends a string that recurs within a frame (a classification):
// its bytes the first time, its place in the frame's table after.
func (e *encoder) ref(s string) {
	if i, ok := e.table[s]; ok {
		e.buf = binary.AppendUvarint(e.buf, uint64(2*i+1))
		return
	}
	if e.table == nil {
		e.table = map[string]int{}
	}
	e.table[s] = len(e.table)
	e.buf = binary.AppendUvarint(e.buf, uint64(2*len(s)))
	e.buf = append(e.buf, s...)
}

// reset empties the encoder for the next frame.
func (e *encoder) reset() {
	e.buf = e.buf[:0]
	clear(e.table)
}

// doc decodes op 5 up to its vector into r and reports whether the
// commit's stored documents are to be dropped first.
func (d *decoder) doc(r *record, build bool) (replace bool) {
	r.op = opPut
	flags := d.byte()
	hash := d.bytes(20)
	note := -1
	if flags&docNote != 0 {
		note = d.uvarint(1 << 30)
	}
	t := d.varint(-1<<62, 1<<62)
	class := d.ref(build)
	paths := d.str(build)
	if d.err == nil && flags&^(docReplace|docNote|docRewritten) != 0 {
		d.err = fmt.Errorf("%w: document flags %#x", ErrCorrupt, flags)
		d.p = nil
	}
	if !build || d.err != nil {
		return false
	}
	commit := hex.EncodeToString(hash)
	kind := KindCommit
	r.id = CommitID(commit)
	if note >= 0 {
		kind, r.id = KindNote, NoteID(commit, note)
	}
	r.meta = map[string]string{
		MetaKind:           kind,
		MetaCommit:         r.id[len(kind)+1 : len(kind)+41], // shares the id's bytes
		MetaTime:           strconv.FormatInt(int64(t), 10),
		MetaClassification: class,
		MetaPaths:          paths,
		MetaRewritten:      strconv.FormatBool(flags&docRewritten != 0),
	}
	return flags&docReplace != 0
}

// ref decodes what encoder.ref wrote.
func (d *decoder) ref(build bool) string {
	n := d.uvarint(len(d.p)*2 + 1)
	if n%2 == 1 {
		if n/2 >= len(d.table) {
			if d.err == nil {
				d.err = fmt.Errorf("%w: string %d of a frame that has %d", ErrCorrupt, n/2, len(d.table))
			}
			d.p = nil
			return ""
		}
		return d.table[n/2]
	}
	b := d.bytes(n / 2)
	var s string
	if build {
		s = string(b)
	}
	if d.err == nil {
		d.table = append(d.table, s)
	}
	return s
}
