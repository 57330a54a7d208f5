package extract

import "bytes"

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
// hash, in the order the hashes first occur. Scoring looks each hash up in
// the other file's sigTable, so the spans need no order.
type signature struct {
	size  int
	spans []hashSpan
}

// sigHasher builds signatures. It counts a blob's bytes per hash in a
// table of every hash value, which is faster than sorting the pieces or
// counting them in a map: every blob a commit's new files could be copies
// of is hashed.
type sigHasher struct {
	cnt     []uint32 // hashBase entries, all zero between two blobs
	touched []uint32 // the hashes counted so far, in order
}

// signature is git's hash_chars: a CR before an LF is not counted in a
// text (non-binary) file, and the hash is git's exact rolling one, so that
// scores, and so the renames found, are git's. (A piece is at most 64
// bytes, and a blob scored under 4 GiB, so counts fit 32 bits.)
func (h *sigHasher) signature(data []byte) *signature {
	if h.cnt == nil {
		h.cnt = make([]uint32, hashBase)
	}
	h.touched = h.touched[:0]
	if isBinary(data) || bytes.IndexByte(data, '\r') < 0 {
		h.pieces(data)
	} else {
		h.piecesCR(data)
	}
	spans := make([]hashSpan, len(h.touched))
	for i, k := range h.touched {
		spans[i] = hashSpan{k, h.cnt[k]}
		h.cnt[k] = 0
	}
	return &signature{size: len(data), spans: spans}
}

// pieces counts data every byte of which is hashed: each piece, up to a
// newline or 64 bytes, is found with IndexByte and hashed in a loop that
// tests nothing else.
func (h *sigHasher) pieces(data []byte) {
	for len(data) > 0 {
		piece := data[:min(64, len(data))]
		if nl := bytes.IndexByte(piece, '\n'); nl >= 0 {
			piece = piece[:nl+1]
		}
		data = data[len(piece):]
		var accum1, accum2 uint32
		for _, c := range piece {
			old1 := accum1
			accum1 = (accum1<<7 ^ accum2>>25) + uint32(c)
			accum2 = accum2<<7 ^ old1>>25
		}
		h.add((accum1+accum2*0x61)%hashBase, uint32(len(piece)))
	}
}

// piecesCR counts a text holding CRs, byte by byte: a CR before an LF is
// left out of the piece, its hash and its count.
func (h *sigHasher) piecesCR(data []byte) {
	var accum1, accum2 uint32
	n := uint32(0)
	for i := 0; i < len(data); i++ {
		c := uint32(data[i])
		if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
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
		h.add((accum1+accum2*0x61)%hashBase, n)
		n, accum1, accum2 = 0, 0, 0
	}
	if n > 0 {
		h.add((accum1+accum2*0x61)%hashBase, n)
	}
}

func (h *sigHasher) add(k, n uint32) {
	if h.cnt[k] == 0 {
		h.touched = append(h.touched, k)
	}
	h.cnt[k] += n
}

// sigTable is one destination's signature spread over a table of every
// hash value, so that a source is scored against it by one look-up per
// source span: merging two sorted lists walked both and branched on every
// step, for each of the many sources a created file is scored against.
type sigTable struct {
	owner *target // who loaded sig
	sig   *signature
	cnt   []uint32 // hashBase entries, zero but for sig's hashes
}

// load makes s (nil: none) the signature scored against.
func (t *sigTable) load(s *signature) {
	if t.cnt == nil {
		t.cnt = make([]uint32, hashBase)
	}
	if t.sig != nil {
		for _, sp := range t.sig.spans {
			t.cnt[sp.hash] = 0
		}
	}
	t.sig = s
	if s != nil {
		for _, sp := range s.spans {
			t.cnt[sp.hash] = sp.cnt
		}
	}
}

// score is git's estimate_similarity of src against the loaded
// destination, both regular files: 0 when their sizes differ too much to
// reach minScore, else the bytes of src found in the destination
// (diffcore_count_changes' src_copied) out of maxScore of the larger size.
func (t *sigTable) score(src *signature) int {
	dst := t.sig
	big, small := max(src.size, dst.size), min(src.size, dst.size)
	if big*(maxScore-minScore) < (big-small)*maxScore {
		return 0
	}
	if dst.size == 0 {
		return 0
	}
	copied := uint64(0)
	for _, s := range src.spans {
		copied += uint64(min(s.cnt, t.cnt[s.hash]))
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
