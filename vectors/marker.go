package vectors

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

const (
	markerFile    = "index.json"
	logFile       = "vectors.log"
	markerVersion = 1
)

// marker records which embedder built the index in a directory. It is the
// only thing Status reads: no vectors are loaded to answer it.
// docsVersion changes whenever the making of a document's vector changes
// for the same embedder, so that an index made the old way is rebuilt:
// 1, a commit's subject added to its text's vector (Doc.Lead).
const docsVersion = 1

type marker struct {
	Format   int    `json:"format"`
	Embedder string `json:"embedder"`
	// Docs is how documents were made into vectors (docsVersion); 0 in
	// an index written before it was recorded.
	Docs int `json:"docs,omitempty"`
	// Dims is the vectors' size, 0 until the first vectors are written.
	Dims int `json:"dims"`
	// Collection is the chromem-go collection and its directory.
	Collection string `json:"collection"`
	// Compacted is the log's size after the last compaction.
	Compacted int64 `json:"compacted,omitempty"`
	// Layout is logLayout once the log's puts are in the current layout;
	// 0 for a log older builds wrote.
	Layout int `json:"layout,omitempty"`
}

// collectionName makes an embedder name safe as a directory and
// collection name: [a-z0-9._-], and a short hash of the original when
// anything had to change, so that two names never share a collection.
func collectionName(embedder string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(embedder) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), ".")
	if len(s) > 80 {
		s = s[:80]
	}
	if s != embedder || s == "" {
		sum := sha256.Sum256([]byte(embedder))
		s += "-" + hex.EncodeToString(sum[:4])
	}
	return s
}

func readMarker(dir string) (*marker, error) {
	data, err := os.ReadFile(filepath.Join(dir, markerFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read vector index marker: %w", err)
	}
	var m marker
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: marker %s: %v", ErrCorrupt, filepath.Join(dir, markerFile), err)
	}
	if m.Format != markerVersion || m.Embedder == "" || m.Collection != collectionName(m.Embedder) {
		return nil, fmt.Errorf("%w: marker %s: format %d, embedder %q, collection %q",
			ErrCorrupt, filepath.Join(dir, markerFile), m.Format, m.Embedder, m.Collection)
	}
	return &m, nil
}

func writeMarker(dir string, m *marker) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, markerFile), append(data, '\n'))
}

// writeFileAtomic writes a temporary file in the same directory, syncs it
// and renames it over path, then syncs the directory.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("create temp file in %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", f.Name(), err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", f.Name(), err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("rename to %s: %w", path, err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// removeStray deletes the temporary files an interrupted atomic write or
// compaction left in dir.
func removeStray(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
