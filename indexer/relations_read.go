package indexer

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// Code relationships are found in two steps. The entity stage's parsers
// read each changed file's facts (this file): the calls of the functions
// and methods the commit changed, the file's imports when the diff
// touched them, Go interfaces' method sets and Rust impl blocks. The
// commits' facts then meet, in commit order, the relater
// (relations_resolve.go), which resolves names against the repository as
// it stands at that commit and records what changed.

// fileFacts are one changed file's relationship facts, before resolution.
type fileFacts struct {
	fc *model.FileChange
	// imports are the new version's imports, read when importsRead: the
	// file is new (or renamed, or copied) or the diff touched an import.
	imports     []entity.Import
	importsRead bool
	// header are the imports before the file's first definition, which
	// resolve the names its definitions call.
	header []entity.Import
	// calls are the calls of the functions and methods the commit
	// introduced or modified, by entity key.
	calls map[string][]entity.Call
	// ifaces are the Go interfaces the commit introduced or modified.
	ifaces map[string]goIface
	// impls are a Rust file's impl blocks, old and new, read when the
	// diff may have changed them.
	impls     [2][]entity.Impl
	implsRead bool
}

// goIface is what a Go interface requires.
type goIface struct {
	methods []entity.MethodShape
	embeds  []string
	ok      bool // false for a type set, which no method set satisfies
}

// readFacts reads one file change's facts; changes are the entity changes
// the entity stage found in it. It returns nil for a file without a
// scanner.
func readFacts(ctx context.Context, p *entity.Parser, fc *model.FileChange, old, new []byte, changes []model.EntityChange) *fileFacts {
	if !entity.Supported(fc.Language) {
		return nil
	}
	f := &fileFacts{fc: fc}
	if fc.Status == model.Deleted || new == nil {
		if fc.Language == "Rust" && old != nil {
			if s, ok := entity.NewSource(fc.Language, old); ok {
				f.impls[0], f.implsRead = s.Impls(), true
			}
		}
		return f
	}
	src, ok := p.Source(fc.Language, new)
	if !ok {
		return nil
	}
	whole := fc.Status != model.Modified || old == nil
	if whole || touches(fc, func(line []byte) bool { return entity.MayImport(fc.Language, line) }) {
		f.imports, f.importsRead = src.Imports(0), true
	}
	if fc.Language == "Rust" && (whole || touches(fc, func(line []byte) bool { return bytes.Contains(line, []byte("impl")) })) {
		f.impls[1], f.implsRead = src.Impls(), true
		if !whole {
			if s, ok := entity.NewSource(fc.Language, old); ok {
				f.impls[0] = s.Impls()
			}
		}
	}
	// A header that go-enry calls C but that holds C++ (fmt's base.h,
	// gtest.h) is parsed with the C grammar, which makes functions of
	// templates, enum classes and macro-prefixed declarations: their
	// calls would come from entities that do not exist.
	// It is read only when a function changed: the check reads the whole
	// file, and most of a C history's header changes touch no function.
	cHeader, isCPlusPlus := fc.Language == "C" && strings.HasSuffix(fc.Path, ".h"), false
	noCalls := func() bool {
		if cHeader {
			cHeader, isCPlusPlus = false, looksLikeCPlusPlus(new)
		}
		return isCPlusPlus
	}
	var all []entity.Span // the lines of the version's entities, where calls need them
	first := 0            // the first definition's line
	types := false        // a class-like entity changed: its bases resolve through the imports
	var edited []int      // where the diff may have changed calls, when it did not add the file
	filtered := !whole && hunkTexts(fc)
	if filtered {
		edited = callLines(fc)
	}
	for _, c := range changes {
		if c.Action == model.EntityDeleted || c.Path != fc.Path {
			continue
		}
		e := entity.Entity{Kind: entity.Kind(c.Kind), Name: c.Name, StartLine: c.StartLine, EndLine: c.EndLine}
		switch e.Kind {
		case entity.KindFunction, entity.KindMethod:
			if noCalls() || filtered && c.Action == model.EntityModified && !within(edited, c.StartLine, c.EndLine) {
				continue // no call can have changed: its state stands
			}
			if all == nil {
				all, first = versionSpans(ctx, p, fc, new)
			}
			if f.calls == nil {
				f.calls = map[string][]entity.Call{}
			}
			f.calls[c.Key()] = src.Calls(e, all)
		case entity.KindClass, entity.KindStruct, entity.KindEnum:
			types = true
		case entity.KindInterface:
			types = true
			if fc.Language == "Go" {
				m, embeds, ok := src.InterfaceSpec(e)
				if f.ifaces == nil {
					f.ifaces = map[string]goIface{}
				}
				f.ifaces[c.Key()] = goIface{m, embeds, ok}
			}
		}
	}
	if f.calls != nil || types {
		if all == nil {
			all, first = versionSpans(ctx, p, fc, new)
		}
		f.header = headerImports(f, src, first)
	}
	return f
}

