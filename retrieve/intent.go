package retrieve

import (
	"slices"
	"strings"
	"unicode"
)

// Intents of seed 001. auto picks one from the question's markers.
const (
	IntentAuto     = "auto"
	IntentPlan     = "plan"
	IntentExecute  = "execute"
	IntentExplain  = "explain"
	IntentDebug    = "debug"
	IntentResearch = "research"
)

// Intents lists the intents --intent accepts.
var Intents = []string{IntentAuto, IntentPlan, IntentExecute, IntentExplain, IntentDebug, IntentResearch}

// intentMarkers are word prefixes (lower case) that vote for an intent, in
// English and Russian.
var intentMarkers = map[string][]string{
	IntentDebug: {"bug", "crash", "panic", "error", "fail", "broke", "break", "regress", "exception", "fix", "wrong",
		"hang", "leak", "segfault", "exits with",
		"ошибк", "пада", "упал", "сломал", "лома", "баг", "не работа", "перестал", "не проход", "исправ", "вылет",
		"завис", "утечк", "исключени", "сбой", "сбоя", "сбои", "краш", "регресс", "неправильн", "неверн", "обрыва",
		"с кодом"},
	IntentExplain: {"why", "reason", "purpose", "rationale", "explain", "what does", "how does", "motivat",
		"почему", "зачем", "объясни", "причин", "как работает"},
	IntentPlan: {"plan", "design", "should we", "approach", "migrat", "architect", "propos", "how should",
		"план ", "плана", "спланир", "спроектир", "как лучше", "архитект", "подход", "стоит ли", "предлож", "дизайн"},
	IntentExecute: {"implement", "add ", "write", "update", "rename", "refactor", "remove", "change ",
		"сделай", "добав", "реализ", "измени", "удали", "перепиши", "напиш", "обнови", "переименуй", "раздели",
		"убери", "поменяй"},
	IntentResearch: {"when", "who", "history", "evolv", "introduc", "which commit", "where did", "came from",
		"когда", "кто", "истори", "откуда", "какой коммит"},
}

// intentOrder breaks ties between intents with as many markers.
var intentOrder = []string{IntentDebug, IntentExplain, IntentResearch, IntentPlan, IntentExecute}

// ClassifyIntent is the auto classifier: the intent with the most markers in
// the question, research when none. A question about a failure is debug
// even when it asks why (debug wins a tie with explain): its fix answers
// it. An imperative (an execute marker opening the question: "write a
// migration", "добавь логирование") counts twice, so that what it names
// ("migration", a plan marker) does not outvote the verb.
func ClassifyIntent(q string) string {
	q = markerText(q)
	best, bestN := IntentResearch, 0
	for _, in := range intentOrder {
		n := 0
		for _, m := range intentMarkers[in] {
			if strings.Contains(q, " "+m) {
				n++
				if in == IntentExecute && strings.HasPrefix(q, " "+m) {
					n++
				}
			}
		}
		if n > bestN {
			best, bestN = in, n
		}
	}
	return best
}

// ValidIntent reports whether s is an intent --intent accepts.
func ValidIntent(s string) bool {
	for _, in := range Intents {
		if s == in {
			return true
		}
	}
	return false
}

// removalMarkers are word prefixes of a question about something that went
// away ("why was X removed", "where did it go"). Such questions are
// answered by a commit that deletes much more than it adds, which its
// words rarely share: "Removes viper dependency by removing cobra/ CLI tool"
// for "why did the scaffolding tool get pulled out".
var removalMarkers = []string{"removed", "pulled out", "pulled from", "dropped", "deleted", "got rid", "gone",
	"where did it go", "disappear", "удален", "удалил", "убрал", "убран", "пропал", "исчез"}

// takenOutMarkers are the words of a question about why something was
// taken out: the removal markers and the ways a user says it ("what made
// them take that ability out", "why was the shortcut taken out"). They
// lift the commits whose subject says they remove (removesSubject); the
// removal markers alone decide which deletions are followed (removals),
// where these would follow too many.
var takenOutMarkers = append(slices.Clone(removalMarkers), "remove", "taken out", "take out", "took out",
	"take that", "taking out", "stripped", "ripped out", "went away", "taken away", "scrapped", "abandon",
	"убира", "выкину")

