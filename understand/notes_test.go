package understand

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// dntNote is the part of a note a table checks.
type dntNote struct {
	Source   string
	Path     string
	Line     int
	Marker   string
	Text     string
	Entities []string
}

func dntProject(ns []model.DesignNote) []dntNote {
	out := make([]dntNote, 0, len(ns))
	for _, n := range ns {
		out = append(out, dntNote{n.Source, n.Path, n.Line, n.Marker, n.Text, n.Entities})
	}
	return out
}

func dntCheck(t *testing.T, got []model.DesignNote, want []dntNote) {
	t.Helper()
	g := dntProject(got)
	if len(g) != len(want) {
		t.Errorf("got %d notes, want %d:\n%s", len(g), len(want), dntDump(g))
		return
	}
	for i := range want {
		if !reflect.DeepEqual(g[i], want[i]) {
			t.Errorf("note %d:\n got %#v\nwant %#v", i, g[i], want[i])
		}
	}
}

func dntDump(ns []dntNote) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "  %#v\n", n)
	}
	return b.String()
}

func dntMsg(marker, text string, entities ...string) dntNote {
	return dntNote{Source: "message", Marker: marker, Text: text, Entities: entities}
}

func dntCmt(path string, line int, marker, text string, entities ...string) dntNote {
	return dntNote{Source: "comment", Path: path, Line: line, Marker: marker, Text: text, Entities: entities}
}

