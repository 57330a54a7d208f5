package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrBadAnswer: the server's answer is not in the expected format or
// holds no usable summary.
var ErrBadAnswer = errors.New("unusable LLM answer")

// maxJSONTries bounds how many '{' or '[' of an answer are tried as the
// start of its JSON value.
const maxJSONTries = 16

// entry is one summary of an answer, with the id the model gave it.
type entry struct {
	id   string // "" when the model gave none
	text string
}

// parseAnswer reads a model's answer for the commits with the given
// hashes, which the prompt numbered 1..n. It returns one text per commit,
// "" where the answer has none; the texts are not yet cleaned.
//
// It accepts the JSON value anywhere in the answer (after prose, inside a
// code fence, after a <think> block): an object holding one array of
// entries ({"summaries": [...]}, or any one array field), a bare array, an object keyed by id, or
// a single {"summary": "..."}. An entry is a string or an object with
// "summary" (or "text") and an optional "id" (or "index", "commit",
// "hash"): the commit's number, or a prefix of its hash. Entries without
// ids are matched by position, and only when there is one per commit; the
// one entry of a one-commit answer is that commit's, whatever its id.
func parseAnswer(content string, hashes []string) ([]string, error) {
	entries := findEntries(stripThink(content))
	if len(entries) == 0 {
		return nil, fmt.Errorf("%w: no summaries in the answer", ErrBadAnswer)
	}
	return assign(entries, hashes)
}

// stripThink removes the <think>...</think> blocks of reasoning models.
func stripThink(s string) string {
	for {
		i := strings.Index(s, "<think>")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "</think>")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len("</think>"):]
	}
}

// findEntries decodes the first JSON value in s that holds entries.
func findEntries(s string) []entry {
	for tries, i := 0, 0; tries < maxJSONTries; tries++ {
		k := strings.IndexAny(s[i:], "{[")
		if k < 0 {
			return nil
		}
		i += k
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			i++ // not JSON here: try the next bracket, maybe inside
			continue
		}
		if es := entriesOf(v); len(es) > 0 {
			return es
		}
		i += max(int(dec.InputOffset()), 1) // JSON without entries: skip it whole
	}
	return nil
}

// entriesOf interprets a decoded JSON value (see parseAnswer).
func entriesOf(v any) []entry {
	switch v := v.(type) {
	case []any:
		var es []entry
		for _, x := range v {
			switch x := x.(type) {
			case string:
				es = append(es, entry{text: x})
			case map[string]any:
				if e, ok := entryOf(x); ok {
					es = append(es, e)
				}
			}
		}
		return es
	case map[string]any:
		if e, ok := entryOf(v); ok {
			return []entry{e}
		}
		if arr, ok := v["summaries"].([]any); ok {
			return entriesOf(arr)
		}
		if arr := onlyArray(v); arr != nil {
			return entriesOf(arr)
		}
		return keyedEntries(v)
	}
	return nil
}

// entryOf reads {"id": ..., "summary": "..."}.
func entryOf(m map[string]any) (entry, bool) {
	var e entry
	for _, k := range []string{"summary", "text"} {
		if s, ok := m[k].(string); ok {
			e.text = s
			break
		}
	}
	if e.text == "" {
		return e, false
	}
	for _, k := range []string{"id", "index", "commit", "hash"} {
		switch id := m[k].(type) {
		case json.Number:
			e.id = id.String()
		case string:
			e.id = id
		}
		if e.id != "" {
			break
		}
	}
	return e, true
}

// onlyArray returns the value of m's one array-valued field, if it has
// exactly one.
func onlyArray(m map[string]any) []any {
	var found []any
	for _, v := range m {
		if arr, ok := v.([]any); ok {
			if found != nil {
				return nil
			}
			found = arr
		}
	}
	return found
}

// keyedEntries reads {"1": "...", "2": "..."}, in key order.
func keyedEntries(m map[string]any) []entry {
	var es []entry
	for k, v := range m {
		if s, ok := v.(string); ok {
			es = append(es, entry{id: k, text: s})
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.id, b.id) })
	return es
}

// assign places entries on the commits they are for.
func assign(entries []entry, hashes []string) ([]string, error) {
	out := make([]string, len(hashes))
	if len(entries) == 1 && len(hashes) == 1 {
		out[0] = entries[0].text
		return out, nil
	}
	if !slices.ContainsFunc(entries, func(e entry) bool { return e.id != "" }) {
		if len(entries) != len(hashes) {
			return nil, fmt.Errorf("%w: %d summaries for %d commits", ErrBadAnswer, len(entries), len(hashes))
		}
		for i, e := range entries {
			out[i] = e.text
		}
		return out, nil
	}
	zeroBased := slices.ContainsFunc(entries, func(e entry) bool { return normID(e.id) == "0" })
	found := false
	for _, e := range entries {
		i := resolveID(e.id, hashes, zeroBased)
		if i >= 0 && out[i] == "" {
			out[i], found = e.text, true
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: no summary has a known commit id", ErrBadAnswer)
	}
	return out, nil
}

func normID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	id = strings.TrimPrefix(id, "commit")
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(id), "#"))
}

// resolveID maps an id to a commit's position, or -1: a number counts
// from 1 (from 0 if the answer used 0), a string of 7 or more hex digits
// is a prefix of exactly one hash.
func resolveID(id string, hashes []string, zeroBased bool) int {
	id = normID(id)
	if n, err := strconv.Atoi(id); err == nil {
		if !zeroBased {
			n--
		}
		if n >= 0 && n < len(hashes) {
			return n
		}
		return -1
	}
	if len(id) < 7 {
		return -1
	}
	match := -1
	for i, h := range hashes {
		if strings.HasPrefix(strings.ToLower(h), id) {
			if match >= 0 {
				return -1
			}
			match = i
		}
	}
	return match
}