// asksRemoval reports whether the question asks why or where something went.
func asksRemoval(q string) bool { return hasMarker(markerText(q), removalMarkers) }

// hasMarker reports whether t (a markerText) holds a word starting with
// one of the markers.
func hasMarker(t string, markers []string) bool {
	for _, m := range markers {
		if strings.Contains(t, " "+m) {
			return true
		}
	}
	return false
}

// mostlyDeletes reports a commit that takes code out: at least twice as
// many lines deleted as added, and enough of them to be more than a fix.
func mostlyDeletes(insertions, deletions int) bool {
	return deletions >= 20 && deletions >= 2*insertions
}

// markerText is q lower-cased, its words separated by single spaces, with
// a space at each end, so that a marker matches at the start of a word
// (" fix" is not in " prefix").
func markerText(q string) string {
	return " " + strings.Join(strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ") + " "
}

// asks is what a question asks for, beyond its words: the things seed
// 001's additive points reward only when they are asked for.
type asks struct {
	removal   bool    // why or where something went
	takenOut  bool    // why something was taken out: a commit that says it removes answers it
	revert    bool    // why a change was undone
	rationale bool    // a why: stated reasons answer it
	security  bool    // a security question: security changes answer it
	recent    bool    // the last days' changes
	evolution bool    // how something evolved: its origin answers it first
	behaviour bool    // why something behaves as it does now: a changed default answers it
	when      windows // the times the question names: commits of then answer it
	feature   bool    // where a capability came from: the commit that added it answers it
}

var (
	securityMarkers = []string{"secur", "vulnerab", "cve", "exploit", "attack", "xss", "csrf", "injection", "sanitiz",
		"unsafe", "malicious", "безопасн", "уязвим"}
	recentMarkers = []string{"recent", "lately", "last week", "yesterday", "today", "this week", "just now",
		"недавн", "вчера", "сегодня"}
	// behaviourMarkers are words of a question about a behaviour that is
	// or became so ("why does it now...", "used to", "out of the box"); each
	// matches at a word's start, so "now" also finds "nowadays".
	behaviourMarkers = []string{"now", "used to", "anymore", "any more", "no longer", "instead", "rather than",
		"flip", "switch", "changed", "default", "out of the box", "these days", "years ago", "stopped",
		"started", "unless", "on its own", "automatically", "without asking", "older version", "earlier version",
		"теперь", "раньше", "по умолчанию", "больше не"}
	// featureMarkers are words of a question about where a capability
	// came from ("when did it gain", "which change added", "since when").
	featureMarkers = []string{"when did", "when was", "since when", "which change added", "which change let",
		"which change introduced", "which commit introduced", "where did", "introduc", "first added", "came from",
		"come from", "gain", "become possible", "became possible", "start shipping", "start accepting",
		"когда появил", "когда добавил", "откуда взял", "какой коммит добавил"}
	evolutionMarkers = []string{"evolve", "evolution", "history of", "over time", "over the years", "first added",
		"first introduced", "came to be", "changed over", "развива", "эволюц", "истори"}
)

// askedFor reads what a question asks for from its words and intent.
func askedFor(q, intent string) asks {
	t := markerText(q)
	return asks{
		removal:   hasMarker(t, removalMarkers),
		takenOut:  hasMarker(t, takenOutMarkers),
		revert:    hasMarker(t, revertMarkers),
		rationale: intent == IntentExplain,
		security:  hasMarker(t, securityMarkers),
		recent:    hasMarker(t, recentMarkers),
		evolution: hasMarker(t, evolutionMarkers),
		behaviour: intent == IntentExplain && hasMarker(t, behaviourMarkers),
		when:      whenWindows(q),
		feature:   hasMarker(t, featureMarkers),
	}
}
