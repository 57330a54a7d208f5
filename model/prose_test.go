package model

import (
	"strings"
	"testing"
)

func TestAddedProse(t *testing.T) {
	c := &Commit{Changes: []FileChange{
		{Path: "CHANGES.rst", Hunks: []Hunk{{Text: "+- JSON output is no longer pretty-printed by default.\n-- old entry that was removed\n context line\n"}}},
		{Path: "src/jv.c", Hunks: []Hunk{{Text: "+#include <stdio.h>\n+  // Deeper nesting than this overflows the parser's stack.\n+  int depth = 10000;\n+/* keep the cap equal to Go's encoding/json */\n"}}},
		{Path: "lib/app.py", Hunks: []Hunk{{Text: "+    # chained groups cannot hold other groups\n+#!/usr/bin/env python\n"}}},
		{Path: "docs/logo.png", Binary: true, Hunks: []Hunk{{Text: "+this is not text at all\n"}}},
	}}
	got := AddedProse(c, 4096)
	for _, want := range []string{
		"JSON output is no longer pretty-printed by default.",
		"Deeper nesting than this overflows the parser's stack.",
		"keep the cap equal to Go's encoding/json",
		"chained groups cannot hold other groups",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("prose lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"old entry", "context line", "include", "int depth", "usr/bin", "not text"} {
		if strings.Contains(got, bad) {
			t.Errorf("prose holds %q (removed, unchanged, code, shebang or binary):\n%s", bad, got)
		}
	}
	if short := AddedProse(c, 60); len(short) > 60 || !strings.HasPrefix(short, "JSON output") {
		t.Errorf("limit 60: %q", short)
	}
}
