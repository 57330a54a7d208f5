package vectors

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Embedder turns texts into vectors. Implementations are safe for
// concurrent use.
type Embedder interface {
	// Name identifies the model and, where it is fixed, the dimensions
	// ("local-hash-v1-384", "ollama:nomic-embed-text", "openai:text-embedding-3-small@512").
	// Vectors of different names are never mixed in one collection.
	Name() string
	// Embed returns one vector per text, in order. An empty slice returns
	// no vectors and makes no request; an empty or blank text is an error
	// (ErrEmptyText), as is a response of the wrong count or dimensions.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Errors of this package. Test them with errors.Is.
var (
	// ErrEmptyText is returned for an empty or whitespace-only text.
	ErrEmptyText = errors.New("vectors: empty text")
	// ErrDimensions is returned when vectors do not have the expected
	// number of dimensions: a response that disagrees with itself, with
	// the configured size, or with the index built before.
	ErrDimensions = errors.New("vectors: wrong dimensions")
	// ErrBadResponse is returned for an embedding response that cannot be
	// used: not JSON, the wrong number of vectors, NaN or zero vectors.
	ErrBadResponse = errors.New("vectors: bad embedding response")
	// ErrNeedsRebuild is returned by Query and the writes when the index
	// on disk was built by another embedder (or is damaged); Status says
	// which, and Reset starts the rebuild.
	ErrNeedsRebuild = errors.New("vectors: index needs rebuild")
	// ErrCorrupt is returned, wrapped in ErrNeedsRebuild, when the marker
	// or the vector log is damaged (other than a torn last frame).
	ErrCorrupt = errors.New("vectors: corrupt vector index")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("vectors: index closed")
)

// checkTexts rejects blank texts before any work or request is made.
func checkTexts(texts []string) error {
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return fmt.Errorf("text %d: %w", i, ErrEmptyText)
		}
	}
	return nil
}

// normalize scales v to unit length in place. It fails on a zero vector
// or one holding NaN or infinities, which no similarity can rank.
func normalize(v []float32) error {
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%w: vector holds NaN or Inf", ErrBadResponse)
		}
		sum += f * f
	}
	if sum == 0 {
		return fmt.Errorf("%w: zero vector", ErrBadResponse)
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return nil
}

// checkVectors validates a batch: count, equal dimensions (dims when it is
// not 0), finite and non-zero; it normalises each vector.
func checkVectors(vecs [][]float32, n, dims int) error {
	if len(vecs) != n {
		return fmt.Errorf("%w: %d vectors for %d texts", ErrBadResponse, len(vecs), n)
	}
	for i, v := range vecs {
		if dims == 0 {
			dims = len(v)
		}
		if len(v) != dims || len(v) == 0 {
			return fmt.Errorf("%w: vector %d has %d dimensions, want %d", ErrDimensions, i, len(v), dims)
		}
		if err := normalize(v); err != nil {
			return fmt.Errorf("vector %d: %w", i, err)
		}
	}
	return nil
}

// Config selects an embedder: what a configuration file or flags name.
type Config struct {
	// Kind is "local" (the default when empty), "ollama" or "openai".
	Kind string
	// Dims is the local embedder's size (DefaultLocalDims when 0).
	Dims int
	// Remote configures "ollama" and "openai".
	Remote RemoteConfig
}

// New returns the embedder cfg names.
func New(cfg Config) (Embedder, error) {
	switch strings.ToLower(strings.TrimSpace(cfg.Kind)) {
	case "", "local":
		return NewLocal(cfg.Dims), nil
	case "ollama":
		return NewOllama(cfg.Remote)
	case "openai", "openai-compatible":
		return NewOpenAI(cfg.Remote)
	}
	return nil, fmt.Errorf("unknown embedder %q (want local, ollama or openai)", cfg.Kind)
}
