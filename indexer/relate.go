package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/understand"
)

// Co-evolution (CO_EVOLVES_WITH) is kept in SQLite's couplings table and
// mirrored in the graph. A sync that indexed few commits recomputes only
// the pairs of the items those commits touched: a pair's counts change
// only when one of its items changes. A large or rewritten sync recomputes
// everything in memory, which is cheaper than thousands of small queries.

// fullRelateAfter is the number of new commits from which relate
// recomputes everything rather than the touched items.
const fullRelateAfter = 200

// coKind reads one kind of item (files or entities) for co-evolution. Rows
// are (commit id, item), ordered by commit; only live commits count, and
// merges (whose changes belong to the commits they merge) do not.
type coKind struct {
	// all reads every counted commit's items.
	all string
	// touching reads the items of the commits that share an item with a
	// commit whose id is above ?1.
	touching string
	// fresh reads the items of the commits whose id is above ?1.
	fresh string
	// revs counts the commits of at most ?2 items that touched item ?1.
	revs string
}

var coKinds = []coKind{
	{
		all: `SELECT f.commit_id, 'file:' || f.path FROM file_changes f JOIN commits c ON c.id = f.commit_id
			WHERE c.is_merge = 0 AND c.rewritten = 0 ORDER BY f.commit_id`,
		touching: `SELECT f.commit_id, 'file:' || f.path FROM file_changes f JOIN commits c ON c.id = f.commit_id
			WHERE c.is_merge = 0 AND c.rewritten = 0 AND f.commit_id IN (
				SELECT t.commit_id FROM file_changes t WHERE t.path IN (
					SELECT n.path FROM file_changes n WHERE n.commit_id > ?1))
			ORDER BY f.commit_id`,
		fresh: `SELECT f.commit_id, 'file:' || f.path FROM file_changes f JOIN commits c ON c.id = f.commit_id
			WHERE c.is_merge = 0 AND c.rewritten = 0 AND f.commit_id > ?1 ORDER BY f.commit_id`,
		revs: `SELECT COUNT(DISTINCT f.commit_id) FROM file_changes f JOIN commits c ON c.id = f.commit_id
			WHERE f.path = substr(?1, 6) AND c.is_merge = 0 AND c.rewritten = 0
			AND (SELECT COUNT(DISTINCT x.path) FROM file_changes x WHERE x.commit_id = c.id) <= ?2`,
	},
	{
		all: `SELECT x.commit_id, 'entity:' || e.key FROM entity_changes x JOIN entities e ON e.id = x.entity_id
			JOIN commits c ON c.id = x.commit_id WHERE c.rewritten = 0 ORDER BY x.commit_id`,
		touching: `SELECT x.commit_id, 'entity:' || e.key FROM entity_changes x JOIN entities e ON e.id = x.entity_id
			JOIN commits c ON c.id = x.commit_id WHERE c.rewritten = 0 AND x.commit_id IN (
				SELECT t.commit_id FROM entity_changes t WHERE t.entity_id IN (
					SELECT n.entity_id FROM entity_changes n WHERE n.commit_id > ?1))
			ORDER BY x.commit_id`,
		fresh: `SELECT x.commit_id, 'entity:' || e.key FROM entity_changes x JOIN entities e ON e.id = x.entity_id
			JOIN commits c ON c.id = x.commit_id WHERE c.rewritten = 0 AND x.commit_id > ?1 ORDER BY x.commit_id`,
		revs: `SELECT COUNT(*) FROM entity_changes x JOIN entities e ON e.id = x.entity_id
			JOIN commits c ON c.id = x.commit_id
			WHERE e.key = substr(?1, 8) AND c.rewritten = 0
			AND (SELECT COUNT(*) FROM entity_changes y WHERE y.commit_id = c.id) <= ?2`,
	},
}

