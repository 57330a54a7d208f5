package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	boltdb "github.com/boltdb/bolt"
	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/kv"
	_ "github.com/cayleygraph/cayley/graph/sql/postgres" // registers "postgres"
	hbolt "github.com/hidal-go/hidalgo/kv/bolt"
)

// Sentinel errors.
var (
	// ErrLocked: another process (or another Graph in this process) has the
	// bolt store open.
	ErrLocked = errors.New("graph store is locked by another opener")
	// ErrDepth: Neighbors was asked for a depth outside 1..MaxDepth.
	ErrDepth = errors.New("neighbor depth out of range")
	// ErrInvalid: a node or edge in a Write is malformed.
	ErrInvalid = errors.New("invalid node or edge")
	// ErrClosed: the Graph was used after Close.
	ErrClosed = errors.New("graph is closed")
)

// DefaultOpenTimeout bounds how long Open waits for bolt's file lock when
// the context has no deadline.
const DefaultOpenTimeout = 5 * time.Second

// MaxDepth is the deepest walk Neighbors performs.
const MaxDepth = 2

// boltFile is the file name Cayley's own bolt backend uses inside its
// directory, so a store written here can be opened by the cayley tool too.
const boltFile = "indexes.bolt"

// Edge is a directed, typed relationship. Type is one of MODIFIES,
// INTRODUCES, DELETES, FIXES, REFERENCES, PARENT_OF, CONTAINS,
// CO_EVOLVES_WITH, VERIFIED_BY, REPLACED_BY, AUTHORED_BY, and the code
// relationships CALLS (entity to entity), IMPORTS (file to file or
// "module:<name>"), IMPLEMENTS and EXTENDS (entity to entity).
// Confidence is in [0, 1]; 0 in a Write means "not given" and is stored as 1.
type Edge struct {
	From, Type, To string
	Confidence     float64
}

// Node is a vertex. ID has a type prefix ("commit:<sha>"); Type is one of
// Repository, Commit, File, Module, Function, Method, Class, Interface,
// Struct, Issue, DesignNote, TestCase, Author.
type Node struct {
	ID, Type string
	Props    map[string]string
}

// Hit is one node reached by Neighbors, with the edge that reached it.
type Hit struct {
	Node  string
	Depth int
	Via   Edge
}

// Direction selects outgoing or incoming edges.
type Direction int

// Directions for Edges.
const (
	Out Direction = iota // edges whose From is the node
	In                   // edges whose To is the node
)

// Graph is a knowledge graph over one Cayley quad store. It is safe for
// concurrent reads; see the package comment for writers.
type Graph struct {
	qs   cgraph.QuadStore
	bolt *boltdb.DB // the embedded store's file, for ReleaseMemory; nil on PostgreSQL
}

// Open opens (creating if needed) the graph at addr: a directory path for
// an embedded bolt store (file <dir>/indexes.bolt), or a "postgres://" DSN
// for Cayley's SQL backend. On bolt it waits for the file lock until ctx's
// deadline or DefaultOpenTimeout, then fails with ErrLocked.
func Open(ctx context.Context, addr string) (*Graph, error) {
	if strings.HasPrefix(addr, "postgres://") || strings.HasPrefix(addr, "postgresql://") {
		return openPostgres(addr)
	}
	return openBolt(ctx, addr)
}

func openPostgres(dsn string) (*Graph, error) {
	if err := ensureSchema(dsn); err != nil {
		return nil, err
	}
	err := cgraph.InitQuadStore("postgres", dsn, nil)
	if err != nil && !errors.Is(err, cgraph.ErrDatabaseExists) {
		return nil, fmt.Errorf("init postgres graph: %w", err)
	}
	qs, err := cgraph.NewQuadStore("postgres", dsn, nil)
	if err != nil {
		return nil, fmt.Errorf("open postgres graph: %w", err)
	}
	return &Graph{qs: qs}, nil
}

// openBolt opens the bolt file itself rather than through Cayley's "bolt"
// registration, because Cayley v0.7.7 passes no bolt.Options and so waits
// for the file lock forever.
func openBolt(ctx context.Context, dir string) (*Graph, error) {
	timeout := DefaultOpenTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = max(time.Until(dl), time.Millisecond)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create graph dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, boltFile)
	db, err := hbolt.Open(path, &boltdb.Options{Timeout: timeout})
	if errors.Is(err, boltdb.ErrTimeout) {
		return nil, fmt.Errorf("open graph %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open graph %s: %w", path, err)
	}
	if err := kv.Init(db, nil); err != nil && !errors.Is(err, cgraph.ErrDatabaseExists) {
		return nil, errors.Join(fmt.Errorf("init graph %s: %w", path, err), db.Close())
	}
	// No bloom filter: Cayley fills it by reading every quad at open (0.3 s
	// for git/git's graph, on every sync and every query), and Write reads
	// the stored edges of each node it writes anyway.
	qs, err := kv.New(db, cgraph.Options{kv.OptNoBloom: true})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open graph %s: %w", path, err), db.Close())
	}
	return &Graph{qs: qs, bolt: db.DB()}, nil
}

// Close releases the store (and bolt's file lock).
func (g *Graph) Close() error {
	if g.qs == nil {
		return ErrClosed
	}
	err := g.qs.Close()
	g.qs = nil
	if err != nil {
		return fmt.Errorf("close graph: %w", err)
	}
	return nil
}
