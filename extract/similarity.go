package extract

import "slices"

// maxScore and minScore are git's similarity units: a score is the share
// of the larger file's bytes found in both, out of maxScore, and a pair is
// a rename or copy from minScore (git's default -M50%).
const (
	maxScore = 60000
	minScore = maxScore / 2
	// minBasenameScore is the bar of git's basename-guided renames
	// (diffcore-rename.c: half-way between minScore and maxScore).
	minBasenameScore = minScore + (maxScore-minScore)/2
	// hashBase is diffcore-delta's span hash modulus.
	hashBase = 107927
)

// hashSpan is one hash value of a signature and the bytes that hashed to it.
type hashSpan struct {
	hash uint32
	cnt  uint32
}

// signature is git's diffcore-delta fingerprint of a blob: its content
// cut after each newline or 64 bytes, each piece hashed modulo hashBase
// (so distinct pieces may collide, as in git), with the bytes counted per
// hash. Sorted by hash, so that two signatures compare in one pass.
type signature struct {
	size  int
	spans []hashSpan
}

// newSignature is git's hash_chars: a CR before an LF is not counted in a
// text (non-binary) file, and the hash is git's exact rolling one, so that
// scores, and so the renames found, are git's. The pieces are sorted by
// hash and summed, which is faster than counting them in a map: every
// blob a commit's new files could be copies of is hashed. (A piece is at
// most 64 bytes, and a blob scored under 4 GiB, so counts fit 32 bits.)
func newSignature(data []byte) *signature {
	text := !isBinary(data)
	pieces := make([]uint64, 0, len(data)/32+1) // hash<<32 | bytes
	var accum1, accum2 uint32
	n := uint32(0)
	for i := 0; i < len(data); i++ {
		c := uint32(data[i])
		if text && c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		old1 := accum1
		accum1 = (accum1 << 7) ^ (accum2 >> 25)
		accum2 = (accum2 << 7) ^ (old1 >> 25)
		accum1 += c
		n++
		if n < 64 && c != '\n' {
			continue
		}
		pieces = append(pieces, uint64((accum1+accum2*0x61)%hashBase)<<32|uint64(n))
		n, accum1, accum2 = 0, 0, 0
	}
	if n > 0 {
		pieces = append(pieces, uint64((accum1+accum2*0x61)%hashBase)<<32|uint64(n))
	}
	slices.Sort(pieces)
	distinct := 0
	for i, p := range pieces {
		if i == 0 || p>>32 != pieces[i-1]>>32 {
			distinct++
		}
	}
	spans := make([]hashSpan, 0, distinct)
	for _, p := range pieces {
		h, c := uint32(p>>32), uint32(p)
		if k := len(spans) - 1; k >= 0 && spans[k].hash == h {
			spans[k].cnt += c
		} else {
			spans = append(spans, hashSpan{h, c})
		}
	}
	return &signature{size: len(data), spans: spans}
}

// score is git's estimate_similarity for two regular files: 0 when their
// sizes differ too much to reach minScore, else the bytes of src found in
// dst (diffcore_count_changes' src_copied) out of maxScore of the larger
// size.
func score(src, dst *signature) int {
	big, small := max(src.size, dst.size), min(src.size, dst.size)
	if big*(maxScore-minScore) < (big-small)*maxScore {
		return 0
	}
	if dst.size == 0 {
		return 0
	}
	copied := uint64(0)
	d := dst.spans
	for _, s := range src.spans {
		for len(d) > 0 && d[0].hash < s.hash {
			d = d[1:]
		}
		if len(d) > 0 && d[0].hash == s.hash {
			copied += uint64(min(s.cnt, d[0].cnt))
			d = d[1:]
		}
	}
	return int(copied * maxScore / uint64(big))
}

// similarityIndex is a score as git prints it (R087): a percentage.
func similarityIndex(score int) int { return score * 100 / maxScore }

// basenameSame is git's basename_same: the two paths end in the same file
// name.
func basenameSame(a, b string) bool {
	return baseName(a) == baseName(b)
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
