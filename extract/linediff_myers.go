// SPDX-License-Identifier: LGPL-2.1-or-later

package extract

import "math"

// Step 4 of the line diff (see linediff.go, also for this code's provenance
// and licence, LGPL-2.1-or-later): Myers' linear-space search for the
// middle snake, with xdiff's cost cap and snake heuristic.

// myers marks the changed lines among the reduced sequences.
func (d *ldDiffer) myers() {
	n1, n2 := len(d.a.rha), len(d.b.rha)
	ndiags := n1 + n2 + 3
	d.kvf = ldGrowInts(d.kvf, ndiags)
	d.kvb = ldGrowInts(d.kvb, ndiags)
	d.kz = n2 + 1
	d.mxcost = max(ldBogoSqrt(ndiags), ldMaxCostMin)
	d.compare(0, n1, 0, n2, false)
}

// compare is the divide-and-conquer step: shrink the box by its diagonal
// ends, then split it at a middle snake and recurse.
func (d *ldDiffer) compare(off1, lim1, off2, lim2 int, needMin bool) {
	ha1, ha2 := d.a.rha, d.b.rha
	for {
		for off1 < lim1 && off2 < lim2 && ha1[off1] == ha2[off2] {
			off1++
			off2++
		}
		for off1 < lim1 && off2 < lim2 && ha1[lim1-1] == ha2[lim2-1] {
			lim1--
			lim2--
		}
		if off1 == lim1 {
			for ; off2 < lim2; off2++ {
				d.b.chg[d.b.rindex[off2]+1] = 1
			}
			return
		}
		if off2 == lim2 {
			for ; off1 < lim1; off1++ {
				d.a.chg[d.a.rindex[off1]+1] = 1
			}
			return
		}
		i1, i2, minLo, minHi := d.split(off1, lim1, off2, lim2, needMin)
		d.compare(off1, i1, off2, i2, minLo)
		off1, off2, needMin = i1, i2, minHi
	}
}

