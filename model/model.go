// Package model holds the record types that flow between gitmemory's stages:
// extract produces them, the secret scanner redacts them, the stores persist
// them and retrieval reads them back. It has no dependencies on any stage.
package model

import "time"

// Signature is an author or committer. When keeps the original time zone.
type Signature struct {
	Name  string    `json:"name"`
	Email string    `json:"email"`
	When  time.Time `json:"when"`
}

// ChangeStatus is what happened to a file in a commit, as git names it.
type ChangeStatus string

// The change statuses of git's --name-status.
const (
	Added    ChangeStatus = "added"
	Modified ChangeStatus = "modified"
	Deleted  ChangeStatus = "deleted"
	Renamed  ChangeStatus = "renamed"
	Copied   ChangeStatus = "copied"
)

// Hunk is one contiguous region of a unified diff. Text holds the hunk's
// lines (each prefixed by ' ', '+' or '-'), without the @@ header.
type Hunk struct {
	OldStart int    `json:"old_start"`
	OldLines int    `json:"old_lines"`
	NewStart int    `json:"new_start"`
	NewLines int    `json:"new_lines"`
	Text     string `json:"text,omitempty"`
}

// SkipReason says why a file change carries metadata but no line diff.
type SkipReason string

// Reasons a file is not diffed.
const (
	NotSkipped SkipReason = ""
	SkipBinary SkipReason = "binary"
	SkipVendor SkipReason = "vendored"
	SkipGen    SkipReason = "generated"
	SkipHuge   SkipReason = "huge"
	// SkipMissing is a blob the repository does not hold: a partial clone
	// (--filter=blob:limit=...) or a lost object. The commit is indexed
	// with its message and paths; only that file's lines are unknown.
	SkipMissing SkipReason = "missing"
)

// FileChange is one file's change in a commit against its first parent.
type FileChange struct {
	Path       string       `json:"path"`
	OldPath    string       `json:"old_path,omitempty"`
	Status     ChangeStatus `json:"status"`
	Language   string       `json:"language,omitempty"`
	Binary     bool         `json:"binary,omitempty"`
	Skipped    SkipReason   `json:"skipped,omitempty"`
	Insertions int          `json:"insertions"`
	Deletions  int          `json:"deletions"`
	OldBlob    string       `json:"old_blob,omitempty"`
	NewBlob    string       `json:"new_blob,omitempty"`
	// Similarity is the rename or copy score in percent (0 otherwise).
	Similarity int `json:"similarity,omitempty"`
	// Follow is, for a file the commit created (added, renamed or copied
	// here), the path git log --follow goes on with from this commit: the
	// source git's rename and copy detection for this one file pairs it
	// with, or "". It mostly equals OldPath; it differs where the commit's
	// other files compete for a source, and names a file the commit did
	// not change where the created file is a copy of it (git's follow
	// looks at the whole tree; see extract's followSource).
	Follow string `json:"follow,omitempty"`
	Hunks  []Hunk `json:"hunks,omitempty"`
}

// IssueAction is what a commit does to an issue it mentions.
type IssueAction string

// The two relations a commit message can state towards an issue.
const (
	Fixes      IssueAction = "FIXES"
	References IssueAction = "REFERENCES"
)

// IssueRef is an issue or pull request mentioned in a commit message.
// Key is the canonical form used for matching: "#123", "owner/repo#123",
// "PROJ-123", or the URL's canonical owner/repo#N form.
type IssueRef struct {
	Key    string      `json:"key"`
	Kind   string      `json:"kind"` // "github", "gitlab", "jira", "cve" or "url"
	Action IssueAction `json:"action"`
	Raw    string      `json:"raw"`
	URL    string      `json:"url,omitempty"`
}

// Commit is one commit as extracted from git, with its changes against the
// first parent (for a merge, only the files the merge itself changed).
type Commit struct {
	Hash      string    `json:"hash"`
	Parents   []string  `json:"parents"`
	Author    Signature `json:"author"`
	Committer Signature `json:"committer"`
	// Message is valid UTF-8. When the raw message was not, RawMessage
	// keeps the original bytes and Message the repaired text.
	Message    string `json:"message"`
	RawMessage []byte `json:"-"`
	IsMerge    bool   `json:"is_merge"`
	// Refs are the branches and tags ("tag: v1.0") pointing at the commit
	// now. Refs move, so the store derives them when a commit is read.
	Refs []string `json:"refs,omitempty"`
	// Shallow is true for a commit at a shallow clone's boundary: its
	// parents are not in the repository, so it is diffed as a root.
	Shallow   bool         `json:"shallow,omitempty"`
	Changes   []FileChange `json:"changes"`
	IssueRefs []IssueRef   `json:"issue_refs,omitempty"`
	// Redactions counts secrets replaced by [REDACTED:<rule>] before storage.
	Redactions int `json:"redactions,omitempty"`
}

