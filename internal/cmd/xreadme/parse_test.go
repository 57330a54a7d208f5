package main

import (
	"strings"
	"testing"
)

const sampleReadme = "# Title\n\n" +
	"<!-- ci: clone -->\n```sh\ngo build ./cmd/x\n```\n\n" +
	"<!-- ci: skip: needs docker -->\n\n```sh\ndocker compose up\n```\n\n" +
	"```json\n{\"not\": \"run\"}\n```\n\n" +
	"| command | what | example |\n|---|---|---|\n" +
	"| `list` | lists | `gitmemory list --json` |\n" +
	"| `sync` | syncs `a\\|b` | `gitmemory history a --since 1d \\| cat` |\n" +
	"| `x` | prose only | see above |\n\n" +
	"| a | b | `gitmemory not-an-example` |\n\n" +
	"| measure | reproduce |\n|---|---|\n| speed | `gitmemory eval x.jsonl` |\n\n" +
	"````markdown\n```sh\nnot a block of its own\n```\n````\n\n" +
	"<!-- ci: background -->\n```sh\ngitmemory daemon &\n```\n\n```sh\ncurl -s localhost\ncurl -s localhost/v1\n```\n"

func TestParseExamples(t *testing.T) {
	got, err := parseExamples(strings.NewReader(sampleReadme))
	if err != nil {
		t.Fatal(err)
	}
	want := []example{
		{Line: 4, Script: "go build ./cmd/x\n", How: runClone},
		{Line: 10, Script: "docker compose up\n", How: runSkip, Reason: "needs docker"},
		{Line: 20, Script: "gitmemory list --json"},
		{Line: 21, Script: "gitmemory history a --since 1d | cat"},
		{Line: 37, Script: "gitmemory daemon &\n", How: runBackground},
		{Line: 41, Script: "curl -s localhost\ncurl -s localhost/v1\n"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d examples, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("example %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseExamplesRefusesMisplacedAnnotations(t *testing.T) {
	for _, tc := range []struct{ readme, want string }{
		{"<!-- ci: skip: why -->\nprose\n```sh\nx\n```\n", "not followed by a ```sh block"},
		{"<!-- ci: clone -->\n", "has no block"},
		{"<!-- ci: later -->\n```sh\nx\n```\n", "unknown ci mode"},
		{"<!-- ci: skip -->\n```sh\nx\n```\n", "needs a reason"},
		{"```sh\nnever closed\n", "never closed"},
	} {
		if _, err := parseExamples(strings.NewReader(tc.readme)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.readme, err, tc.want)
		}
	}
}
