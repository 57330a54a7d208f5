package understand

// Design notes: the rationale a commit states in its message ("because …",
// "to avoid …", "потому что …") or in comments its diff adds ("NOTE: …").
//
// Decisions (see DesignNotes for the whole contract):
//   - TODO comments are work items about future code, not rationale: a
//     comment block that starts with TODO is never a note, whatever it says.
//   - FIXME is not a marker on its own either (it names a defect, not a
//     reason), but a FIXME block that says why ("FIXME: parsed twice because
//     the lexer is not reentrant") does document the code as it is, so it is
//     kept with the rationale phrase as its marker.
//   - "otherwise", "instead of", "rather than" (and their Russian forms
//     "иначе", "вместо", "в противном случае") mark rationale in a message but
//     in doc comments they mostly describe behaviour ("returns nil
//     otherwise"), so they only count in messages.
//   - Russian markers are matched on stems where the word inflects
//     ("компромисс*", "обходн* пут*", "костыл*"); conjunctions are matched as
//     whole words, "потому, что" and "для того, чтобы" also with the comma,
//     "так как" only without it ("так, как" means "the way"). "т.к." is
//     "так как".

import (
	"github.com/gitmemory/gitmemory/model"
)

const (
	dnSourceMessage = "message"
	dnSourceComment = "comment"
	// dnMaxRunes bounds a note's Text, the "…" included.
	dnMaxRunes = 500
	// dnMaxEntities bounds a note's Entities.
	dnMaxEntities = 10
)

// DesignNotes extracts the rationale of a commit: sentences of its message
// that carry a rationale marker, then comments its diff added that carry a
// NOTE/WHY/HACK/XXX/IMPORTANT tag or a rationale phrase. It is deterministic:
// message notes come first in message order, then comment notes in the order
// of c.Changes and, within a file, by line.
//
// Message: the subject line, each paragraph and each bullet item are split
// into sentences; trailers (Signed-off-by:, Change-Id: …), quoted e-mail
// ("> …", "On … wrote:"), fenced code and diff text are ignored. A sentence is
// a note when it contains a marker; Marker is the marker's canonical form
// ("because", "потому что", …), the earliest one when there are several.
//
// Comments: only lines the diff added ('+') count, never removed or context
// lines; consecutive added comment lines form one block and one note, whose
// Line is the block's first line in the new file. Files with Skipped set or
// Binary are not read. A block that starts with TODO is not a note; FIXME
// alone is not a marker (see the file comment).
//
// Text is the trimmed sentence or comment text, at most 500 runes (cut on a
// word boundary, ending in "…"); Entities are the code names and file paths
// it mentions, at most 10, in order of appearance.
func DesignNotes(c *model.Commit) []model.DesignNote {
	if c == nil {
		return nil
	}
	notes := dnMessageNotes(c.Hash, c.Message)
	for i := range c.Changes {
		fc := &c.Changes[i]
		if fc.Skipped != model.NotSkipped || fc.Binary || len(fc.Hunks) == 0 {
			continue
		}
		notes = append(notes, dnCommentNotes(c.Hash, fc)...)
	}
	return notes
}
