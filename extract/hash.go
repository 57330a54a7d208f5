package extract

import (
	"crypto"
	"crypto/sha1"

	"github.com/go-git/go-git/v5/plumbing/hash"
)

// go-git hashes every object it puts in its cache with sha1cd, SHA-1 with
// collision detection, which was 13% of extraction time. gitmemory only
// reads objects from a repository on the same machine and never writes or
// verifies objects received from others, so the standard library's SHA-1
// (hardware-accelerated) is enough.
func init() {
	// RegisterHash fails only for a nil function or another algorithm.
	_ = hash.RegisterHash(crypto.SHA1, sha1.New)
}
