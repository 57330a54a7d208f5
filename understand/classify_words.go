package understand

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// Wording evidence for Classify: the table of English and Russian patterns
// per change type, its index, and the prose a message's words are read from.

// clsWordRow is one row of wording rules: patterns of one type and weight.
type clsWordRow struct {
	t    model.ChangeType
	w    float64
	pats string
}

// clsWordTable lists the wording rules: per type and weight, patterns
// separated by "|". A pattern is one or more words matched on word
// boundaries of the lower-cased text, where punctuation counts as a space
// ("use-after-free" matches "use after free"); a trailing "*" makes the
// last word a prefix ("optimiz*" matches "optimize", "optimization"). A
// pattern starting with "=" is a raw substring that must start a word
// ("=o(n" for complexity notation).
var clsWordTable = []clsWordRow{
	{model.Bugfix, 2, "hotfix*|bugfix*|bug|bugs|buggy|crash*|regression*|segfault*|" +
		"deadlock*|use after free|null pointer|nil pointer|null deref*|nil deref*|null dereference|off by one|" +
		"broken|incorrect*|wrong*|panic*|memory leak*|race condition*|data race*|infinite loop|" +
		"ошибк*|баг|баги|багов|багфикс*|падени*|падает|падал*|хотфикс*|неверн*|неправильн*|" +
		"некорректн*|починил*|починка|не работа*"},
	{model.Bugfix, 1, "resolve*|correct|corrects|corrected|correctly|correction|prevent*|repair*|workaround*|" +
		"failure*|fail|fails|failed|failing|mistake*|unbreak*|restore*|hang|hangs|hung|stuck|leak|leaks|leaking|" +
		"edge case*|error|errors|erroneous|missing|правильн*|сбой|сбоя|сбои|сбоев|утечк*|зависани*|сломан*|сломал*"},
	{model.Bugfix, 0.5, "handle|handles|handling|issue|issues|problem*|properly|ensure*|invalid|instead"},

	{model.Feature, 2, "implement*|реализ*|внедр*"},
	{model.Feature, 1.5, "introduc*|initial|feature|features"},
	{model.Feature, 1, "add|adds|added|adding|support|supports|new|allow*|enable*|expose*|teach*|" +
		"добав*|поддержк*|нов*|возможност*|появил*"},
	{model.Feature, 0.5, "create|creates|provide*|option|options|command|endpoint*|эндпоинт*"},

	{model.Refactor, 2, "refactor*|restructur*|reorganiz*|reorganis*|rework*|rewrit*|rewrote|рефактор*|" +
		"переимен*|переработ*|переделк*|переделан*|переделал*|абстрагир*|распил*|реорганиз*|реструктур*"},
	{model.Refactor, 1.5, "rename*|simplif*|consolidat*|decoupl*|вынес*|вынос*|упрощ*|упрост*"},
	{model.Refactor, 1, "move|moves|moved|moving|extract|extracts|extracted|extracting|split*|dedup*|" +
		"unify|unifies|unified|generaliz*|generalis*|inline|inlines|inlined|abstract*|replace|replaces|replaced|" +
		"replacing|convert|converts|converted|converting|" +
		"перенес*|перенос*|разбит*|разделил*"},
	{model.Refactor, 0.5, "helper*|internal|internals|reuse*"},

	{model.Performance, 2, "perf|performance|faster|speed up|speeds up|speedup*|sped up|optimiz*|optimis*|" +
		"fast path|hot path|latency|throughput|quadratic*|memoiz*|prealloc*|ускор*|оптимиз*|производительн*|" +
		"=o(1)|=o(n)|=o(n log|=o(log|=o(n^2)|=o(n²)"},
	{model.Performance, 1.5, "cache|caches|cached|caching|alloc|allocs|allocation*|allocate|allocates|" +
		"allocating|memory usage|reduce memory|less memory|memory footprint|efficien*|lazy|lazily|" +
		"slow|slower|slowdown|быстр*|медленн*|тормоз*|кэш*|кеш*|=n+1"},
	{model.Performance, 1, "speed|benchmark*|pool|pooled|pooling|batch|batched|batching|parallel*|fewer|cheaper|" +
		"expensive|overhead|" +
		"avoid copy*|zero copy"},

	// Security words are only those that mean an attack or its fix.
	// Escaping, validation, bypassing an alias, directory traversal (a
	// file walker's job), injection (of dependencies), overflow (of a
	// layout), secrets (a feature of the tool), a sanitizer (a build
	// option) and "code injection" (of ANSI codes) are everyday words of
	// other changes.
	{model.Security, 3, "security|cve|ghsa|cwe|xss|csrf|xsrf|ssrf|xxe|rce|redos|vulnerab*|" +
		"path traversal|zip slip|remote code execution|arbitrary code execution|privilege escalation|" +
		"denial of service|dos attack*|timing attack*|open redirect|clickjack*|sql injection|command injection|" +
		"shell injection|header injection|template injection|prototype pollution|уязвим*|инъекц*"},
	{model.Security, 2, "exploit*|insecure|harden*|buffer overflow|heap overflow|use after free|" +
		"use-after-free|double free|out of bounds read|out of bounds write|attack|attacks|attacker*|malicious|" +
		"content security policy|безопасн*"},
	{model.Security, 1, "sanitize|sanitizes|sanitized|sanitizing|sanitise|sanitises|sanitised|untrusted"},

	{model.Documentation, 2, "doc|docs|documentation|readme|changelog|godoc|javadoc|jsdoc|rustdoc|" +
		"docstring*|manpage*|man page*|документаци*|ридми"},
	{model.Documentation, 1.5, "document|documents|documented|documenting|tutorial*|faq|contributing|howto|" +
		"описани*|документир*"},
	{model.Documentation, 1, "comment|comments|commented|commenting|guide|guides|clarif*|wording|explain*|" +
		"describe*|example|examples|инструкци*|коммент*|пояснени*"},

	{model.Test, 2, "test|tests|unit test*|unittest*|test case*|testcase*|тест*"},
	{model.Test, 1.5, "testing|coverage|flaky|flake|flakes|flakiness|fixture*|e2e|testdata|integration test*|" +
		"покрыти*"},
	{model.Test, 1, "mock*|stub|stubs|assert*|spec|specs|snapshot*|tested|cover|covers"},

	{model.Dependency, 2, "bump|bumps|bumped|bumping|dependency|dependencies|deps|dep|renovate|dependabot|" +
		"go mod|update module|зависимост*"},
	{model.Dependency, 1.5, "upgrade*|lockfile*|lock file*|vendor|vendored|vendoring|revendor*|third party|" +
		"submodule|submodules"},
	{model.Dependency, 1, "crate|crates|pin|pinned|pins|unpin*|npm|yarn|pnpm|pip|gem|gems|library|libraries|" +
		"библиотек*"},

	{model.Configuration, 2, "config|configs|configuration|configurations|dockerfile|docker compose|gitignore|" +
		"gitattributes|editorconfig|github actions|конфиг*|конфигурац*"},
	{model.Configuration, 1.5, "ci|cd|workflow|workflows|docker|makefile|kubernetes|k8s|helm|terraform|" +
		"goreleaser|jenkins*|travis|circleci|pipeline|pipelines|настро*|деплой*"},
	{model.Configuration, 1, "deploy*|env|environment|yaml|yml|toml|build|builds|release|сборк*"},
	{model.Configuration, 0.5, "settings|setting"},

	{model.Cleanup, 2.5, "dead code|unused|неиспользуем*"},
	{model.Cleanup, 2, "cleanup|cleanups|clean up|cleans up|cleaned up|typo|typos|whitespace*|formatting|" +
		"reformat*|gofmt|goimports|gofumpt|prettier|rustfmt|clang format|lint|lints|linter|linters|linting|" +
		"cosmetic*|grammatical|shellcheck|staticcheck|go vet|clippy|опечатк*|форматир*|чистк*|почистил*|вычищ*"},
	{model.Cleanup, 1.5, "nit|nits|nitpick*|spelling|misspel*|indent*|leftover*|obsolete|unnecessary|unneeded|" +
		"redundant|superfluous|лишн*|ненужн*|устаревш*|стиль|code style"},
	{model.Cleanup, 1, "format|formatted|style|styling|trailing|tidy|stale|deprecated|clean|cleaned|remove|" +
		"removes|removed|removing|delete|deletes|deleted|deleting|drop|drops|dropped|dropping|удал*|убра*"},
	{model.Cleanup, 0.5, "minor|cruft"},

	{model.Revert, 2.5, "revert|reverts|reverted|reverting|back out|backs out|backed out|backout|откат*"},
	{model.Revert, 1, "roll back|rollback|rolled back|undo"},

	{model.Merge, 1, "merge|merges|merged|merging|conflict|conflicts|слияни*|мерж*|смерж*|конфликт*"},
}

