package retrieve

import (
	"bytes"
	"cmp"
	"container/heap"
	"container/list"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/gitmemory/gitmemory/store"
)

// FTS5's bm25() of an OR query is a sum over its phrases. A phrase's part
// in a row depends on the phrase's weighted frequency in the row, the
// row's length, the number of rows that match the phrase, and the table's
// row and token counts; nothing else. A TermCache keeps, per term, the
// rows that match it with the term's frequency in each, and the length of
// every row, and computes bm25() in Go from them: a daemon's questions
// share most of their words, and bm25() in SQLite (a row-length lookup per
// matching row) was most of a keyword search.
//
// SQLite gives no term frequency, only bm25(): it is recovered from a
// one-term bm25() by inverting the formula. When commits are added, the
// new rows' lengths and each term's new matches are read (rowid above the
// last seen) and the kept frequencies stay valid; any other change to the
// index (a row deleted or replaced) empties the cache.

// BM25 constants of FTS5's bm25().
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// DefaultTermPostings bounds a TermCache: about 16 bytes each, so 64 MB.
const DefaultTermPostings = 4 << 20

// TermCache keeps keyword terms' matches for a repository whose keyword
// index one process reads many times (the daemon's held stores). Safe for
// concurrent use.
type TermCache struct {
	mu       sync.Mutex
	max      int
	state    *indexState // nil until the first use
	terms    map[string]*list.Element
	lru      *list.List // of *termRows, most recently used first
	size     int        // rows kept over all terms
	hits     int
	computed int
}

// indexState is the keyword index as of one snapshot. It is never changed
// once made; a newer snapshot makes a new one (sharing docLen's array,
// which only grows).
type indexState struct {
	totals []byte  // the index's totals record, as read
	rows   int64   // rows in the index
	tokens int64   // tokens over all rows and columns
	last   int64   // the highest rowid
	docLen []int32 // each row's tokens, by rowid (0: no such row)
}

func (s *indexState) avgdl() float64 { return float64(s.tokens) / float64(max(s.rows, 1)) }

// termRows is one term's matches up to a rowid, with the term's weighted
// frequency in each (bm25()'s aFreq). A term scoped to the messages
// (inMessages) is a term of its own, weighted by messageWeights: FTS5
// counts its matches and weighs its columns so, and a row's length is
// the whole row's either way.
type termRows struct {
	term    string
	through int64
	ids     []int64
	freq    []float64
}

// NewTermCache returns a cache of at most postings matches over all terms
// (DefaultTermPostings when 0 or less).
func NewTermCache(postings int) *TermCache {
	if postings <= 0 {
		postings = DefaultTermPostings
	}
	return &TermCache{max: postings, terms: map[string]*list.Element{}, lru: list.New()}
}

// Stats returns how many term lookups were answered from the cache and
// how many were read from the index.
func (c *TermCache) Stats() (hits, computed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.computed
}

// snapshot opens a read transaction and brings c to it: the index's
// totals, lengths and matches all come from the same snapshot, whatever a
// sync commits meanwhile. The caller rolls tx back.
func (c *TermCache) snapshot(ctx context.Context, st *store.Store) (*sql.Tx, *indexState, error) {
	tx, err := st.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, err
	}
	s, err := c.advance(ctx, tx)
	if err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	return tx, s, nil
}