// versionSpans returns the lines of the new version's entities (none
// where entity.NeedsNesting says calls can do without) and the line of
// the first.
func versionSpans(ctx context.Context, p *entity.Parser, fc *model.FileChange, new []byte) ([]entity.Span, int) {
	spans, err := p.VersionSpans(ctx, fc.Language, entity.Version{Path: fc.Path, Hash: fc.NewBlob, Src: new})
	if err != nil || len(spans) == 0 {
		return []entity.Span{}, 0
	}
	if !entity.NeedsNesting(fc.Language) {
		return []entity.Span{}, int(spans[0].StartLine)
	}
	return spans, int(spans[0].StartLine)
}

// headerImports returns the imports before the file's first definition
// (all of them when it is not known).
func headerImports(f *fileFacts, src *entity.Source, first int) []entity.Import {
	if !f.importsRead {
		return src.Imports(first)
	}
	if first <= 0 {
		return f.imports
	}
	for i, im := range f.imports {
		if im.Line >= first {
			return f.imports[:i]
		}
	}
	return f.imports
}

// callLines returns the new version's lines near which the diff added or
// removed a line that may change a definition's calls: one with a
// parenthesis, or a comment or string delimiter that may span lines.
// Other edits (most of a history's) leave the calls as they were.
func callLines(fc *model.FileChange) []int {
	multiline := fc.Language == "Ruby" || fc.Language == "PHP" || fc.Language == "Rust"
	var out []int
	for _, h := range fc.Hunks {
		line := h.NewStart
		text := h.Text
		for len(text) > 0 {
			l, rest, _ := strings.Cut(text, "\n")
			text = rest
			if l == "" {
				continue
			}
			if (l[0] == '+' || l[0] == '-') && mayChangeCalls(l[1:], multiline) {
				out = append(out, line)
			}
			if l[0] != '-' {
				line++
			}
		}
	}
	return out
}

// hunkTexts reports whether the file's hunks carry their lines.
func hunkTexts(fc *model.FileChange) bool {
	for _, h := range fc.Hunks {
		if h.Text == "" {
			return false
		}
	}
	return len(fc.Hunks) > 0
}

// mayChangeCalls reports whether adding or removing a line may change the
// calls around it.
func mayChangeCalls(line string, multiline bool) bool {
	for _, s := range []string{"(", "`", "/*", "*/", `"""`, "'''", "=begin", "=end", "<<"} {
		if strings.Contains(line, s) {
			return true
		}
	}
	return multiline && strings.ContainsAny(line, `"'`)
}

// within reports whether one of lines falls in [start-1, end+1].
func within(lines []int, start, end int) bool {
	for _, l := range lines {
		if l >= start-1 && l <= end+1 {
			return true
		}
	}
	return false
}

// cPlusPlusLine matches a line only C++ writes: a template, a namespace,
// a class, an access specifier, a name of the standard library. Every
// match lies within one line.
var cPlusPlusLine = regexp.MustCompile(`(?m)^[ \t]*(template[ \t]*<|namespace[ \t]+\w+[ \t]*\{|class[ \t]+\w+[^;(]*$|(public|private|protected)[ \t]*:[ \t]*$)|\bstd::\w`)

// cPlusPlusWords are the words one of which a file needs before its lines
// are matched; cPlusPlusLineWords those one of which a line needs to match.
var (
	cPlusPlusWords     = [][]byte{[]byte("template"), []byte("namespace"), []byte("class"), []byte("std::")}
	cPlusPlusLineWords = append(cPlusPlusWords[:4:4], []byte("public"), []byte("private"), []byte("protected"))
)

// looksLikeCPlusPlus reports whether a source has a line only C++ writes.
// The words are looked for first (most C headers have none of them), then
// the pattern is matched on the lines that hold one: on a whole header of
// git's the regexp cost more than the rest of its relationship facts.
func looksLikeCPlusPlus(src []byte) bool {
	if !slices.ContainsFunc(cPlusPlusWords, func(w []byte) bool { return bytes.Contains(src, w) }) {
		return false
	}
	for _, w := range cPlusPlusLineWords {
		for off := 0; off < len(src); {
			i := bytes.Index(src[off:], w)
			if i < 0 {
				break
			}
			start := bytes.LastIndexByte(src[:off+i], '\n') + 1
			end := len(src)
			if j := bytes.IndexByte(src[off+i:], '\n'); j >= 0 {
				end = off + i + j
			}
			if cPlusPlusLine.Match(src[start:end]) {
				return true
			}
			off = end + 1
		}
	}
	return false
}

// touches reports whether a line the diff added or removed satisfies fn.
func touches(fc *model.FileChange, fn func(line []byte) bool) bool {
	for _, h := range fc.Hunks {
		text := h.Text
		for len(text) > 0 {
			line, rest, _ := strings.Cut(text, "\n")
			text = rest
			if len(line) > 0 && (line[0] == '+' || line[0] == '-') && fn([]byte(line[1:])) {
				return true
			}
		}
	}
	return false
}
