package main

import (
	"cmp"
	"context"
	"crypto/sha1"
	"database/sql"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// entityCase is one function or method to compare.
type entityCase struct {
	key, path, qualified, lang string
	start, end                 int
	want, got                  []string
	gotActions, gotReplaces    []string
	gotKeys                    []string
	explained                  string
	skipped                    string
	err                        error
}

// entity compares the history of functions and methods alive at the head
// (a fixed sample of -entities per language) with git log -L over their
// lines at the head. git follows lines, gitmemory follows an entity by
// name and body: where git goes on past the commit that introduced the
// entity (its lines came from another function, or were there before it
// became one), that is deliberate, when the lists agree up to there.
func (c *config) entity(ctx context.Context) (int, error) {
	cases, err := c.entityCases(ctx)
	if err != nil {
		return 0, err
	}
	if err := c.locateEntities(ctx, cases); err != nil {
		return 0, err
	}
	jobs := make(chan *entityCase)
	var wg sync.WaitGroup
	for range max(1, c.jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range jobs {
				e.err = c.compareEntity(ctx, e)
			}
		}()
	}
	for _, e := range cases {
		if e.skipped == "" {
			jobs <- e
		}
	}
	close(jobs)
	wg.Wait()
	type tally struct{ n, same, explained, unexplained, skipped int }
	byLang := map[string]*tally{}
	explained := map[string]int{}
	unexplained := 0
	for _, e := range cases {
		if e.err != nil {
			return 0, e.err
		}
		t := byLang[e.lang]
		if t == nil {
			t = &tally{}
			byLang[e.lang] = t
		}
		t.n++
		switch {
		case e.skipped != "":
			t.skipped++
		case slices.Equal(e.got, e.want):
			t.same++
			if c.verbose {
				fmt.Printf("  ok %s (%d commits)\n", e.key, len(e.want))
			}
		case e.explained != "":
			t.explained++
			for _, cause := range strings.Split(e.explained, "; ") {
				explained[cause]++
			}
			if c.verbose {
				fmt.Printf("  explained %s: %s\n", e.key, e.explained)
			}
		default:
			t.unexplained++
			unexplained++
			fmt.Printf("  MISMATCH %s (lines %d-%d at the head): git log -L %d commits, gitmemory %d; missing %s; extra %s\n",
				e.key, e.start, e.end, len(e.want), len(e.got), short(minus(e.want, e.got)), short(minus(e.got, e.want)))
		}
	}
	langs := make([]string, 0, len(byLang))
	for l := range byLang {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	total := 0
	for _, l := range langs {
		t := byLang[l]
		total += t.n - t.skipped
		fmt.Printf("  %s: %d functions and methods, %d identical to git log -L, %d explained, %d unexplained, %d skipped (not found once at the head)\n",
			l, t.n-t.skipped, t.same, t.explained, t.unexplained, t.skipped)
	}
	nExplained := 0
	for _, t := range byLang {
		nExplained += t.explained
	}
	fmt.Printf("entity: %d histories compared with git log -L, %d explained, %d unexplained\n", total, nExplained, unexplained)
	for _, k := range sortedKeys(explained) {
		fmt.Printf("  explained: %d × %s\n", explained[k], k)
	}
	return unexplained, nil
}

// entityCases samples the functions and methods whose last change at the
// head is not a deletion, -entities per language, by a hash of the key.
func (c *config) entityCases(ctx context.Context) ([]*entityCase, error) {
	var all []*entityCase
	err := c.h.ReadStore(ctx, c.name, func(st *store.Store) error {
		return store.EachRow(ctx, st.DB, `SELECT e.key, e.path, e.qualified, e.language FROM entities e
			WHERE e.kind IN ('function', 'method')
			AND (SELECT x.action FROM entity_changes x JOIN commits k ON k.id = x.commit_id
				WHERE x.entity_id = e.id AND k.rewritten = 0 ORDER BY k.committer_time DESC, k.id DESC LIMIT 1) != 'deletes'`,
			nil, func(rows *sql.Rows) error {
				e := &entityCase{}
				if err := rows.Scan(&e.key, &e.path, &e.qualified, &e.lang); err != nil {
					return err
				}
				all = append(all, e)
				return nil
			})
	})
	if err != nil {
		return nil, err
	}
	hash := func(k string) string { s := sha1.Sum([]byte(k)); return string(s[:]) }
	slices.SortFunc(all, func(a, b *entityCase) int {
		return cmp.Or(cmp.Compare(a.lang, b.lang), cmp.Compare(hash(a.key), hash(b.key)))
	})
	var out []*entityCase
	n := map[string]int{}
	for _, e := range all {
		if n[e.lang] < c.entities {
			n[e.lang]++
			out = append(out, e)
		}
	}
	return out, nil
}

// locateEntities finds each entity's lines in its file at the head, by
// parsing the file; an entity not found exactly once is skipped.
func (c *config) locateEntities(ctx context.Context, cases []*entityCase) error {
	p := entity.NewParser()
	defer p.Close()
	src := map[string][]byte{}
	for _, e := range cases {
		data, ok := src[e.path]
		if !ok {
			out, err := c.git(ctx, "show", c.head+":"+e.path)
			if err != nil {
				out = nil
			}
			src[e.path], data = out, out
		}
		if data == nil {
			e.skipped = "not in the head"
			continue
		}
		ents, err := p.Entities(ctx, e.lang, e.path, "", data)
		if err != nil {
			e.skipped = err.Error()
			continue
		}
		found := 0
		for _, x := range ents {
			if entity.LocalName(x.Qualified) == e.qualified {
				found++
				e.start, e.end = x.StartLine, x.EndLine
			}
		}
		if found != 1 {
			e.skipped = fmt.Sprintf("found %d times at the head", found)
		}
	}
	return nil
}

// keyAt is the key the entity had after commit h: that of the newest of
// gitmemory's events that h descends from, "" when h descends from none
// (the entity did not exist yet).
func (c *config) keyAt(ctx context.Context, e *entityCase, h string) (string, error) {
	for i, g := range e.got {
		if g == h {
			return e.gotKeys[i], nil
		}
		cmd := exec.CommandContext(ctx, "git", "-C", c.gitDir, "merge-base", "--is-ancestor", g, h)
		if err := cmd.Run(); err == nil {
			return e.gotKeys[i], nil
		} else if _, ok := err.(*exec.ExitError); !ok {
			return "", err
		}
	}
	return "", nil
}

// entityChanged reports whether commit h changed the entity with the key:
// its text (every definition of its qualified name in its file, the lines
// the parser gives it) differs from its first parent's, the file's old
// path there if h renamed it.
func (c *config) entityChanged(ctx context.Context, e *entityCase, h, key string) (bool, error) {
	path, qual, _ := strings.Cut(key, "#")
	old := path
	err := c.h.ReadStore(ctx, c.name, func(st *store.Store) error {
		var o string
		err := st.DB.QueryRowContext(ctx, `SELECT f.old_path FROM file_changes f JOIN commits k ON k.id = f.commit_id
			WHERE k.hash = ? AND f.path = ? AND f.status = 'renamed'`, h, path).Scan(&o)
		if err == nil {
			old = o
		}
		if err == sql.ErrNoRows {
			err = nil
		}
		return err
	})
	if err != nil {
		return false, err
	}
	after, err := c.entityText(ctx, e.lang, h, path, qual)
	if err != nil {
		return false, err
	}
	before, err := c.entityText(ctx, e.lang, h+"^", old, qual)
	return before != after, err
}

// entityText is the text of every definition of a qualified name in a
// file at a commit ("" for none).
func (c *config) entityText(ctx context.Context, lang, rev, path, qual string) (string, error) {
	out, err := c.git(ctx, "show", rev+":"+path)
	if err != nil {
		return "", nil // no such file there
	}
	p := entity.NewParser()
	defer p.Close()
	ents, err := p.Entities(ctx, lang, path, "", out)
	if err != nil {
		return "", nil
	}
	lines := strings.SplitAfter(string(out), "\n")
	var texts []string
	for _, x := range ents {
		if entity.LocalName(x.Qualified) == qual && x.StartLine >= 1 && x.EndLine <= len(lines) {
			texts = append(texts, strings.Join(lines[x.StartLine-1:x.EndLine], ""))
		}
	}
	slices.Sort(texts)
	return strings.Join(texts, "\x00"), nil
}

// compareEntity runs git log -L and reads the entity's history.
func (c *config) compareEntity(ctx context.Context, e *entityCase) error {
	out, err := c.git(ctx, "log", "--no-merges", "--format=%x01%H", "-L", fmt.Sprintf("%d,%d:%s", e.start, e.end, e.path), c.head)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(out), "\n") {
		if h, ok := strings.CutPrefix(l, "\x01"); ok {
			e.want = append(e.want, h)
		}
	}
	err = c.h.ReadStore(ctx, c.name, func(st *store.Store) error {
		evs, err := st.EntityHistory(ctx, e.key)
		for _, ev := range evs {
			e.got = append(e.got, ev.Commit)
			e.gotActions = append(e.gotActions, ev.Action)
			e.gotReplaces = append(e.gotReplaces, ev.Replaces)
			e.gotKeys = append(e.gotKeys, ev.Entity)
		}
		return err
	})
	if err != nil || slices.Equal(e.got, e.want) {
		return err
	}
	// Where the lists differ, the entity's own text decides, at each
	// commit only one of them lists and at its parent: git log -L follows
	// a range of lines, which drifts onto other code when code around it
	// moves, and stops when its lines are rewritten whole or were moved in
	// from another file; gitmemory follows the entity by name and body. A
	// commit that renamed the entity or moved it into another file without
	// changing its lines (a file rename, a directory move, its class
	// renamed) is an event of its history here; git log -L lists changes
	// to the lines only, which is how it is known this one changed none.
	var causes []string
	for i, h := range e.got {
		if slices.Contains(e.want, h) {
			continue
		}
		if e.gotActions[i] == "introduces" && e.gotReplaces[i] != "" {
			causes = append(causes, "gitmemory lists the commit that renamed or moved the entity without changing its lines (git log -L lists changes to its lines only)")
			continue
		}
		changed, err := c.entityChanged(ctx, e, h, e.gotKeys[i])
		if err != nil {
			return err
		}
		if !changed {
			return nil // gitmemory lists a commit that did not change it
		}
		causes = append(causes, "git log -L misses a commit that changed the entity (its line range had drifted off it, or lost it)")
	}
	for _, h := range e.want {
		if slices.Contains(e.got, h) {
			continue
		}
		key, err := c.keyAt(ctx, e, h)
		if err != nil {
			return err
		}
		if key == "" {
			causes = append(causes, "git log -L follows the lines to before the entity existed (they were other code)")
			continue
		}
		changed, err := c.entityChanged(ctx, e, h, key)
		if err != nil {
			return err
		}
		if changed {
			return nil // gitmemory misses a commit that changed it
		}
		causes = append(causes, "git log -L lists a commit that changed other code its line range had drifted onto")
	}
	slices.Sort(causes)
	e.explained = strings.Join(slices.Compact(causes), "; ")
	return nil
}