// clsPattern is one compiled wording pattern.
type clsPattern struct {
	words []string // normalised words; with stem, the last one is a prefix
	stem  bool
	raw   string // a raw pattern's substring ("o(n"), else ""
	t     int    // index into clsOrder
	w     float64
}

// clsWordIndex finds the patterns that occur in a text by its words, not
// by scanning the text once per pattern: exact first words through a map,
// one-word stems through buckets keyed by their first two bytes. Most
// words are in neither map; a bit per hashed key tells them before the
// map lookups.
type clsWordIndex struct {
	pats      []clsPattern
	exact     map[string][]int
	stems     map[string][]int
	raw       []int
	exactBits clsBits // by clsWordHash of exact's keys
	stemBits  clsBits // by clsStemKey of stems' keys
}

// clsBits is a set of uint16.
type clsBits [1 << 16 / 64]uint64

func (b *clsBits) add(k uint16)      { b[k/64] |= 1 << (k % 64) }
func (b *clsBits) has(k uint16) bool { return b[k/64]&(1<<(k%64)) != 0 }

// clsWordHash is the FNV-1a hash of w, folded to 16 bits.
func clsWordHash(w string) uint16 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint32(w[i])) * 16777619
	}
	return uint16(h ^ h>>16)
}

// clsStemKey is a word's first two bytes, the stems map's key.
func clsStemKey(w string) uint16 { return uint16(w[0])<<8 | uint16(w[1]) }