func TestDesignNotesMessage(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want []dntNote
	}{
		{
			name: "english paragraphs and trailers",
			msg: `Cache parsed config in loader

The config was parsed on every request because loadConfig() had no cache.
This doubled p99 latency under load. Wrap the parse in sync.Once so that
concurrent callers share one result.

Signed-off-by: Jane Doe <jane@example.com>
Change-Id: I8f2c1e4b7a9d0c3e5f6a7b8c9d0e1f2a3b4c5d6e
Reviewed-by: Bob <bob@example.com> because he asked
`,
			want: []dntNote{
				dntMsg("because", "The config was parsed on every request because loadConfig() had no cache.", "loadConfig"),
				dntMsg("so that", "Wrap the parse in sync.Once so that concurrent callers share one result.", "sync.Once"),
			},
		},
		{
			name: "temporal since is not rationale",
			msg: `Deprecate the v1 API

Deprecated since v2.0. It has been broken since 2019 and works since Go 1.21 only.
Callers have been warned ever since. Since then nobody used it.
Since the rewrite the parser allocates less.
Drop it since nobody calls it anymore.
`,
			want: []dntNote{
				dntMsg("since", "Drop it since nobody calls it anymore."),
			},
		},
		{
			name: "subject line, bullets, headings",
			msg: `Use a pooled buffer to avoid allocations in Encode

## Why
- Move backoff into internal/retry/retry.go to avoid an import cycle
- Rename doRetry to Retry
* Keep the old name for backward compatibility;
  it is exported and used by plugins.
1. Unfortunately the pool cannot be shared across goroutines.
`,
			want: []dntNote{
				dntMsg("to avoid", "Use a pooled buffer to avoid allocations in Encode"),
				dntMsg("to avoid", "Move backoff into internal/retry/retry.go to avoid an import cycle", "internal/retry/retry.go"),
				dntMsg("backward compatibility", "Keep the old name for backward compatibility; it is exported and used by plugins."),
				dntMsg("unfortunately", "Unfortunately the pool cannot be shared across goroutines."),
			},
		},
		{
			name: "quoted mail, fenced code and a diff are ignored",
			msg: `Fix nil map write in Registry.Add

On Tue, Mar 3, 2025 at 10:00 AM Alice <alice@example.com> wrote:
> We must lock here because the map is shared.
> Otherwise writes race.

` + "```" + `
// retry because the server is flaky
if err != nil { return err }
` + "```" + `

diff --git a/registry.go b/registry.go
--- a/registry.go
+++ b/registry.go
@@ -1,3 +1,4 @@
+	// lock because the map is shared
 	r.m[k] = v

The lock is taken in Add rather than in the caller, due to the many call sites.
`,
			want: []dntNote{
				dntMsg("rather than", "The lock is taken in Add rather than in the caller, due to the many call sites."),
			},
		},
		{
			name: "trailer-like prose is kept, ID trailers are dropped",
			msg: `Retry uploads on 503

Fixes: #4411
Fixes: crash on upload because the client retried without a body
Bug: 123456
Note: the retry budget is shared, so that one slow file cannot starve others.
Tested-by: CI
`,
			want: []dntNote{
				dntMsg("because", "Fixes: crash on upload because the client retried without a body"),
				dntMsg("note", "Note: the retry budget is shared, so that one slow file cannot starve others."),
			},
		},
		{
			name: "english markers",
			msg: `Rework cache eviction

We chose an LRU over LFU: the trade-off is worse hit rates for scans.
The old code evicted eagerly in order to bound memory, at the cost of latency.
As a result, p50 improved. The reason is fewer locks.
This is needed for compatibility with Redis 6.
Without this, readers may see torn writes.
Caveat: eviction is approximate. Note that TTLs are rounded.
This is a workaround for golang/go#12345; we work around it by retrying.
Keep the mutex instead of atomics. Otherwise the tests flake.
The limit is 10 to prevent abuse, b/c of spam.
`,
			want: []dntNote{
				dntMsg("we chose", "We chose an LRU over LFU: the trade-off is worse hit rates for scans."),
				dntMsg("in order to", "The old code evicted eagerly in order to bound memory, at the cost of latency."),
				dntMsg("as a result", "As a result, p50 improved."),
				dntMsg("the reason", "The reason is fewer locks."),
				dntMsg("this is needed", "This is needed for compatibility with Redis 6."),
				dntMsg("without this", "Without this, readers may see torn writes."),
				dntMsg("caveat", "Caveat: eviction is approximate."),
				dntMsg("note that", "Note that TTLs are rounded."),
				dntMsg("workaround", "This is a workaround for golang/go#12345; we work around it by retrying."),
				dntMsg("instead of", "Keep the mutex instead of atomics."),
				dntMsg("otherwise", "Otherwise the tests flake."),
				dntMsg("to prevent", "The limit is 10 to prevent abuse, b/c of spam."),
			},
		},
		{
			name: "russian markers and stems",
			msg: `Кэш конфигурации: исправлена гонка

Раньше конфиг перечитывался на каждый запрос, потому, что loadConfig не кэшировал результат.
Добавлен sync.Once, чтобы параллельные вызовы разделяли один разбор.
Так как тесты запускаются параллельно, используем t.Setenv.
Это компромиссное решение. Пошли обходным путём через retry_count.
Сделано так, как описано в RFC 7234. Иначе говоря, это рефакторинг.
В противном случае кэш протухает. Блокировка берётся т.к. иначе map ломается.
Для того, чтобы не блокировать чтение, используем RWMutex.
Во избежание утечек закрываем тело ответа. Поскольку Close идемпотентен, это безопасно.
Вместо мьютекса можно было взять atomic. Из-за этого тесты падали.
Это костыль до выхода v2.
`,
			want: []dntNote{
				dntMsg("потому что", "Раньше конфиг перечитывался на каждый запрос, потому, что loadConfig не кэшировал результат.", "loadConfig"),
				dntMsg("чтобы", "Добавлен sync.Once, чтобы параллельные вызовы разделяли один разбор.", "sync.Once"),
				dntMsg("так как", "Так как тесты запускаются параллельно, используем t.Setenv.", "t.Setenv"),
				dntMsg("компромисс", "Это компромиссное решение."),
				dntMsg("обходной путь", "Пошли обходным путём через retry_count.", "retry_count"),
				dntMsg("в противном случае", "В противном случае кэш протухает."),
				dntMsg("так как", "Блокировка берётся т.к. иначе map ломается."),
				dntMsg("для того чтобы", "Для того, чтобы не блокировать чтение, используем RWMutex.", "RWMutex"),
				dntMsg("во избежание", "Во избежание утечек закрываем тело ответа."),
				dntMsg("поскольку", "Поскольку Close идемпотентен, это безопасно."),
				dntMsg("вместо", "Вместо мьютекса можно было взять atomic."),
				dntMsg("из-за", "Из-за этого тесты падали."),
				dntMsg("костыль", "Это костыль до выхода v2."),
			},
		},
		{
			name: "mixed english and russian",
			msg: `fix(api): retry idempotent requests / повтор идемпотентных запросов

Retry GET and PUT only, since POST is not idempotent.
Повторяем только GET и PUT, поскольку POST не идемпотентен.

Co-authored-by: Иван Петров <ivan@example.ru>
`,
			want: []dntNote{
				dntMsg("since", "Retry GET and PUT only, since POST is not idempotent."),
				dntMsg("поскольку", "Повторяем только GET и PUT, поскольку POST не идемпотентен."),
			},
		},
		{
			name: "no rationale",
			msg:  "Bump golang.org/x/net to v0.57.0\n\nSigned-off-by: Bot <bot@example.com>\n",
			want: nil,
		},
		{
			name: "abbreviations do not split sentences",
			msg:  "Fix parser\n\nUse a stack, e.g. Vec, because recursion overflows. Done.",
			want: []dntNote{dntMsg("because", "Use a stack, e.g. Vec, because recursion overflows.")},
		},
		{
			name: "CRLF line ends",
			msg:  "Fix build on Windows\r\n\r\nQuote the path because it may contain spaces.\r\n",
			want: []dntNote{dntMsg("because", "Quote the path because it may contain spaces.")},
		},
		{
			name: "empty",
			msg:  "",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &model.Commit{Hash: "abc123", Message: tt.msg}
			got := DesignNotes(c)
			dntCheck(t, got, tt.want)
			for _, n := range got {
				if n.Commit != "abc123" {
					t.Errorf("Commit = %q", n.Commit)
				}
			}
		})
	}
}