// relate brings co-evolution and test associations up to date with the
// stored commits.
func (s *Syncer) relate(ctx context.Context) error {
	var last, top int64
	var stale bool
	err := s.st.DB.QueryRowContext(ctx, `SELECT last_commit, stale, (SELECT COALESCE(MAX(id), 0) FROM commits)
		FROM relations_state`).Scan(&last, &stale, &top)
	if err != nil {
		return fmt.Errorf("relations state: %w", err)
	}
	if !stale && top == last {
		return nil
	}
	var fresh int
	if err := s.st.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM commits WHERE id > ?`, last).Scan(&fresh); err != nil {
		return err
	}
	full := stale || fresh > fullRelateAfter
	var want []understand.Coupling
	var touched map[string]bool
	for _, k := range coKinds {
		cps, items, err := s.couplings(ctx, k, full, last)
		if err != nil {
			return fmt.Errorf("co-evolution: %w", err)
		}
		want = append(want, cps...)
		if !full {
			if touched == nil {
				touched = map[string]bool{}
			}
			for it := range items {
				touched[it] = true
			}
		}
	}
	changed, err := s.replaceCouplings(ctx, want, touched)
	if err != nil {
		return err
	}
	// VERIFIED_BY follows from the couplings and from the names of paths
	// and entities; a commit that changes none of them (most) leaves it
	// as it is, and recomputing it was most of a one-commit sync.
	if full || changed || s.newNames(ctx, last) {
		if err := s.relateTests(ctx); err != nil {
			return err
		}
	}
	_, err = s.st.DB.ExecContext(ctx, `UPDATE relations_state SET last_commit = ?, stale = 0`, top)
	return err
}

// couplings computes one kind's pairs: all of them, or (incrementally)
// those of the items that the commits after last touched, which it returns.
func (s *Syncer) couplings(ctx context.Context, k coKind, full bool, last int64) ([]understand.Coupling, map[string]bool, error) {
	opts := s.opts.CoEvolution.Resolved()
	if full {
		acc := understand.NewCoEvolution(opts)
		err := commitItems(ctx, s.st.DB, k.all, nil, func(items []string) { acc.Add(items) })
		return acc.Couplings(), nil, err
	}
	touched := map[string]bool{}
	if err := commitItems(ctx, s.st.DB, k.fresh, []any{last}, func(items []string) {
		for _, it := range items {
			touched[it] = true
		}
	}); err != nil {
		return nil, nil, err
	}
	revs := map[string]int{}
	shared := map[[2]string]int{}
	err := commitItems(ctx, s.st.DB, k.touching, []any{last}, func(items []string) {
		if len(items) > opts.MaxChangeset && opts.MaxChangeset >= 0 {
			return
		}
		for i, a := range items {
			if touched[a] {
				revs[a]++
			}
			for _, b := range items[i+1:] {
				if touched[a] || touched[b] {
					shared[[2]string{a, b}]++
				}
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	revsOf := func(it string) (int, error) {
		if n, ok := revs[it]; ok || touched[it] {
			return n, nil
		}
		var n int
		err := s.st.DB.QueryRowContext(ctx, k.revs, it, opts.MaxChangeset).Scan(&n)
		revs[it] = n
		return n, err
	}
	var out []understand.Coupling
	for p, n := range shared {
		if n < opts.MinShared {
			continue
		}
		ra, err := revsOf(p[0])
		if err != nil {
			return nil, nil, err
		}
		rb, err := revsOf(p[1])
		if err != nil {
			return nil, nil, err
		}
		if cp, ok := opts.Couple(p[0], p[1], n, ra, rb); ok {
			out = append(out, cp)
		}
	}
	return out, touched, nil
}

// commitItems runs a (commit id, item) query ordered by commit and calls
// fn with each commit's distinct items, sorted.
func commitItems(ctx context.Context, db *sql.DB, query string, args []any, fn func([]string)) error {
	var cur int64 = -1
	var items []string
	flush := func() {
		if len(items) > 0 {
			slices.Sort(items)
			fn(slices.Compact(items))
		}
		items = items[:0]
	}
	err := store.EachRow(ctx, db, query, args, func(r *sql.Rows) error {
		var id int64
		var it string
		if err := r.Scan(&id, &it); err != nil {
			return err
		}
		if id != cur {
			flush()
			cur = id
		}
		items = append(items, it)
		return nil
	})
	flush()
	return err
}

// replaceCouplings stores the pairs and mirrors them in the graph: all
// pairs when touched is nil, else the pairs of the touched items.
func (s *Syncer) replaceCouplings(ctx context.Context, want []understand.Coupling, touched map[string]bool) (changed bool, err error) {
	type pair = [2]string
	old := map[pair]float64{}
	err = store.EachRow(ctx, s.st.DB, `SELECT a, b, confidence FROM couplings`, nil, func(r *sql.Rows) error {
		var p pair
		var c float64
		if err := r.Scan(&p[0], &p[1], &c); err != nil {
			return err
		}
		if touched == nil || touched[p[0]] || touched[p[1]] {
			old[p] = c
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	var add, remove []graph.Edge
	keep := map[pair]bool{}
	for _, c := range want {
		p := pair{c.A, c.B}
		keep[p] = true
		if oc, ok := old[p]; !ok || oc != c.Confidence {
			add = append(add, graph.Edge{From: c.A, Type: "CO_EVOLVES_WITH", To: c.B, Confidence: c.Confidence})
		}
	}
	for p := range old {
		if !keep[p] {
			remove = append(remove, graph.Edge{From: p[0], Type: "CO_EVOLVES_WITH", To: p[1]})
		}
	}
	// The graph first: if the process dies before SQLite commits, the next
	// run finds the same differences and applies them again.
	if g := s.opts.Graph; g != nil {
		if err := g.RemoveEdges(ctx, remove); err != nil {
			return false, err
		}
		if err := g.Write(ctx, nil, add); err != nil {
			return false, err
		}
	}
	changed = len(add)+len(remove) > 0
	return changed, s.st.Tx(ctx, func(tx *sql.Tx) error {
		for p := range old {
			if _, err := tx.ExecContext(ctx, `DELETE FROM couplings WHERE a = ? AND b = ?`, p[0], p[1]); err != nil {
				return err
			}
		}
		for _, c := range want {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO couplings VALUES (?, ?, ?, ?, ?, ?)`,
				c.A, c.B, c.Shared, c.RevsA, c.RevsB, c.Confidence); err != nil {
				return err
			}
		}
		return nil
	})
}

