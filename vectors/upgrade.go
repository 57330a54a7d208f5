package vectors

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// logLayout is the marker's layout for a log whose documents of the usual
// shape are all op 5. A writer that opens a log of an older layout
// rewrites it first, frame by frame (upgradeLog): git/git's 66.5 MB log
// of op 4 puts becomes 45.1 MB, and later appends keep to the new layout.
const logLayout = 2

// upgradeLocked rewrites the open log f, valid up to end, in the current
// layout and records the layout in the marker. It returns the new log and
// its end.
func (ix *Index) upgradeLocked(m *marker, f *os.File, end int64) (*os.File, int64, error) {
	path := ix.logPath(m)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+logFile+".tmp*")
	if err != nil {
		return f, end, fmt.Errorf("upgrade vector log: %w", err)
	}
	size, err := upgradeLog(f, tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if err := renameOver(tmp, path, err); err != nil {
		return f, end, fmt.Errorf("upgrade vector log: %w", err)
	}
	f.Close()
	markCleanEnd(tmp)
	// A crash before the marker is written leaves a log in the new layout
	// marked with the old one: the next writer rewrites it again, to the
	// same bytes.
	m.Layout = logLayout
	if err := writeMarker(ix.dir, m); err != nil {
		tmp.Close()
		return nil, 0, err
	}
	return tmp, size, nil
}

// upgradeLog copies the log in src to dst frame by frame, re-encoding
// every put: a document of the usual shape as op 5, a delete of a commit
// followed by a put of that commit's as op 5's replace flag. The records
// read back are the same (quantized vectors encode to the same bytes).
// It returns dst's size.
func upgradeLog(src, dst *os.File) (int64, error) {
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	size, err := writeMagic(dst)
	if err != nil {
		return 0, err
	}
	var enc encoder
	var pending []string // deletes not yet written: a put may carry the last
	_, _, err = scanLog(src, func(p []byte) error {
		enc.reset()
		pending = pending[:0]
		err := decodePayload(p, func(r *record) error {
			if r.op == opDelCommit {
				pending = append(pending, r.commit)
				return nil
			}
			replace := len(pending) > 0 && pending[len(pending)-1] == r.meta[MetaCommit]
			if replace {
				if _, ok := shapeOf(r.id, r.meta); !ok {
					replace = false
				} else {
					pending = pending[:len(pending)-1]
				}
			}
			for _, c := range pending {
				enc.delCommit(c)
			}
			pending = pending[:0]
			enc.putDoc(r.id, r.meta, r.vec, replace)
			return nil
		})
		if err != nil {
			return err
		}
		for _, c := range pending {
			enc.delCommit(c)
		}
		if len(enc.buf) == 0 {
			return nil
		}
		frame := enc.frame()
		if _, err := dst.WriteAt(frame, size); err != nil {
			return err
		}
		size += int64(len(frame))
		return nil
	})
	if errors.Is(err, ErrCorrupt) {
		return 0, err
	}
	return size, err
}
