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
