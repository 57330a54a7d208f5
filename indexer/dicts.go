package indexer

import (
	"context"
	"log/slog"
	"math"
)

// dictRetry is how many more commits a sync writes before it tries again
// to train the blob dictionaries, while the store has too few commits.
const dictRetry = 500

// trainDictionaries trains the store's blob dictionaries, between two
// batches of the writer, once enough commits are stored
// (store.TrainDictionaries), and encodes the batches prepared after with
// them. A failure leaves the blobs encoded without: a warning, and no
// further try in this sync.
func (s *Syncer) trainDictionaries(ctx context.Context, done int) {
	if done < s.dictAt || s.codec.Load().Complete() {
		return
	}
	s.dictAt = done + dictRetry
	trained, err := s.st.TrainDictionaries(ctx)
	if err == nil && trained {
		codec, cerr := s.st.BlobCodec(ctx)
		if err = cerr; err == nil {
			s.codec.Store(codec)
		}
	}
	if err != nil {
		slog.Warn("blobs stay compressed without a dictionary", "err", err)
		s.dictAt = math.MaxInt
	}
}
