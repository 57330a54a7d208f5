package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/store"
)

// direct adds what the question names: commits by sha, commits that fix or
// reference its issues, and commits that changed its files and entities
// (and, two hops away, what changes with them).
func (s *Searcher) direct(ctx context.Context, raw string, rf refs, cs *candSet, a *Answer) error {
	add := func(hash, why string, rel float64, direct bool) {
		c := cs.get(hash)
		c.relation = max(c.relation, rel)
		c.direct = c.direct || direct
		c.why = append(c.why, why)
	}
	for _, sha := range rf.shas {
		hashes, err := store.Strings(ctx, s.st.DB, `SELECT hash FROM commits WHERE hash >= ? AND hash < ? LIMIT 2`, sha, sha+"g")
		if err != nil {
			return err
		}
		cs.with(func() {
			for _, h := range hashes {
				add(h, "sha "+sha, 1, true)
			}
		})
	}
	for _, r := range extract.ParseIssueRefs(raw) {
		hashes, err := store.Strings(ctx, s.st.DB, `SELECT c.hash FROM issue_refs i JOIN commits c ON c.id = i.commit_id
			WHERE i.key = ? ORDER BY c.committer_time DESC LIMIT ?`, r.Key, perSource)
		if err != nil {
			return err
		}
		cs.with(func() {
			for _, h := range hashes {
				add(h, "issue "+r.Key, 1, true)
			}
		})
	}
	files, err := s.resolvePaths(ctx, rf.paths)
	if err != nil {
		return err
	}
	ents, strength, misses, err := s.resolveEntities(ctx, rf.idents)
	if err != nil {
		return err
	}
	named, err := s.resolveNames(ctx, rf.names)
	if err != nil {
		return err
	}
	for _, e := range named {
		if _, dup := strength[e]; !dup {
			ents = append(ents, e)
			strength[e] = 1
		}
	}
	cs.with(func() {
		a.Files, a.Entities = files, ents
		for _, m := range misses {
			a.Warnings = append(a.Warnings, m)
		}
	})
	for _, f := range files {
		rel, err := s.related(ctx, "file:"+f)
		if err != nil {
			return err
		}
		cs.with(func() {
			for h, r := range rel {
				add(h, "path "+f, r, r == 1)
			}
		})
	}
	for _, e := range ents {
		rel, err := s.related(ctx, "entity:"+e)
		if err != nil {
			return err
		}
		// A name the question spells exactly is as good as a path; a
		// fuzzy match (ValidArgsFunction for validArgsFunc) relates by its
		// score and earns no direct-match bonus.
		st := strength[e]
		cs.with(func() {
			for h, r := range rel {
				add(h, "entity "+e[strings.IndexByte(e, '#')+1:], r*st, r == 1 && st == 1)
			}
		})
		if err := s.followCalls(ctx, e, st, cs); err != nil {
			return err
		}
	}
	return nil
}

// related expands a file or entity node to commits: those that changed it
// (relationship 1) and, two hops away, those that changed what co-evolves
// with it or what it replaced (0.5). It walks the graph when one is open,
// else SQLite's mirror of the same relations.
func (s *Searcher) related(ctx context.Context, node string) (map[string]float64, error) {
	out := map[string]float64{}
	if s.g != nil {
		hits, err := s.g.Neighbors(ctx, node, []string{"INTRODUCES", "MODIFIES", "DELETES", "REPLACED_BY", "CO_EVOLVES_WITH"}, graph.MaxDepth)
		if err == nil {
			for _, h := range hits {
				if hash, ok := strings.CutPrefix(h.Node, "commit:"); ok {
					rel := 1.0
					if h.Depth > 1 {
						rel = 0.5
					}
					out[hash] = max(out[hash], rel)
				}
			}
			return out, nil
		}
	}
	near := []string{node}
	partners, err := store.Strings(ctx, s.st.DB, `SELECT CASE WHEN a = ?1 THEN b ELSE a END FROM couplings WHERE a = ?1 OR b = ?1
		ORDER BY confidence DESC LIMIT 10`, node)
	if err != nil {
		return nil, err
	}
	for i, n := range append(near, partners...) {
		var hashes []string
		var err error
		if p, ok := strings.CutPrefix(n, "file:"); ok {
			hashes, err = store.Strings(ctx, s.st.DB, `SELECT c.hash FROM file_changes f JOIN commits c ON c.id = f.commit_id
				WHERE (f.path = ? OR (f.old_path = ? AND f.old_path != '')) AND c.is_merge = 0 ORDER BY c.committer_time DESC LIMIT ?`, p, p, perSource)
		} else {
			hashes, err = store.Strings(ctx, s.st.DB, `SELECT c.hash FROM entity_changes x JOIN entities e ON e.id = x.entity_id
				JOIN commits c ON c.id = x.commit_id WHERE e.key = ? ORDER BY c.committer_time DESC LIMIT ?`,
				strings.TrimPrefix(n, "entity:"), perSource)
		}
		if err != nil {
			return nil, err
		}
		rel := 1.0
		if i > 0 {
			rel = 0.5
		}
		for _, h := range hashes {
			out[h] = max(out[h], rel)
		}
	}
	return out, nil
}

