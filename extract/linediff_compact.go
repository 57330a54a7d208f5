// SPDX-License-Identifier: LGPL-2.1-or-later

package extract

// Step 5 of the line diff (see linediff.go, also for this code's provenance
// and licence, LGPL-2.1-or-later): slide groups of changed lines to merge
// them, align them with the other file's, or place them as git's indent
// heuristic prefers.

// ldGroup is a run [start, end) of changed lines in one file; an empty group
// (start == end) sits just above line start.
type ldGroup struct{ start, end int }

func (s *ldSide) groupInit(g *ldGroup) {
	g.start, g.end = 0, 0
	for s.chg[g.end+1] != 0 {
		g.end++
	}
}

// groupAt sets g to the group that begins at line p.
func (s *ldSide) groupAt(g *ldGroup, p int) {
	g.start, g.end = p, p
	for s.chg[g.end+1] != 0 {
		g.end++
	}
}

func (s *ldSide) groupNext(g *ldGroup) bool {
	if g.end == s.n {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for s.chg[g.end+1] != 0 {
		g.end++
	}
	return true
}

func (s *ldSide) groupPrev(g *ldGroup) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for s.chg[g.start] != 0 { // line start-1
		g.start--
	}
	return true
}

func (s *ldSide) slideDown(g *ldGroup) bool {
	if g.end < s.n && s.same(g.start, g.end) {
		s.chg[g.start+1] = 0
		g.start++
		s.chg[g.end+1] = 1
		g.end++
		for s.chg[g.end+1] != 0 {
			g.end++
		}
		return true
	}
	return false
}

func (s *ldSide) slideUp(g *ldGroup) bool {
	if g.start > 0 && s.same(g.start-1, g.end-1) {
		g.start--
		s.chg[g.start+1] = 1
		g.end--
		s.chg[g.end+1] = 0
		for s.chg[g.start] != 0 {
			g.start--
		}
		return true
	}
	return false
}

// compact slides the groups of changed lines of x, keeping o (the other
// file) in step: groups that can move are merged with neighbours, aligned
// with a change in the other file when possible, and otherwise placed
// where the indent heuristic likes them best.
func (d *ldDiffer) compact(x, o *ldSide) {
	var g, gO ldGroup
	x.groupInit(&g)
	o.groupInit(&gO)
	for {
		if g.start == g.end && gO.start == gO.end {
			// Jump over lines that are unchanged in both files.
			if k := min(x.nextChanged(g.end)-g.end, o.nextChanged(gO.end)-gO.end); k > 0 {
				x.groupAt(&g, g.end+k)
				o.groupAt(&gO, gO.end+k)
			}
		}
		if g.end != g.start {
			var size, earliestEnd int
			endMatchingOther := -1
			for {
				size = g.end - g.start
				endMatchingOther = -1
				for x.slideUp(&g) {
					if !o.groupPrev(&gO) {
						return // out of sync; cannot happen
					}
				}
				earliestEnd = g.end
				if gO.end > gO.start {
					endMatchingOther = g.end
				}
				for x.slideDown(&g) {
					if !o.groupNext(&gO) {
						return
					}
					if gO.end > gO.start {
						endMatchingOther = g.end
					}
				}
				if size == g.end-g.start {
					break
				}
			}

			switch {
			case g.end == earliestEnd:
				// The group cannot move.
			case endMatchingOther != -1:
				for gO.end == gO.start {
					if !x.slideUp(&g) || !o.groupPrev(&gO) {
						return
					}
				}
			default:
				shift := earliestEnd
				if g.end-size-1 > shift {
					shift = g.end - size - 1
				}
				if g.end-ldIndentMaxSliding > shift {
					shift = g.end - ldIndentMaxSliding
				}
				bestShift := -1
				var best ldSplitScore
				for ; shift <= g.end; shift++ {
					var sc ldSplitScore
					sc.add(x.measureSplit(shift))
					sc.add(x.measureSplit(shift - size))
					if bestShift == -1 || sc.cmp(best) <= 0 {
						best = sc
						bestShift = shift
					}
				}
				for g.end > bestShift {
					if !x.slideUp(&g) || !o.groupPrev(&gO) {
						return
					}
				}
			}
		}
		if !x.groupNext(&g) {
			break
		}
		if !o.groupNext(&gO) {
			return
		}
	}
}

// lineIndent returns the indentation width of line i (tabs to multiples of
// 8), -1 for a blank line, capped at ldMaxIndent. Only ' ', '\t', '\n' and
// '\r' count as white space, like git's isspace.
func (s *ldSide) lineIndent(i int) int {
	ret := 0
	for _, c := range s.line(i) {
		switch c {
		case ' ':
			ret++
		case '\t':
			ret += 8 - ret%8
		case '\n', '\r':
		default:
			return ret
		}
		if ret >= ldMaxIndent {
			return ldMaxIndent
		}
	}
	return -1
}

type ldSplitMeasure struct {
	endOfFile  bool
	indent     int
	preBlank   int
	preIndent  int
	postBlank  int
	postIndent int
}

func (s *ldSide) measureSplit(split int) ldSplitMeasure {
	var m ldSplitMeasure
	if split >= s.n {
		m.endOfFile = true
		m.indent = -1
	} else {
		m.indent = s.lineIndent(split)
	}
	m.preIndent = -1
	for i := split - 1; i >= 0; i-- {
		m.preIndent = s.lineIndent(i)
		if m.preIndent != -1 {
			break
		}
		m.preBlank++
		if m.preBlank == ldMaxBlanks {
			m.preIndent = 0
			break
		}
	}
	m.postIndent = -1
	for i := split + 1; i < s.n; i++ {
		m.postIndent = s.lineIndent(i)
		if m.postIndent != -1 {
			break
		}
		m.postBlank++
		if m.postBlank == ldMaxBlanks {
			m.postIndent = 0
			break
		}
	}
	return m
}

type ldSplitScore struct{ effectiveIndent, penalty int }

func (sc *ldSplitScore) add(m ldSplitMeasure) {
	if m.preIndent == -1 && m.preBlank == 0 {
		sc.penalty += ldStartOfFilePenalty
	}
	if m.endOfFile {
		sc.penalty += ldEndOfFilePenalty
	}
	postBlank := 0
	if m.indent == -1 {
		postBlank = 1 + m.postBlank
	}
	totalBlank := m.preBlank + postBlank
	sc.penalty += ldTotalBlankWeight * totalBlank
	sc.penalty += ldPostBlankWeight * postBlank
	indent := m.indent
	if indent == -1 {
		indent = m.postIndent
	}
	anyBlanks := totalBlank != 0
	sc.effectiveIndent += indent
	switch {
	case indent == -1 || m.preIndent == -1:
	case indent > m.preIndent:
		if anyBlanks {
			sc.penalty += ldRelIndentBlankPen
		} else {
			sc.penalty += ldRelIndentPenalty
		}
	case indent == m.preIndent:
	case m.postIndent != -1 && m.postIndent > indent:
		if anyBlanks {
			sc.penalty += ldRelOutdentBlankPen
		} else {
			sc.penalty += ldRelOutdentPenalty
		}
	default:
		if anyBlanks {
			sc.penalty += ldRelDedentBlankPen
		} else {
			sc.penalty += ldRelDedentPenalty
		}
	}
}

func (sc ldSplitScore) cmp(o ldSplitScore) int {
	c := 0
	if sc.effectiveIndent > o.effectiveIndent {
		c = 1
	} else if sc.effectiveIndent < o.effectiveIndent {
		c = -1
	}
	return ldIndentWeight*c + (sc.penalty - o.penalty)
}
