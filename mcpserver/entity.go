package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/memory"
	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
)

// kindsOf are the entity kinds (understand/entity) an entity_type means,
// in tiers of preference: a function asked for is a function before it is
// a method. "type" is not a kind the parsers produce today; it is listed
// so that a type kind, should one appear, counts as a class.
var kindsOf = map[string][][]string{
	TypeFunction: {{"function"}, {"method"}},
	TypeClass:    {{"class", "struct", "interface", "type", "enum"}},
}

// entity answers gitmemory_entity_history.
func (s *server) entity(ctx context.Context, in EntityInput) (*answer[EntityOutput], error) {
	budget, err := tokenBudget(in.TokenBudget)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.EntityName) == "" {
		return nil, fmt.Errorf("%w: entity_name is required", api.ErrBadRequest)
	}
	if in.EntityType != "" && in.EntityType != TypeFile && kindsOf[in.EntityType] == nil {
		return nil, fmt.Errorf("%w: entity_type %q: want function, class or file", api.ErrBadRequest, clip(in.EntityType, 40))
	}
	repo, err := s.repository(ctx, in.Repository)
	if err != nil {
		return nil, err
	}
	if in.EntityType == TypeFile {
		return s.fileHistory(ctx, repo, in.EntityName, budget)
	}
	r, note, err := s.findEntity(ctx, repo, in.EntityName, in.EntityType)
	if errors.Is(err, memory.ErrUnknownEntity) && in.EntityType == "" && looksLikePath(in.EntityName) {
		// No entity has that name, but it reads as a file: its history
		// is what was meant.
		if a, ferr := s.fileHistory(ctx, repo, in.EntityName, budget); ferr == nil && len(a.out.Events) > 0 {
			return a, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return fitEntity(budget, repo, r, note)
}

// findEntity reports the entity a name means, preferring the kinds the
// type asks for. The service ranks the matches by name (exact key, then
// qualified name, then the most recently changed) across kinds; the first
// match of the most preferred kind is asked for again by its key when it
// is not the service's best. When no match is of a kind asked for, the
// best is reported with a note: a struct named as asked is likelier what
// was meant than nothing.
func (s *server) findEntity(ctx context.Context, repo, name, typ string) (*memory.EntityReport, string, error) {
	r, err := s.svc.Entity(ctx, api.EntityRequest{Repo: repo, Name: name})
	if err != nil || typ == "" {
		return r, "", err
	}
	matches := append([]store.Entity{r.Entity}, r.Others...)
	for _, kinds := range kindsOf[typ] {
		i := slices.IndexFunc(matches, func(e store.Entity) bool { return slices.Contains(kinds, e.Kind) })
		switch {
		case i == 0:
			return r, "", nil
		case i > 0:
			r2, err := s.svc.Entity(ctx, api.EntityRequest{Repo: repo, Name: matches[i].Key, Kind: matches[i].Kind})
			if err != nil {
				return nil, "", err
			}
			// The others are the first answer's: asked for by key and
			// kind, the service finds no other match.
			r2.Others = slices.Delete(matches, i, i+1)
			return r2, "", nil
		}
	}
	return r, fmt.Sprintf("no %s matches %q; this is the %s of that name", typ, name, r.Entity.Kind), nil
}

// looksLikePath reports whether an entity name reads as a file path.
func looksLikePath(name string) bool {
	return strings.Contains(name, "/") || (strings.Contains(name, ".") && !strings.Contains(name, "#"))
}

// fileHistory answers for a file: its commits as the entity's events.
func (s *server) fileHistory(ctx context.Context, repo, path string, budget int) (*answer[EntityOutput], error) {
	cs, err := s.svc.History(ctx, api.HistoryRequest{Repo: repo, Path: path, Limit: api.MaxLimit})
	if err != nil {
		return nil, err
	}
	head := EntityOutput{Repository: repo, Entity: Entity{Key: path, Kind: TypeFile, Path: path}}
	if n := len(cs); n > 0 && cs[n-1].Status == string(model.Added) {
		head.Introduced = cs[n-1].Commit
	}
	if len(cs) > 0 && cs[0].Status == string(model.Deleted) {
		head.Deleted = true
	}
	for _, c := range cs {
		if c.OldPath != "" && c.OldPath != c.Path {
			head.Renames = append(head.Renames, c.OldPath+" → "+c.Path)
		}
	}
	events := make([]EntityEvent, len(cs))
	for i, c := range cs {
		events[i] = EntityEvent{Commit: c.Commit, Date: stamp(c.When), Classification: c.Classification,
			Action: c.Status, Summary: what(c.Summary, c.Subject)}
		if c.Path != path {
			events[i].Name = c.Path
		}
	}
	return fitEvents(budget, head, events)
}

// fitEntity renders an entity report within the budget.
func fitEntity(budget int, repo string, r *memory.EntityReport, note string) (*answer[EntityOutput], error) {
	e := r.Entity
	head := EntityOutput{Repository: repo, Note: note, Deleted: r.Deleted, Renames: r.Renames,
		Entity: Entity{Key: e.Key, Kind: e.Kind, Qualified: e.Qualified, Path: e.Path, Language: e.Language}}
	if r.Introduced != nil {
		head.Introduced = r.Introduced.Commit
	}
	for _, t := range r.Tests {
		head.Tests = append(head.Tests, nodeName(t.ID))
	}
	for _, c := range r.CoEvolving {
		head.ChangesWith = append(head.ChangesWith, nodeName(c.ID))
	}
	for _, o := range r.Others {
		head.Others = append(head.Others, o.Kind+" "+o.Key)
	}
	events := make([]EntityEvent, len(r.History))
	for i, ev := range r.History {
		events[i] = eventOf(ev, e.Key)
	}
	return fitEvents(budget, head, events)
}

func eventOf(ev store.EntityEvent, key string) EntityEvent {
	out := EntityEvent{Commit: ev.Commit, Date: stamp(ev.When), Classification: ev.Classification,
		Action: ev.Action, Summary: what(ev.Summary, ev.Subject)}
	if ev.Entity != key {
		out.Name = ev.Entity
	}
	return out
}

// nodeName is a graph node id ("entity:path#name", "file:path") as the
// entity key or path it names.
func nodeName(id string) string {
	return strings.TrimPrefix(strings.TrimPrefix(id, "entity:"), "file:")
}

// fitEvents renders an entity's header and as many of its events as fit.
// When not even the header fits, its lists (renames, tests, related and
// other entities, unbounded for a directory's renames) go before the
// answer is given up: the entity and its history are what was asked for.
func fitEvents(budget int, head EntityOutput, events []EntityEvent) (*answer[EntityOutput], error) {
	render := func(head EntityOutput) func(int) *answer[EntityOutput] {
		return func(n int) *answer[EntityOutput] {
			out := head
			out.Events, out.Omitted = events[:n], len(events)-n
			return &answer[EntityOutput]{text: entityText(out, len(events)), out: out}
		}
	}
	a, err := fitList(budget, len(events), render(head))
	if !errors.Is(err, errTooSmall) || !head.hasLists() {
		return a, err
	}
	head.Renames, head.Tests, head.ChangesWith, head.Others = nil, nil, nil, nil
	head.Note = strings.TrimPrefix(head.Note+"; renames and related entities left out to fit token_budget", "; ")
	return fitList(budget, len(events), render(head))
}

func (o *EntityOutput) hasLists() bool {
	return o.Renames != nil || o.Tests != nil || o.ChangesWith != nil || o.Others != nil
}

// entityText is an entity's history as text.
func entityText(o EntityOutput, total int) string {
	var b strings.Builder
	e := o.Entity
	fmt.Fprintf(&b, "%s %s (%s", e.Kind, cmp.Or(e.Qualified, e.Key), e.Path)
	if e.Language != "" {
		b.WriteString(", " + e.Language)
	}
	fmt.Fprintf(&b, ") in %s\n", o.Repository)
	if o.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", o.Note)
	}
	if o.Introduced != "" {
		fmt.Fprintf(&b, "introduced: %s\n", short(o.Introduced))
	} else if total > 0 {
		b.WriteString("introduced: before the indexed history\n")
	}
	if o.Deleted {
		b.WriteString("deleted: yes, by the newest commit below\n")
	}
	for _, r := range o.Renames {
		fmt.Fprintf(&b, "renamed: %s\n", r)
	}
	fmt.Fprintf(&b, "history: %s, newest first\n", plural(total, "commit"))
	for _, ev := range o.Events {
		fmt.Fprintf(&b, "%s %s %s %s: %s", short(ev.Commit), ev.Date[:min(len(ev.Date), 10)],
			cmp.Or(ev.Classification, "-"), ev.Action, clip(ev.Summary, summaryRunes))
		if ev.Name != "" {
			fmt.Fprintf(&b, " (as %s)", ev.Name)
		}
		b.WriteByte('\n')
	}
	leftOut(&b, o.Omitted, "commit")
	list(&b, "tests", o.Tests)
	list(&b, "changes with", o.ChangesWith)
	list(&b, "also matches", o.Others)
	return b.String()
}

func list(b *strings.Builder, label string, items []string) {
	if len(items) > 0 {
		fmt.Fprintf(b, "%s: %s\n", label, strings.Join(items, ", "))
	}
}