// resolvePaths matches the question's paths to indexed ones: exactly, or
// by file name when it is unique enough (at most three paths share it).
func (s *Searcher) resolvePaths(ctx context.Context, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		p = strings.Trim(p, "/.")
		found, err := store.Strings(ctx, s.st.DB, `SELECT DISTINCT path FROM file_changes WHERE path = ?1 OR path LIKE '%/' || ?1
			ESCAPE '\' LIMIT 4`, strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(p))
		if err != nil {
			return nil, err
		}
		if len(found) <= 3 {
			out = append(out, found...)
		}
	}
	return out, nil
}

// resolveEntities matches the question's identifiers to entities by seed
// 002's score: FuzzyWeight × name similarity + the rest × shared name
// parts, accepted from FuzzyThreshold. Every entity with the best name is
// taken (a method of several types). strength is 1 for an exact match
// (the name, or a dotted suffix of the qualified name, ignoring case), else
// the score. A miss yields a warning naming the closest entity and its
// score.
func (s *Searcher) resolveEntities(ctx context.Context, idents []string) (out []string, strength map[string]float64, misses []string, err error) {
	strength = map[string]float64{}
	for _, id := range idents {
		name := id
		if i := strings.LastIndexAny(name, ".:"); i >= 0 {
			name = name[i+1:]
		}
		if len(name) < 2 {
			continue
		}
		rows, err := s.st.DB.QueryContext(ctx, `SELECT key, name, qualified FROM entities
			WHERE name LIKE ? ESCAPE '\' LIMIT 2000`, strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(name[:min(len(name), 3)])+"%")
		if err != nil {
			return nil, nil, nil, err
		}
		type scored struct {
			key, name string
			score     float64
			exact     bool
		}
		var all []scored
		for rows.Next() {
			var k, n, q string
			if err := rows.Scan(&k, &n, &q); err != nil {
				rows.Close()
				return nil, nil, nil, err
			}
			target := n
			if name != id { // a qualified question: compare qualified names
				target = q
			}
			exact := strings.EqualFold(id, n) || strings.HasSuffix(strings.ToLower(q), "."+strings.ToLower(id)) ||
				strings.EqualFold(id, q)
			all = append(all, scored{k, n, s.matchScore(id, target), exact})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, nil, err
		}
		slices.SortFunc(all, func(a, b scored) int {
			return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.key, b.key))
		})
		// A name the history spells as written (a field, a flag, a type
		// no parser sees) is no misspelling: a similar entity may still be
		// what implements it (TraverseChildren, Traverse), or a stranger
		// (ValidArgsFunction, validArgsFunc), so it relates at half its
		// fuzzy strength.
		damp := 1.0
		if len(all) > 0 && !all[0].exact && s.inCorpus(ctx, name) {
			damp = 0.5
		}
		if len(all) == 0 || all[0].score < s.opts.FuzzyThreshold {
			if looksLikeCode(id) {
				closest := ""
				if len(all) > 0 {
					closest = fmt.Sprintf("; closest: %s (%.2f)", all[0].name, all[0].score)
				}
				misses = append(misses, fmt.Sprintf("no indexed function or type matches %q%s", id, closest))
			}
			continue
		}
		for _, e := range all {
			if e.score < all[0].score || len(out) >= 10 {
				break
			}
			out = append(out, e.key)
			strength[e.key] = e.score * damp
			if e.exact {
				strength[e.key] = 1
			}
		}
	}
	return out, strength, misses, nil
}

// maxNamed is how many entities may share a plain name before it stops
// naming anything in particular ("Run", "New").
const maxNamed = 10

// resolveNames returns the entities whose name is exactly one of names
// (plain words a question may mean as names; see refs.names). No fuzzy
// matching: "Express" or "Node" in a question must not find a stranger.
func (s *Searcher) resolveNames(ctx context.Context, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		keys, err := store.Strings(ctx, s.st.DB, `SELECT key FROM entities WHERE name = ? ORDER BY key LIMIT ?`, n, maxNamed+1)
		if err != nil {
			return nil, err
		}
		if len(keys) <= maxNamed {
			out = append(out, keys...)
		}
	}
	return out, nil
}

// inCorpus reports whether the keyword index holds the word w as
// written. Fuzzy matching is for names the question misspells; a name the
// history itself uses is not one, whether or not it is an entity. An error
// reads as no: the fuzzy match then decides, as before.
func (s *Searcher) inCorpus(ctx context.Context, w string) bool {
	ids, err := store.Strings(ctx, s.st.DB, `SELECT rowid FROM search WHERE search MATCH ? LIMIT 1`, ftsPhrase(w))
	return err == nil && len(ids) > 0
}

// matchScore is seed 002's weighted sum of a fuzzy score (normalised
// Levenshtein similarity, case-insensitive) and a keyword score (the share
// of identifier parts in common).
func (s *Searcher) matchScore(q, name string) float64 {
	return MatchScore(q, name, s.opts.FuzzyWeight)
}