func TestDesignNotesLongSentenceClipped(t *testing.T) {
	long := "We keep the whole index in memory because " + strings.Repeat("lookups on the cold path are slow ", 40) + "end."
	got := DesignNotes(&model.Commit{Hash: "h", Message: "Subject\n\n" + long})
	if len(got) != 1 {
		t.Fatalf("got %d notes", len(got))
	}
	text := got[0].Text
	if n := utf8.RuneCountInString(text); n > 500 || n < 450 {
		t.Errorf("clipped to %d runes", n)
	}
	if !strings.HasSuffix(text, "slow…") && !strings.HasSuffix(text, "path…") && !strings.HasSuffix(text, "are…") &&
		!strings.HasSuffix(text, "lookups…") && !strings.HasSuffix(text, "on…") && !strings.HasSuffix(text, "the…") && !strings.HasSuffix(text, "cold…") {
		t.Errorf("not cut on a word boundary: %q", text[len(text)-30:])
	}
	// Cyrillic: runes, not bytes.
	ru := "Храним индекс в памяти, потому что " + strings.Repeat("холодные чтения медленные ", 40)
	got = DesignNotes(&model.Commit{Message: "Тема\n\n" + ru})
	if len(got) != 1 || utf8.RuneCountInString(got[0].Text) > 500 || !strings.HasSuffix(got[0].Text, "…") || !utf8.ValidString(got[0].Text) {
		t.Fatalf("russian clip: %+v", got)
	}
}

