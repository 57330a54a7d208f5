package retrieve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// Files of packs written to disk (seed 001's post-response sync), under
// the directory given to WritePack.
const (
	PackDirName    = "context_packs"               // the packs, one file each
	PackLatestName = "context_pack.latest.json"    // a copy of the newest pack
	PackLogName    = "post_response_commits.jsonl" // a row per pack written
)

// Sentinel errors of WritePack.
var (
	// ErrBadCommitID: the commit id cannot be part of a file name.
	ErrBadCommitID = errors.New("commit id unfit for a file name")
	// ErrPackInvalid: the pack read back is not the pack written.
	ErrPackInvalid = errors.New("written context pack does not read back")
)

var packCommitIDPattern = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._-]{0,127}$`)

// PackLogRow is a row of post_response_commits.jsonl.
type PackLogRow struct {
	CommitID    string    `json:"commit_id"`
	Pack        string    `json:"pack"` // relative to the directory
	GeneratedAt time.Time `json:"generated_at"`
	Query       string    `json:"query"`
	TokenCount  int       `json:"token_count"`
	// Anchor is seed 001's delta anchor of the response (pack_anchor.go)
	// and Deltas the commits since it, newest first, at most MaxDeltas.
	Anchor string   `json:"anchor,omitempty"`
	Deltas []string `json:"deltas,omitempty"`
}

// packFS is the file operations WritePack's steps use, replaced in tests
// to make a step fail.
type packFS struct {
	create func(path string, data []byte) error // a new file, synced
	rename func(from, to string) error
	append func(path string, data []byte) error // synced
}

var osPackFS = packFS{create: packCreateSynced, rename: os.Rename, append: packAppendSynced}

// WritePack writes a pack as JSON under dir in seed 001's order, so that a
// crash at any point leaves the previous state readable:
//
//  1. write context_packs/context_pack.<timestamp>.<commit_id>.json (the
//     timestamp is the pack's generated_at in UTC, 20060102T150405Z, with
//     "-1", "-2", ... appended when a pack of the same second and commit
//     exists; an existing file is never overwritten);
//  2. validate it: read it back, decode it strictly and check that it
//     encodes to the same bytes (if not, it is removed);
//  3. atomically replace context_pack.latest.json: a temporary file in dir,
//     fsync, rename;
//  4. append a row (PackLogRow) to post_response_commits.jsonl, last, so a
//     row is there only for a pack that is complete and current.
//
// It returns the pack file's path. A failure at step 3 or 4 leaves the pack
// file of step 1 in place but the previous latest and log untouched.
func WritePack(dir string, p *Pack, commitID string) (string, error) {
	return writePack(dir, p, commitID, osPackFS)
}

// WritePackDelta is WritePack with the response's delta anchor and the
// commits since it recorded in its log row.
func WritePackDelta(dir string, p *Pack, commitID, anchor string, deltas []string) (string, error) {
	return writePackRow(dir, p, PackLogRow{CommitID: commitID, Anchor: anchor, Deltas: deltas}, osPackFS)
}

func writePack(dir string, p *Pack, commitID string, fs packFS) (string, error) {
	return writePackRow(dir, p, PackLogRow{CommitID: commitID}, fs)
}

func writePackRow(dir string, p *Pack, row PackLogRow, fs packFS) (string, error) {
	commitID := row.CommitID
	if !packCommitIDPattern.MatchString(commitID) {
		return "", fmt.Errorf("%w: %q", ErrBadCommitID, commitID)
	}
	data, err := RenderJSON(p)
	if err != nil {
		return "", err
	}
	packs := filepath.Join(dir, PackDirName)
	if err := os.MkdirAll(packs, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", packs, err)
	}
	path, err := createPackFile(packs, p.Metadata.GeneratedAt, commitID, data, fs)
	if err != nil {
		return "", err
	}
	if err := validatePackFile(path, data); err != nil {
		return "", errors.Join(err, os.Remove(path))
	}
	if err := replaceLatest(dir, data, fs); err != nil {
		return path, err
	}
	rel, _ := filepath.Rel(dir, path)
	row.Pack, row.GeneratedAt, row.Query, row.TokenCount = filepath.ToSlash(rel), p.Metadata.GeneratedAt, p.Metadata.Query, p.Metadata.TokenCount
	line, _ := json.Marshal(row)
	log := filepath.Join(dir, PackLogName)
	if err := fs.append(log, append(line, '\n')); err != nil {
		return path, fmt.Errorf("append to %s: %w", log, err)
	}
	return path, nil
}

// createPackFile is step 1.
func createPackFile(packs string, at time.Time, commitID string, data []byte, fs packFS) (string, error) {
	if at.IsZero() {
		at = time.Now()
	}
	stamp := at.UTC().Format("20060102T150405Z")
	for i := 0; i < 100; i++ {
		s := stamp
		if i > 0 {
			s += fmt.Sprintf("-%d", i)
		}
		path := filepath.Join(packs, "context_pack."+s+"."+commitID+".json")
		err := fs.create(path, data)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("write context pack %s: %w", path, err)
		}
		return path, packSyncDir(packs)
	}
	return "", fmt.Errorf("write context pack: 100 packs of %s at %s exist", commitID, stamp)
}

// validatePackFile is step 2.
func validatePackFile(path string, want []byte) error {
	got, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read back %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(got))
	dec.DisallowUnknownFields()
	var p Pack
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrPackInvalid, path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: %s: data after the pack", ErrPackInvalid, path)
	}
	again, err := RenderJSON(&p)
	if err != nil || !bytes.Equal(again, want) {
		return fmt.Errorf("%w: %s differs from the pack written", ErrPackInvalid, path)
	}
	return nil
}

// replaceLatest is step 3.
func replaceLatest(dir string, data []byte, fs packFS) error {
	latest := filepath.Join(dir, PackLatestName)
	tmp, err := os.CreateTemp(dir, "."+PackLatestName+".*.tmp")
	if err != nil {
		return fmt.Errorf("replace %s: %w", latest, err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = fs.rename(tmp.Name(), latest)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("replace %s: %w", latest, err), os.Remove(tmp.Name()))
	}
	return packSyncDir(dir)
}

// packCreateSynced writes a new file (failing with os.ErrExist if there is
// one) and syncs it.
func packCreateSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return errors.Join(err, os.Remove(path))
	}
	return nil
}

// packAppendSynced appends data in one write and syncs. A last line that a
// crash left unfinished is ended first, so the new row stays a line of
// its own.
func packAppendSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// packSyncDir makes a directory's new entries durable.
func packSyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}
