package retrieve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// RenderMarkdown renders a pack for reading: a header with the mode
// indicator ("[hybrid]", or "⚠ [keyword]" when degraded, as seed 004
// shows), the warnings and the clarify suggestion, then a section per
// non-empty part in seed 003's priority order (summary, key commits,
// timeline, design notes, code context, diffs, tests), and provenance.
// Commits are shown by their short hash, times as UTC dates; a key
// commit's evidence is quoted under it, with its source.
func RenderMarkdown(p *Pack) string {
	var b strings.Builder
	mdHeader(&b, p)
	if p.Summary != "" {
		b.WriteString("## Summary\n\n" + p.Summary + "\n\n")
	}
	mdSection(&b, "Key commits", len(p.KeyItems), func(i int) string { return mdKeyItem(p.KeyItems[i]) })
	mdSection(&b, "Timeline", len(p.Timeline), func(i int) string { return mdTimeline(p.Timeline[i]) })
	mdSection(&b, "Design notes", len(p.DesignNotes), func(i int) string { return mdNote(p.DesignNotes[i]) })
	mdSection(&b, "Code context", len(p.CodeContext), func(i int) string { return mdCode(p.CodeContext[i]) })
	mdSection(&b, "Important diffs", len(p.ImportantDiffs), func(i int) string { return mdDiff(p.ImportantDiffs[i]) })
	mdSection(&b, "Related tests", len(p.RelatedTests), func(i int) string { return mdTest(p.RelatedTests[i]) })
	mdProvenance(&b, p.Provenance)
	return b.String()
}

func mdHeader(b *strings.Builder, p *Pack) {
	m := p.Metadata
	fmt.Fprintf(b, "# Context pack: %s\n\n", strings.Join(strings.Fields(m.Query), " "))
	var parts []string
	if m.Mode != "" {
		ind := "[" + string(m.Mode) + "]"
		if m.Degraded {
			ind = "⚠ " + ind
		}
		parts = append(parts, ind)
	}
	if m.Intent != "" {
		parts = append(parts, "intent "+m.Intent)
	}
	if m.Repository != "" {
		parts = append(parts, m.Repository)
	}
	if !m.GeneratedAt.IsZero() {
		parts = append(parts, m.GeneratedAt.UTC().Format("2006-01-02 15:04 UTC"))
	}
	parts = append(parts, fmt.Sprintf("%d tokens", m.TokenCount))
	b.WriteString(strings.Join(parts, " · ") + "\n\n")
	for _, w := range p.Warnings {
		b.WriteString("> ⚠ " + strings.Join(strings.Fields(w), " ") + "\n")
	}
	if len(p.Warnings) > 0 {
		b.WriteString("\n")
	}
	if p.Clarify != "" {
		b.WriteString("**Clarify:** " + p.Clarify + "\n\n")
	}
}

func mdSection(b *strings.Builder, title string, n int, item func(int) string) {
	if n == 0 {
		return
	}
	b.WriteString("## " + title + "\n\n")
	last := ""
	for i := range n {
		last = item(i)
		b.WriteString(last)
	}
	if !strings.HasSuffix(last, "\n\n") { // list items end in one line break, blocks in a blank line
		b.WriteString("\n")
	}
}

func mdKeyItem(k KeyItem) string {
	class := ""
	if k.Classification != "" {
		class = " " + k.Classification
	}
	line := fmt.Sprintf("- `%s`%s%s · %g · %s\n", packShort(k.Hash), tierLabel(k.Tier, k.Confidence), class, k.RelevanceScore, k.Summary)
	if e := k.Evidence; e != nil {
		line += fmt.Sprintf("  > \"%s\" — %s\n", e.Text, e.Source)
	}
	return line + mdFull(k)
}

func mdTimeline(e TimelineEntry) string {
	var shas []string
	for _, c := range e.Commits[:min(len(e.Commits), 5)] {
		shas = append(shas, "`"+packShort(c)+"`")
	}
	if len(e.Commits) > 5 {
		shas = append(shas, fmt.Sprintf("+%d", len(e.Commits)-5))
	}
	return fmt.Sprintf("- %s · %s (%s)\n", e.Date, e.Summary, strings.Join(shas, ", "))
}

func mdNote(n NoteItem) string {
	if packIsHash(n.Source) { // the relevance names the commit
		return fmt.Sprintf("- %s\n  _%s_\n", n.Note, n.Relevance)
	}
	return fmt.Sprintf("- %s\n  _%s · %s_\n", n.Note, n.Source, n.Relevance)
}

