// Package extract reads a Git repository with go-git and turns its history
// into model.Commit records: metadata, repaired messages, refs, issue
// references, and per-file changes against the first parent with hunks.
//
// Speed comes from three places, because a naive go-git walk is ~30× slower
// than git: a large object cache per worker, a tree diff that skips equal
// subtrees by hash over decoded trees cached by hash, and a line diff of our
// own (DiffLines) instead of go-git's patch.
package extract