// clsMaxPatterns bounds an index, so that matched patterns fit a bitset.
const clsMaxPatterns = 1024

// clsNewIndex compiles "|"-separated patterns (see clsWordTable), each
// row's with its type and weight.
func clsNewIndex(rows ...clsWordRow) *clsWordIndex {
	ix := &clsWordIndex{exact: map[string][]int{}, stems: map[string][]int{}}
	for _, row := range rows {
		for _, p := range strings.Split(row.pats, "|") {
			pat := clsPattern{t: clsIndex(row.t), w: row.w}
			i := len(ix.pats)
			switch {
			case strings.HasPrefix(p, "="):
				pat.raw = p[1:]
				ix.raw = append(ix.raw, i)
			default:
				pat.stem = strings.HasSuffix(p, "*")
				pat.words = strings.Fields(clsNormalize(strings.TrimSuffix(p, "*")))
				if len(pat.words) == 1 && pat.stem {
					if len(pat.words[0]) < 2 {
						panic("understand: stem too short: " + p)
					}
					ix.stems[pat.words[0][:2]] = append(ix.stems[pat.words[0][:2]], i)
					ix.stemBits.add(clsStemKey(pat.words[0]))
				} else {
					ix.exact[pat.words[0]] = append(ix.exact[pat.words[0]], i)
					ix.exactBits.add(clsWordHash(pat.words[0]))
				}
			}
			ix.pats = append(ix.pats, pat)
		}
	}
	if len(ix.pats) > clsMaxPatterns {
		panic("understand: too many wording patterns")
	}
	return ix
}

// each calls fn once for every pattern that occurs in words (normalised)
// or, for raw patterns, in low (the lower-cased text; may be "").
func (ix *clsWordIndex) each(words []string, low string, fn func(p *clsPattern)) {
	var seen [clsMaxPatterns / 64]uint64
	hit := func(i int) {
		if seen[i/64]&(1<<(i%64)) == 0 {
			seen[i/64] |= 1 << (i % 64)
			fn(&ix.pats[i])
		}
	}
	for k, w := range words {
		if ix.exactBits.has(clsWordHash(w)) {
			for _, i := range ix.exact[w] {
				if ix.pats[i].phraseAt(words[k:]) {
					hit(i)
				}
			}
		}
		if len(w) >= 2 && ix.stemBits.has(clsStemKey(w)) {
			for _, i := range ix.stems[w[:2]] {
				if strings.HasPrefix(w, ix.pats[i].words[0]) {
					hit(i)
				}
			}
		}
	}
	for _, i := range ix.raw {
		if low != "" && clsContainsAtWord(low, ix.pats[i].raw) {
			hit(i)
		}
	}
}

