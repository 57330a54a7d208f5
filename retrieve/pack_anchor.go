package retrieve

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// MaxDeltas is seed 001's max_deltas: the most commits a response records
// as changed since its anchor.
const MaxDeltas = 20

// Record is what the latest-node resolver needs of a record.
type Record struct {
	ID      string
	Rev     int
	HasRev  bool
	Updated time.Time
}

// LatestIndex is seed 001's latest-node resolver over records that share
// an id, given in line order: if every one has an integer rev, the highest
// rev; if any lacks one, the newest updated time; if still tied, the
// latest line. It returns the index of the chosen record of each id.
func LatestIndex(recs []Record) map[string]int {
	groups := map[string][]int{}
	for i, r := range recs {
		groups[r.ID] = append(groups[r.ID], i)
	}
	out := map[string]int{}
	for id, idx := range groups {
		allRev := true
		for _, i := range idx {
			allRev = allRev && recs[i].HasRev
		}
		best := idx[0]
		for _, i := range idx[1:] {
			a, b := recs[i], recs[best]
			better := !a.Updated.Before(b.Updated) // a later line wins a tie
			if allRev {
				better = a.Rev >= b.Rev
			}
			if better {
				best = i
			}
		}
		out[id] = best
	}
	return out
}

// ReadPackLog reads post_response_commits.jsonl under dir; a missing file
// is no rows. A line that does not decode is an error naming it.
func ReadPackLog(dir string) ([]PackLogRow, error) {
	path := filepath.Join(dir, PackLogName)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []PackLogRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var r PackLogRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

// Delta anchor sources, in seed 001's order.
const (
	AnchorGiven = "--commit-id"
	AnchorLog   = PackLogName
)

// DeltaAnchor is seed 001's delta anchor: the commit id given, else the
// commit of the latest row of the pack log under dir (by the latest-node
// resolver: the rows of one commit resolve to their newest, and the
// newest of those is the latest), else none. The seed's third source, a
// prior request_seq, has no counterpart: gitmemory numbers no requests.
func DeltaAnchor(commitID, dir string) (anchor, source string, err error) {
	if commitID != "" {
		return commitID, AnchorGiven, nil
	}
	if dir == "" {
		return "", "", nil
	}
	rows, err := ReadPackLog(dir)
	if err != nil || len(rows) == 0 {
		return "", "", err
	}
	recs := make([]Record, len(rows))
	for i, r := range rows {
		recs[i] = Record{ID: r.CommitID, Updated: r.GeneratedAt}
	}
	best := -1
	for _, i := range LatestIndex(recs) {
		if best < 0 || !rows[i].GeneratedAt.Before(rows[best].GeneratedAt) && (rows[i].GeneratedAt.After(rows[best].GeneratedAt) || i > best) {
			best = i
		}
	}
	return rows[best].CommitID, AnchorLog, nil
}
