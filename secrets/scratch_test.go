package secrets

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	t0 := time.Now()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("New", time.Since(t0), "windowed", len(s.win))
	t0 = time.Now()
	s2, _ := New()
	_ = s2
	fmt.Println("New2", time.Since(t0))
	b, _ := os.ReadFile("testdata/clean.diff")
	for i := 0; i < 3; i++ {
		t0 = time.Now()
		out, ids := s.Redact(string(b))
		fmt.Println(time.Since(t0), ids, len(out) == len(b))
	}
	txt := "aws_access_key_id = AKIAZ7Q2MXK4PLR6TYVB\naws_secret_access_key = 9dK2vX/Lq8mZr4TnYpW1sUeB7cHaGj3fNo5iRk0E\ngithub: ghp_a8Kd93LmQz7XwPq2RtYv5NbHc1JsUe4GfOi6\ntoken: \"Xq7mK2pL9vR4tZ8wN3bY6cH1jF5gD0sA2eU7iO4k\"\nbare Xq7mK2pL9vR4tZ8wN3bY6cH1jF5gD0sA2eU7iO4kQQ end\n"
	for _, f := range s.findings(txt) {
		fmt.Printf("%s secret=%q match=%q line=%d\n", f.RuleID, f.Secret, f.Match, f.StartLine)
	}
	for _, f := range s.all.DetectString(txt) {
		fmt.Printf("ALL %s secret=%q match=%q line=%d\n", f.RuleID, f.Secret, f.Match, f.StartLine)
	}
	out, ids := s.Redact(txt)
	fmt.Println(out, ids)
}