func TestDesignNotesClipOneWord(t *testing.T) {
	w := strings.Repeat("ж", 800)
	got := dnClip(w)
	if utf8.RuneCountInString(got) != 500 || !strings.HasSuffix(got, "…") {
		t.Errorf("clip of one long word: %d runes", utf8.RuneCountInString(got))
	}
}

func dntGoHunks() []model.Hunk {
	return []model.Hunk{
		{OldStart: 10, OldLines: 5, NewStart: 10, NewLines: 9, Text: "" +
			" func (l *Loader) Load() (*Config, error) {\n" + // 10
			"-\t// NOTE: removed note, not in the new file\n" +
			"+\t// NOTE: the config is read once because\n" + // 11
			"+\t// parsing it is slow (see config/parse.go).\n" + // 12
			"+\tl.once.Do(l.parse)\n" + // 13
			" \t// NOTE: context note, not added by this commit\n" + // 14
			"+\t// TODO: make the TTL configurable, because users asked\n" + // 15
			"+\tttl := 5 * time.Minute // HACK: avoid a zero TTL from old files\n" + // 16
			"-\treturn l.cfg, nil\n" +
			"+\treturn l.cfg, l.err\n" + // 17
			" }\n"}, // 18
		{OldStart: 40, OldLines: 2, NewStart: 44, NewLines: 6, Text: "" +
			" \n" + // 44
			"+// FIXME: leaks the file handle on error\n" + // 45
			"+func (l *Loader) reload() {\n" + // 46
			"+\t// FIXME: reads the file twice because fsnotify fires two events\n" + // 47
			"+\tl.parse()\n" + // 48
			" }\n"}, // 49
	}
}

