package indexer

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
	"github.com/gitmemory/gitmemory/understand/llm"
)

// fakeOllama answers /api/chat like Ollama, summarising each "### Commit N"
// of the prompt as "llm summary of <subject>"; with fail set it answers 500.
func fakeOllama(t *testing.T, fail bool, calls *atomic.Int32) *httptest.Server {
	commitRe := regexp.MustCompile(`(?m)^### Commit (\d+) \([0-9a-f]+\)\n(?:Classification: .*\n)?Subject: (.*)$`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
			t.Errorf("request %s %s, want POST /api/chat", r.Method, r.URL.Path)
		}
		if fail {
			http.Error(w, `{"error":"model crashed"}`, http.StatusInternalServerError)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Stream   bool   `json:"stream"`
			Messages []struct{ Role, Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "tiny" || req.Stream {
			t.Errorf("request body: %+v %v", req, err)
		}
		type sum struct {
			ID      int    `json:"id"`
			Summary string `json:"summary"`
		}
		var sums []sum
		for _, m := range commitRe.FindAllStringSubmatch(req.Messages[len(req.Messages)-1].Content, -1) {
			var n int
			fmt.Sscan(m[1], &n)
			sums = append(sums, sum{n, "llm summary of " + strings.ToLower(m[2]) + " for the team"})
		}
		content, _ := json.Marshal(map[string]any{"summaries": sums})
		json.NewEncoder(w).Encode(map[string]any{"model": "tiny", "created_at": "2026-01-01T00:00:00Z",
			"message": map[string]string{"role": "assistant", "content": string(content)}, "done": true})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestLLMSummaries(t *testing.T) {
	repo := gittest.New(t)
	repo.Write("a.go", "package a\n")
	repo.Commit("Add package a")
	repo.Write("a.go", "package a\n\nvar X = 1\n")
	repo.Commit("Set X because the default broke callers")
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			var calls atomic.Int32
			srv := fakeOllama(t, fail, &calls)
			st := openStore(t)
			sum, err := llm.New(llm.Config{Provider: llm.Ollama, BaseURL: srv.URL, Model: "tiny"}, llm.NewSQLCache(st.DB), nil)
			if err != nil {
				t.Fatal(err)
			}
			res := sync(t, repo.Dir, st, Options{Summarizer: sum})
			rows, err := st.DB.Query(`SELECT summary FROM commits ORDER BY committer_time`)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				var s string
				rows.Scan(&s)
				got = append(got, s)
			}
			rows.Close()
			if calls.Load() == 0 {
				t.Fatal("the summariser was never called")
			}
			for _, s := range got {
				isLLM := strings.HasPrefix(s, "llm summary of ")
				if isLLM == fail || s == "" {
					t.Errorf("summary %q with a failing=%v server", s, fail)
				}
			}
			if fail && (res.LLMFailed != 2 || res.LLMError == "" || res.Indexed != 2) {
				t.Errorf("result %+v: want 2 indexed, 2 LLM failures and the error", res)
			}
			if !fail && res.LLMSummaries != 2 {
				t.Errorf("result %+v: want 2 LLM summaries", res)
			}
		})
	}
}
