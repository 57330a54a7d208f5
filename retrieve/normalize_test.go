package retrieve

import (
	"slices"
	"testing"
)

func TestWithSpellings(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"terminal", "colours"}, []string{"terminal", "colours", "colors"}},
		{[]string{"behaviour", "favourite"}, []string{"behaviour", "favourite", "behavior", "favorite"}},
		{[]string{"coloured", "honours"}, []string{"coloured", "honours", "colored", "honors"}},
		// Words that merely contain "our" stay as they are.
		{[]string{"source", "hour", "colourless", "four"}, []string{"source", "hour", "colourless", "four"}},
		{[]string{"raise", "promise"}, []string{"raise", "promise"}},
	} {
		if got := withSpellings(slices.Clone(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("withSpellings(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSearchFindsAmericanSpellingOfBritishWords(t *testing.T) {
	terms := withSpellings(Normalize("Why are the colours of the output configurable?"))
	if !slices.Contains(terms, "colors") || !slices.Contains(terms, "colours") {
		t.Fatalf("terms %q: want both spellings", terms)
	}
}

func TestNumberTerms(t *testing.T) {
	for q, want := range map[string][]string{
		"JSON nested up to ten thousand levels deep":         {"10000"},
		"a query of more than a thousand characters":         {"1000"},
		"why is the limit ten million items":                 {"10000000"},
		"twenty four hours, then sixteen retries":            {"24", "16"},
		"one hundred and fifty":                              {"100", "50"},
		"one of the two flags, a few words":                  nil,
		"THREE HUNDRED files":                                {"300"},
		"nine lives":                                         nil,
		"an issue about seventy-five percent of the entries": {"75"},
	} {
		if got := numberTerms(q); !slices.Equal(got, want) {
			t.Errorf("numberTerms(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestAbbreviationTerms(t *testing.T) {
	for q, want := range map[string][]string{
		"Why can I now send fzf's stderr to a file?":          {"standard error"},
		"output goes to standard error instead":               {"stderr"},
		"a Regex with named groups":                           {"regular expression"},
		"set through an environment variable":                 {"env", "envvar"},
		"a regular expression that never matches":             {"regex", "regexp"},
		"why is the stderr-only mode a CLI flag":              {"standard error", "command line"},
		"nothing abbreviated here, a terminal-free envelope":  {"tty"},
		"senv and stderrs are not words of the table":         nil,
		"the out of memory killer and the garbage collection": {"gc", "oom", "ram"},
		"hot reload made the component vanish":                {"hmr"},
		"the SSR output of a bound select":                    {"server side rendering", "server rendering"},
		"it died with a segmentation fault":                   {"segfault", "segv"},
		"which repo dir holds the config?":                    {"repository", "directory", "configuration"},
	} {
		if got := abbreviationTerms(q); !slices.Equal(got, want) {
			t.Errorf("abbreviationTerms(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestCompoundTerms(t *testing.T) {
	for q, want := range map[string][]string{
		"Why is the built-in walker used?":              {"builtin"},
		"a multi-select, full-screen list":              {"multiselect", "fullscreen"},
		"non-ASCII names and a state-of-the-art parser": {"nonascii", "stateoftheart"},
		"no compounds, a -flag, x86-64 and utf-8 here":  nil,
	} {
		if got := compoundTerms(q); !slices.Equal(got, want) {
			t.Errorf("compoundTerms(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestSearchTermsKeepTheWordsFirst(t *testing.T) {
	raw := "Why is the built-in stderr colour limit ten thousand?"
	words := Normalize(raw)
	got := searchTerms(raw, words)
	if !slices.Equal(got[:len(words)], words) {
		t.Fatalf("searchTerms %q: want the words %q first", got, words)
	}
	for _, w := range []string{"color", "10000", "standard error", "builtin"} {
		if !slices.Contains(got[len(words):], w) {
			t.Errorf("searchTerms %q: no %q", got, w)
		}
	}
	if again := Normalize(raw); !slices.Equal(words, again) {
		t.Errorf("the question's words changed: %q, want %q", words, again)
	}
}
