package graph

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	boltdb "github.com/boltdb/bolt"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
)

// Cayley's kv store keeps every quad and value it ever wrote in its "log"
// bucket: a removed quad stays there marked deleted, and its id in the
// quad indexes, where each read skips it. Each entry also carries the
// time it was written, which nothing reads. A compaction leaves both out:
// the removed quads (their log entries and their ids in every index) and
// the times (ten bytes of each entry). What remains reads exactly as
// before: reads skipped the removed quads, the counts of live quads and
// of each value's uses never counted them, and new ids still come after
// the highest ever given ("horizon" in "meta").
var (
	logBucket  = []byte("log")
	metaBucket = []byte("meta")
)

// pruner rewrites the log and index entries of a graph being compacted.
type pruner struct {
	dead    map[uint64]bool // ids of removed quads
	indexes map[string]bool // names of the quad index buckets
}

// newPruner finds the removed quads and the index buckets of the graph
// that stx reads.
func newPruner(stx *boltdb.Tx) (*pruner, error) {
	p := &pruner{dead: map[uint64]bool{}, indexes: map[string]bool{}}
	// A graph without the list has Cayley's indexes before 0.7.6.
	inds := []kv.QuadIndex{{Dirs: []quad.Direction{quad.Subject}}, {Dirs: []quad.Direction{quad.Object}}}
	if meta := stx.Bucket(metaBucket); meta != nil {
		if b := meta.Get([]byte("indexes")); len(b) > 0 {
			inds = nil
			if err := json.Unmarshal(b, &inds); err != nil {
				return nil, fmt.Errorf("graph indexes: %w", err)
			}
		}
	}
	for _, ind := range inds {
		name := make([]byte, len(ind.Dirs))
		for i, d := range ind.Dirs {
			name[i] = d.Prefix()
		}
		p.indexes[string(name)] = true
	}
	log := stx.Bucket(logBucket)
	if log == nil {
		return p, nil
	}
	err := log.ForEach(func(k, v []byte) error {
		var prim proto.Primitive
		if err := prim.Unmarshal(v); err != nil {
			return fmt.Errorf("graph log entry %x: %w", k, err)
		}
		if prim.Deleted && !prim.IsNode() {
			p.dead[prim.ID] = true
		}
		return nil
	})
	return p, err
}

// rewrite returns the value to store for key k of the top-level bucket
// named bucket, or false to leave the key out.
func (p *pruner) rewrite(bucket string, k, v []byte) ([]byte, bool, error) {
	switch {
	case bucket == string(logBucket):
		var prim proto.Primitive
		if err := prim.Unmarshal(v); err != nil {
			return nil, false, fmt.Errorf("graph log entry %x: %w", k, err)
		}
		if prim.Deleted && !prim.IsNode() {
			return nil, false, nil
		}
		prim.Timestamp = 0
		b, err := prim.Marshal()
		return b, err == nil, err
	case p.indexes[bucket] && len(p.dead) > 0:
		return p.liveIDs(v)
	}
	return v, true, nil
}

// liveIDs drops the removed quads from an index entry: a list of quad ids
// as uvarints, in the order they were added.
func (p *pruner) liveIDs(v []byte) ([]byte, bool, error) {
	out := make([]byte, 0, len(v))
	for rest := v; len(rest) > 0; {
		id, n := binary.Uvarint(rest)
		if n <= 0 {
			return nil, false, fmt.Errorf("graph index entry %x: bad id list", v)
		}
		if !p.dead[id] {
			out = append(out, rest[:n]...)
		}
		rest = rest[n:]
	}
	return out, len(out) > 0, nil
}
