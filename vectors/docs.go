package vectors

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// Document kinds.
const (
	KindCommit = "commit"
	KindNote   = "note"
)

// Metadata keys of a stored document. Values are strings, as chromem-go
// keeps them; its where filter matches them exactly.
const (
	MetaKind           = "kind"
	MetaCommit         = "commit"
	MetaTime           = "time" // committer time, Unix seconds
	MetaClassification = "classification"
	MetaPaths          = "paths" // newline-separated, at most maxDocPaths
	MetaRewritten      = "rewritten"
)

const (
	maxDocPaths    = 32
	maxDocEntities = 40
	maxDocProse    = 1 << 10
	// MaxTextBytes bounds the text embedded for one document; longer
	// texts are cut at a rune boundary (remote models have context
	// limits, and the head of a message says the most).
	MaxTextBytes = 8 << 10
)

// Doc is one document to index: a commit or one of its design notes.
type Doc struct {
	Kind   string // KindCommit or KindNote
	Commit string // full hash
	// Note is the design note's index in its commit (model.Understood.Notes
	// order, as the store keeps it); unused for a commit.
	Note int
	Text string // what is embedded
	// Lead, when set, is embedded on its own and added to Text's vector
	// (each normalised), so that it weighs as much as all the rest: a
	// commit's subject, which says what the change is about, beside a
	// body, entity names and paths that would otherwise drown it.
	Lead           string
	Time           time.Time
	Classification string
	Paths          []string
	Rewritten      bool
}

// ID is "commit:<sha>" or "note:<sha>:<idx>".
func (d *Doc) ID() string {
	if d.Kind == KindNote {
		return NoteID(d.Commit, d.Note)
	}
	return CommitID(d.Commit)
}

// CommitID is the document ID of a commit.
func CommitID(sha string) string { return KindCommit + ":" + sha }

// NoteID is the document ID of a commit's idx-th design note.
func NoteID(sha string, idx int) string { return KindNote + ":" + sha + ":" + strconv.Itoa(idx) }

func (d *Doc) check() error {
	switch {
	case d.Kind != KindCommit && d.Kind != KindNote:
		return fmt.Errorf("document %s: unknown kind %q", d.Commit, d.Kind)
	case d.Commit == "" || strings.ContainsAny(d.Commit, ": \n"):
		return fmt.Errorf("document of kind %s: bad commit %q", d.Kind, d.Commit)
	case d.Kind == KindNote && d.Note < 0:
		return fmt.Errorf("document %s: negative note index", d.ID())
	case strings.TrimSpace(d.Text) == "":
		return fmt.Errorf("document %s: %w", d.ID(), ErrEmptyText)
	}
	return nil
}

func (d *Doc) metadata() map[string]string {
	paths := d.Paths
	if len(paths) > maxDocPaths {
		paths = paths[:maxDocPaths]
	}
	return map[string]string{
		MetaKind:           d.Kind,
		MetaCommit:         d.Commit,
		MetaTime:           strconv.FormatInt(d.Time.Unix(), 10),
		MetaClassification: d.Classification,
		MetaPaths:          strings.Join(paths, "\n"),
		MetaRewritten:      strconv.FormatBool(d.Rewritten),
	}
}

// Hit is one query result.
type Hit struct {
	ID     string
	Kind   string
	Commit string
	// Note is the design note's index, -1 for a commit.
	Note int
	// Score is the cosine similarity of the query and the document.
	Score          float32
	Time           time.Time
	Classification string
	Paths          []string
	Rewritten      bool
}

func hitOf(id string, sim float32, m map[string]string) Hit {
	h := Hit{
		ID: id, Kind: m[MetaKind], Commit: m[MetaCommit], Note: -1, Score: sim,
		Classification: m[MetaClassification], Rewritten: m[MetaRewritten] == "true",
	}
	if sec, err := strconv.ParseInt(m[MetaTime], 10, 64); err == nil {
		h.Time = time.Unix(sec, 0).UTC()
	}
	if p := m[MetaPaths]; p != "" {
		h.Paths = strings.Split(p, "\n")
	}
	if h.Kind == KindNote {
		if i := strings.LastIndexByte(id, ':'); i >= 0 {
			h.Note, _ = strconv.Atoi(id[i+1:])
		}
	}
	return h
}

