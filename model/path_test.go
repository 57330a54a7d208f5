package model

import (
	"strings"
	"testing"
)

func TestNormalizePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"/", ""},
		{".", ""},
		{"./", ""},
		{"..", ""},
		{"../..", ""},
		{"   ", ""},
		{"a", "a"},
		{"src/main.go", "src/main.go"},
		{"/src/main.go", "src/main.go"},
		{"./src/main.go", "src/main.go"},
		{"src/main.go/", "src/main.go"},
		{"src//pkg///x.go", "src/pkg/x.go"},
		{`src\pkg\x.go`, "src/pkg/x.go"},
		{`.\src\x.go`, "src/x.go"},
		{"src/./pkg/./x.go", "src/pkg/x.go"},
		{"src/pkg/../x.go", "src/x.go"},
		{"src/../../x.go", "x.go"},
		{"../../etc/passwd", "etc/passwd"},
		{"a/b/c/../../d", "a/d"},
		{"  src/main.go\n", "src/main.go"},
		{"\tsrc/main.go ", "src/main.go"},
		{"Src/Main.go", "Src/Main.go"},
		{"a/.../b", "a/.../b"},
		{"a/.hidden/b", "a/.hidden/b"},
		{"a/..b/c", "a/..b/c"},
		{"dir with space/file name.txt", "dir with space/file name.txt"},
		{"a/ b /c", "a/ b /c"},
		// Trimming can expose a "." or ".." segment, which still resolves.
		{"/ ../a", "a"},
		{"/ ./a", "a"},
		{"a/b/.. ", "a"},
		{"a/b /.. ", "a"},
		{"a/.. /..", "a"},
		{"x/../  ../a", "a"},
		{". /a", ". /a"},
		{"/ / / a", "a"},
		{"a / / /", "a"},
		{"日本/語/ファイル.go", "日本/語/ファイル.go"},
		{"\xff/\xfe/../x", "\xff/x"},
		{"\u00a0a\u00a0", "a"},
	}
	for _, tt := range tests {
		if got := NormalizePath(tt.in); got != tt.want {
			t.Errorf("NormalizePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
		checkNormalized(t, tt.in)
	}
}

func TestPathWithin(t *testing.T) {
	tests := []struct {
		record, candidate string
		exact, prefix     bool
	}{
		{"src/foo.go", "src/foo.go", true, false},
		{"", "", true, false},
		{"src/foo", "src/foo/x.go", false, true},
		{"src/foo/x.go", "src/foo", false, true},
		{"src/foo", "src/foobar", false, false},
		{"src/foobar", "src/foo", false, false},
		{"src/foo", "src/foo.go", false, false},
		{"", "src/foo.go", false, true},
		{"src/foo.go", "", false, true},
		{"src", "lib/src", false, false},
		{"a/b", "a/c", false, false},
		{"Src", "src/x", false, false},
	}
	for _, tt := range tests {
		exact, prefix := PathWithin(tt.record, tt.candidate)
		if exact != tt.exact || prefix != tt.prefix {
			t.Errorf("PathWithin(%q, %q) = %v, %v; want %v, %v",
				tt.record, tt.candidate, exact, prefix, tt.exact, tt.prefix)
		}
	}
}

// checkNormalized asserts the invariants of NormalizePath's result for in.
func checkNormalized(t *testing.T, in string) {
	t.Helper()
	out := NormalizePath(in)
	if again := NormalizePath(out); again != out {
		t.Errorf("not idempotent: %q -> %q -> %q", in, out, again)
	}
	if strings.Contains(out, "//") || strings.Contains(out, `\`) {
		t.Errorf("NormalizePath(%q) = %q contains // or \\", in, out)
	}
	if strings.HasPrefix(out, "/") || strings.HasSuffix(out, "/") {
		t.Errorf("NormalizePath(%q) = %q starts or ends with /", in, out)
	}
	if out == "" {
		return
	}
	for s := range strings.SplitSeq(out, "/") {
		if s == "." || s == ".." {
			t.Errorf("NormalizePath(%q) = %q has a %q segment", in, out, s)
		}
	}
	if strings.TrimSpace(out) != out {
		t.Errorf("NormalizePath(%q) = %q has surrounding whitespace", in, out)
	}
}

func FuzzNormalizePath(f *testing.F) {
	for _, s := range []string{
		"", "/", ".", "..", "./a", "../a", "a/../..", `a\b\..\c`, "a//b",
		" / ../a", "a/b/.. ", "a/.. /..", ". /a", "\xff/..", "\u00a0/a\u2028",
		"src/pkg/x.go", "C:\\Users\\x", "/ / / a", "a/ b /c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkNormalized(t, in)
		out := NormalizePath(in)
		exact, prefix := PathWithin(out, out)
		if !exact || prefix {
			t.Errorf("PathWithin(%q, itself) = %v, %v", out, exact, prefix)
		}
	})
}

func TestQuotePathRoundTrips(t *testing.T) {
	cases := []struct{ in, quoted string }{
		{"src/main.go", "src/main.go"},
		{"café.txt", "café.txt"}, // valid UTF-8 stays as it is
		{"caf\xe9.txt", `"caf\351.txt"`},
		{"a\tb\nc", `"a\tb\nc"`},
		{`say "hi"\now`, `"say \"hi\"\\now"`},
		{"\x01\x7f\xff", `"\001\177\377"`},
	}
	for _, c := range cases {
		if got := QuotePath(c.in); got != c.quoted {
			t.Errorf("QuotePath(%q) = %q, want %q", c.in, got, c.quoted)
		}
		if got := UnquotePath(QuotePath(c.in)); got != c.in {
			t.Errorf("UnquotePath(QuotePath(%q)) = %q", c.in, got)
		}
	}
	// git's own quoting (core.quotePath) of a UTF-8 name is read back too.
	if got := UnquotePath(`"caf\303\251.txt"`); got != "café.txt" {
		t.Errorf("git-quoted UTF-8: %q", got)
	}
	for _, s := range []string{`"`, `"unterminated\"`, `"bad \q escape"`, `"a"b"`, `plain"`, `"\9"`} {
		if got := UnquotePath(s); got != s {
			t.Errorf("UnquotePath(%q) = %q, want it unchanged", s, got)
		}
	}
}
