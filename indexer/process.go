package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/queue"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/understand"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// outcome is one queue item after extraction and understanding.
type outcome struct {
	item   queue.Item
	commit *model.Understood
	err    error
	// files are the changed files in languages with an entity grammar,
	// with their contents, until the entity stage has used them.
	files []fileSrc
	// prep is the commit's write prepared off the writer (store.Prepare).
	prep *store.Prepared
}

// process drains the ready part of the queue. Extraction of the next batch
// overlaps the write of the previous one; each batch is written in one
// transaction that also removes its items from the queue.
func (s *Syncer) process(ctx context.Context, repo *extract.Repo, res *Result) error {
	counts, err := s.q.Counts(ctx)
	if err != nil {
		return err
	}
	if counts.Pending+counts.Failed == 0 {
		return nil
	}
	// Secrets must be redacted before anything is written: no scanner, no
	// processing.
	if _, err := s.secretScanner(); err != nil {
		return err
	}
	if !s.opts.ExtractOnly && !s.opts.NoRelations {
		s.rel = newRelater(ctx, s.st, s.path)
	}
	s.parserSet = make([]*entity.Parser, s.opts.Workers)
	for i := range s.parserSet {
		s.parserSet[i] = entity.NewParser()
		s.parserSet[i].SetLineDiff(lineDiff)
		s.parserSet[i].SetCheck(s.opts.CheckEntities)
	}
	defer func() {
		for _, p := range s.parserSet {
			if s.opts.CheckEntities {
				res.addCheck(p.Checked())
			}
			p.Close()
		}
	}()
	total := counts.Pending + counts.Failed
	start, done := time.Now(), 0
	seen := map[string]bool{}
	for {
		items, err := s.q.Dequeue(ctx, roundBatches*s.opts.BatchSize)
		if err != nil {
			return err
		}
		items = unseen(items, seen)
		if len(items) == 0 {
			return nil
		}
		total = max(total, done+len(items))
		extracted := make(chan []outcome, 1)
		batches := make(chan []outcome, 1)
		written := make(chan []outcome, 1)
		g, gctx := errgroup.WithContext(ctx)
		s.sources = semaphore.NewWeighted(sourceBudget)
		g.Go(func() error {
			defer close(extracted)
			for lo := 0; lo < len(items); lo += s.opts.BatchSize {
				b := s.extractBatch(gctx, repo, items[lo:min(lo+s.opts.BatchSize, len(items))])
				if err := s.sources.Acquire(gctx, sourceWeight(b)); err != nil {
					return err
				}
				select {
				case extracted <- b:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
		// Entities are a stage of their own, partitioned by path rather
		// than by commit, overlapping the next batches' extraction.
		g.Go(func() error {
			defer close(batches)
			return s.entityStage(gctx, extracted, batches, res)
		})
		g.Go(func() error {
			defer close(written)
			for b := range batches {
				if err := s.write(gctx, b, res); err != nil {
					return err
				}
				for i := range b {
					b[i].prep = nil // written: only the graph stage may still hold the batch
				}
				done += len(b)
				if s.opts.Progress != nil {
					s.opts.Progress(Progress{Done: done, Total: total, Failed: res.Failed, Elapsed: time.Since(start)})
				}
				if s.derived() {
					select {
					case written <- b:
					case <-gctx.Done():
						return gctx.Err()
					}
				}
			}
			return nil
		})
		// The graph is written by a third stage, so that Cayley's writes
		// overlap the next batch's metadata.
		g.Go(func() error { return s.graphStage(gctx, written) })
		if err := g.Wait(); err != nil {
			return err
		}
		if s.rel != nil && s.rel.err != nil {
			return fmt.Errorf("code relationships: %w", s.rel.err)
		}
	}
}

// addCheck adds one parser's entity check to the result.
func (r *Result) addCheck(c entity.CheckCounts) {
	if r.EntityCheck == nil {
		r.EntityCheck = &entity.CheckCounts{}
	}
	r.EntityCheck.Derived += c.Derived
	r.EntityCheck.Differing += c.Differing
	r.EntityCheck.Broken += c.Broken
}

// roundBatches is how many batches process takes from the queue at a
// time. Its stages overlap within a round only: each round ends with the
// last batches going through the entity stage, the writer and the graph
// one after the other, the cores mostly idle (a second of one core idle
// at git/git's round boundary, with 256). An item costs ~150 bytes, so a
// round of 131k commits holds ~20 MB of items.
const roundBatches = 512

// sourceBudget bounds the bytes of file contents that extracted batches
// hold for the entity stage: extraction waits for the entity stage to
// finish with earlier batches rather than run further ahead. A batch of
// git/git's later history holds up to ~60 MB of sources (a few C files of
// tens of kilobytes, both versions, per commit), and the stage, with its
// channels and its parsers up to entityAhead batches apart, could hold
// five or six of them, most no longer in the object caches.
var sourceBudget int64 = 96 << 20

// sourceWeight is what a batch takes of sourceBudget: its file contents,
// at most the whole budget (a larger batch goes through alone).
func sourceWeight(b []outcome) int64 {
	var n int64
	for i := range b {
		for _, f := range b[i].files {
			n += int64(len(f.old) + len(f.new))
		}
	}
	return min(n, sourceBudget)
}

// lineDiff is the entity parsers' line diff: git's, without context.
func lineDiff(old, new []byte) []model.Hunk {
	hunks, _, _ := extract.DiffLines(old, new, 0)
	return hunks
}

func unseen(items []queue.Item, seen map[string]bool) []queue.Item {
	out := items[:0]
	for _, it := range items {
		if !seen[it.Hash] {
			seen[it.Hash] = true
			out = append(out, it)
		}
	}
	return out
}

// extractBatch reads the batch's objects on one goroutine (go-git is not
// safe for concurrent use, and one repository handle keeps one warm cache)
// while Workers goroutines compute line diffs and redact secrets.
func (s *Syncer) extractBatch(ctx context.Context, repo *extract.Repo, items []queue.Item) []outcome {
	out := make([]outcome, len(items))
	loaded := make([]*extract.Loaded, len(items))
	work := make(chan int, 2*s.opts.Workers)
	var g errgroup.Group
	for range s.opts.Workers {
		g.Go(func() error {
			for i := range work {
				out[i] = s.complete(out[i].item, loaded[i])
			}
			return nil
		})
	}
	for i, it := range items {
		out[i].item = it
		if ctx.Err() != nil {
			out[i].err = ctx.Err()
			continue
		}
		if loaded[i], out[i].err = load(repo, it.Hash); out[i].err == nil {
			work <- i
		}
	}
	close(work)
	g.Wait()
	repo.ReleaseMemory()
	return out
}

// load reads one commit's objects. A malformed object must fail its
// commit, not the whole sync, so a panic in go-git becomes an error.
func load(repo *extract.Repo, hash string) (l *extract.Loaded, err error) {
	defer func() {
		if r := recover(); r != nil {
			l, err = nil, fmt.Errorf("extract panicked: %v", r)
		}
	}()
	return repo.Load(hash)
}

// complete diffs a loaded commit, keeps the sources the entity stage needs,
// redacts secrets and understands it.
func (s *Syncer) complete(it queue.Item, l *extract.Loaded) (o outcome) {
	o.item = it
	defer func() {
		if r := recover(); r != nil {
			o.commit, o.err, o.files = nil, fmt.Errorf("diff panicked: %v", r), nil
		}
	}()
	var visit func(fc *model.FileChange, old, new []byte)
	if !l.IsMerge() { // a merge's changes belong to the commits it merges
		visit = func(fc *model.FileChange, old, new []byte) {
			if entity.Supported(fc.Language) {
				o.files = append(o.files, fileSrc{fc, old, new})
			}
		}
	}
	if s.opts.ExtractOnly {
		visit = nil
	}
	c := l.FinishWith(visit)
	s.redact(c)
	if s.opts.ExtractOnly {
		o.commit = &model.Understood{Commit: c}
		return o
	}
	o.commit = understandCommit(c)
	return o
}

// understand runs the deterministic understand stage on a redacted commit,
// so nothing it derives can carry a secret.
func understandCommit(c *model.Commit) *model.Understood {
	cl := understand.Classify(c)
	return &model.Understood{Commit: c, Classification: cl,
		Summary: understand.Summarize(c, cl), Notes: understand.DesignNotes(c)}
}

// redact removes secrets from everything of a commit that will be stored.
// (The entity stage redacts entity signatures: a default argument can hold
// a key.)
func (s *Syncer) redact(c *model.Commit) {
	var found []string
	c.Message, found = s.scanner.Redact(c.Message)
	c.Redactions += len(found)
	if c.RawMessage != nil {
		raw, found := s.scanner.Redact(string(c.RawMessage))
		c.RawMessage = []byte(raw)
		c.Redactions += len(found)
	}
	for i := range c.Changes {
		fc := &c.Changes[i]
		for j := range fc.Hunks {
			h := &fc.Hunks[j]
			h.Text, found = s.scanner.RedactFile(fc.Path, h.Text)
			c.Redactions += len(found)
		}
	}
	// Names are stored as keys (paths) or shown in every answer (authors):
	// a secret in one is replaced by a marker unique to it, so a redacted
	// path still names one file.
	for _, name := range []*string{&c.Author.Name, &c.Author.Email, &c.Committer.Name, &c.Committer.Email} {
		*name, found = s.scanner.RedactName(*name)
		c.Redactions += len(found)
	}
	for i := range c.Changes {
		fc := &c.Changes[i]
		fc.Path, found = s.scanner.RedactName(fc.Path)
		c.Redactions += len(found)
		fc.OldPath, found = s.scanner.RedactName(fc.OldPath)
		c.Redactions += len(found)
	}
	// Issue references are parsed again from the redacted text, so that no
	// secret survives in a reference's raw text or URL.
	c.IssueRefs = extract.ParseIssueRefs(c.Message)
}

// write stores a batch in one transaction; failures are recorded after it.
func (s *Syncer) write(ctx context.Context, batch []outcome, res *Result) error {
	now := s.opts.Now()
	var indexed, redactions, redactedCommits int
	var seen, seenNodes map[string]int64
	err := s.st.Tx(ctx, func(tx *sql.Tx) error {
		indexed, redactions, redactedCommits = 0, 0, 0
		w, err := store.NewWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.Close()
		w.KnownEntities(s.entityIDs)
		w.KnownNodes(s.nodeIDs, s.oldNodeIDs)
		seen, seenNodes = w.SeenEntities(), w.SeenNodes()
		for _, o := range batch {
			if o.err != nil {
				continue
			}
			if err := w.InsertPrepared(ctx, o.commit, o.prep, o.item.Branch, now); err != nil {
				return err
			}
			if err := s.q.Complete(ctx, tx, o.item.Hash); err != nil {
				return err
			}
			indexed++
			redactions += o.commit.Redactions
			if o.commit.Redactions > 0 {
				redactedCommits++
			}
		}
		return w.Flush(ctx)
	})
	if err != nil {
		return fmt.Errorf("write batch: %w", err)
	}
	maps.Copy(s.entityIDs, seen)
	maps.Copy(s.nodeIDs, seenNodes)
	if len(s.nodeIDs) > nodeIDsMax {
		s.oldNodeIDs, s.nodeIDs = s.nodeIDs, map[string]int64{}
	}
	res.Indexed += indexed
	res.Redactions += redactions
	res.RedactedCommits += redactedCommits
	for _, o := range batch {
		if o.err == nil {
			continue
		}
		if errors.Is(o.err, context.Canceled) {
			return o.err
		}
		res.Failed++
		if len(res.Errors) < 20 {
			res.Errors = append(res.Errors, fmt.Sprintf("%s: %v", o.item.Hash, o.err))
		}
		if err := s.q.Fail(ctx, o.item.Hash, o.err); err != nil {
			return err
		}
	}
	return nil
}

// nodeIDsMax is how many code node ids the writer's cache holds before
// it starts a new generation: the ids a generation's writes did not use
// go with it, and the writer asks SQLite for an id again only when it
// has been in neither generation for that long. Most nodes of a long
// history are entities and files that are gone; keeping all of their ids
// (and the strings, which the relater lets go) for the whole sync was
// live state for every collection to mark.
const nodeIDsMax = 1 << 15

// summarize asks the optional LLM summariser for the batch's summaries. It
// runs on redacted commits, and whatever fails keeps its extractive summary.
func (s *Syncer) summarize(ctx context.Context, batch []outcome, res *Result) {
	if s.opts.Summarizer == nil {
		return
	}
	var cs []*model.Understood
	for _, o := range batch {
		if o.err == nil && !o.commit.IsMerge {
			cs = append(cs, o.commit)
		}
	}
	if len(cs) == 0 {
		return
	}
	st := s.opts.Summarizer.Apply(ctx, cs)
	res.LLMSummaries += st.Cached + st.Generated
	res.LLMFailed += st.Failed
	if st.Err != nil && res.LLMError == "" {
		res.LLMError = st.Err.Error()
	}
}
