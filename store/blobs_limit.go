package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ErrTooLarge: a blob is larger than the caller's limit; it was not read.
var ErrTooLarge = errors.New("blob larger than the limit")

// GetBlobUpTo returns the blob stored under key if it is at most max bytes
// (uncompressed), ErrTooLarge without reading it if it is larger, or
// ErrNotFound. Readers that can do without a large diff use it to skip the
// decompression.
func GetBlobUpTo(ctx context.Context, q Querier, key string, max int) ([]byte, error) {
	hash, slot, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	var codec, size int
	var data []byte
	err = q.QueryRowContext(ctx, `SELECT b.codec, b.size, CASE WHEN b.size <= ? THEN b.data END
		FROM commits c JOIN blobs b ON b.id = (c.id << 32) + ? WHERE c.hash = ?`, max, slot, hash).Scan(&codec, &size, &data)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("blob %s: %w", key, ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("get blob %s: %w", key, err)
	case size > max:
		return nil, fmt.Errorf("blob %s, %d bytes: %w", key, size, ErrTooLarge)
	}
	return decodeBlob(key, codec, size, data)
}