func mdCode(c CodeItem) string {
	f := mdFence(c.Snippet)
	return fmt.Sprintf("### `%s` (%s)\n\n%s\n\n%s%s\n%s\n%s\n\n", c.Entity, c.Path, c.Explanation,
		f, strings.ToLower(c.language), strings.TrimRight(c.Snippet, "\n"), f)
}

func mdDiff(d DiffItem) string {
	f := mdFence(d.Diff)
	return fmt.Sprintf("### `%s` %s\n\n%s\n\n%sdiff\n%s\n%s\n\n", packShort(d.Commit), d.Path, d.Explanation,
		f, strings.TrimRight(d.Diff, "\n"), f)
}

func mdTest(t TestItem) string {
	if t.Name == "" {
		return fmt.Sprintf("- %s — %s\n", t.Path, t.Description)
	}
	return fmt.Sprintf("- `%s` in %s — %s\n", t.Name, t.Path, t.Description)
}

func mdProvenance(b *strings.Builder, p Provenance) {
	if len(p.Commits)+len(p.Files)+len(p.Authors) == 0 {
		return
	}
	b.WriteString("## Provenance\n\n")
	if len(p.Commits) > 0 {
		var shas []string
		for _, c := range p.Commits {
			shas = append(shas, "`"+packShort(c)+"`")
		}
		b.WriteString("- Commits: " + strings.Join(shas, ", ") + "\n")
	}
	if len(p.Files) > 0 {
		b.WriteString("- Files: " + strings.Join(p.Files, ", ") + "\n")
	}
	if len(p.Authors) > 0 {
		b.WriteString("- Authors: " + strings.Join(p.Authors, ", ") + "\n")
	}
}

// mdFence is a Markdown code fence longer than any run of backticks in s.
func mdFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// RenderJSON renders a pack as JSON, compact but for a line break before
// each field and each item of a list: indentation would cost a token a
// line, and one line per item lets the fitter count only what changed
// (tokenMemo). The fields are Pack's, in its order; '<', '>' and '&' are
// left as they are (diffs are full of them, and escapes cost tokens).
func RenderJSON(p *Pack) ([]byte, error) {
	w := &jsonLines{}
	w.buf.WriteString("{")
	w.field("metadata", p.Metadata)
	w.field("summary", p.Summary)
	jsonListField(w, "timeline", p.Timeline)
	jsonListField(w, "key_items", p.KeyItems)
	jsonListField(w, "code_context", p.CodeContext)
	jsonListField(w, "important_diffs", p.ImportantDiffs)
	jsonListField(w, "design_notes", p.DesignNotes)
	jsonListField(w, "related_tests", p.RelatedTests)
	w.field("provenance", p.Provenance)
	if len(p.Warnings) > 0 {
		jsonListField(w, "warnings", p.Warnings)
	}
	if p.Clarify != "" {
		w.field("clarify", p.Clarify)
	}
	w.buf.WriteString("}\n")
	if w.err != nil {
		return nil, fmt.Errorf("render context pack: %w", w.err)
	}
	return w.buf.Bytes(), nil
}

// jsonLines writes a JSON object a field a line.
type jsonLines struct {
	buf    bytes.Buffer
	fields int
	err    error
}

func (w *jsonLines) value(v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil && w.err == nil {
		w.err = err
	}
	w.buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func (w *jsonLines) key(name string) {
	if w.fields > 0 {
		w.buf.WriteString(",\n")
	}
	w.fields++
	w.value(name)
	w.buf.WriteString(":")
}

func (w *jsonLines) field(name string, v any) {
	w.key(name)
	w.value(v)
}

// jsonListField writes a list an item a line; an empty or nil list as [].
func jsonListField[T any](w *jsonLines, name string, items []T) {
	w.key(name)
	w.buf.WriteString("[")
	for i, it := range items {
		if i > 0 {
			w.buf.WriteString(",")
		}
		w.buf.WriteString("\n")
		w.value(it)
	}
	w.buf.WriteString("]")
}

// Render renders a pack in a format: FormatMarkdown or FormatJSON.
func Render(p *Pack, format string) ([]byte, error) {
	switch format {
	case FormatMarkdown, "":
		return []byte(RenderMarkdown(p)), nil
	case FormatJSON:
		return RenderJSON(p)
	}
	return nil, fmt.Errorf("context pack format %q: want %s or %s", format, FormatMarkdown, FormatJSON)
}