// hasWord reports whether a pattern occurs in the one word w: any of
// words[i:i+1] without its closure and bitset.
func (ix *clsWordIndex) hasWord(w string) bool {
	if ix.exactBits.has(clsWordHash(w)) {
		for _, i := range ix.exact[w] {
			if len(ix.pats[i].words) == 1 {
				return true // one word, no stem: w is it
			}
		}
	}
	if len(w) >= 2 && ix.stemBits.has(clsStemKey(w)) {
		for _, i := range ix.stems[w[:2]] {
			if strings.HasPrefix(w, ix.pats[i].words[0]) {
				return true
			}
		}
	}
	return false
}

// any reports whether a pattern occurs in words.
func (ix *clsWordIndex) any(words []string) bool {
	found := false
	ix.each(words, "", func(*clsPattern) { found = true })
	return found
}

// phraseAt reports whether p's words start words.
func (p *clsPattern) phraseAt(words []string) bool {
	if len(words) < len(p.words) {
		return false
	}
	last := len(p.words) - 1
	for j, pw := range p.words {
		if j == last && p.stem {
			return strings.HasPrefix(words[j], pw)
		}
		if words[j] != pw {
			return false
		}
	}
	return true
}

// The verbs of repair are bugfix evidence unless their object, within the
// next clsObjectWindow words, is no bug: "fix typo", "fix lint warnings",
// "fix tests", "исправлена опечатка в README". Then the object's own type
// speaks and the verb counts little.
const (
	clsFixVerbs      = "fix|fixes|fixed|fixing|fixup|исправ*|фикс*|поправ*"
	clsNonBugObjects = "typo*|lint*|spelling|misspel*|grammatical|whitespace|format|formatting|indent*|warning*|" +
		"shellcheck|staticcheck|vet|clippy|test|tests|" +
		"doc|docs|documentation|readme|changelog|comment|comments|опечатк*|форматир*|тест*|документаци*|коммент*"
	clsObjectWindow       = 3 // the words after a verb that name its object
	clsPrefixObjectWindow = 2 // the words after "fix:" that name its object
	clsFixWeight          = 2.0
	clsFixObjectWeight    = 0.5
	// A conventional "fix:" type before such an object counts this much.
	clsFixObjectPrefixWeight = 1.0
)

var (
	clsWords   = clsNewIndex(clsWordTable...)
	clsFixVerb = clsNewIndex(clsWordRow{model.Bugfix, clsFixWeight, clsFixVerbs})
	clsNonBug  = clsNewIndex(clsWordRow{model.Bugfix, 0, clsNonBugObjects})
	// clsNoChangeRe finds the statement that behaviour does not change.
	clsNoChangeRe = regexp.MustCompile(`(?i)\b(?:no (?:functional|behaviou?ral|behaviou?r|semantic|user[- ]visible) changes?|nfci?|(?:just|purely|pure) (?:a )?refactor(?:ing)?)\b`)
	// clsSecIDRe finds security advisory identifiers, the surest sign of a
	// security change: they count on top of the wording.
	clsSecIDRe = regexp.MustCompile(`(?i)\b(?:cve-[0-9]{4}-[0-9]{4,}|ghsa(?:-[0-9a-z]{4}){3}|cwe-[0-9]+)\b`)
)