func TestDesignNotesComments(t *testing.T) {
	c := &model.Commit{
		Hash:    "def456",
		Message: "Load config once\n\nParse lazily so that startup stays fast.\n",
		Changes: []model.FileChange{
			{Path: "config/loader.go", Status: model.Modified, Language: "Go", Hunks: dntGoHunks()},
			{Path: "vendor/github.com/x/y/y.go", Status: model.Modified, Skipped: model.SkipVendor, Hunks: []model.Hunk{
				{NewStart: 1, NewLines: 1, Text: "+// NOTE: vendored, must be skipped\n"},
			}},
			{Path: "settings.py", Status: model.Added, Language: "Python", Hunks: []model.Hunk{
				{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 14, Text: "" +
					"+import os\n" + // 1
					"+\n" + // 2
					"+# WHY: TIMEOUT is read at import time\n" + // 3
					"+# to avoid races with tests that patch os.environ.\n" + // 4
					"+TIMEOUT = int(os.environ.get(\"TIMEOUT\", \"30\"))  # seconds\n" + // 5
					"+URL = \"http://example.com/#NOTE\"\n" + // 6
					"+\n" + // 7
					"+def load():\n" + // 8
					"+    \"\"\"Load settings.\n" + // 9
					"+\n" + // 10
					"+    Values are cached because the file is on NFS.\n" + // 11
					"+    \"\"\"\n" + // 12
					"+    return _cache()  # XXX: not thread-safe\n" + // 13
					"+\n"}, // 14
			}},
			{Path: "db/migrations/0042_orders.sql", Status: model.Added, Hunks: []model.Hunk{
				{NewStart: 1, NewLines: 3, Text: "" +
					"+-- NOTE: the index is partial to keep writes on archived rows cheap\n" +
					"+CREATE INDEX orders_open ON orders (created_at) WHERE NOT archived;\n" +
					"+ALTER TABLE orders ADD COLUMN note text; -- nullable because old rows have none\n"},
			}},
			{Path: "deploy/values.yaml", Status: model.Modified, Hunks: []model.Hunk{
				{OldStart: 3, OldLines: 2, NewStart: 3, NewLines: 3, Text: "" +
					" dns:\n" + // 3
					"+  retries: 5 # workaround for flaky resolvers in CI\n" + // 4
					"   color: \"#fff\"\n"}, // 5
			}},
			{Path: "docs/api.md", Status: model.Modified, Hunks: []model.Hunk{
				{OldStart: 7, NewStart: 7, Text: "" +
					" # API\n" +
					"+<!-- IMPORTANT: keep in sync with `internal/api/routes.go` -->\n" +
					"+Note that the # heading is not a comment, because Markdown.\n"},
			}},
			{Path: "src/buf.c", Status: model.Modified, Hunks: []model.Hunk{
				{OldStart: 1, NewStart: 1, Text: "" +
					"+/*\n" + // 1
					"+ * We copy the buffer rather than alias it: the caller frees it.\n" + // 2
					"+ * Without this the parser in parse_buf() reads freed memory.\n" + // 3
					"+ */\n" + // 4
					"+static char *copy(const char *s);\n"}, // 5
				{OldStart: 20, NewStart: 25, Text: "" +
					"  * Existing block comment.\n" + // 25
					"+ * NOTE: added inside a block whose opening is not in the hunk.\n" + // 26
					"  */\n"}, // 27
			}},
			{Path: "lisp/init.el", Status: model.Modified, Hunks: []model.Hunk{
				{NewStart: 3, Text: "+;; XXX: byte-compile first\n"},
			}},
			{Path: "lib/util.lua", Status: model.Modified, Hunks: []model.Hunk{
				{NewStart: 1, Text: "+--[[ HACK: Lua 5.1 has no goto,\n+so we loop instead ]]\n+local x = 1\n"},
			}},
			{Path: "assets/logo.png", Status: model.Modified, Binary: true, Skipped: model.SkipBinary},
		},
	}
	want := []dntNote{
		dntMsg("so that", "Parse lazily so that startup stays fast."),
		dntCmt("config/loader.go", 11, "NOTE", "NOTE: the config is read once because parsing it is slow (see config/parse.go).", "config/parse.go"),
		dntCmt("config/loader.go", 16, "HACK", "HACK: avoid a zero TTL from old files"),
		dntCmt("config/loader.go", 47, "because", "FIXME: reads the file twice because fsnotify fires two events"),
		dntCmt("settings.py", 3, "WHY", "WHY: TIMEOUT is read at import time to avoid races with tests that patch os.environ."),
		dntCmt("settings.py", 9, "because", "Load settings. Values are cached because the file is on NFS."),
		dntCmt("settings.py", 13, "XXX", "XXX: not thread-safe"),
		dntCmt("db/migrations/0042_orders.sql", 1, "NOTE", "NOTE: the index is partial to keep writes on archived rows cheap"),
		dntCmt("db/migrations/0042_orders.sql", 3, "because", "nullable because old rows have none"),
		dntCmt("deploy/values.yaml", 4, "workaround", "workaround for flaky resolvers in CI"),
		dntCmt("docs/api.md", 8, "IMPORTANT", "IMPORTANT: keep in sync with `internal/api/routes.go`", "internal/api/routes.go"),
		dntCmt("src/buf.c", 1, "without this", "We copy the buffer rather than alias it: the caller frees it. Without this the parser in parse_buf() reads freed memory.", "parse_buf"),
		dntCmt("src/buf.c", 26, "NOTE", "NOTE: added inside a block whose opening is not in the hunk."),
		dntCmt("lisp/init.el", 3, "XXX", "XXX: byte-compile first"),
		dntCmt("lib/util.lua", 1, "HACK", "HACK: Lua 5.1 has no goto, so we loop instead"),
	}
	got := DesignNotes(c)
	dntCheck(t, got, want)
	for _, n := range got {
		if n.Commit != "def456" {
			t.Errorf("Commit = %q", n.Commit)
		}
	}
	// Deterministic.
	if again := DesignNotes(c); !reflect.DeepEqual(got, again) {
		t.Error("not deterministic")
	}
}

