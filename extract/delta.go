package extract

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// patchDelta applies a git delta to base, exactly as go-git's
// packfile.PatchDelta does (same results, same errors), into a slice
// allocated once at the size the delta names. PatchDelta grows a
// bytes.Buffer from 64 KiB by doubling for larger results: on git/git that
// growth was 40% of all the bytes a sync allocated, and each doubling
// copies what was written so far.
func patchDelta(base, delta []byte) ([]byte, error) {
	return patchDeltaInto(nil, base, delta)
}

// patchDeltaInto is patchDelta writing into out's array when it has room
// for the result (out must not overlap base).
func patchDeltaInto(out, base, delta []byte) ([]byte, error) {
	if len(base) == 0 || len(delta) < 2 {
		return nil, packfile.ErrInvalidDelta
	}
	srcSize, delta, err := leb128(delta)
	if err != nil {
		return nil, err
	}
	if srcSize != uint(len(base)) {
		return nil, packfile.ErrInvalidDelta
	}
	targetSize, delta, err := leb128(delta)
	if err != nil {
		return nil, err
	}
	// Each command of at least one byte yields at most 64 KiB: a larger
	// target cannot be reached, and must not size the allocation.
	if targetSize > uint(len(delta))*maxCopy {
		return nil, packfile.ErrInvalidDelta
	}
	if uint(cap(out)) < targetSize {
		out = make([]byte, 0, targetSize)
	}
	out = out[:0]
	for remaining := targetSize; remaining > 0; {
		if len(delta) == 0 {
			return nil, packfile.ErrInvalidDelta
		}
		cmd := delta[0]
		delta = delta[1:]
		switch {
		case cmd&0x80 != 0: // copy from the base
			var off, size uint
			for i := range 4 {
				if cmd&(1<<i) != 0 {
					if len(delta) == 0 {
						return nil, packfile.ErrInvalidDelta
					}
					off |= uint(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := range 3 {
				if cmd&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return nil, packfile.ErrInvalidDelta
					}
					size |= uint(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if size == 0 {
				size = maxCopy
			}
			if size > remaining || off+size < off || off+size > srcSize {
				return nil, packfile.ErrInvalidDelta
			}
			out = append(out, base[off:off+size]...)
			remaining -= size
		case cmd != 0: // insert the next cmd bytes of the delta
			size := uint(cmd)
			if size > remaining || uint(len(delta)) < size {
				return nil, packfile.ErrInvalidDelta
			}
			out = append(out, delta[:size]...)
			remaining -= size
			delta = delta[size:]
		default:
			return nil, packfile.ErrDeltaCmd
		}
	}
	if len(delta) != 0 {
		return nil, packfile.ErrInvalidDelta
	}
	return out, nil
}

// maxCopy is the size of a copy command whose size bits are all zero.
const maxCopy = 0x10000

// leb128 reads a delta header's size as go-git does: a truncated number
// ends where the input does, and one too long for a uint is an error.
func leb128(in []byte) (uint, []byte, error) {
	if len(in) == 0 {
		return 0, in, nil
	}
	const uintBits = 32 << (^uint(0) >> 63)
	var num, n uint
	for {
		if n*7 > uintBits-7 {
			return 0, in, fmt.Errorf("%w: %w", packfile.ErrInvalidDelta, packfile.ErrLengthOverflow)
		}
		b := in[n]
		num |= uint(b&0x7f) << (n * 7)
		n++
		if b&0x80 == 0 || n == uint(len(in)) {
			return num, in[n:], nil
		}
	}
}
