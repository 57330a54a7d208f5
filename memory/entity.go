package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// ErrUnknownEntity: no entity matches the name asked for.
var ErrUnknownEntity = errors.New("unknown entity")

// Related is a file or entity linked to another, with the link's strength.
type Related struct {
	ID         string  `json:"id"` // graph node id: "entity:<path>#<qualified>" or "file:<path>"
	Confidence float64 `json:"confidence"`
	Basis      string  `json:"basis,omitempty"` // for tests: "name", "co-change"
	Shared     int     `json:"shared,omitempty"`
}

// EntityReport is an entity's history and relations.
type EntityReport struct {
	Entity store.Entity `json:"entity"`
	// Fuzzy is set when the name matched no entity as written and seed
	// 002's fuzzy matching chose this one.
	Fuzzy *NameMatch `json:"fuzzy_match,omitempty"`
	// Others are further entities the name matches, best first.
	Others     []store.Entity      `json:"other_matches,omitempty"`
	Introduced *store.EntityEvent  `json:"introduced,omitempty"`
	Deleted    bool                `json:"deleted"`
	History    []store.EntityEvent `json:"history"`
	// Renames lists the renames and moves, newest first, as "old → new".
	Renames    []string  `json:"renames,omitempty"`
	Tests      []Related `json:"tests,omitempty"`
	CoEvolving []Related `json:"co_evolving,omitempty"`
	// Code are its calls, callers, importers and types at the newest
	// indexed version.
	Code *CodeRelations `json:"code,omitempty"`
}

// EntityOptions narrow an entity lookup.
type EntityOptions struct {
	Kind  string // function, method, class, ...; "" for any
	Limit int    // related items of each kind (default 10)
	// Match is seed 002's name matching, for a name that matches no
	// entity exactly (the defaults when zero).
	Match retrieve.MatchSettings
}

// NameMatch says that the entity was found by seed 002's fuzzy name
// matching, not by its name as written.
type NameMatch struct {
	Asked     string  `json:"asked"`
	Name      string  `json:"name"`
	Score     float64 `json:"score"`
	Threshold float64 `json:"threshold"`
}

// Entity reports the history of the entity a name means: its qualified name
// ("Options.Apply"), plain name ("Apply") or key ("path#qualified"). When
// several match, the best (exact key, then qualified, then the most
// recently changed) is reported and the others are listed.
func (h *Home) Entity(ctx context.Context, repo, name string, opts EntityOptions) (*EntityReport, error) {
	if opts.Limit <= 0 {
		opts.Limit = 10
	}
	var r *EntityReport
	err := h.read(ctx, repo, func(st *store.Store) error {
		found, err := st.FindEntities(ctx, name, opts.Kind, 1+opts.Limit)
		if err != nil {
			return err
		}
		var fuzzy *NameMatch
		if len(found) == 0 {
			if found, fuzzy, err = fuzzyEntity(ctx, st, name, opts); err != nil {
				return err
			}
		}
		r = &EntityReport{Entity: found[0], Others: found[1:], Fuzzy: fuzzy}
		if r.History, err = st.EntityHistory(ctx, found[0].Key); err != nil {
			return err
		}
		r.summarise()
		node := "entity:" + found[0].Key
		if r.Tests, err = related(ctx, st.DB, `SELECT test, confidence, basis, 0 FROM verified_by
			WHERE subject IN (?1, ?2) ORDER BY confidence DESC, test LIMIT ?3`, node, "file:"+found[0].Path, opts.Limit); err != nil {
			return err
		}
		r.CoEvolving, err = related(ctx, st.DB, `SELECT CASE WHEN a = ?1 THEN b ELSE a END, confidence, '', shared
			FROM couplings WHERE a = ?1 OR b = ?1 ORDER BY confidence DESC, shared DESC LIMIT ?3`, node, "", opts.Limit)
		if err != nil {
			return err
		}
		r.Code, err = codeRelations(ctx, st, found[0], opts.Limit)
		return err
	})
	return r, err
}

// summarise derives the introduction, deletion and renames from the history.
func (r *EntityReport) summarise() {
	if len(r.History) == 0 {
		return
	}
	r.Deleted = r.History[0].Action == "deletes"
	if last := r.History[len(r.History)-1]; last.Action == "introduces" {
		r.Introduced = &last
	}
	for _, e := range r.History {
		if e.Replaces != "" {
			r.Renames = append(r.Renames, e.Replaces+" → "+e.Entity)
		}
	}
}

func related(ctx context.Context, db *sql.DB, query string, a, b string, limit int) ([]Related, error) {
	rows, err := db.QueryContext(ctx, query, a, b, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Related
	for rows.Next() {
		var x Related
		if err := rows.Scan(&x.ID, &x.Confidence, &x.Basis, &x.Shared); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// fuzzyEntity resolves a name that matches no entity as written by seed
// 002's score over the indexed names: the best at or above the threshold,
// else an error naming the closest miss and its score.
func fuzzyEntity(ctx context.Context, st *store.Store, name string, opts EntityOptions) ([]store.Entity, *NameMatch, error) {
	m := opts.Match
	if m.Threshold == 0 && m.FuzzyWeight == 0 {
		m.Threshold, m.FuzzyWeight = retrieve.DefaultMatchThreshold, retrieve.DefaultMatchFuzzyWeight
	}
	names, err := st.EntityNames(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("%w %q: no entities are indexed (files in supported languages appear after a sync)", ErrUnknownEntity, name)
	}
	want := name
	if i := strings.LastIndexAny(want, ".:#"); i >= 0 {
		want = want[i+1:]
	}
	best, score := retrieve.BestMatch(want, names, m.FuzzyWeight)
	score = math.Round(score*1000) / 1000 // shown as the note and the error show it
	if score < m.Threshold {
		return nil, nil, fmt.Errorf("%w %q: no name scores %.2f or more (MATCH_THRESHOLD); closest: %s (%.2f)",
			ErrUnknownEntity, name, m.Threshold, best, score)
	}
	found, err := st.FindEntities(ctx, best, opts.Kind, 1+opts.Limit)
	if err != nil {
		return nil, nil, err
	}
	if len(found) == 0 {
		return nil, nil, fmt.Errorf("%w %q: the closest name, %s (%.2f), is no %s", ErrUnknownEntity, name, best, score, opts.Kind)
	}
	return found, &NameMatch{Asked: name, Name: best, Score: score, Threshold: m.Threshold}, nil
}
