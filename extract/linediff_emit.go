// SPDX-License-Identifier: LGPL-2.1-or-later

package extract

import "github.com/gitmemory/gitmemory/model"

// Step 6 of the line diff (see linediff.go, also for this code's provenance
// and licence, LGPL-2.1-or-later): the change script and its unified-diff
// hunks.

// emit builds the change script and renders the hunks.
func (d *ldDiffer) emit(context int) (hunks []model.Hunk, insertions, deletions int) {
	a, b := &d.a, &d.b
	d.changes = d.changes[:0]
	for i1, i2 := 0, 0; i1 < a.n || i2 < b.n; {
		if a.chg[i1+1] != 0 || b.chg[i2+1] != 0 {
			s1, s2 := i1, i2
			for a.chg[i1+1] != 0 {
				i1++
			}
			for b.chg[i2+1] != 0 {
				i2++
			}
			d.changes = append(d.changes, ldChange{s1, s2, i1 - s1, i2 - s2})
			deletions += i1 - s1
			insertions += i2 - s2
		} else {
			// Skip lines unchanged in both files.
			k := max(1, min(a.nextChanged(i1)-i1, b.nextChanged(i2)-i2))
			i1 += k
			i2 += k
		}
	}
	if len(d.changes) == 0 {
		return nil, 0, 0
	}

	// Group changes into hunks: two changes share a hunk when at most
	// 2*context unchanged lines separate them.
	maxCommon := 2 * context
	nh := 1
	for k := 1; k < len(d.changes); k++ {
		p, c := d.changes[k-1], d.changes[k]
		if c.i1-(p.i1+p.c1) > maxCommon {
			nh++
		}
	}
	hunks = make([]model.Hunk, 0, nh)
	type span struct{ from, to int }
	spans := make([]span, 0, nh)
	buf := d.text[:0]
	for k := 0; k < len(d.changes); {
		first := k
		for k+1 < len(d.changes) {
			p, c := d.changes[k], d.changes[k+1]
			if c.i1-(p.i1+p.c1) > maxCommon {
				break
			}
			k++
		}
		last := k
		k++
		x, y := d.changes[first], d.changes[last]
		s1 := max(x.i1-context, 0)
		s2 := max(x.i2-context, 0)
		lctx := min(context, a.n-(y.i1+y.c1), b.n-(y.i2+y.c2))
		e1 := y.i1 + y.c1 + lctx
		e2 := y.i2 + y.c2 + lctx

		h := model.Hunk{OldStart: s1, OldLines: e1 - s1, NewStart: s2, NewLines: e2 - s2}
		if h.OldLines > 0 {
			h.OldStart++
		}
		if h.NewLines > 0 {
			h.NewStart++
		}
		from := len(buf)
		for j := s2; j < x.i2; j++ {
			buf = ldAppendLine(buf, ' ', b.line(j))
		}
		c1, c2 := x.i1, x.i2
		for j := first; j <= last; j++ {
			ch := d.changes[j]
			for ; c1 < ch.i1 && c2 < ch.i2; c1, c2 = c1+1, c2+1 {
				buf = ldAppendLine(buf, ' ', b.line(c2))
			}
			for i := ch.i1; i < ch.i1+ch.c1; i++ {
				buf = ldAppendLine(buf, '-', a.line(i))
			}
			for i := ch.i2; i < ch.i2+ch.c2; i++ {
				buf = ldAppendLine(buf, '+', b.line(i))
			}
			c1, c2 = ch.i1+ch.c1, ch.i2+ch.c2
		}
		for j := y.i2 + y.c2; j < e2; j++ {
			buf = ldAppendLine(buf, ' ', b.line(j))
		}
		hunks = append(hunks, h)
		spans = append(spans, span{from, len(buf)})
	}
	all := string(buf)
	for i := range hunks {
		hunks[i].Text = all[spans[i].from:spans[i].to]
	}
	d.text = buf
	return hunks, insertions, deletions
}

func ldAppendLine(buf []byte, prefix byte, line []byte) []byte {
	buf = append(buf, prefix)
	buf = append(buf, line...)
	if len(line) == 0 || line[len(line)-1] != '\n' {
		buf = append(buf, ldNoNewlineMarker...)
	}
	return buf
}