// split finds the point where a forward and a backward furthest-reaching
// path meet (the middle snake), or, past the cost cap, a good enough point.
// minLo/minHi tell whether the two halves still need a minimal diff.
func (d *ldDiffer) split(off1, lim1, off2, lim2 int, needMin bool) (s1, s2 int, minLo, minHi bool) {
	ha1, ha2 := d.a.rha, d.b.rha
	kf, kb, z := d.kvf, d.kvb, d.kz
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid

	kf[z+fmid] = off1
	kb[z+bmid] = lim1
	fwd1, fwd2 := ha1[:lim1], ha2[:lim2]         // forward snakes end below lim
	bwd1, bwd2 := ha1[off1:lim1], ha2[off2:lim2] // backward snakes end above off

	for ec := 1; ; ec++ {
		// Forward pass.
		if fmin > dmin {
			fmin--
			kf[z+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			kf[z+fmax+1] = -1
		} else {
			fmax--
		}
		gotSnake := ldForwardPass(kf[z+fmin-1:z+fmax+2], fwd1, fwd2, fmin-1)
		if odd {
			// Does a forward path overlap a backward one?
			lo, hi := max(fmin, bmin), min(fmax, bmax)
			if (fmax-hi)&1 != 0 {
				hi--
			}
			for k := hi; k >= lo; k -= 2 {
				if i1 := kf[z+k]; kb[z+k] <= i1 {
					return i1, i1 - k, true, true
				}
			}
		}

		// Backward pass.
		if bmin > dmin {
			bmin--
			kb[z+bmin-1] = math.MaxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			kb[z+bmax+1] = math.MaxInt
		} else {
			bmax--
		}
		if ldBackwardPass(kb[z+bmin-1:z+bmax+2], bwd1, bwd2, bmin-1, off1, off2) {
			gotSnake = true
		}
		if !odd {
			lo, hi := max(fmin, bmin), min(fmax, bmax)
			if (bmax-hi)&1 != 0 {
				hi--
			}
			for k := hi; k >= lo; k -= 2 {
				if i1 := kb[z+k]; i1 <= kf[z+k] {
					return i1, i1 - k, true, true
				}
			}
		}

		if needMin {
			continue
		}

		// Past a moderate cost, accept a diagonal that went far and ends
		// in a long snake.
		if gotSnake && ec > ldHeurMinCost {
			best := 0
			for k := fmax; k >= fmin; k -= 2 {
				dd := k - fmid
				if dd < 0 {
					dd = -dd
				}
				i1 := kf[z+k]
				i2 := i1 - k
				v := (i1 - off1) + (i2 - off2) - dd
				if v > ldKHeur*ec && v > best &&
					off1+ldSnakeCnt <= i1 && i1 < lim1 &&
					off2+ldSnakeCnt <= i2 && i2 < lim2 {
					for j := 1; ha1[i1-j] == ha2[i2-j]; j++ {
						if j == ldSnakeCnt {
							best = v
							s1, s2 = i1, i2
							break
						}
					}
				}
			}
			if best > 0 {
				return s1, s2, true, false
			}
			for k := bmax; k >= bmin; k -= 2 {
				dd := k - bmid
				if dd < 0 {
					dd = -dd
				}
				i1 := kb[z+k]
				i2 := i1 - k
				v := (lim1 - i1) + (lim2 - i2) - dd
				if v > ldKHeur*ec && v > best &&
					off1 < i1 && i1 <= lim1-ldSnakeCnt &&
					off2 < i2 && i2 <= lim2-ldSnakeCnt {
					for j := 0; ha1[i1+j] == ha2[i2+j]; j++ {
						if j == ldSnakeCnt-1 {
							best = v
							s1, s2 = i1, i2
							break
						}
					}
				}
			}
			if best > 0 {
				return s1, s2, false, true
			}
		}

		// Cost cap reached: take the furthest-reaching path.
		if ec >= d.mxcost {
			fbest, fbest1 := -1, -1
			for k := fmax; k >= fmin; k -= 2 {
				i1 := min(kf[z+k], lim1)
				i2 := i1 - k
				if lim2 < i2 {
					i1 = lim2 + k
					i2 = lim2
				}
				if fbest < i1+i2 {
					fbest = i1 + i2
					fbest1 = i1
				}
			}
			bbest, bbest1 := math.MaxInt, math.MaxInt
			for k := bmax; k >= bmin; k -= 2 {
				i1 := max(off1, kb[z+k])
				i2 := i1 - k
				if i2 < off2 {
					i1 = off2 + k
					i2 = off2
				}
				if i1+i2 < bbest {
					bbest = i1 + i2
					bbest1 = i1
				}
			}
			if (lim1+lim2)-bbest < fbest-(off1+off2) {
				return fbest1, fbest - fbest1, true, false
			}
			return bbest1, bbest - bbest1, false, true
		}
	}
}

// ldForwardPass extends the forward furthest-reaching paths by one edit on
// every other diagonal. w holds the diagonals k0 .. k0+len(w)-1 (the two
// outer ones are only read); h1 and h2 end at the box's lower right corner.
// It reports whether a long snake was followed.
func ldForwardPass(w []int, h1, h2 []int32, k0 int) bool {
	got := false
	for j := len(w) - 2; j >= 1; j -= 2 {
		i1 := w[j+1]
		if w[j-1] >= i1 {
			i1 = w[j-1] + 1
		}
		prev := i1
		i2 := i1 - (k0 + j)
		for uint(i1) < uint(len(h1)) && uint(i2) < uint(len(h2)) && h1[i1] == h2[i2] {
			i1++
			i2++
		}
		if i1-prev > ldSnakeCnt {
			got = true
		}
		w[j] = i1
	}
	return got
}

// ldBackwardPass is ldForwardPass for the backward paths; t1 and t2 start
// at the box's upper left corner (off1, off2).
func ldBackwardPass(w []int, t1, t2 []int32, k0, off1, off2 int) bool {
	got := false
	for j := len(w) - 2; j >= 1; j -= 2 {
		i1 := w[j-1]
		if i1 >= w[j+1] {
			i1 = w[j+1] - 1
		}
		prev := i1
		// Walk back while the lines before (i1, i1-k) match.
		x, y := i1-1-off1, i1-(k0+j)-1-off2
		for uint(x) < uint(len(t1)) && uint(y) < uint(len(t2)) && t1[x] == t2[y] {
			x--
			y--
		}
		i1 = x + 1 + off1
		if prev-i1 > ldSnakeCnt {
			got = true
		}
		w[j] = i1
	}
	return got
}
