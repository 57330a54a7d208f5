package store

import (
	"slices"
	"strings"
	"testing"
)

func TestIdentifierParts(t *testing.T) {
	for in, want := range map[string][]string{
		"parseConfigFile": {"parse", "config", "file"},
		"HTTPServer2":     {"http", "server", "2"},
		"snake_case_name": {"snake", "case", "name"},
		"XMLHttpRequest":  {"xml", "http", "request"},
		"plain":           {"plain"},
		"ExecuteC":        {"execute", "c"},
		"__init__":        {"init"},
		"парсерКонфига":   {"парсер", "конфига"},
	} {
		if got := IdentifierParts(in); !slices.Equal(got, want) {
			t.Errorf("IdentifierParts(%q) = %q, want %q", in, got, want)
		}
	}
	got := SearchText("fix parseConfigFile in os.Args")
	if !strings.HasPrefix(got, "fix parseConfigFile in os.Args\n") || !strings.HasSuffix(got, "parse config file") {
		t.Errorf("SearchText = %q", got)
	}
	if got := SearchText("nothing to split here"); got != "nothing to split here" {
		t.Errorf("SearchText of plain words = %q", got)
	}
}

func FuzzIdentifierParts(f *testing.F) {
	for _, s := range []string{"parseConfigFile", "HTTPServer2", "a_b", "", "ÄÖÜ", "x\x00y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range IdentifierParts(s) {
			if p == "" || strings.Contains(p, "_") {
				t.Fatalf("IdentifierParts(%q) has part %q", s, p)
			}
		}
		if got := SearchText(s); !strings.HasPrefix(got, s) {
			t.Fatalf("SearchText(%q) = %q loses the text", s, got)
		}
	})
}

func TestCompoundPartsUnderscoreEdges(t *testing.T) {
	for w, want := range map[string]string{
		"_headers":   "headers",
		"__init__":   "init",
		"res_":       "res",
		"parseURL":   "parse url",
		"headers":    "",
		"HTTP":       "",
		"snake_case": "snake case",
	} {
		if got := strings.Join(CompoundParts(w), " "); got != want {
			t.Errorf("CompoundParts(%q) = %q, want %q", w, got, want)
		}
	}
	if got := SearchText("Remove usage of res._headers private field"); !strings.HasSuffix(got, "\nheaders") {
		t.Errorf("SearchText kept no part of _headers: %q", got)
	}
}

func FuzzIdentifierPartCount(f *testing.F) {
	for _, s := range []string{"parseConfigFile", "HTTPServer2", "snake_case", "_headers", "plain", "Ünïcode_Wörd", "a__b", "\xffAb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := identifierPartCount(s), len(IdentifierParts(s)); got != want {
			t.Fatalf("identifierPartCount(%q) = %d, want %d", s, got, want)
		}
		plain := !strings.Contains(s, "_") && len(IdentifierParts(s)) <= 1
		if plain && len(IdentifierParts(s)) == 1 && IdentifierParts(s)[0] != strings.ToLower(s) {
			t.Fatalf("%q: one part %q without underscores is not the word lower-cased", s, IdentifierParts(s)[0])
		}
	})
}

func FuzzIdentWords(f *testing.F) {
	for _, s := range []string{"a b", "  parse_config(File) ", "x\xffy", "é,ü;", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.FieldsFunc(s, func(r rune) bool { return !isIdentRune(r) })
		if got := slices.Collect(identWords(s)); !slices.Equal(got, want) {
			t.Fatalf("identWords(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestIdentifierPartCountAllocatesNothing: it runs for every word of every
// commit's keyword text, where allocating was most of its cost.
func TestIdentifierPartCountAllocatesNothing(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { identifierPartCount("parseHTTPConfig_file2") }); n != 0 {
		t.Errorf("identifierPartCount allocates %v times a call", n)
	}
}