// cachedKeyword is Keyword through c: the same commits in the same order
// as SQLite's bm25() of the whole disjunction, up to float rounding.
func cachedKeyword(ctx context.Context, st *store.Store, c *TermCache, alts []string, q KeywordQuery) ([]KeywordHit, error) {
	tx, s, err := c.snapshot(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer tx.Rollback()
	sum := getScores(len(s.docLen))
	defer putScores(sum)
	for _, alt := range alts {
		t, err := c.term(ctx, tx, s, alt)
		if err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		sum.add(s, t)
	}
	all := make([]KeywordHit, len(sum.touched))
	for i, id := range sum.touched {
		all[i] = KeywordHit{ID: id, BM25: sum.acc[id]}
	}
	// Sorting every match costs more than the sums: sort the best few,
	// and everything only when rewritten commits crowd them out.
	out, err := keepLive(ctx, tx, best(all, 2*q.Limit), q)
	if err == nil && len(out) < q.Limit && len(all) > 2*q.Limit {
		slices.SortFunc(all, keywordOrder)
		out, err = keepLive(ctx, tx, all, q)
	}
	return out, err
}

// scores accumulates bm25() by rowid, densely: a map was a third of a
// kept question's time.
type scores struct {
	acc     []float64 // by rowid; 0 until a term matches the row
	touched []int64   // the rows with a score, in the order first matched
}

// scorePool keeps accumulators between questions: one is a float per
// commit (650 KB on git/git), and clearing only the touched rows is
// cheaper than a new one.
var scorePool sync.Pool

func getScores(n int) *scores {
	sc, _ := scorePool.Get().(*scores)
	if sc == nil || len(sc.acc) < n {
		return &scores{acc: make([]float64, n)}
	}
	return sc
}

func putScores(sc *scores) {
	for _, id := range sc.touched {
		sc.acc[id] = 0
	}
	sc.touched = sc.touched[:0]
	scorePool.Put(sc)
}

// add adds t's bm25() part in each row it matches, negative as SQLite's:
// idf × f(k1+1) / (f + k1(1 − b + b·D/avgdl)), never 0 (idf ≥ 1e-6, f > 0).
func (sc *scores) add(s *indexState, t *termRows) {
	idf := termIDF(s.rows, len(t.ids))
	avgdl := s.avgdl()
	for i, id := range t.ids {
		f := t.freq[i]
		d := float64(s.docLen[id])
		if sc.acc[id] == 0 {
			sc.touched = append(sc.touched, id)
		}
		sc.acc[id] -= bm25Part(idf, f, d, avgdl)
	}
}

// bm25Part is a term's part of a row's bm25(), positive.
func bm25Part(idf, f, d, avgdl float64) float64 {
	return idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*d/avgdl))
}

// cachedScores is KeywordScores through the cache. A term's rows are
// kept in rowid order (FTS5's, and rows are only appended), so a row's
// part is a binary search away; the parts add up in the order the search
// adds them, so the scores are the search's to the last bit.
func cachedScores(ctx context.Context, st *store.Store, c *TermCache, alts []string, ids []int64) (map[int64]float64, error) {
	tx, s, err := c.snapshot(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("keyword scores: %w", err)
	}
	defer tx.Rollback()
	out := map[int64]float64{}
	for _, alt := range alts {
		t, err := c.term(ctx, tx, s, alt)
		if err != nil {
			return nil, fmt.Errorf("keyword scores: %w", err)
		}
		idf := termIDF(s.rows, len(t.ids))
		for _, id := range ids {
			if i, ok := slices.BinarySearch(t.ids, id); ok {
				out[id] -= bm25Part(idf, t.freq[i], float64(s.docLen[id]), s.avgdl())
			}
		}
	}
	return out, nil
}

