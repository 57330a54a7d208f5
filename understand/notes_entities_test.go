package understand

import (
	"reflect"
	"testing"
)

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