// newNames reports whether the commits after last brought a path or an
// entity never seen before: the names VERIFIED_BY's conventions read. On
// error it says yes, so the relations are recomputed rather than missed.
func (s *Syncer) newNames(ctx context.Context, last int64) bool {
	var fresh bool
	err := s.st.DB.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM file_changes fc WHERE fc.commit_id > ?1
			AND NOT EXISTS (SELECT 1 FROM file_changes f2 WHERE f2.path = fc.path AND f2.commit_id <= ?1))
		OR EXISTS (SELECT 1 FROM entity_changes ec WHERE ec.commit_id > ?1
			AND NOT EXISTS (SELECT 1 FROM entity_changes e2 WHERE e2.entity_id = ec.entity_id AND e2.commit_id <= ?1))`,
		last).Scan(&fresh)
	return err != nil || fresh
}

// Confidences of test associations found by naming convention.
const (
	subjectFileConfidence = 0.9  // foo_test.go tests foo.go
	sameFileTarget        = 0.95 // TestFoo in foo_test.go, Foo in foo.go
	sameDirTarget         = 0.85 // TestFoo and Foo in one directory
	elsewhereTarget       = 0.5  // the only Foo, in another directory
	maxElsewhere          = 3    // more candidates than this: too ambiguous
)

// verification is one VERIFIED_BY edge being computed.
type verification struct {
	basis string
	conf  float64
}

// relateTests recomputes VERIFIED_BY: from a source file to its test file
// by naming convention (foo.go → foo_test.go); from an entity to a test
// function by name (Foo → TestFoo); and from a file or entity to a test
// file or test entity that co-evolves with it, with the coupling's
// confidence.
func (s *Syncer) relateTests(ctx context.Context) error {
	want := map[[2]string]verification{}
	add := func(subject, test, basis string, conf float64) {
		k := [2]string{subject, test}
		v, ok := want[k]
		switch {
		case !ok:
			want[k] = verification{basis, conf}
		case v.basis != basis && !strings.Contains(v.basis, basis):
			want[k] = verification{v.basis + "+" + basis, max(v.conf, conf)}
		}
	}
	if err := s.testsByName(ctx, add); err != nil {
		return err
	}
	err := store.EachRow(ctx, s.st.DB, `SELECT a, b, confidence FROM couplings`, nil, func(r *sql.Rows) error {
		var a, b string
		var c float64
		if err := r.Scan(&a, &b, &c); err != nil {
			return err
		}
		ta, tb := isTestNode(a), isTestNode(b)
		switch {
		case ta && !tb:
			add(b, a, "co-change", c)
		case tb && !ta:
			add(a, b, "co-change", c)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.replaceVerified(ctx, want)
}

// isTestNode reports whether a file or entity node lies in a test file.
func isTestNode(id string) bool {
	p := strings.TrimPrefix(strings.TrimPrefix(id, fileNode), entityNode)
	if i := strings.IndexByte(p, '#'); i >= 0 && strings.HasPrefix(id, entityNode) {
		p = p[:i]
	}
	return understand.IsTestFile(p)
}

// testsByName finds tests by naming convention: subject files of test
// files, and the entities test functions name.
func (s *Syncer) testsByName(ctx context.Context, add func(subject, test, basis string, conf float64)) error {
	type ent struct{ key, path, name, lang string }
	var tests []ent
	paths := map[string]bool{}
	err := store.EachRow(ctx, s.st.DB, `SELECT DISTINCT path FROM file_changes`, nil, func(r *sql.Rows) error {
		var p string
		err := r.Scan(&p)
		paths[p] = true
		return err
	})
	if err != nil {
		return err
	}
	for p := range paths {
		if subj, ok := understand.TestSubject(p); ok && paths[subj] {
			add(FileNode(subj), FileNode(p), "name", subjectFileConfidence)
		}
	}
	err = store.EachRow(ctx, s.st.DB, `SELECT key, path, name, language FROM entities`, nil, func(r *sql.Rows) error {
		var e ent
		if err := r.Scan(&e.key, &e.path, &e.name, &e.lang); err != nil {
			return err
		}
		if understand.IsTestFile(e.path) {
			tests = append(tests, e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	stmt, err := s.st.DB.PrepareContext(ctx, `SELECT key, path FROM entities WHERE name = ? AND language = ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, t := range tests {
		target, ok := understand.TestFunctionTarget(t.lang, t.name)
		if !ok {
			continue
		}
		subjectFile, _ := understand.TestSubject(t.path)
		var near, far [][2]string
		err := func() error {
			rows, err := stmt.QueryContext(ctx, target, t.lang)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var k, p string
				if err := rows.Scan(&k, &p); err != nil {
					return err
				}
				switch {
				case understand.IsTestFile(p):
				case path.Dir(p) == path.Dir(t.path) || p == subjectFile:
					near = append(near, [2]string{k, p})
				default:
					far = append(far, [2]string{k, p})
				}
			}
			return rows.Err()
		}()
		if err != nil {
			return err
		}
		for _, n := range near {
			conf := sameDirTarget
			if n[1] == subjectFile {
				conf = sameFileTarget
			}
			add(EntityNode(n[0]), EntityNode(t.key), "name", conf)
		}
		if len(near) == 0 && len(far) > 0 && len(far) <= maxElsewhere {
			for _, f := range far {
				add(EntityNode(f[0]), EntityNode(t.key), "name", elsewhereTarget/float64(len(far)))
			}
		}
	}
	return nil
}

