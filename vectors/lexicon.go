package vectors

import "strings"

// conceptGroups is a small thesaurus of the words commit messages and
// questions about them use for the same thing. A word in a group adds the
// group's concept as a feature, so "fix crash on missing config" and
// "avoid panic when the configuration is absent" share more than one
// word. Words are stemmed at init like the text is; a stem in two groups
// takes the group whose name sorts first. Changing this table changes
// vectors: bump localVersion.
var conceptGroups = map[string]string{
	"crash":       "crash crashes crashed crashing panic panics panicked segfault sigsegv segmentation abort aborts oops падение падает паника краш",
	"error":       "bug bugs error errors fault faulty defect broken failure fails failing failed wrong incorrect ошибка ошибки баг сбой",
	"absent":      "missing absent empty nil null none undefined nonexistent unset blank отсутствует отсутствие пустой",
	"performance": "slow slowness fast faster speed speedup perf performance latency throughput optimize optimise optimization efficient quick quicker expensive cheap bottleneck медленно быстро ускорение производительность",
	"memory":      "memory leak leaks leaking alloc allocs allocation allocations oom heap gc garbage footprint rss память утечка",
	"concurrency": "race races racy deadlock deadlocks mutex mutexes lock locks locking concurrent concurrency concurrently thread threads goroutine goroutines atomic parallel synchronization гонка блокировка потоки",
	"timeout":     "timeout timeouts deadline deadlines hang hangs hung stall stalls stalled stuck freeze freezes таймаут зависание",
	"retry":       "retry retries retried retrying backoff reattempt resend reconnect повтор переподключение",
	"auth":        "auth authentication authenticate authorization authorize login logon logout signin password passwords credential credentials oauth session sessions авторизация аутентификация пароль",
	"security":    "security secure insecure vulnerability vulnerabilities cve xss csrf injection exploit sanitize sanitise escape escaping уязвимость безопасность",
	"secret":      "secret secrets apikey redact redaction секрет токен",
	"config":      "config configs configuration configure configurable setting settings option options flag flags env environment yaml toml ini настройка настройки конфиг конфигурация",
	"docs":        "doc docs documentation document readme comment comments typo typos spelling wording changelog документация опечатка",
	"test":        "test tests testing tested unittest spec specs coverage assert assertion fixture fixtures flaky testcase тест тесты",
	"dependency":  "dependency dependencies deps upgrade upgrades bump bumps vendor vendored version versions module modules package packages зависимость зависимости обновление",
	"build":       "build builds building compile compiles compiler compilation link linker makefile cmake ci pipeline toolchain сборка компиляция",
	"revert":      "revert reverts reverted rollback undo откат откатить",
	"network":     "network networking http https tcp udp socket sockets connection connections request requests proxy dns url сеть соединение запрос",
	"database":    "database databases db sql sqlite postgres postgresql mysql query queries table tables schema migration migrations transaction transactions база",
	"parse":       "parse parser parsing parsed lexer tokenizer tokenize syntax grammar decode decoder decoding unmarshal разбор парсер",
	"cache":       "cache caches cached caching memoize memoization lru invalidate invalidation кэш кеш",
	"log":         "log logs logging logger trace tracing verbose debug diagnostics лог логи логирование",
	"filesystem":  "file files filesystem fs disk directory directories dir path paths symlink symlinks rename permissions chmod файл файлы диск",
	"encoding":    "utf utf8 unicode encoding charset ascii latin1 cyrillic кодировка",
	"lifecycle":   "startup shutdown boot init initialization terminate exit graceful signal sigterm sigint restart запуск остановка",
	"time":        "time times timezone timestamp timestamps clock date dates utc время дата",
	"refactor":    "refactor refactors refactoring restructure reorganize simplify simplification extract cleanup tidy рефакторинг упрощение",
	"ui":          "ui gui display render rendering layout css style button window screen color colors интерфейс отображение",
	"platform":    "windows win32 macos darwin linux freebsd platform platforms portable portability arm64 amd64",
	"cli":         "cli command commands subcommand flagset argument arguments args usage команда",
}

// genericWords are the verbs and fillers nearly every commit message has:
// they count, but less, so that two messages do not look alike for both
// saying "fix" or "add".
var genericWords = "fix fixes fixed fixing add adds added adding update updates updated " +
	"remove removes removed removing change changes changed make makes made improve " +
	"improves improved handle handles handled allow allows allowed support supports " +
	"supported use uses used using new minor small various better properly correctly " +
	"correct initial commit merge merged branch pull request instead unnecessary " +
	"исправить исправлено добавить добавлен удалить изменить"

var (
	concepts     = map[string]string{}
	genericStems = map[string]bool{}
)

func init() {
	for concept, words := range conceptGroups {
		for _, w := range strings.Fields(words) {
			for _, p := range splitIdent(w) {
				s := stem(strings.ToLower(p))
				if old, ok := concepts[s]; !ok || concept < old {
					// Deterministic when a stem falls in two groups.
					concepts[s] = concept
				}
			}
		}
	}
	for _, w := range strings.Fields(genericWords) {
		genericStems[stem(w)] = true
	}
}