// termIDF is FTS5's: log((N − n + 0.5) / (n + 0.5)), at least 1e-6.
func termIDF(rows int64, hits int) float64 {
	idf := math.Log((float64(rows) - float64(hits) + 0.5) / (float64(hits) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// advance brings the cache to the snapshot tx reads and returns its state.
func (c *TermCache) advance(ctx context.Context, tx *sql.Tx) (*indexState, error) {
	totals, err := indexTotals(ctx, tx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.state
	if old != nil && bytes.Equal(old.totals, totals) {
		return old, nil
	}
	rows, tokens, err := decodeTotals(totals)
	if err != nil {
		return nil, err
	}
	if old != nil && rows >= old.rows {
		s, err := extendState(ctx, tx, old, totals, rows, tokens)
		if err != nil {
			return nil, err
		}
		if s != nil {
			c.state = s
			return s, nil
		}
	}
	// Rows deleted or replaced, or the first use: start over. (So does a
	// question whose snapshot is older than the cache, begun before a
	// sync's commit that another question has seen: rare, and only slow.)
	s, err := loadState(ctx, tx, totals, rows, tokens)
	if err != nil {
		return nil, err
	}
	c.state, c.terms, c.lru, c.size = s, map[string]*list.Element{}, list.New(), 0
	return s, nil
}

// extendState returns old with the rows added since, or nil when the
// index changed otherwise (then the counts do not add up).
func extendState(ctx context.Context, tx *sql.Tx, old *indexState, totals []byte, rows, tokens int64) (*indexState, error) {
	s := &indexState{totals: totals, rows: rows, tokens: tokens, last: old.last, docLen: old.docLen}
	added, addedTokens, err := readDocLens(ctx, tx, s, old.last)
	if err != nil {
		return nil, err
	}
	if old.rows+added != rows || old.tokens+addedTokens != tokens {
		return nil, nil
	}
	return s, nil
}

func loadState(ctx context.Context, tx *sql.Tx, totals []byte, rows, tokens int64) (*indexState, error) {
	s := &indexState{totals: totals, rows: rows, tokens: tokens}
	if _, _, err := readDocLens(ctx, tx, s, 0); err != nil {
		return nil, err
	}
	return s, nil
}

// readDocLens appends the lengths of the rows above after to s.
func readDocLens(ctx context.Context, tx *sql.Tx, s *indexState, after int64) (n, tokens int64, err error) {
	err = store.EachRow(ctx, tx, `SELECT id, sz FROM search_docsize WHERE id > ? ORDER BY id`, []any{after},
		func(r *sql.Rows) error {
			var id int64
			var sz []byte
			if err := r.Scan(&id, &sz); err != nil {
				return err
			}
			d, err := sumVarints(sz)
			if err != nil {
				return err
			}
			for int64(len(s.docLen)) <= id {
				s.docLen = append(s.docLen, 0)
			}
			s.docLen[id], s.last = int32(d), id
			n, tokens = n+1, tokens+d
			return nil
		})
	return n, tokens, err
}

// term returns alt's matches as of s: kept, extended by the rows added
// since they were read, or read whole.
func (c *TermCache) term(ctx context.Context, tx *sql.Tx, s *indexState, alt string) (*termRows, error) {
	c.mu.Lock()
	var kept *termRows
	if e, ok := c.terms[alt]; ok && c.state == s {
		kept = e.Value.(*termRows)
		c.lru.MoveToFront(e)
		c.hits++
	}
	c.mu.Unlock()
	if kept != nil && kept.through == s.last {
		return kept, nil
	}
	from := int64(0)
	if kept != nil {
		from = kept.through
	}
	more, err := readTerm(ctx, tx, s, alt, from, kept)
	if err != nil {
		return nil, err
	}
	t := more
	if kept != nil {
		t = &termRows{term: alt, through: more.through, ids: append(slices.Clip(kept.ids), more.ids...),
			freq: append(slices.Clip(kept.freq), more.freq...)}
	}
	c.keep(t, s)
	return t, nil
}

// readTerm reads alt's rows above from, recovering each row's frequency
// from the one-term bm25(), whose IDF counts every row matching alt (those
// of kept too).
func readTerm(ctx context.Context, tx *sql.Tx, s *indexState, alt string, from int64, kept *termRows) (*termRows, error) {
	t := &termRows{term: alt, through: s.last}
	var parts []float64
	err := store.EachRow(ctx, tx, `SELECT rowid, `+rankOf(alt)+` FROM search WHERE search MATCH ? AND rowid > ?`,
		[]any{alt, from}, func(r *sql.Rows) error {
			var id int64
			var x float64
			err := r.Scan(&id, &x)
			t.ids, parts = append(t.ids, id), append(parts, -x)
			return err
		})
	if err != nil {
		return nil, err
	}
	hits := len(t.ids)
	if kept != nil {
		hits += len(kept.ids)
	}
	idf, avgdl := termIDF(s.rows, hits), s.avgdl()
	t.freq = make([]float64, len(parts))
	for i, part := range parts {
		// part = idf·f(k1+1) / (f + K), K = k1(1 − b + b·D/avgdl),
		// so f = part·K / (idf(k1+1) − part).
		k := bm25K1 * (1 - bm25B + bm25B*float64(s.docLen[t.ids[i]])/avgdl)
		t.freq[i] = part * k / (idf*(bm25K1+1) - part)
	}
	return t, nil
}

// keep stores t if the cache still describes s.
func (c *TermCache) keep(t *termRows, s *indexState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.computed++
	if c.state != s || len(t.ids) > c.max {
		return
	}
	if e, ok := c.terms[t.term]; ok {
		c.size -= len(e.Value.(*termRows).ids)
		c.lru.Remove(e)
	}
	c.terms[t.term] = c.lru.PushFront(t)
	c.size += len(t.ids)
	for c.size > c.max {
		last := c.lru.Back()
		old := last.Value.(*termRows)
		c.lru.Remove(last)
		delete(c.terms, old.term)
		c.size -= len(old.ids)
	}
}

// indexTotals reads the keyword index's totals record: its row count and
// tokens per column, which every insert and delete changes.
func indexTotals(ctx context.Context, q store.Querier) ([]byte, error) {
	var b []byte
	err := q.QueryRowContext(ctx, `SELECT block FROM search_data WHERE id = 1`).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return b, err
}

// decodeTotals reads the totals record: the row count, then each
// column's tokens.
func decodeTotals(b []byte) (rows, tokens int64, err error) {
	if len(b) == 0 {
		return 0, 0, nil
	}
	v, n := getVarint(b)
	if n == 0 {
		return 0, 0, fmt.Errorf("keyword index totals record damaged")
	}
	tokens, err = sumVarints(b[n:])
	return int64(v), tokens, err
}

// sumVarints adds the SQLite varints of b (a docsize or totals record).
func sumVarints(b []byte) (int64, error) {
	var sum int64
	for len(b) > 0 {
		v, n := getVarint(b)
		if n == 0 {
			return 0, fmt.Errorf("keyword index size record damaged")
		}
		sum += int64(v)
		b = b[n:]
	}
	return sum, nil
}

// getVarint decodes SQLite's varint: big-endian groups of 7 bits, the
// high bit set on all but the last, the ninth byte whole. n is 0 when b
// ends first.
func getVarint(b []byte) (v uint64, n int) {
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// keepLive takes the ranked commits, best first, until q.Limit of them
// are not rewritten (or all of them, with q.IncludeRewritten), and adds
// their hashes.
func keepLive(ctx context.Context, q store.Querier, ranked []KeywordHit, kq KeywordQuery) ([]KeywordHit, error) {
	out := make([]KeywordHit, 0, kq.Limit)
	for len(ranked) > 0 && len(out) < kq.Limit {
		// A quarter more than needed: rewritten commits are few, and each
		// row read here costs a lookup.
		chunk := ranked[:min(len(ranked), kq.Limit-len(out)+kq.Limit/4+1)]
		ranked = ranked[len(chunk):]
		args := make([]any, len(chunk))
		for i, h := range chunk {
			args[i] = h.ID
		}
		type row struct {
			hash      string
			rewritten bool
		}
		rows := map[int64]row{}
		err := store.EachRow(ctx, q, `SELECT id, hash, rewritten FROM commits WHERE id IN (`+store.Marks(len(args))+`)`, args,
			func(r *sql.Rows) error {
				var id int64
				var x row
				err := r.Scan(&id, &x.hash, &x.rewritten)
				rows[id] = x
				return err
			})
		if err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		for _, h := range chunk {
			x, ok := rows[h.ID]
			if !ok || x.rewritten && !kq.IncludeRewritten || len(out) == kq.Limit {
				continue
			}
			h.Commit = x.hash
			out = append(out, h)
		}
	}
	return out, nil
}

// keywordOrder is SQLite's: bm25 ascending (better is more negative), then
// the newest row.
func keywordOrder(a, b KeywordHit) int {
	return cmp.Or(cmp.Compare(a.BM25, b.BM25), cmp.Compare(b.ID, a.ID))
}

// best returns the k first hits of hs in keywordOrder, sorted, keeping a
// heap of the k best seen (worst on top) instead of sorting them all.
func best(hs []KeywordHit, k int) []KeywordHit {
	if len(hs) <= k {
		slices.SortFunc(hs, keywordOrder)
		return hs
	}
	h := &keywordHeap{}
	for _, x := range hs {
		if len(*h) < k {
			heap.Push(h, x)
		} else if keywordOrder(x, (*h)[0]) < 0 {
			(*h)[0] = x
			heap.Fix(h, 0)
		}
	}
	out := []KeywordHit(*h)
	slices.SortFunc(out, keywordOrder)
	return out
}

// keywordHeap keeps the worst kept hit on top.
type keywordHeap []KeywordHit

func (h keywordHeap) Len() int           { return len(h) }
func (h keywordHeap) Less(i, j int) bool { return keywordOrder(h[i], h[j]) > 0 }
func (h keywordHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *keywordHeap) Push(x any)        { *h = append(*h, x.(KeywordHit)) }
func (h *keywordHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
