package store

import (
	"context"
	"database/sql"
	"fmt"
)

// TrainDictionaries trains the dictionary of each kind of blob that has
// none, once the store holds dictMinCommits commits, stores it and
// re-encodes that kind's blobs with it. It reports whether it stored any.
// Call it between write transactions: it takes its own.
func (s *Store) TrainDictionaries(ctx context.Context) (bool, error) {
	have, err := Strings(ctx, s.DB, `SELECT DISTINCT kind FROM blob_dicts`)
	if err != nil {
		return false, fmt.Errorf("blob dictionaries: %w", err)
	}
	if len(have) == len(kindNames) {
		return false, nil
	}
	ids, err := s.sampleCommits(ctx)
	if err != nil || ids == nil {
		return false, err
	}
	trained := false
	for kind, name := range kindNames {
		if contains(have, name) {
			continue
		}
		samples, err := s.samples(ctx, kind, ids)
		if err != nil {
			return trained, err
		}
		if len(samples) < dictMinSamples {
			continue
		}
		d, id, err := buildDict(samples)
		if err != nil {
			return trained, err
		}
		if _, err := s.DB.ExecContext(ctx, `INSERT INTO blob_dicts(dict_id, kind, dict) VALUES (?, ?, ?)`, id, name, d); err != nil {
			return trained, fmt.Errorf("store %s dictionary: %w", name, err)
		}
		trained = true
		if err := s.reencode(ctx, kind, d); err != nil {
			return trained, err
		}
	}
	return trained, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sampleCommits returns the ids of up to dictSampleCommits commits spread
// evenly over the history, or nil while the store has too few.
func (s *Store) sampleCommits(ctx context.Context) ([]int64, error) {
	var all []int64
	err := EachRow(ctx, s.DB, `SELECT id FROM commits ORDER BY id`, nil, func(r *sql.Rows) error {
		var id int64
		err := r.Scan(&id)
		all = append(all, id)
		return err
	})
	if err != nil || len(all) < dictMinCommits {
		return nil, err
	}
	step := max(1, len(all)/dictSampleCommits)
	var out []int64
	for i := 0; i < len(all); i += step {
		out = append(out, all[i])
	}
	return out, nil
}

// samples reads the blobs of a kind of the sampled commits (a message, or
// up to four diffs each), each cut to dictSampleMax bytes, up to
// dictSampleBytes in all.
func (s *Store) samples(ctx context.Context, kind int, commits []int64) ([][]byte, error) {
	q := `SELECT id, codec, size, data FROM blobs WHERE id >= (?1 << 32) + 2 AND id < (?1 + 1) << 32 ORDER BY id LIMIT 4`
	if kind == kindMessage {
		q = `SELECT id, codec, size, data FROM blobs WHERE id = ?1 << 32`
	}
	var out [][]byte
	total := 0
	for _, c := range commits {
		var rows []storedBlob
		err := EachRow(ctx, s.DB, q, []any{c}, func(r *sql.Rows) error {
			var b storedBlob
			err := r.Scan(&b.id, &b.codec, &b.size, &b.data)
			rows = append(rows, b)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("dictionary samples: %w", err)
		}
		for _, b := range rows {
			data, err := decodeBlob(ctx, s.DB, fmt.Sprint("blob ", b.id), b.codec, b.size, b.data)
			if err != nil {
				return nil, err
			}
			if len(data) > dictSampleMax {
				data = data[:dictSampleMax]
			}
			out = append(out, data)
			if total += len(data); total >= dictSampleBytes {
				return out, nil
			}
		}
	}
	return out, nil
}

type storedBlob struct {
	id          int64
	codec, size int
	data        []byte
}

// reencode re-encodes a kind's blobs compressed without a dictionary
// with d, a thousand per transaction, keeping the smaller encoding.
func (s *Store) reencode(ctx context.Context, kind int, d []byte) error {
	enc, err := newDictEncoders(d)
	if err != nil {
		return err
	}
	defer enc.Close()
	cond := `(id & 4294967295) >= 2`
	if kind == kindMessage {
		cond = `(id & 4294967295) < 2`
	}
	for last := int64(-1); ; {
		var batch []storedBlob
		err := EachRow(ctx, s.DB, `SELECT id, codec, size, data FROM blobs WHERE id > ? AND codec = ? AND `+cond+
			` ORDER BY id LIMIT 1000`, []any{last, codecZstd}, func(r *sql.Rows) error {
			var b storedBlob
			err := r.Scan(&b.id, &b.codec, &b.size, &b.data)
			batch = append(batch, b)
			return err
		})
		if err != nil || len(batch) == 0 {
			return err
		}
		last = batch[len(batch)-1].id
		if err := s.Tx(ctx, func(tx *sql.Tx) error { return reencodeBatch(ctx, tx, enc, batch) }); err != nil {
			return fmt.Errorf("re-encode %s blobs: %w", kindNames[kind], err)
		}
	}
}

func reencodeBatch(ctx context.Context, tx *sql.Tx, enc *dictEncoders, batch []storedBlob) error {
	for _, b := range batch {
		data, err := decoder.DecodeAll(b.data, make([]byte, 0, b.size))
		if err != nil {
			return fmt.Errorf("blob %d: %w", b.id, err)
		}
		out := enc.encode(data)
		if len(out) >= len(b.data) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE blobs SET codec = ?, data = ? WHERE id = ?`, codecDict, out, b.id); err != nil {
			return err
		}
	}
	return nil
}