// clsNormalize lower-cases s and turns every run of characters other than
// letters and digits into one space, with a space at both ends, so that
// " word " matches on word boundaries.
func clsNormalize(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	space := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// clsScoreWords adds the wording evidence of text, each type's sum capped
// at clsWordCap, times weight.
func clsScoreWords(text string, weight float64, ctx clsWordContext, s *clsScores) {
	clsScoreWordsOf(text, clsProseWords(text), weight, ctx, s)
}

// clsScoreWordsOf is clsScoreWords with text's words already split by
// clsProseWords.
func clsScoreWordsOf(text string, words []string, weight float64, ctx clsWordContext, s *clsScores) {
	// Without words there is no evidence: every raw pattern has a letter.
	if len(words) == 0 {
		return
	}
	low := ""
	if clsMayHaveRaw(text) { // only raw patterns need it
		low = strings.ToLower(clsProse(text))
	}
	var part clsScores
	clsWords.each(words, low, func(p *clsPattern) { part[p.t] += p.w })
	part[clsIndex(model.Bugfix)] += clsFixVerbWeight(words)
	if !ctx.merge {
		part[clsIndex(model.Merge)] = 0
	}
	if !ctx.configFiles {
		part[clsIndex(model.Configuration)] *= clsWordsBesideCode
	}
	if ctx.codeFiles {
		part[clsIndex(model.Documentation)] *= clsWordsBesideCode
		part[clsIndex(model.Test)] *= clsWordsBesideCode
	}
	for i, v := range part {
		s[i] += min(v, clsWordCap) * weight
	}
}

// clsFixVerbWeight is the bugfix weight of the verbs of repair in
// normalised words: clsFixWeight if one of them is not followed by a
// non-bug object, clsFixObjectWeight if each is, 0 without any.
func clsFixVerbWeight(words []string) float64 {
	w := 0.0
	for i, word := range words {
		if !clsFixVerb.hasWord(word) {
			continue
		}
		if !clsObjectAt(words[i+1:], clsObjectWindow) {
			return clsFixWeight
		}
		w = clsFixObjectWeight
	}
	return w
}

// clsObjectAt reports whether the first n words name an object of repair
// that is no bug (see clsNonBugObjects).
func clsObjectAt(words []string, n int) bool {
	return clsNonBug.any(words[:min(len(words), n)])
}

// clsProse removes what names code rather than describes a change:
// `code spans` and identifiers (tokens with "_", "()", "::" or "->"), so
// that "hook_config_cache_entry" or "`pseudo_merge`" are not wording.
func clsProse(text string) string {
	if !strings.ContainsAny(text, "`_():->") {
		return text
	}
	var b strings.Builder
	for i, part := range strings.Split(text, "`") {
		if i%2 == 1 {
			b.WriteByte(' ')
			continue
		}
		for j, tok := range strings.Split(part, " ") {
			if j > 0 {
				b.WriteByte(' ')
			}
			if !clsIsIdentifier(tok) {
				b.WriteString(tok)
			}
		}
	}
	return b.String()
}

// clsProseWords returns strings.Fields(clsNormalize(clsProse(text)))
// in one pass, without building either string: the words of the tokens
// clsProse keeps. Tokens end at spaces and backticks, so no word spans
// two of them; an identifier's words are dropped once it is recognised.
// The words share one string.
func clsProseWords(text string) []string {
	buf := make([]byte, 0, len(text))
	var ends []int // where each word ends in buf
	code, inWord := false, false
	tokBuf, tokEnds := 0, 0 // len(buf) and len(ends) where the token began
	var prev byte           // the byte before c in the token, if ASCII
	for i := 0; i < len(text); {
		c := text[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(text[i:])
			i, prev = i+n, 0
			switch {
			case code:
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				buf, inWord = utf8.AppendRune(buf, unicode.ToLower(r)), true
			case inWord:
				ends, inWord = append(ends, len(buf)), false
			}
			continue
		}
		i++
		switch {
		case c == ' ' || c == '`':
			if inWord {
				ends, inWord = append(ends, len(buf)), false
			}
			code = code != (c == '`')
			tokBuf, tokEnds, prev = len(buf), len(ends), 0
			continue
		case code:
			continue
		case c == '_' || c == ')' && prev == '(' || c == ':' && prev == ':' || c == '>' && prev == '-':
			// An identifier (see clsIsIdentifier): drop it.
			buf, ends, inWord = buf[:tokBuf], ends[:tokEnds], false
			if k := strings.IndexAny(text[i:], " `"); k >= 0 {
				i += k
			} else {
				i = len(text)
			}
			continue
		}
		prev = c
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			buf, inWord = append(buf, c), true
		case 'A' <= c && c <= 'Z':
			buf, inWord = append(buf, c+'a'-'A'), true
		case inWord:
			ends, inWord = append(ends, len(buf)), false
		}
	}
	if inWord {
		ends = append(ends, len(buf))
	}
	all := string(buf)
	words := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		words[i] = all[start:end]
		start = end
	}
	return words
}

// clsIsIdentifier reports whether clsProse drops tok as naming code.
func clsIsIdentifier(tok string) bool {
	return strings.Contains(tok, "_") || strings.Contains(tok, "()") ||
		strings.Contains(tok, "::") || strings.Contains(tok, "->")
}

// clsContainsAtWord reports whether needle occurs in s not preceded by a
// letter or digit.
func clsContainsAtWord(s, needle string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], needle)
		if i < 0 {
			return false
		}
		i += off
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if i == 0 || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return true
		}
		off = i + 1
	}
}
