package understand

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

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
