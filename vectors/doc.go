// Package vectors is gitmemory's vector index: embeddings of commits and
// design notes in a chromem-go collection, for the semantic half of hybrid
// search.
//
// # Embedders
//
// An Embedder turns texts into vectors in batches. Local, the default,
// needs no network and no model: it hashes identifier-aware word features
// (stems, whole identifiers, bigrams, character trigrams and a small
// software thesaurus) into 384 signed buckets. NewOllama and NewOpenAI
// call an Ollama server's /api/embed or any OpenAI-compatible /embeddings
// endpoint; New picks one from a Config. An embedder's Name identifies its
// model (and dimensions, when fixed): vectors of two names are never mixed.
//
// # Index
//
// An Index keeps one repository's documents, "commit:<sha>" and
// "note:<sha>:<idx>", with metadata (kind, commit, time, classification,
// paths, rewritten) that queries filter on. Its directory holds:
//
//	index.json              which embedder built the index, and its dimensions
//	<collection>/vectors.log  the documents, an append-only log (see log.go)
//
// where <collection> is the embedder's name made safe for a file name.
// Nothing is read by Open. Status reads index.json only. Writes append to
// the log without loading it. The first Query loads the whole log into memory
// (about 0.4 s and 130 MB of heap for 50k documents of 384 dimensions,
// against 2 s for chromem-go's own one-file-per-document persistence),
// and the loaded index stays current with later writes, which is how a
// daemon keeps it warm. The in-memory chromem-go collection is filled by
// the first write after a load: queries do not read it, and a process
// that only asks (the CLI) saves a third of the load's CPU.
//
// # Queries
//
// A query does not go through chromem-go: it scans the loaded documents
// itself (scan.go). Dotting the query with every float32 vector read the
// whole index each time, 190 MB at 124k documents, which many concurrent
// questions could not afford. So the index also keeps the vectors
// quantized to int8 and laid out by dimension (a byte per dimension per
// document, a fifth of the heap above), and a query reads only the
// dimensions where it is not zero (a few dozen of 384 for the local
// embedder's short questions) to score every document approximately. The
// error of each approximation is bounded, and the exact similarity is
// computed only for the documents the bound cannot rule out, so the
// answer is that of the exact scan, score for score (colscan.go). A
// loaded index builds that copy at its second query: building it costs
// several scans, which a process asking one question never earns back.
//
// # Rebuilds
//
// An index answers only for the embedder that built it. When the
// configured embedder differs (another model, another size, another
// version of the local features), or when the files are damaged, queries
// and writes fail with ErrNeedsRebuild. Status, which reads only the
// marker, reports NeedsRebuild for another embedder or a damaged marker; a
// damaged log is found by the first query or write (their error wraps
// ErrCorrupt too). Nothing is dropped behind the caller's back, since a
// query with a different --embedder flag must not destroy an index. The writer then
// calls Reset, which removes the old collection and starts an empty one,
// and adds every document again.
//
// # Consistency
//
// Upsert replaces all the documents of each commit it names, and every
// write is one checksummed frame followed by fsync, so writes are
// idempotent and a killed writer leaves at most a torn last frame, which
// readers skip and the next writer cuts. One process writes a directory
// (the caller holds the data directory's lock); an Index is safe for
// concurrent use within it.
package vectors