// replaceVerified stores the test associations and mirrors them in the
// graph, graph first (see replaceCouplings).
func (s *Syncer) replaceVerified(ctx context.Context, want map[[2]string]verification) error {
	old := map[[2]string]verification{}
	err := store.EachRow(ctx, s.st.DB, `SELECT subject, test, basis, confidence FROM verified_by`, nil, func(r *sql.Rows) error {
		var k [2]string
		var v verification
		err := r.Scan(&k[0], &k[1], &v.basis, &v.conf)
		old[k] = v
		return err
	})
	if err != nil {
		return err
	}
	var add, remove []graph.Edge
	for k, v := range want {
		if o, ok := old[k]; !ok || o != v {
			add = append(add, graph.Edge{From: k[0], Type: "VERIFIED_BY", To: k[1], Confidence: v.conf})
		}
	}
	for k := range old {
		if _, ok := want[k]; !ok {
			remove = append(remove, graph.Edge{From: k[0], Type: "VERIFIED_BY", To: k[1]})
		}
	}
	if len(add)+len(remove) == 0 {
		return nil
	}
	if g := s.opts.Graph; g != nil {
		if err := errors.Join(g.RemoveEdges(ctx, remove), g.Write(ctx, nil, add)); err != nil {
			return err
		}
	}
	return s.st.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM verified_by`); err != nil {
			return err
		}
		for k, v := range want {
			if _, err := tx.ExecContext(ctx, `INSERT INTO verified_by VALUES (?, ?, ?, ?)`, k[0], k[1], v.basis, v.conf); err != nil {
				return err
			}
		}
		return nil
	})
}
