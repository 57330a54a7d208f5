package entity

import (
	"strings"
	"sync"
	"testing"
)

// TestBodyEdits checks which edits skip the parse and that the entities
// are a full parse's either way (the checker compares them).
func TestBodyEdits(t *testing.T) {
	const cFile = `#include <stdio.h>

static int counter;

/* add adds. */
int add(int a, int b)
{
	int sum = a + b;
	counter++;
	return sum;
}

static void show(const char *s)
{
	if (s) {
		puts(s);
	}
}
`
	const cGuarded = `#ifdef USE_FOO
static int foo(int x)
{
	x++;
	return x;
}
#endif

int bar(void)
{
#ifdef X
	return 1;
#endif
	return 0;
}
`
	const goFile = `package demo

import "fmt"

func Show(x any) {
	fmt.Println(x)
}

func Add(a, b int) int {
	s := a + b
	return s
}
`
	const javaFile = `package demo;

class Box {
	int size;

	int grow(int n) {
		size += n;
		return size;
	}

	void reset() {
		size = 0;
	}
}
`
	tests := []struct {
		name, lang, file, from, to string
		fast                       bool
	}{
		{"C statement", "C", cFile, "\tcounter++;\n", "\tcounter += 2;\n", true},
		{"C declaration using a struct", "C", cFile, "\tcounter++;\n", "\tstruct stat *st = NULL;\n\tcounter++;\n", true},
		{"C struct defined in a body", "C", cFile, "\tcounter++;\n", "\tstruct point { int x; };\n\tcounter++;\n", false},
		{"C braces inside strings", "C", cFile, "\t\tputs(s);\n", "\t\tputs(\"{\");\n\t\tputs(s); /* } */\n", true},
		{"C block reshaped", "C", cFile, "\tif (s) {\n\t\tputs(s);\n\t}\n", "\tif (s)\n\t\tputs(s);\n\telse {\n\t\tputs(\"-\");\n\t}\n", true},
		{"C body closed early", "C", cFile, "\tcounter++;\n", "\treturn 0;\n}\n\nint sub(int a, int b)\n{\n\tcounter++;\n", false},
		{"C unterminated comment", "C", cFile, "\tcounter++;\n", "\tcounter++; /* a\n", false},
		{"C conditional", "C", cFile, "\tcounter++;\n", "#ifdef COUNT\n\tcounter++;\n#endif\n", false},
		{"C comment between functions", "C", cFile, "/* add adds. */\n", "/* add returns a + b. */\n", true},
		{"C include", "C", cFile, "#include <stdio.h>\n", "#include <stdio.h>\n#include <string.h>\n", true},
		{"C new function", "C", cFile, "static int counter;\n", "static int counter;\n\nint zero(void) { return 0; }\n", false},
		{"C signature", "C", cFile, "int add(int a, int b)\n", "long add(long a, long b)\n", false},
		{"C function in a conditional", "C", cGuarded, "\tx++;\n", "\tx += 2;\n", true},
		{"C after a conditional in the body", "C", cGuarded, "\treturn 0;\n", "\treturn 2;\n", false},
		{"Go statement", "Go", goFile, "\ts := a + b\n", "\ts := a + b + 0\n", true},
		{"Go type switch", "Go", goFile, "\tfmt.Println(x)\n", "\tswitch v := x.(type) {\n\tcase int:\n\t\tfmt.Println(v)\n\t}\n", true},
		{"Go type in a body", "Go", goFile, "\ts := a + b\n", "\ttype pair struct{ a, b int }\n\ts := a + b\n", false},
		{"Go raw string", "Go", goFile, "\tfmt.Println(x)\n", "\tfmt.Println(`}\n{`, x)\n", true},
		{"Java statement", "Java", javaFile, "\t\tsize = 0;\n", "\t\tsize = -1;\n", true},
		{"Java class literal", "Java", javaFile, "\t\tsize = 0;\n", "\t\tSystem.out.println(Box.class);\n", true},
		{"Java anonymous class", "Java", javaFile, "\t\tsize = 0;\n", "\t\tRunnable r = new Runnable() {\n\t\t\tpublic void run() {}\n\t\t};\n", false},
		{"Java class body", "Java", javaFile, "\tint size;\n", "\tint size;\n\tint twice() { return 2 * size; }\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(tt.file, tt.from) {
				t.Fatalf("the file lacks %q", tt.from)
			}
			c := newChecker(t, tt.lang)
			path := map[string]string{"C": "demo.c", "Go": "demo.go", "Java": "Box.java"}[tt.lang]
			old := version(path, []byte(tt.file))
			new := version(path, []byte(strings.Replace(tt.file, tt.from, tt.to, 1)))
			c.step("add", Version{Path: path}, old, 0)
			before := bodyEdits.Load()
			c.step(tt.name, old, new, 0)
			if fast := bodyEdits.Load() > before; fast != tt.fast {
				t.Errorf("parse skipped: %v, want %v", fast, tt.fast)
			}
		})
	}
}

// FuzzBodyEdits replaces one line of a small file with arbitrary text and
// checks the entities against a full parse's (the checker), so that the
// lexer's proofs meet strings, comments, brackets and keywords it was not
// written for. As for Changes, the entities must be exact when the new
// version has no syntax error; with one, tree-sitter's error recovery may
// read a definition where the lexer sees a statement (A A{} in a C body is
// a function A), which the checker logs.
func FuzzBodyEdits(f *testing.F) {
	files := []struct{ lang, path, src string }{
		{"C", "f.c", "#include <a.h>\n\nstatic int n;\n\nint add(int a, int b)\n{\n\tint s = a + b;\n\tif (s) {\n\t\tn++;\n\t}\n\treturn s;\n}\n\nstruct pair { int a, b; };\n\nvoid show(const char *s)\n{\n\tputs(s);\n}\n"},
		{"Go", "f.go", "package f\n\nfunc Add(a, b int) int {\n\ts := a + b\n\tif s > 0 {\n\t\ts--\n\t}\n\treturn s\n}\n\ntype T struct {\n\tA int\n}\n\nfunc (t *T) Get() int {\n\treturn t.A\n}\n"},
		{"Java", "F.java", "class F {\n\tint n;\n\n\tint add(int a) {\n\t\tn += a;\n\t\treturn n;\n\t}\n\n\tvoid reset() {\n\t\tn = 0;\n\t}\n}\n"},
	}
	for i := range files {
		for _, text := range []string{"\tn = 1;\n", "\tputs(\"}\");\n", "\t/* { */\n", "\t}\n\tint g() {\n", "\tstruct s { int x; } v;\n",
			"#if X\n", "\ttype u struct{}\n", "\tx := `{`\n", "\tnew Object() { void f() {} };\n", "\t// }\n", "'}'\n"} {
			f.Add(uint8(i), uint8(6), text)
		}
	}
	var mu sync.Mutex
	f.Fuzz(func(t *testing.T, which, line uint8, text string) {
		mu.Lock()
		defer mu.Unlock()
		file := files[int(which)%len(files)]
		lines := strings.SplitAfter(file.src, "\n")
		at := int(line) % (len(lines) - 1)
		edited := strings.Join(lines[:at], "") + text + strings.Join(lines[at+1:], "")
		c := newChecker(t, file.lang)
		c.tolerateRecovery = true
		old := version(file.path, []byte(file.src))
		c.step("add", Version{Path: file.path}, old, 0)
		c.step("edit", old, version(file.path, []byte(edited)), 0)
	})
}
