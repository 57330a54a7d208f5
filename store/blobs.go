package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Blob codecs. Small blobs are stored raw: compressing them costs more
// than it saves.
const (
	codecRaw  = 0
	codecZstd = 1
)

const compressAbove = 128

var (
	// The encoder serves EncodeAll calls from every worker at once. Each
	// of its encoders kept a history buffer of twice the 8 MiB window for
	// the process's life (32 MiB of a sync's live heap on 2 cores); with
	// lower memory it is the window and one block, and the output is the
	// same byte for byte.
	encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithLowerEncoderMem(true))
	decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
)

// StmtExecer is a prepared statement: *sql.Stmt.
type StmtExecer interface {
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
}

// Querier is satisfied by *sql.DB and *sql.Tx.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// PutBlob stores data under key, replacing any previous value, in tx. The
// key names a stored commit (MessageKey, RawMessageKey, DiffKey): a blob's
// row is found through its commit.
func PutBlob(ctx context.Context, tx *sql.Tx, key string, data []byte) error {
	hash, slot, err := parseKey(key)
	if err != nil {
		return err
	}
	var commit int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM commits WHERE hash = ?`, hash).Scan(&commit)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("put blob %s: no commit %s is stored", key, hash)
	}
	if err != nil {
		return fmt.Errorf("put blob %s: %w", key, err)
	}
	st, err := tx.PrepareContext(ctx, insertSQL["blob"])
	if err != nil {
		return err
	}
	defer st.Close()
	return putEncoded(ctx, st, hash, commit, slot, encodeBlob(data))
}

// encodedBlob is a blob ready to store: compressed off the writer's
// goroutine (see Prepare).
type encodedBlob struct {
	codec, size int
	data        []byte
}

func encodeBlob(data []byte) encodedBlob {
	if data == nil {
		data = []byte{} // the driver binds a nil slice as NULL, and blobs.data is NOT NULL
	}
	if len(data) > compressAbove {
		return encodedBlob{codecZstd, len(data), encoder.EncodeAll(data, make([]byte, 0, len(data)/3))}
	}
	return encodedBlob{codecRaw, len(data), data}
}

// putEncoded stores a commit's blob in a slot; hash names it in an error.
func putEncoded(ctx context.Context, ex StmtExecer, hash string, commit, slot int64, b encodedBlob) error {
	if _, err := ex.ExecContext(ctx, blobID(commit, slot), b.codec, b.size, b.data); err != nil {
		return fmt.Errorf("put blob %s: %w", slotKey(hash, slot), err)
	}
	return nil
}

// GetBlob returns the blob stored under key, or ErrNotFound.
func GetBlob(ctx context.Context, q Querier, key string) ([]byte, error) {
	hash, slot, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	var codec, size int
	var data []byte
	err = q.QueryRowContext(ctx, `SELECT b.codec, b.size, b.data FROM commits c JOIN blobs b ON b.id = (c.id << 32) + ?
		WHERE c.hash = ?`, slot, hash).Scan(&codec, &size, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("blob %s: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get blob %s: %w", key, err)
	}
	return decodeBlob(key, codec, size, data)
}

// decodeBlob returns a stored blob's bytes: data itself, or data
// decompressed into size bytes.
func decodeBlob(key string, codec, size int, data []byte) ([]byte, error) {
	if codec == codecRaw {
		return data, nil
	}
	out, err := decoder.DecodeAll(data, make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("decode blob %s: %w", key, err)
	}
	return out, nil
}

// Marks returns n placeholders for an IN list: "?,?,?".
func Marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// EachRow runs a query and calls scan for each row.
func EachRow(ctx context.Context, q Querier, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Strings returns the values of a query's single text column.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	return column[string](ctx, q, query, args)
}

// Ints returns the values of a query's single integer column.
func Ints(ctx context.Context, q Querier, query string, args ...any) ([]int64, error) {
	return column[int64](ctx, q, query, args)
}

func column[T any](ctx context.Context, q Querier, query string, args []any) ([]T, error) {
	var out []T
	err := EachRow(ctx, q, query, args, func(r *sql.Rows) error {
		var v T
		err := r.Scan(&v)
		out = append(out, v)
		return err
	})
	return out, err
}

// GetBlobs returns the blobs stored under keys, by key, in one query per
// kind of key; a key not stored is absent from the map.
func GetBlobs(ctx context.Context, q Querier, keys []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(keys))
	bySlot := map[int64][]any{}
	for _, k := range keys {
		hash, slot, err := parseKey(k)
		if err != nil {
			return nil, err
		}
		bySlot[slot] = append(bySlot[slot], hash)
	}
	for slot, hashes := range bySlot {
		err := EachRow(ctx, q, `SELECT c.hash, b.codec, b.size, b.data FROM commits c JOIN blobs b ON b.id = (c.id << 32) + `+
			strconv.FormatInt(slot, 10)+` WHERE c.hash IN (`+Marks(len(hashes))+`)`, hashes,
			func(r *sql.Rows) error {
				var hash string
				var codec, size int
				var data []byte
				if err := r.Scan(&hash, &codec, &size, &data); err != nil {
					return err
				}
				key := slotKey(hash, slot)
				b, err := decodeBlob(key, codec, size, data)
				out[key] = b
				return err
			})
		if err != nil {
			return nil, fmt.Errorf("get blobs: %w", err)
		}
	}
	return out, nil
}
