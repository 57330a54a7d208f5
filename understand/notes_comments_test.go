package understand

import (
	"reflect"
	"testing"

	"github.com/gitmemory/gitmemory/model"
)

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
