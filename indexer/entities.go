package indexer

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// commitEntities collects what the entity stage finds in one commit's
// file changes; bodies[i] is the body hash of changes[i].
type commitEntities struct {
	changes []model.EntityChange
	bodies  []uint64
	facts   *fileFacts // the file's relationship facts (relations_read.go)
}

func (ce *commitEntities) add(e entity.Entity, path, lang, action string) *model.EntityChange {
	ce.changes = append(ce.changes, model.EntityChange{Path: path, Language: lang, Kind: string(e.Kind),
		Name: e.Name, Qualified: entity.LocalName(e.Qualified), Action: action,
		StartLine: e.StartLine, EndLine: e.EndLine, Signature: e.Signature})
	ce.bodies = append(ce.bodies, e.BodyHash)
	return &ce.changes[len(ce.changes)-1]
}

// file relates one file change's old and new entities. Files in languages
// without a grammar, or too large, give nothing: they stay tracked at file
// level. A renamed file's entities change key, so each is recorded under
// the new path as introduced (or modified, when its lines changed),
// replacing the one under the old path, which is recorded as deleted. A
// copy introduces its entities.
//
// A file that keeps its path goes through Parser.Changes, which reparses
// only what the hunks touched when the parser saw the old version (the
// entity stage sends each path to the same parser, in commit order).
func (ce *commitEntities) file(ctx context.Context, p *entity.Parser, fc *model.FileChange, old, new []byte) error {
	if !entity.Supported(fc.Language) {
		return nil
	}
	oldPath := fc.OldPath
	if oldPath == "" {
		oldPath = fc.Path
	}
	if fc.Status == model.Copied || fc.Status == model.Added {
		old = nil
	}
	if fc.Status == model.Deleted {
		new = nil
	}
	if oldPath == fc.Path {
		chs, err := p.Changes(ctx, fc.Language, entity.Version{Path: oldPath, Hash: blobKey(old, fc.OldBlob), Src: old},
			entity.Version{Path: fc.Path, Hash: blobKey(new, fc.NewBlob), Src: new}, fc.Hunks)
		if err != nil {
			return skippable(err)
		}
		for _, ch := range chs {
			ce.add(ch.Entity, fc.Path, fc.Language, string(ch.Action))
		}
		return nil
	}
	var olds, news []entity.Entity
	var err error
	if old != nil {
		if olds, err = p.Entities(ctx, fc.Language, oldPath, fc.OldBlob, old); err != nil {
			return skippable(err)
		}
	}
	if new != nil {
		if news, err = p.Entities(ctx, fc.Language, fc.Path, fc.NewBlob, new); err != nil {
			return skippable(err)
		}
	}
	first := len(ce.changes)
	for _, ch := range entity.Diff(olds, news, fc.Hunks) {
		path := fc.Path
		if ch.Action == entity.Deletes {
			path = oldPath
		}
		ce.add(ch.Entity, path, fc.Language, string(ch.Action))
	}
	if fc.Status == model.Renamed {
		ce.moved(olds, news, first, oldPath, fc)
	}
	return nil
}

// blobKey is the cache key of a version: its blob hash, none for a side
// that does not exist.
func blobKey(src []byte, hash string) string {
	if src == nil {
		return ""
	}
	return hash
}

// moved links the entities a file rename carried to their old keys: a
// changed one replaces its old key; an untouched one is introduced under
// the new path, replacing the old key; every old key is deleted.
func (ce *commitEntities) moved(olds, news []entity.Entity, first int, oldPath string, fc *model.FileChange) {
	byLocal := make(map[string]entity.Entity, len(olds))
	for _, e := range olds {
		byLocal[entity.LocalName(e.Qualified)] = e
	}
	changed := map[string]bool{}
	for i := first; i < len(ce.changes); i++ {
		c := &ce.changes[i]
		if c.Action == model.EntityDeleted {
			continue
		}
		changed[c.Qualified] = true
		if _, ok := byLocal[c.Qualified]; ok {
			c.Replaces = model.EntityKey(oldPath, c.Qualified)
		}
	}
	for _, e := range news {
		local := entity.LocalName(e.Qualified)
		o, ok := byLocal[local]
		if !ok {
			continue
		}
		if !changed[local] {
			ce.add(e, fc.Path, fc.Language, model.EntityIntroduced).Replaces = model.EntityKey(oldPath, local)
		}
		ce.add(o, oldPath, fc.Language, model.EntityDeleted)
	}
}