// Subject is the first line of the message.
func (c *Commit) Subject() string {
	for i := 0; i < len(c.Message); i++ {
		if c.Message[i] == '\n' {
			return c.Message[:i]
		}
	}
	return c.Message
}

// Totals sums insertions and deletions over the commit's changes.
func (c *Commit) Totals() (files, insertions, deletions int) {
	for _, fc := range c.Changes {
		insertions += fc.Insertions
		deletions += fc.Deletions
	}
	return len(c.Changes), insertions, deletions
}

// ChangeType is a commit's kind of change (seed 003's ten types, plus
// revert and merge).
type ChangeType string

// The change types.
const (
	Bugfix        ChangeType = "bugfix"
	Feature       ChangeType = "feature"
	Refactor      ChangeType = "refactor"
	Performance   ChangeType = "performance"
	Security      ChangeType = "security"
	Documentation ChangeType = "documentation"
	Test          ChangeType = "test"
	Dependency    ChangeType = "dependency"
	Configuration ChangeType = "configuration"
	Cleanup       ChangeType = "cleanup"
	Revert        ChangeType = "revert"
	Merge         ChangeType = "merge"
)

// Label is a change type with a confidence in [0, 1].
type Label struct {
	Type       ChangeType `json:"type"`
	Confidence float64    `json:"confidence"`
}

// Classification is a commit's primary change type and any secondary
// ones, most confident first.
type Classification struct {
	Primary   Label   `json:"primary"`
	Secondary []Label `json:"secondary,omitempty"`
}

// DesignNote is a piece of rationale: a sentence of a commit message
// ("because ...", "to avoid ...") or a comment a diff added ("NOTE: ...").
type DesignNote struct {
	Commit string `json:"commit"`
	// Source is "message" or "comment".
	Source string `json:"source"`
	// Path and Line locate a comment in the commit's new version.
	Path   string `json:"path,omitempty"`
	Line   int    `json:"line,omitempty"`
	Marker string `json:"marker"` // the word that marked it: "because", "NOTE", ...
	Text   string `json:"text"`
	// Entities names the functions, types or files the note speaks of.
	Entities []string `json:"entities,omitempty"`
}

// Understood is a commit with what the understand stage found in it.
type Understood struct {
	*Commit
	Classification Classification `json:"classification"`
	Summary        string         `json:"summary"`
	Notes          []DesignNote   `json:"design_notes,omitempty"`
	// Entities lists the code entities the commit introduced, modified or
	// deleted, in file order. Merges have none: their changes belong to the
	// commits they merge.
	Entities []EntityChange `json:"entities,omitempty"`
	// Relations are the code relationships the commit added or removed.
	Relations []Relation `json:"relations,omitempty"`
}

// Entity actions.
const (
	EntityIntroduced = "introduces"
	EntityModified   = "modifies"
	EntityDeleted    = "deletes"
)

// EntityChange is what one commit did to one function, method or type.
type EntityChange struct {
	// Path is the entity's file: the new path, or the old one for a deletion.
	Path     string `json:"path"`
	Language string `json:"language"`
	Kind     string `json:"kind"` // function, method, class, interface, struct, enum, module
	Name     string `json:"name"`
	// Qualified is the name within its file: package or module, enclosing
	// types, and the name ("diff.Options.Apply", "Shape.area").
	Qualified string `json:"qualified"`
	Action    string `json:"action"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Signature string `json:"signature,omitempty"`
	// Replaces is the key of the entity this one replaced when the commit
	// renamed or moved it (the same body under a new name or in a new file).
	Replaces string `json:"replaces,omitempty"`
}

// EntityKey identifies an entity across history: its path and qualified
// name. It is the graph node id without its "entity:" prefix.
func EntityKey(path, qualified string) string { return path + "#" + qualified }

// Key is the entity's EntityKey.
func (e EntityChange) Key() string { return EntityKey(e.Path, e.Qualified) }
