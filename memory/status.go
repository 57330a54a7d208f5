package memory

import (
	"context"
	"errors"
	"time"

	"github.com/gitmemory/gitmemory/extract"
	"github.com/gitmemory/gitmemory/graph"
	"github.com/gitmemory/gitmemory/queue"
	"github.com/gitmemory/gitmemory/retrieve"
	"github.com/gitmemory/gitmemory/store"
)

// Status is where a repository's index stands.
type Status struct {
	Repository
	Branches        []queue.BranchState `json:"branches"`
	Indexed         int                 `json:"indexed"`
	Rewritten       int                 `json:"rewritten"`
	Queued          int                 `json:"queued"`
	Failed          int                 `json:"failed"`
	Pruned          int                 `json:"pruned"`
	FileChanges     int                 `json:"file_changes"`
	Redactions      int                 `json:"redacted_secrets"`
	RedactedCommits int                 `json:"redacted_commits"`
	Oldest          time.Time           `json:"oldest,omitzero"`
	Newest          time.Time           `json:"newest,omitzero"`
	SchemaVersion   int                 `json:"schema_version"`
	// Classes counts live commits by primary change type.
	Classes     map[string]int `json:"classes,omitempty"`
	DesignNotes int            `json:"design_notes"`
	// GraphPending counts commits whose metadata is stored but whose graph
	// edges and vectors are not written yet (a sync under way or stopped).
	GraphPending int `json:"graph_pending"`
	// Entities are the functions, methods and types seen; EntityChanges
	// what commits did to them; CoEvolving and TestLinks the pairs that
	// change together and the VERIFIED_BY links.
	Entities      int `json:"entities"`
	EntityChanges int `json:"entity_changes"`
	CoEvolving    int `json:"co_evolving_pairs"`
	TestLinks     int `json:"test_links"`
	// Code counts the code relationships at the newest indexed version.
	Code RelationCounts `json:"code_relations"`
	// GraphQuads and GraphValues are the knowledge graph's size as its
	// store estimates it: quads are edges (and hidden marks), values the
	// distinct node ids, edge types and confidences. GraphNote says why
	// they are missing (a sync holds the embedded graph).
	GraphQuads  int64    `json:"graph_quads"`
	GraphValues int64    `json:"graph_values"`
	GraphNote   string   `json:"graph_note,omitempty"`
	Errors      []string `json:"errors,omitempty"`
	// Verify results, set only when asked: reachable commits of the tracked
	// branches, and how many of them are not indexed.
	Reachable  int  `json:"reachable,omitempty"`
	Unindexed  int  `json:"unindexed,omitempty"`
	VerifyDone bool `json:"verified,omitempty"`
}