// linkRenames pairs the entities the commit deleted with those it
// introduced with the same body under another name or in another file: the
// introduced one replaces the deleted one (which keeps its deletion).
func (ce *commitEntities) linkRenames() {
	var deleted, introduced []entity.PathEntity
	var introIdx []int
	for i, c := range ce.changes {
		pe := entity.PathEntity{Path: c.Path, Entity: entity.Entity{Name: c.Name, Qualified: c.Qualified,
			StartLine: c.StartLine, BodyHash: ce.bodies[i]}}
		switch {
		case c.Action == model.EntityDeleted && !ce.replaced(c.Key()):
			deleted = append(deleted, pe)
		case c.Action == model.EntityIntroduced && c.Replaces == "":
			introduced = append(introduced, pe)
			introIdx = append(introIdx, i)
		}
	}
	if len(deleted) == 0 || len(introduced) == 0 {
		return
	}
	for _, r := range entity.Renames(deleted, introduced) {
		for k, pe := range introduced {
			if pe.Path == r.ToPath && pe.Qualified == r.To.Qualified && pe.StartLine == r.To.StartLine {
				ce.changes[introIdx[k]].Replaces = model.EntityKey(r.FromPath, r.From.Qualified)
				break
			}
		}
	}
}

// replaced reports whether some change already replaces key.
func (ce *commitEntities) replaced(key string) bool {
	for _, c := range ce.changes {
		if c.Replaces == key {
			return true
		}
	}
	return false
}

// skippable turns the errors that mean "track this file as a whole" into
// no error.
func skippable(err error) error {
	if errors.Is(err, entity.ErrTooLarge) || errors.Is(err, entity.ErrUnsupported) {
		return nil
	}
	return err
}

// fileSrc is one file change with its contents, kept for the entity stage.
type fileSrc struct {
	fc       *model.FileChange
	old, new []byte
}

// entityJob is one batch in the entity stage. results[i][k] are the
// entities of batch[i].files[k]; each parser sends on done when it is done
// with the batch.
type entityJob struct {
	batch   []outcome
	results [][]commitEntities
	done    chan struct{}
}

// entityAhead is how many batches a parser may run ahead of the slowest
// one. A batch's share of the work is seldom even (one commit rewriting a
// large file falls on one parser), and a parser that waited for the other
// at each batch idled a sixth of the time (git/git, first 32,699 commits).
const entityAhead = 2