func TestDesignNotesCommentNegatives(t *testing.T) {
	tests := []struct {
		name string
		fc   model.FileChange
	}{
		{"removed NOTE", model.FileChange{Path: "a.go", Hunks: []model.Hunk{{NewStart: 1, Text: "-// NOTE: gone because old\n x := 1\n"}}}},
		{"context NOTE", model.FileChange{Path: "a.go", Hunks: []model.Hunk{{NewStart: 1, Text: " // NOTE: old because reasons\n+x := 1\n"}}}},
		{"TODO", model.FileChange{Path: "a.go", Hunks: []model.Hunk{{NewStart: 1, Text: "+// TODO: cache this because it is slow\n+// NOTE continued\n"}}}},
		{"todo lower", model.FileChange{Path: "a.py", Hunks: []model.Hunk{{NewStart: 1, Text: "+# todo(bob): avoid the copy, to avoid GC\n"}}}},
		{"FIXME alone", model.FileChange{Path: "a.go", Hunks: []model.Hunk{{NewStart: 1, Text: "+// FIXME: handle EOF\n"}}}},
		{"note in a string", model.FileChange{Path: "a.go", Hunks: []model.Hunk{{NewStart: 1, Text: "+s := \"// NOTE: not a comment because quoted\"\n+u := \"http://x/#y\"\n"}}}},
		{"otherwise in a doc comment", model.FileChange{Path: "a.go", Hunks: []model.Hunk{{NewStart: 1, Text: "+// Find returns the item, or nil otherwise.\n+// It uses a map instead of a slice.\n+func Find() {}\n"}}}},
		{"licence header", model.FileChange{Path: "a.go", Hunks: []model.Hunk{{NewStart: 1, Text: "+// Copyright (c) 2025 Acme.\n+// Licensed under the Apache License because IMPORTANT.\n"}}}},
		{"generated", model.FileChange{Path: "api.pb.go", Skipped: model.SkipGen, Hunks: []model.Hunk{{NewStart: 1, Text: "+// NOTE: generated\n"}}}},
		{"prose file", model.FileChange{Path: "NOTES.txt", Hunks: []model.Hunk{{NewStart: 1, Text: "+# NOTE: a heading because txt\n"}}}},
		{"shell hash in word", model.FileChange{Path: "run.sh", Hunks: []model.Hunk{{NewStart: 1, Text: "+echo ${#NOTE}\n+n=$# \n"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &model.Commit{Hash: "h", Changes: []model.FileChange{tt.fc}}
			if got := DesignNotes(c); len(got) != 0 {
				t.Errorf("want no notes, got:\n%s", dntDump(dntProject(got)))
			}
		})
	}
}

func TestDesignNotesLineNumbers(t *testing.T) {
	// Removed lines do not advance the new line number; "\ No newline"
	// lines are not lines; a line without prefix is a blank context line.
	c := &model.Commit{Changes: []model.FileChange{{Path: "x.ts", Hunks: []model.Hunk{
		{OldStart: 100, NewStart: 98, Text: "" +
			" a();\n" + // 98
			"-b();\n" +
			"-c();\n" +
			"\n" + // 99
			"+// NOTE: one\n" + // 100
			"\\ No newline at end of file\n" +
			"+d(); /* NOTE: two */\n" + // 101
			" e();\n" + // 102
			"+\n" + // 103
			"+  // HACK: three, spread\n" + // 104
			"-  old();\n" +
			"+  // over two lines\n"}, // 105
		{NewStart: 0, Text: "+// NOTE: malformed start counts from 1\n"},
	}}}}
	want := []dntNote{
		dntCmt("x.ts", 1, "NOTE", "NOTE: malformed start counts from 1"),
		dntCmt("x.ts", 100, "NOTE", "NOTE: one"),
		dntCmt("x.ts", 101, "NOTE", "NOTE: two"),
		dntCmt("x.ts", 104, "HACK", "HACK: three, spread over two lines"),
	}
	dntCheck(t, DesignNotes(c), want)
}

func TestDesignNotesEntities(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Call `Foo.Bar()` from pkg/store/db.go; parseConfig, snake_case_name and close() and README.md.",
			[]string{"Foo.Bar", "pkg/store/db.go", "parseConfig", "snake_case_name", "close", "README.md"}},
		{"and/or GitHub, JavaScript, https://example.com/a/b, v1.2.3, e.g. i.e. 3.14 @bob bob@example.com", nil},
		{"os.Exit and (*Server).Start and std::vector and User#save and `go test ./...`",
			[]string{"os.Exit", "std::vector", "User#save"}},
		{"dup parseConfig `parseConfig` parseConfig()", []string{"parseConfig"}},
		{"a_1 a_2 a_3 a_4 a_5 a_6 a_7 a_8 a_9 a_10 a_11", []string{"a_1", "a_2", "a_3", "a_4", "a_5", "a_6", "a_7", "a_8", "a_9", "a_10"}},
		{"Исправлен loadConfig в файле config.yaml и Makefile", []string{"loadConfig", "config.yaml", "Makefile"}},
		{"[REDACTED:generic-api-key] Node.js", nil},
	}
	for _, tt := range tests {
		if got := dnEntities(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("dnEntities(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDesignNotesMarkerChoice(t *testing.T) {
	tests := []struct {
		in, want string
		comment  bool
	}{
		{"we do x because y so that z", "because", false},
		{"do x so that y because z", "so that", false},
		{"для того чтобы x", "для того чтобы", false},
		{"x, чтобы y", "чтобы", false},
		{"since when?", "", false},
		{"since its introduction", "", false},
		{"since 3f2a9c1d the cache leaks", "", false},
		{"since this is hot, inline it", "since", false},
		{"since: 1.2", "", false},
		{"the file has changed since we opened it", "", false},
		{"it's been slow since we added tracing", "", false},
		{"we have to lock since the map is shared", "since", false},
		{"we've locked it since the map is shared", "", false},
		{"returns nil otherwise", "", true},
		{"returns nil otherwise", "otherwise", false},
		{"обходного пути нет", "обходной путь", false},
		{"компромиссы", "компромисс", false},
		{"потомучто", "", false},
		{"becauseof", "", false},
		{"trade-offs", "trade-off", false},
		{"the workarounds", "workaround", false},
		{"we've decided", "we decided", false},
		{"backwards-compatible", "backward compatibility", false},
		{"т. к. быстрее", "так как", false},
	}
	for _, tt := range tests {
		got, _ := dnFindMarker(tt.in, tt.comment)
		if got != tt.want {
			t.Errorf("dnFindMarker(%q, comment=%v) = %q, want %q", tt.in, tt.comment, got, tt.want)
		}
	}
}

func FuzzDesignNotes(f *testing.F) {
	f.Add("Fix x\n\nDo y because z.\n\nSigned-off-by: a <b@c>", "+// NOTE: why\n x\n-y\n", 1, "a.go")
	f.Add("Тема\n\nДелаем так, потому что иначе падает.", "+# WHY: ok\n+\"\"\"doc because x\n", 3, "a.py")
	f.Add("since v2.0", "+/* NOTE:\n+ * a\n+ */\n", 0, "a.c")
	f.Add("", "+--[[ HACK\n+ ]]\n", -5, "a.lua")
	f.Add("- a because b\n* c", "@@ -1 +7 @@\n+<!-- IMPORTANT -->\n", 9223372036854775807, "README.md")
	f.Add("\xff\xfe because \xc3", "+// NOTE \xff\n", 2, "x")
	f.Fuzz(func(t *testing.T, msg, hunk string, newStart int, path string) {
		c := &model.Commit{
			Hash:    "h",
			Message: msg,
			Changes: []model.FileChange{{Path: path, Hunks: []model.Hunk{{NewStart: newStart, Text: hunk}, {NewStart: newStart, Text: msg}}}},
		}
		notes := DesignNotes(c)
		for _, n := range notes {
			if n.Text == "" || strings.TrimSpace(n.Text) != n.Text {
				t.Fatalf("bad text %q", n.Text)
			}
			if utf8.RuneCountInString(n.Text) > 500 {
				t.Fatalf("text of %d runes", utf8.RuneCountInString(n.Text))
			}
			if !utf8.ValidString(n.Text) || !utf8.ValidString(n.Marker) || n.Marker == "" {
				t.Fatalf("bad text or marker %q %q", n.Text, n.Marker)
			}
			if len(n.Entities) > 10 {
				t.Fatalf("%d entities", len(n.Entities))
			}
			for _, e := range n.Entities {
				if e == "" || !utf8.ValidString(e) {
					t.Fatalf("bad entity %q", e)
				}
			}
			switch n.Source {
			case "message":
				if n.Path != "" || n.Line != 0 {
					t.Fatalf("message note with a location: %+v", n)
				}
			case "comment":
				if n.Line < 1 || n.Path != path {
					t.Fatalf("comment note at %q:%d", n.Path, n.Line)
				}
			default:
				t.Fatalf("source %q", n.Source)
			}
		}
		if again := DesignNotes(c); !reflect.DeepEqual(notes, again) {
			t.Fatal("not deterministic")
		}
	})
}

// dntBenchCommit is a commit with a ~1,000-word message and a ~20 KB diff.
func dntBenchCommit() *model.Commit {
	sentences := []string{
		"The loader now parses the configuration once because parsing is slow on NFS.",
		"This touches internal/config/loader.go and the parseConfig helper.",
		"Callers that relied on reloading must call Reload explicitly.",
		"We keep the old behaviour behind a flag for backward compatibility.",
		"Конфиг читается один раз, потому что разбор медленный.",
		"Benchmarks show a clear improvement on cold starts.",
		"The change is covered by new table tests in loader_test.go.",
		"Since v1.4 the flag was documented but never honoured.",
	}
	var msg strings.Builder
	msg.WriteString("Parse the configuration once\n\n")
	words := 0
	for i := 0; words < 1000; i++ {
		s := sentences[i%len(sentences)]
		msg.WriteString(s)
		words += len(strings.Fields(s))
		if i%4 == 3 {
			msg.WriteString("\n\n")
		} else {
			msg.WriteString(" ")
		}
	}
	msg.WriteString("\n\nSigned-off-by: Jane Doe <jane@example.com>\n")

	var diff strings.Builder
	for i := 0; diff.Len() < 20*1024; i++ {
		switch i % 6 {
		case 0:
			fmt.Fprintf(&diff, " func f%d(x int) int {\n", i)
		case 1:
			fmt.Fprintf(&diff, "+\t// NOTE: f%d clamps x because callers pass negative sizes\n", i)
		case 2:
			fmt.Fprintf(&diff, "+\t// and the allocator panics on them.\n")
		case 3:
			fmt.Fprintf(&diff, "-\treturn x * %d\n", i)
		case 4:
			fmt.Fprintf(&diff, "+\treturn max(x, 0) * %d // scale factor\n", i)
		case 5:
			fmt.Fprintf(&diff, " }\n")
		}
	}
	return &model.Commit{
		Hash:    "bench",
		Message: msg.String(),
		Changes: []model.FileChange{{Path: "internal/config/loader.go", Language: "Go", Hunks: []model.Hunk{
			{OldStart: 1, NewStart: 1, Text: diff.String()},
		}}},
	}
}

func BenchmarkDesignNotes(b *testing.B) {
	c := dntBenchCommit()
	b.SetBytes(int64(len(c.Message) + len(c.Changes[0].Hunks[0].Text)))
	b.ReportAllocs()
	for b.Loop() {
		DesignNotes(c)
	}
}
