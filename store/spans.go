package store

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/gitmemory/gitmemory/model"
)

// A file change's hunk headers are one row of hunks, not one row each:
// spans holds each hunk's old start, old line count, new start and new
// line count as four unsigned varints, in the hunks' order. git/git's
// 504,374 hunks of 167,195 file changes took 10.2 MB as rows of seven
// columns, keys included; as spans they take 2.9 MB of varints.

// Span is one hunk's header: where it starts and how many lines it spans
// in the old and the new file.
type Span struct {
	OldStart, OldLines, NewStart, NewLines int
}

// EncodeSpans is the spans column of a file change's hunks.
func EncodeSpans(hunks []model.Hunk) []byte {
	b := make([]byte, 0, 6*len(hunks))
	for _, h := range hunks {
		for _, v := range [4]int{h.OldStart, h.OldLines, h.NewStart, h.NewLines} {
			b = binary.AppendUvarint(b, uint64(max(v, 0)))
		}
	}
	return b
}

// DecodeSpans reads a spans column back.
func DecodeSpans(b []byte) ([]Span, error) {
	out := make([]Span, 0, len(b)/5)
	for len(b) > 0 {
		var v [4]int
		for i := range v {
			x, n := binary.Uvarint(b)
			if n <= 0 || x > 1<<40 {
				return nil, fmt.Errorf("hunk spans: bad varint after %d hunks", len(out))
			}
			v[i], b = int(x), b[n:]
		}
		out = append(out, Span{v[0], v[1], v[2], v[3]})
	}
	return out, nil
}

// sqlUvarintHex is the SQL expression of the hex digits of the unsigned
// varint of col (0 ≤ col < 2^35), for the migration that packs the older
// rows.
func sqlUvarintHex(col string) string {
	var b strings.Builder
	b.WriteString("CASE")
	for n := 1; n <= 5; n++ {
		if n < 5 {
			fmt.Fprintf(&b, " WHEN %s < %d THEN", col, int64(1)<<(7*n))
		} else {
			b.WriteString(" ELSE")
		}
		b.WriteString(" printf('" + strings.Repeat("%02x", n) + "'")
		for i := range n {
			if i < n-1 {
				fmt.Fprintf(&b, ", ((%s >> %d) & 127) | 128", col, 7*i)
			} else {
				fmt.Fprintf(&b, ", %s >> %d", col, 7*i)
			}
		}
		b.WriteString(")")
	}
	b.WriteString(" END")
	return b.String()
}

// spansMigration packs the hunks' rows into one row of spans per file
// change (schema 16).
func spansMigration() string {
	span := sqlUvarintHex("old_start") + " || " + sqlUvarintHex("old_lines") + " || " +
		sqlUvarintHex("new_start") + " || " + sqlUvarintHex("new_lines")
	return `
CREATE TABLE hunks_new (
	commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	seq       INTEGER NOT NULL,
	spans     BLOB NOT NULL,
	PRIMARY KEY (commit_id, seq)
) WITHOUT ROWID;
INSERT INTO hunks_new SELECT commit_id, seq, unhex(group_concat(` + span + `, '' ORDER BY idx))
	FROM hunks GROUP BY commit_id, seq ORDER BY commit_id, seq;
DROP TABLE hunks;
ALTER TABLE hunks_new RENAME TO hunks;
`
}