// Status reports counts and sync state without taking the writer lock.
// With verify it also walks the tracked branches in the repository and
// counts reachable commits that are not indexed.
func (h *Home) Status(ctx context.Context, name string, verify bool) (*Status, error) {
	var s Status
	err := h.read(ctx, name, func(st *store.Store) error {
		repo, err := loadRepository(ctx, st.DB)
		if err != nil {
			return err
		}
		s.Repository = *repo
		if s.Languages, err = retrieve.Languages(ctx, st.DB); err != nil {
			return err
		}
		if s.SchemaVersion, err = st.SchemaVersion(ctx); err != nil {
			return err
		}
		var oldest, newest int64
		err = st.DB.QueryRowContext(ctx, `SELECT
			(SELECT COUNT(*) FROM commits WHERE rewritten = 0),
			(SELECT COUNT(*) FROM commits WHERE rewritten = 1),
			(SELECT COUNT(*) FROM pruned),
			(SELECT COUNT(*) FROM file_changes),
			(SELECT COALESCE(SUM(redactions), 0) FROM commits),
			(SELECT COUNT(*) FROM commits WHERE redactions > 0),
			(SELECT COALESCE(MIN(committer_time), 0) FROM commits WHERE rewritten = 0),
			(SELECT COALESCE(MAX(committer_time), 0) FROM commits WHERE rewritten = 0)`).Scan(
			&s.Indexed, &s.Rewritten, &s.Pruned, &s.FileChanges, &s.Redactions, &s.RedactedCommits, &oldest, &newest)
		if err != nil {
			return err
		}
		if oldest > 0 {
			s.Oldest, s.Newest = time.Unix(oldest, 0).UTC(), time.Unix(newest, 0).UTC()
		}
		if err := s.understood(ctx, st); err != nil {
			return err
		}
		if hd := h.holding(name); hd != nil {
			s.GraphQuads, s.GraphValues, err = hd.g.Size(ctx)
			if err != nil {
				s.GraphNote = err.Error()
			}
		} else {
			s.graphCounts(ctx, h.graphAddr(name, repo))
		}
		q := queue.New(st.DB)
		counts, err := q.Counts(ctx)
		if err != nil {
			return err
		}
		s.Queued, s.Failed = counts.Pending, counts.Failed+counts.Dead
		errs, err := q.Errors(ctx, 5)
		if err != nil {
			return err
		}
		for _, it := range errs {
			s.Errors = append(s.Errors, it.Hash[:12]+": "+it.LastError)
		}
		if s.Branches, err = queue.States(ctx, st.DB); err != nil {
			return err
		}
		if verify {
			return s.verify(ctx, st)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &s, nil
}

func (s *Status) verify(ctx context.Context, st *store.Store) error {
	r, err := extract.Open(s.Path, extract.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	var heads []string
	for _, b := range s.Branches {
		if h, err := r.ResolveBranch(b.Branch); err == nil {
			heads = append(heads, h)
		}
	}
	reach, err := r.Reachable(heads)
	if err != nil {
		return err
	}
	known, err := st.PrepareKnown(ctx)
	if err != nil {
		return err
	}
	defer known.Close()
	s.Reachable, s.VerifyDone = len(reach), true
	for h := range reach {
		ok, err := known.Has(ctx, h)
		if err != nil {
			return err
		}
		if !ok {
			s.Unindexed++
		}
	}
	return nil
}

// graphWait bounds how long status waits for the embedded graph, which a
// running sync holds.
const graphWait = 300 * time.Millisecond

func (s *Status) graphCounts(ctx context.Context, addr string) {
	ctx, cancel := context.WithTimeout(ctx, graphWait)
	defer cancel()
	g, err := graph.Open(ctx, addr)
	if errors.Is(err, graph.ErrLocked) {
		s.GraphNote = "a sync holds the graph; counts unavailable"
		return
	}
	if err == nil {
		s.GraphQuads, s.GraphValues, err = g.Size(ctx)
		err = errors.Join(err, g.Close())
	}
	if err != nil {
		s.GraphNote = err.Error()
	}
}

func (s *Status) understood(ctx context.Context, st *store.Store) error {
	err := st.DB.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM design_notes), (SELECT COUNT(*) FROM entities),
		(SELECT COUNT(*) FROM entity_changes), (SELECT COUNT(*) FROM couplings), (SELECT COUNT(*) FROM verified_by),
		(SELECT COUNT(*) FROM commits WHERE graphed = 0)`).Scan(
		&s.DesignNotes, &s.Entities, &s.EntityChanges, &s.CoEvolving, &s.TestLinks, &s.GraphPending)
	if err != nil {
		return err
	}
	if s.Code, err = relationCounts(ctx, st); err != nil {
		return err
	}
	rows, err := st.DB.QueryContext(ctx, `SELECT classification, COUNT(*) FROM commits
		WHERE rewritten = 0 AND classification != '' GROUP BY classification`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var class string
		var n int
		if err := rows.Scan(&class, &n); err != nil {
			return err
		}
		if s.Classes == nil {
			s.Classes = map[string]int{}
		}
		s.Classes[class] = n
	}
	return rows.Err()
}