// Filter narrows a query. Kind, Classification and Commit are matched
// exactly by chromem-go's where filter; Since and Until are applied to the
// nearest documents afterwards (chromem-go filters by equality only).
type Filter struct {
	Kind           string // KindCommit or KindNote; both when empty
	Classification string
	Commit         string
	Since, Until   time.Time // Since ≤ time < Until, each when not zero
	// IncludeRewritten also returns documents marked rewritten.
	IncludeRewritten bool
}

// where is chromem-go's filter for f; anyRewritten says whether the
// collection holds rewritten documents at all.
func (f *Filter) where(anyRewritten bool) map[string]string {
	w := map[string]string{}
	if f.Kind != "" {
		w[MetaKind] = f.Kind
	}
	if f.Classification != "" {
		w[MetaClassification] = f.Classification
	}
	if f.Commit != "" {
		w[MetaCommit] = f.Commit
	}
	if !f.IncludeRewritten && anyRewritten {
		w[MetaRewritten] = "false"
	}
	if len(w) == 0 {
		return nil
	}
	return w
}

func (f *Filter) timed() bool { return !f.Since.IsZero() || !f.Until.IsZero() }

func (f *Filter) keep(h *Hit) bool {
	if !f.Since.IsZero() && h.Time.Before(f.Since) {
		return false
	}
	return f.Until.IsZero() || h.Time.Before(f.Until)
}

// CommitDocs returns the documents of an understood commit: the commit
// (its headline, body without trailers, summary, entity names and paths,
// with the headline as its lead; model.Headline) and each design note
// (its text, entities and path).
func CommitDocs(u *model.Understood) []Doc {
	if u == nil || u.Commit == nil {
		return nil
	}
	paths := make([]string, 0, len(u.Changes))
	for _, fc := range u.Changes {
		paths = append(paths, fc.Path)
	}
	base := Doc{
		Commit:         u.Hash,
		Time:           u.Committer.When,
		Classification: string(u.Classification.Primary.Type),
	}
	c := base
	subject, body := model.Headline(u.Message)
	c.Kind, c.Text, c.Paths, c.Lead = KindCommit, commitText(u, subject, body, paths), paths, subject
	docs := []Doc{c}
	for i, n := range u.Notes {
		d := base
		d.Kind, d.Note, d.Paths = KindNote, i, paths
		if n.Path != "" {
			d.Paths = []string{n.Path}
		}
		d.Text = joinNonEmpty("\n", n.Text, strings.Join(n.Entities, " "), n.Path)
		if strings.TrimSpace(d.Text) == "" {
			continue
		}
		docs = append(docs, d)
	}
	return docs
}

func commitText(u *model.Understood, subject, body string, paths []string) string {
	summary := u.Summary
	if strings.EqualFold(strings.TrimSpace(summary), strings.TrimSpace(subject)) {
		summary = ""
	}
	seen := map[string]bool{}
	var ents []string
	for _, e := range u.Entities {
		if !seen[e.Name] && len(ents) < maxDocEntities {
			seen[e.Name] = true
			ents = append(ents, e.Name)
		}
	}
	if len(paths) > maxDocPaths {
		paths = paths[:maxDocPaths]
	}
	text := joinNonEmpty("\n", subject, stripTrailers(body), summary,
		strings.Join(ents, " "), strings.Join(paths, " "), model.AddedProse(u.Commit, maxDocProse))
	if strings.TrimSpace(text) == "" {
		text = "commit " + u.Hash
	}
	return text
}

// stripTrailers drops the body lines that name people or tools rather
// than say anything about the change ("Signed-off-by:", "Change-Id:").
func stripTrailers(body string) string {
	lines := strings.Split(body, "\n")
	out := lines[:0]
	for _, l := range lines {
		key, _, ok := strings.Cut(strings.TrimSpace(l), ":")
		if ok && !strings.Contains(key, " ") {
			k := strings.ToLower(key)
			if strings.HasSuffix(k, "-by") || k == "change-id" || k == "cc" {
				continue
			}
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func joinNonEmpty(sep string, parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p)
	}
	return b.String()
}

// clip cuts s to at most n bytes at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