// entityStage finds the entities the batches' commits changed, and sends
// each batch on, in order, once it is complete and prepared for the writer.
// Files are partitioned by path over the parsers, and each parser takes its
// files in commit order (the queue's order, parents first), so that a
// file's next version meets the parse of its previous one. Each parser
// works through the batches at its own pace. A file whose entities cannot
// be found stays tracked at file level.
func (s *Syncer) entityStage(ctx context.Context, in <-chan []outcome, out chan<- []outcome, res *Result) error {
	shares := make([]chan *entityJob, len(s.parserSet))
	ordered := make(chan *entityJob, entityAhead)
	var g errgroup.Group
	for part, p := range s.parserSet {
		shares[part] = make(chan *entityJob, entityAhead)
		g.Go(func() error {
			for job := range shares[part] {
				s.parseShare(ctx, p, part, job)
				job.done <- struct{}{}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer func() {
			for _, ch := range shares {
				close(ch)
			}
			close(ordered)
		}()
		for b := range in {
			job := &entityJob{batch: b, results: make([][]commitEntities, len(b)), done: make(chan struct{}, len(shares))}
			for i := range b {
				job.results[i] = make([]commitEntities, len(b[i].files))
			}
			for _, ch := range shares {
				select {
				case ch <- job:
				case <-ctx.Done():
					return nil
				}
			}
			select {
			case ordered <- job:
			case <-ctx.Done():
				return nil
			}
		}
		return nil
	})
	var err error
	for job := range ordered {
		for range shares {
			<-job.done
		}
		if err != nil {
			s.sources.Release(sourceWeight(job.batch))
			continue // drain, so that the dispatcher ends
		}
		s.finishEntities(job)
		s.summarize(ctx, job.batch, res)
		select {
		case out <- job.batch:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	g.Wait()
	return err
}

// parseShare finds the entities of the files of a batch that fall to one
// parser.
func (s *Syncer) parseShare(ctx context.Context, p *entity.Parser, part int, job *entityJob) {
	parts := uint32(len(s.parserSet))
	for i := range job.batch {
		for k, f := range job.batch[i].files {
			if int(pathHash(f.fc.Path)%parts) != part || ctx.Err() != nil {
				continue
			}
			func() {
				defer func() { recover() }() // a parser panic loses one file's entities, not the sync
				ce := &job.results[i][k]
				ce.file(ctx, p, f.fc, f.old, f.new)
				if s.rel != nil {
					ce.facts = readFacts(ctx, p, f.fc, f.old, f.new, ce.changes)
				}
			}()
		}
	}
}

// finishEntities gives each commit of a complete batch its entity changes,
// redacted and with renames linked, and prepares the batch's writes.
func (s *Syncer) finishEntities(job *entityJob) {
	batch := job.batch
	s.sources.Release(sourceWeight(batch))
	for i := range batch {
		o := &batch[i]
		o.files = nil
		if o.err != nil || s.opts.ExtractOnly {
			continue
		}
		var ce commitEntities
		var facts []*fileFacts
		for _, r := range job.results[i] {
			ce.changes = append(ce.changes, r.changes...)
			ce.bodies = append(ce.bodies, r.bodies...)
			facts = append(facts, r.facts)
		}
		ce.linkRenames()
		for j := range ce.changes {
			var found []string
			ce.changes[j].Signature, found = s.scanner.Redact(ce.changes[j].Signature)
			o.commit.Redactions += len(found)
		}
		o.commit.Entities = canonicalEntities(ce.changes)
		s.rel.commit(o.commit, facts)
	}
	s.prepare(batch)
}

// canonicalEntities puts a commit's entity changes in the form the store
// holds and reads back: one change per entity key, ordered by path, start
// line and key. Two definitions of one qualified name in a file (Rust impl
// blocks, C preprocessor branches, overloads) are one entity: their
// changes merge into the first's lines and signature, with "modifies"
// when their actions differ and the first replacement named. So the graph
// edges and vector documents written from the commit in memory are the
// ones a replay from SQLite writes.
func canonicalEntities(chs []model.EntityChange) []model.EntityChange {
	if len(chs) == 0 {
		return nil
	}
	out := slices.Clone(chs)
	slices.SortStableFunc(out, func(a, b model.EntityChange) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.StartLine, b.StartLine), cmp.Compare(a.Key(), b.Key()))
	})
	at := make(map[string]int, len(out))
	merged := out[:0]
	for _, c := range out {
		i, ok := at[c.Key()]
		if !ok {
			at[c.Key()] = len(merged)
			merged = append(merged, c)
			continue
		}
		m := &merged[i]
		if m.Action != c.Action {
			m.Action = model.EntityModified
		}
		if m.Replaces == "" {
			m.Replaces = c.Replaces
		}
	}
	return merged
}

// prepare computes the batch's writes (compressed blobs, keyword rows) on
// every core, so the writer only executes statements.
func (s *Syncer) prepare(batch []outcome) {
	var g errgroup.Group
	g.SetLimit(len(s.parserSet))
	for i := range batch {
		if batch[i].err == nil {
			g.Go(func() error {
				batch[i].prep = store.Prepare(batch[i].commit)
				return nil
			})
		}
	}
	g.Wait()
}

// pathHash spreads paths over the entity parsers (FNV-1a).
func pathHash(p string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(p); i++ {
		h = (h ^ uint32(p[i])) * 16777619
	}
	return h
}
