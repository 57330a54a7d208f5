package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequestDecoding sends arbitrary bodies to every JSON endpoint of a
// real home: whatever the body, the answer is JSON, a refusal is a 4xx
// with a code and a message (and a 400 names its field when the body was
// well-formed), and nothing panics or fails as "internal".
//
//	go test ./api -run '^$' -fuzz FuzzRequestDecoding -fuzztime 60s
func FuzzRequestDecoding(f *testing.F) {
	h, _ := fixture(f)
	handler := Handler(NewLocal(h), ServerOptions{})
	paths := []string{"/v1/query", "/v1/history", "/v1/recent", "/v1/lookup", "/v1/entity"}
	for i, seed := range []string{
		`{"repository":"demo","query":"why refresh tokens","mode":"keyword","intent":"debug","token_budget":300}`,
		`{"repository":"demo","path":"auth/token.go","limit":3,"key":true,"since":"2020-01-01T00:00:00Z"}`,
		`{"repository":"demo","days":36500,"path":"auth"}`,
		`{"repository":"demo","paths":["auth/token.go"],"fingerprints":["#7","paths:0123456789abcdef"],"head":"abcdef1"}`,
		`{"repository":"demo","name":"Refresh","kind":"function","limit":2}`,
		`{"repository":"demo","query":"\u0000\ud800","token_budget":-1}`,
		`{"repository":"../x","path":"/etc/passwd"}`,
		`{"repository":"demo","paths":[""],"days":-1}`,
		`[]`, `{`, `null`, `{"repository":1}`,
	} {
		f.Add(uint8(i), seed)
	}
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		path := paths[int(which)%len(paths)]
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK {
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s %q: 200 with invalid JSON", path, body)
			}
			return
		}
		var e Error
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Code == "" || e.Message == "" {
			t.Fatalf("%s %q: %d %q: want a JSON error with a code and a message", path, body, rec.Code, rec.Body.String())
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %q: %d %+v: a request's content must not cause a server error", path, body, rec.Code, e)
		}
		if rec.Code == http.StatusBadRequest && json.Valid([]byte(body)) && e.Field == "" && !strings.Contains(e.Message, "malformed JSON") {
			t.Fatalf("%s %q: 400 %+v names no field", path, body, e)
		}
	})
}
