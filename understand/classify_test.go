package understand

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gitmemory/gitmemory/model"
)

// clsFiles builds file changes from a compact notation, one string per file:
// "M path ins del", "A path ins", "D path del", "R old new similarity ins del",
// "B path" (a binary file added). Hunks are not set.
func clsFiles(specs ...string) []model.FileChange {
	var out []model.FileChange
	for _, s := range specs {
		f := strings.Fields(s)
		n := func(i int) int {
			if i >= len(f) {
				return 0
			}
			v, err := strconv.Atoi(f[i])
			if err != nil {
				panic(s)
			}
			return v
		}
		switch f[0] {
		case "M":
			out = append(out, model.FileChange{Path: f[1], Status: model.Modified, Insertions: n(2), Deletions: n(3)})
		case "A":
			out = append(out, model.FileChange{Path: f[1], Status: model.Added, Insertions: n(2)})
		case "D":
			out = append(out, model.FileChange{Path: f[1], Status: model.Deleted, Deletions: n(2)})
		case "R":
			out = append(out, model.FileChange{Path: f[2], OldPath: f[1], Status: model.Renamed, Similarity: n(3), Insertions: n(4), Deletions: n(5)})
		case "B":
			out = append(out, model.FileChange{Path: f[1], Status: model.Added, Binary: true, Skipped: model.SkipBinary})
		default:
			panic(s)
		}
	}
	return out
}

// clsCase is one labelled commit. The labels were written from the message
// and files as a reviewer would judge them, before the rules were tuned.
type clsCase struct {
	msg    string
	files  []model.FileChange
	merge  bool
	author string
	want   model.ChangeType
}

const lkmlSOB = "\n\nSigned-off-by: Jane Doe <jane@example.org>"

var clsTable = []clsCase{
	// --- bugfix ---
	{msg: "fix: handle nil pointer when repository has no HEAD", files: clsFiles("M extract/repo.go 8 2"), want: model.Bugfix},
	{msg: "Fix race condition in queue worker shutdown (#482)\n\nThe worker could read from a closed channel when Stop was called\nwhile a job was in flight.", files: clsFiles("M queue/worker.go 15 6", "M queue/worker_test.go 30 0"), want: model.Bugfix},
	{msg: "net: fix use-after-free in tcp_close()\n\nWhen the socket is closed while the keepalive timer is pending, the\ntimer callback dereferences the freed sk.\n\nFixes: 1a2b3c4d5e6f (\"tcp: add delayed close\")\nReported-by: syzbot+3e1f@syzkaller.appspotmail.com" + lkmlSOB, files: clsFiles("M net/ipv4/tcp.c 6 2"), want: model.Bugfix},
	{msg: "diff: do not crash on empty pathspec\n\nRunning `git diff -- ''` segfaulted because the pathspec parser\nreturned NULL for the empty string." + lkmlSOB, files: clsFiles("M diff.c 4 1", "M t/t4013-diff-various.sh 10 0"), want: model.Bugfix},
	{msg: "Fix off-by-one error in pagination", files: clsFiles("M api/pagination.go 1 1"), want: model.Bugfix},
	{msg: "fix(parser): correctly handle escaped quotes in strings", files: clsFiles("M parser/lexer.go 12 4", "M parser/lexer_test.go 20 0"), want: model.Bugfix},
	{msg: "Correct timezone conversion for DST transitions", files: clsFiles("M internal/timeutil/tz.go 9 3"), want: model.Bugfix},
	{msg: "hotfix: restore login redirect after session expiry", files: clsFiles("M web/auth/session.ts 5 2"), want: model.Bugfix},
	{msg: "Prevent panic when config file is empty\n\nFixes #231", files: clsFiles("M config/load.go 6 1"), want: model.Bugfix},
	{msg: "Исправлена ошибка при парсинге дат в отчётах", files: clsFiles("M reports/dates.py 7 3"), want: model.Bugfix},
	{msg: "Исправлено падение приложения при пустом ответе сервера", files: clsFiles("M app/src/main/java/com/shop/api/Client.java 5 1"), want: model.Bugfix},
	{msg: "баг: неверный подсчёт суммы заказа со скидкой", files: clsFiles("M orders/total.go 3 3"), want: model.Bugfix},
	{msg: "Handle EOF in streaming decoder", files: clsFiles("M codec/stream.go 4 1"), want: model.Bugfix},
	{msg: "Fix memory leak in image cache", files: clsFiles("M img/cache.go 6 2"), want: model.Bugfix},
	{msg: "Don't double-close the file descriptor on error paths", files: clsFiles("M os/file_unix.go 3 5"), want: model.Bugfix},
	{msg: "Fix flaky behaviour of retry backoff under load", files: clsFiles("M retry/backoff.go 5 2"), want: model.Bugfix},
	{msg: "Fixed broken link handling in markdown renderer", files: clsFiles("M render/markdown.go 10 4"), want: model.Bugfix},
	{msg: "Resolve deadlock between indexer and store flush", files: clsFiles("M indexer/sync.go 12 8"), want: model.Bugfix},
	{msg: "fix: regression in v2.3 where --force was ignored (#1290)", files: clsFiles("M cmd/push.go 2 1"), want: model.Bugfix},
	{msg: "Make sure temporary files are removed on failure", files: clsFiles("M store/tmp.go 8 0"), want: model.Bugfix},
	{msg: "Return 404 instead of 500 for unknown repositories", files: clsFiles("M server/handlers.go 4 2"), want: model.Bugfix},
	{msg: "drm/i915: Fix NULL dereference in intel_atomic_commit()\n\nintel_atomic_commit() can be reached with a NULL crtc state when the\npipe is disabled.\n\nCc: stable@vger.kernel.org" + lkmlSOB, files: clsFiles("M drivers/gpu/drm/i915/display/intel_display.c 3 1"), want: model.Bugfix},
	{msg: "Fix crash when opening a repository with a detached HEAD", files: clsFiles("M extract/repo.go 7 2", "M extract/extract_test.go 25 0"), want: model.Bugfix},
	{msg: "fix(ui): button overlaps footer on small screens", files: clsFiles("M web/src/components/Footer.css 6 2"), want: model.Bugfix},
	{msg: "Fix wrong exit code when sync is interrupted", files: clsFiles("M cmd/gitmemory/sync.go 3 1"), want: model.Bugfix},
	{msg: "Исправил баг с повторной отправкой письма", files: clsFiles("M mail/sender.go 4 2"), want: model.Bugfix},
	{msg: "[FIX] sale: compute taxes on discounted lines", files: clsFiles("M addons/sale/models/sale_order_line.py 6 3"), want: model.Bugfix},
	{msg: "[ui] Fix tooltip flicker on hover\n\nBug: 1402231\nChange-Id: I5f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6", files: clsFiles("M ui/views/tooltip.cc 4 2"), want: model.Bugfix},
	{msg: ":bug: fix tooltip position in RTL layouts", files: clsFiles("M src/tooltip.js 5 3"), want: model.Bugfix},
	{msg: "minor fixes", files: clsFiles("M app/models.py 3 2", "M app/views.py 2 2"), want: model.Bugfix},
	{msg: "Add missing nil check before dereferencing the tree", files: clsFiles("M extract/treediff.go 3 0"), want: model.Bugfix},
	{msg: "sync: skip commits whose parents are missing instead of failing\n\nA shallow clone made the sync stop with \"object not found\".", files: clsFiles("M indexer/sync.go 9 2"), want: model.Bugfix},

	// --- feature ---
	{msg: "feat: add --json output to history command", files: clsFiles("M cmd/gitmemory/history.go 40 3", "A cmd/gitmemory/history_json.go 80"), want: model.Feature},
	{msg: "feat(retrieve)!: support hybrid search over BM25 and vectors\n\nBREAKING CHANGE: Search now returns ranked hits.", files: clsFiles("M retrieve/search.go 120 40", "A retrieve/hybrid.go 200"), want: model.Feature},
	{msg: "Add support for SSH remotes (#311)", files: clsFiles("M remote/url.go 45 5", "A remote/ssh.go 120"), want: model.Feature},
	{msg: "Implement incremental sync for force-pushed branches", files: clsFiles("M indexer/sync.go 150 20", "A indexer/rewrite.go 90", "A indexer/rewrite_test.go 140"), want: model.Feature},
	{msg: "Introduce rate limiting middleware", files: clsFiles("A server/ratelimit.go 90", "M server/router.go 3 0"), want: model.Feature},
	{msg: "Allow configuring the embedding model via GITMEMORY_EMBEDDER", files: clsFiles("M config/config.go 20 2"), want: model.Feature},
	{msg: "Добавлена поддержка экспорта отчётов в CSV", files: clsFiles("A reports/csv.go 70", "M reports/export.go 12 1"), want: model.Feature},
	{msg: "Новый эндпоинт для выгрузки истории заказов", files: clsFiles("A api/orders_history.go 60", "M api/routes.go 2 0"), want: model.Feature},
	{msg: "Реализован поиск по тегам", files: clsFiles("M search/tags.go 50 4"), want: model.Feature},
	{msg: "ext4: add support for large folios in buffered writes\n\nLet ext4 use large folios for regular files when the mount\nsupports it." + lkmlSOB, files: clsFiles("M fs/ext4/inode.c 60 12", "M fs/ext4/ext4.h 3 0"), want: model.Feature},
	{msg: "builtin/log: teach --since-as-filter a new mode" + lkmlSOB, files: clsFiles("M builtin/log.c 40 2", "M Documentation/git-log.txt 8 0", "M t/t4202-log.sh 30 0"), want: model.Feature},
	{msg: "Initial commit", files: clsFiles("A README.md 5", "A main.go 30", "A go.mod 3"), want: model.Feature},
	{msg: "feat(api): expose commit statistics endpoint", files: clsFiles("M api/routes.go 2 0", "A api/stats.go 75"), want: model.Feature},
	{msg: "Enable dark mode toggle in settings page", files: clsFiles("M web/src/pages/Settings.tsx 30 2"), want: model.Feature},
	{msg: "Add CSV importer for legacy accounts\n\nUsers migrating from the old system can now upload their account\nexport directly.", files: clsFiles("A import/csv.go 140", "A import/csv_test.go 90"), want: model.Feature},
	{msg: "New: keyboard shortcuts for navigation", files: clsFiles("M app/keys.js 80 4"), want: model.Feature},
	{msg: "feat: Russian localisation", files: clsFiles("A locales/ru.json 300", "M src/i18n.ts 2 0"), want: model.Feature},
	{msg: "Add pagination to the commits list API", files: clsFiles("M api/commits.go 35 6", "M api/commits_test.go 40 0"), want: model.Feature},
	{msg: "wip", files: clsFiles("A understand/notes.go 120"), want: model.Feature},
	{msg: "feat(cli): `gitmemory why <path>` command", files: clsFiles("A cmd/gitmemory/why.go 150"), want: model.Feature},
	{msg: "Add retry to HTTP client (#987)\n\n* add retry\n* fix tests\n* address review comments", files: clsFiles("M net/client.go 50 5", "M net/client_test.go 60 2"), want: model.Feature},
	{msg: "[IMP] stock: add lot tracking report", files: clsFiles("A addons/stock/report/lot_report.py 110", "A addons/stock/report/lot_report.xml 60"), want: model.Feature},
	{msg: "✨ Add dark theme", files: clsFiles("A src/themes/dark.css 120", "M src/themes/index.js 2 0"), want: model.Feature},
	{msg: "Добавил возможность отмены заказа пользователем", files: clsFiles("M orders/service.go 45 3", "M orders/handlers.go 20 0"), want: model.Feature},

	// --- refactor ---
	{msg: "refactor: split store.go into read and write halves", files: clsFiles("M store/store.go 20 400", "A store/read.go 210", "A store/write.go 195"), want: model.Refactor},
	{msg: "Extract diff parsing into its own package", files: clsFiles("A diffparse/parse.go 200", "M extract/commit.go 10 190"), want: model.Refactor},
	{msg: "Rename Repo.Open to Repo.Load", files: clsFiles("M extract/repo.go 2 2", "M indexer/sync.go 2 2", "M cmd/gitmemory/add.go 1 1", "M cmd/gitmemory/sync.go 1 1", "M extract/extract_test.go 3 3", "M store/store.go 1 1"), want: model.Refactor},
	{msg: "Move helpers to internal/util", files: clsFiles("R helpers.go internal/util/helpers.go 100 0 0", "R strings.go internal/util/strings.go 98 1 1"), want: model.Refactor},
	{msg: "Simplify walker state machine", files: clsFiles("M extract/walk.go 60 110"), want: model.Refactor},
	{msg: "Рефакторинг модуля авторизации", files: clsFiles("M auth/service.go 80 120", "A auth/token.go 60"), want: model.Refactor},
	{msg: "Переименован пакет utils в helpers", files: clsFiles("R utils/strings.go helpers/strings.go 100 0 0", "R utils/time.go helpers/time.go 100 0 0"), want: model.Refactor},
	{msg: "Вынес работу с базой в отдельный слой", files: clsFiles("A db/repository.go 90", "M handlers/users.go 10 85"), want: model.Refactor},
	{msg: "refactor(graph): use an interface for the backend instead of the concrete bolt type", files: clsFiles("M graph/graph.go 30 25", "M graph/bolt.go 10 8"), want: model.Refactor},
	{msg: "Restructure project layout", files: clsFiles("R main.go cmd/app/main.go 95 3 2", "R server.go internal/server/server.go 100 0 0", "R db.go internal/db/db.go 100 0 0"), want: model.Refactor},
	{msg: "Replace hand-rolled LRU with hashicorp/golang-lru", files: clsFiles("M cache/lru.go 10 150", "M go.mod 1 0", "M go.sum 2 0"), want: model.Refactor},
	{msg: "Convert callbacks to async/await in the uploader", files: clsFiles("M src/upload.js 70 90"), want: model.Refactor},
	{msg: "Decouple scoring from ranking", files: clsFiles("M retrieve/rank.go 40 60", "A retrieve/score.go 70"), want: model.Refactor},
	{msg: "mm: make folio_lock() a wrapper around __folio_lock()\n\nNo functional change intended." + lkmlSOB, files: clsFiles("M mm/filemap.c 8 14", "M include/linux/pagemap.h 3 1"), want: model.Refactor},
	{msg: "[REF] account: split reconciliation model", files: clsFiles("M addons/account/models/reconcile.py 20 300", "A addons/account/models/reconcile_model.py 290"), want: model.Refactor},
	{msg: "♻️ Extract validation into a hook", files: clsFiles("A src/hooks/useValidation.ts 45", "M src/forms/Signup.tsx 5 40"), want: model.Refactor},

	// --- performance ---
	{msg: "perf: avoid allocating a new buffer for every hunk", files: clsFiles("M extract/linediff.go 10 6"), want: model.Performance},
	{msg: "Speed up tree diff by comparing blob hashes first (#77)", files: clsFiles("M extract/treediff.go 22 9"), want: model.Performance},
	{msg: "Cache compiled regexes in the secret scanner", files: clsFiles("M secrets/scan.go 15 5"), want: model.Performance},
	{msg: "Optimize SQL query for commit history (N+1 queries)", files: clsFiles("M store/history.go 25 30"), want: model.Performance},
	{msg: "Reduce memory usage of pack index by 40%", files: clsFiles("M extract/pack.go 35 50"), want: model.Performance},
	{msg: "Ускорена загрузка списка заказов за счёт кэширования", files: clsFiles("M orders/list.go 30 5"), want: model.Performance},
	{msg: "Оптимизация запросов к базе данных при построении отчёта", files: clsFiles("M reports/query.sql 12 20"), want: model.Performance},
	{msg: "Make lookup O(1) by indexing paths in a map", files: clsFiles("M retrieve/lookup.go 18 12"), want: model.Performance},
	{msg: "Lazily load blob contents", files: clsFiles("M extract/blob.go 20 8"), want: model.Performance},
	{msg: "perf(vectors): batch inserts into chromem", files: clsFiles("M vectors/store.go 30 12"), want: model.Performance},
	{msg: "sched/fair: Avoid quadratic behaviour in load balancing\n\nOn machines with many CPUs the balance pass walked every group for\nevery CPU." + lkmlSOB, files: clsFiles("M kernel/sched/fair.c 25 18"), want: model.Performance},

	// --- security ---
	{msg: "Fix XSS in commit message rendering", files: clsFiles("M web/render.go 5 2"), want: model.Security},
	{msg: "security: sanitize user-supplied paths to prevent directory traversal", files: clsFiles("M server/files.go 12 2"), want: model.Security},
	{msg: "Bump golang.org/x/net to v0.23.0 to fix CVE-2023-45288", files: clsFiles("M go.mod 1 1", "M go.sum 2 2"), want: model.Security},
	{msg: "Prevent SQL injection in search filter", files: clsFiles("M store/search.go 10 4"), want: model.Security},
	{msg: "Escape HTML in tooltips (CVE-2024-1234)", files: clsFiles("M web/tooltip.js 4 1"), want: model.Security},
	{msg: "Закрыта уязвимость в загрузке файлов", files: clsFiles("M upload/handler.go 14 3"), want: model.Security},
	{msg: "Add CSRF protection to settings form", files: clsFiles("M web/forms.py 20 2"), want: model.Security},
	{msg: "crypto: reject RSA keys shorter than 2048 bits", files: clsFiles("M crypto/rsa/rsa.go 6 0"), want: model.Security},
	{msg: "Redact tokens from debug logs", files: clsFiles("M log/log.go 10 2"), want: model.Security},
	{msg: "Harden archive extraction against zip slip\n\nEntries whose names escape the destination directory are now\nrejected.", files: clsFiles("M archive/unzip.go 15 2"), want: model.Security},
	{msg: "🔒 Validate redirect URLs to prevent open redirect", files: clsFiles("M auth/redirect.ts 9 1"), want: model.Security},

	// --- documentation ---
	{msg: "docs: document the --branches flag", files: clsFiles("M README.md 12 1"), want: model.Documentation},
	{msg: "Update README", files: clsFiles("M README.md 3 1"), want: model.Documentation},
	{msg: "Fix typo in CONTRIBUTING.md", files: clsFiles("M CONTRIBUTING.md 1 1"), want: model.Documentation},
	{msg: "Documentation/git-config: clarify core.autocrlf" + lkmlSOB, files: clsFiles("M Documentation/config/core.txt 6 3"), want: model.Documentation},
	{msg: "Обновлена документация по API", files: clsFiles("M docs/api.md 40 10"), want: model.Documentation},
	{msg: "Add godoc comments to exported store types", files: []model.FileChange{{Path: "store/store.go", Status: model.Modified, Insertions: 3, Hunks: []model.Hunk{{Text: "+// Store is the metadata store of one repository.\n type Store struct {\n+// Open opens the store in dir.\n+// It creates the file when missing.\n"}}}}, want: model.Documentation},
	{msg: "Add architecture diagram", files: clsFiles("B docs/architecture.png", "M docs/index.md 3 0"), want: model.Documentation},
	{msg: "changelog: v1.4.0", files: clsFiles("M CHANGELOG.md 20 0"), want: model.Documentation},
	{msg: "Explain retry semantics in the queue package doc", files: clsFiles("M queue/doc.go 10 2"), want: model.Documentation},
	{msg: "README: add installation instructions for Homebrew", files: clsFiles("M README.md 10 0"), want: model.Documentation},
	{msg: "Describe the MCP tools in docs/mcp.md", files: clsFiles("A docs/mcp.md 80"), want: model.Documentation},
	{msg: "📝 Update contributing guide", files: clsFiles("M CONTRIBUTING.md 14 6"), want: model.Documentation},
	{msg: "Исправлена опечатка в README", files: clsFiles("M README.md 1 1"), want: model.Documentation},

	// --- test ---
	{msg: "test: add coverage for rename detection", files: clsFiles("M extract/renames_test.go 80 0"), want: model.Test},
	{msg: "Add tests for the payment service", files: clsFiles("A payments/service_test.go 120"), want: model.Test},
	{msg: "Добавлены тесты для сервиса платежей", files: clsFiles("A tests/test_payments.py 90"), want: model.Test},
	{msg: "Fix flaky TestSyncInterrupted", files: clsFiles("M indexer/sync_test.go 5 3"), want: model.Test},
	{msg: "t4013: cover --stat with renames" + lkmlSOB, files: clsFiles("M t/t4013-diff-various.sh 20 0", "A t/t4013/diff.diff_--stat_-M 12"), want: model.Test},
	{msg: "Add regression test for #512", files: clsFiles("A store/regress_512_test.go 40"), want: model.Test},
	{msg: "spec: cover empty cart checkout", files: clsFiles("M spec/checkout_spec.rb 25 0"), want: model.Test},
	{msg: "Update snapshots", files: clsFiles("M src/__tests__/__snapshots__/App.test.tsx.snap 40 38"), want: model.Test},
	{msg: "Use t.TempDir in extract tests", files: clsFiles("M extract/extract_test.go 10 14"), want: model.Test},
	{msg: "Reorganize tests into table-driven form", files: clsFiles("M store/store_test.go 150 300"), want: model.Test},
	{msg: "✅ Add e2e tests for checkout", files: clsFiles("A e2e/checkout.spec.ts 70"), want: model.Test},

	// --- dependency ---
	{msg: "Bump lodash from 4.17.20 to 4.17.21\n\nBumps [lodash](https://github.com/lodash/lodash) from 4.17.20 to 4.17.21.\n- [Release notes](https://github.com/lodash/lodash/releases)\n- [Commits](https://github.com/lodash/lodash/compare/4.17.20...4.17.21)\n\n---\nupdated-dependencies:\n- dependency-name: lodash\n  dependency-type: direct:production\n...\n\nSigned-off-by: dependabot[bot] <support@github.com>", author: "dependabot[bot]", files: clsFiles("M package.json 1 1", "M package-lock.json 3 3"), want: model.Dependency},
	{msg: "chore(deps): update dependency eslint to v8.57.0", author: "renovate[bot]", files: clsFiles("M package.json 1 1", "M pnpm-lock.yaml 30 30"), want: model.Dependency},
	{msg: "fix(deps): update module github.com/spf13/cobra to v1.8.1", author: "renovate[bot]", files: clsFiles("M go.mod 1 1", "M go.sum 2 2"), want: model.Dependency},
	{msg: "Bump actions/checkout from 3 to 4", author: "dependabot[bot]", files: clsFiles("M .github/workflows/ci.yml 1 1"), want: model.Dependency},
	{msg: "Update rust crate serde to 1.0.197", files: clsFiles("M Cargo.toml 1 1", "M Cargo.lock 4 4"), want: model.Dependency},
	{msg: "go get -u ./... && go mod tidy", files: clsFiles("M go.mod 5 5", "M go.sum 20 20"), want: model.Dependency},
	{msg: "Обновление зависимостей", files: clsFiles("M requirements.txt 4 4"), want: model.Dependency},
	{msg: "Upgrade to React 18", files: clsFiles("M package.json 2 2", "M yarn.lock 50 40", "M src/index.tsx 3 2"), want: model.Dependency},
	{msg: "build(deps-dev): bump typescript from 5.3.3 to 5.4.2", author: "dependabot[bot]", files: clsFiles("M package.json 1 1", "M package-lock.json 6 6"), want: model.Dependency},
	{msg: "Pin urllib3<2 until botocore supports it", files: clsFiles("M requirements.txt 1 0"), want: model.Dependency},
	{msg: "vendor: update golang.org/x/sys", files: []model.FileChange{{Path: "vendor/golang.org/x/sys/unix/zerrors_linux.go", Status: model.Modified, Insertions: 50, Deletions: 20, Skipped: model.SkipVendor}, {Path: "vendor/modules.txt", Status: model.Modified, Insertions: 1, Deletions: 1}, {Path: "go.mod", Status: model.Modified, Insertions: 1, Deletions: 1}}, want: model.Dependency},
	{msg: "deps: drop github.com/pkg/errors", files: clsFiles("M go.mod 0 1", "M go.sum 0 2", "M store/errors.go 3 3"), want: model.Dependency},
	{msg: "⬆️ Upgrade webpack to v5", files: clsFiles("M package.json 3 3", "M package-lock.json 400 380", "M webpack.config.js 10 12"), want: model.Dependency},

	// --- configuration ---
	{msg: "ci: run tests on Go 1.26", files: clsFiles("M .github/workflows/test.yml 2 2"), want: model.Configuration},
	{msg: "Add Dockerfile and docker-compose for local development", files: clsFiles("A Dockerfile 20", "A docker-compose.yml 30"), want: model.Configuration},
	{msg: "Update .gitignore", files: clsFiles("M .gitignore 2 0"), want: model.Configuration},
	{msg: "Правка конфигурации CI", files: clsFiles("M .gitlab-ci.yml 5 3"), want: model.Configuration},
	{msg: "Enable golangci-lint errcheck", files: clsFiles("M .golangci.yml 3 0"), want: model.Configuration},
	{msg: "build: switch release builds to goreleaser", files: clsFiles("A .goreleaser.yaml 40", "D scripts/release.sh 60"), want: model.Configuration},
	{msg: "Set default log level to info in production config", files: clsFiles("M config/production.yaml 1 1"), want: model.Configuration},
	{msg: "Makefile: add lint target", files: clsFiles("M Makefile 4 0"), want: model.Configuration},
	{msg: "chore(release): 1.4.0", files: clsFiles("M package.json 1 1", "M CHANGELOG.md 20 0"), want: model.Configuration},
	{msg: "Настроил деплой в Kubernetes", files: clsFiles("A deploy/k8s/deployment.yaml 40", "A deploy/k8s/service.yaml 15"), want: model.Configuration},
	{msg: "Add editorconfig", files: clsFiles("A .editorconfig 12"), want: model.Configuration},
	{msg: "👷 Cache Go modules in CI", files: clsFiles("M .github/workflows/ci.yml 6 0"), want: model.Configuration},

	// --- cleanup ---
	{msg: "Remove unused imports", files: clsFiles("M store/store.go 0 2", "M extract/walk.go 0 1", "M queue/queue.go 0 1"), want: model.Cleanup},
	{msg: "Delete dead code in the old sync path", files: clsFiles("M indexer/legacy.go 0 240"), want: model.Cleanup},
	{msg: "style: gofmt", files: clsFiles("M a/a.go 1 1", "M b/b.go 2 2", "M c/c.go 1 1", "M d/d.go 1 1", "M e/e.go 3 3", "M f/f.go 1 1", "M g/g.go 1 1"), want: model.Cleanup},
	{msg: "typo", files: clsFiles("M extract/walk.go 1 1"), want: model.Cleanup},
	{msg: "Удалён неиспользуемый код", files: clsFiles("M billing/legacy.go 0 80"), want: model.Cleanup},
	{msg: "Мелкие правки форматирования", files: clsFiles("M a.py 2 2", "M b.py 1 1", "M c.py 2 2", "M d.py 1 1", "M e.py 2 2"), want: model.Cleanup},
	{msg: "Fix lint warnings", files: clsFiles("M store/store.go 2 2", "M extract/walk.go 1 1", "M queue/queue.go 3 2", "M graph/graph.go 1 1"), want: model.Cleanup},
	{msg: "Clean up whitespace", files: clsFiles("M server/server.go 12 12"), want: model.Cleanup},
	{msg: "chore: remove leftover debug logging", files: clsFiles("M indexer/sync.go 0 6"), want: model.Cleanup},
	{msg: "nit: fix spelling in error messages", files: clsFiles("M store/errors.go 2 2", "M queue/queue.go 1 1"), want: model.Cleanup},
	{msg: "Remove deprecated --legacy flag", files: clsFiles("M cmd/flags.go 0 30", "M README.md 0 3"), want: model.Cleanup},
	{msg: "🔥 Remove old feature flags", files: clsFiles("M src/flags.ts 0 45", "D src/legacyFlags.ts 80"), want: model.Cleanup},
	{msg: "Почистил лишние логи", files: clsFiles("M app/worker.go 0 12"), want: model.Cleanup},

	// --- revert ---
	{msg: "Revert \"feat: add --json output to history command\"\n\nThis reverts commit 3f2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a.", files: clsFiles("M cmd/gitmemory/history.go 3 40", "D cmd/gitmemory/history_json.go 80"), want: model.Revert},
	{msg: "revert: perf: cache compiled regexes\n\nThis reverts commit abcdef1234567.", files: clsFiles("M secrets/scan.go 5 15"), want: model.Revert},
	{msg: "Back out \"Speed up tree diff\" - it broke Windows builds\n\nThis reverts commit 1234567.", files: clsFiles("M extract/treediff.go 9 22"), want: model.Revert},
	{msg: "Откат изменений в модуле оплаты", files: clsFiles("M payments/charge.go 20 35"), want: model.Revert},
	{msg: "Revert \"Revert \"Add support for SSH remotes\"\"\n\nThis reverts commit 89abcdef0123.\n\nThe Windows failure was fixed by #320.", files: clsFiles("M remote/url.go 45 5", "A remote/ssh.go 120"), want: model.Revert},
	{msg: "Revert \"Fix crash when opening a repository with a detached HEAD\"", files: clsFiles("M extract/repo.go 2 7"), want: model.Revert},

	// --- merge ---
	{msg: "Merge pull request #42 from alice/fix-login\n\nFix login redirect loop", merge: true, want: model.Merge},
	{msg: "Merge branch 'main' into feature/search", merge: true, files: clsFiles("M retrieve/search.go 3 3"), want: model.Merge},
	{msg: "Merge tag 'net-6.8-rc2' of git://git.kernel.org/pub/scm/linux/kernel/git/netdev/net\n\nPull networking fixes from Paolo Abeni:\n\n - fix a use-after-free in the tcp close path\n - fix a crash in the bonding driver", merge: true, want: model.Merge},
	{msg: "Merge remote-tracking branch 'origin/release-1.2'", merge: true, files: clsFiles("M CHANGELOG.md 4 0"), want: model.Merge},
	{msg: "Merge branch 'jc/doc-fixes'\n\n* jc/doc-fixes:\n  doc: fix typos in git-log.txt", merge: true, want: model.Merge},
	{msg: "Слияние ветки develop в master", merge: true, want: model.Merge},
	{msg: "Fix conflicts after merging main", merge: true, files: clsFiles("M store/store.go 4 6"), want: model.Merge},
	{msg: "Merge \"Add tooltip to toolbar\" into main", merge: true, want: model.Merge},
}

// clsCommit turns a labelled case into a commit.
func clsCommit(tc clsCase) *model.Commit {
	c := &model.Commit{Hash: "0123456789abcdef0123456789abcdef01234567", Message: tc.msg, IsMerge: tc.merge, Changes: tc.files}
	c.Parents = []string{"1111111111111111111111111111111111111111"}
	if tc.merge {
		c.Parents = append(c.Parents, "2222222222222222222222222222222222222222")
	}
	c.Author = model.Signature{Name: "Jane Doe", Email: "jane@example.org"}
	if tc.author != "" {
		c.Author.Name = tc.author
	}
	return c
}

func TestClassifyAccuracy(t *testing.T) {
	if len(clsTable) < 120 {
		t.Fatalf("table has %d cases, want at least 120", len(clsTable))
	}
	type cell struct{ want, got model.ChangeType }
	confusion := map[cell]int{}
	perType := map[model.ChangeType][2]int{} // correct, total
	correct := 0
	for _, tc := range clsTable {
		cl := Classify(clsCommit(tc))
		got := cl.Primary.Type
		confusion[cell{tc.want, got}]++
		pt := perType[tc.want]
		pt[1]++
		if got == tc.want {
			correct++
			pt[0]++
		} else {
			t.Logf("miss: want %-13s got %-13s %.2f  %q", tc.want, got, cl.Primary.Confidence, firstLine(tc.msg))
		}
		perType[tc.want] = pt
	}
	acc := float64(correct) / float64(len(clsTable))
	t.Logf("accuracy: %d/%d = %.3f", correct, len(clsTable), acc)
	for _, typ := range clsOrder {
		pt := perType[typ]
		var errs []string
		for c, n := range confusion {
			if c.want == typ && c.got != typ {
				errs = append(errs, fmt.Sprintf("%s:%d", c.got, n))
			}
		}
		sort.Strings(errs)
		t.Logf("  %-13s %2d/%2d  confused with: %s", typ, pt[0], pt[1], strings.Join(errs, " "))
	}
	if acc < 0.85 {
		t.Errorf("accuracy %.3f < 0.85", acc)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// checkClassification reports what makes cl invalid, or "".
func checkClassification(cl model.Classification) string {
	known := map[model.ChangeType]bool{}
	for _, typ := range clsOrder {
		known[typ] = true
	}
	all := append([]model.Label{cl.Primary}, cl.Secondary...)
	seen := map[model.ChangeType]bool{}
	for i, l := range all {
		if !known[l.Type] {
			return fmt.Sprintf("label %d has unknown type %q", i, l.Type)
		}
		if seen[l.Type] {
			return fmt.Sprintf("type %q appears twice", l.Type)
		}
		seen[l.Type] = true
		if math.IsNaN(l.Confidence) || l.Confidence < 0 || l.Confidence > 1 {
			return fmt.Sprintf("label %d confidence %v outside [0,1]", i, l.Confidence)
		}
		if i > 0 && l.Confidence > all[i-1].Confidence {
			return fmt.Sprintf("label %d (%v) more confident than label %d (%v)", i, l.Confidence, i-1, all[i-1].Confidence)
		}
	}
	return ""
}

func TestClassifyValidAndDeterministic(t *testing.T) {
	for _, tc := range clsTable {
		a := Classify(clsCommit(tc))
		b := Classify(clsCommit(tc))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%q: two runs differ: %+v vs %+v", firstLine(tc.msg), a, b)
		}
		if msg := checkClassification(a); msg != "" {
			t.Errorf("%q: %s: %+v", firstLine(tc.msg), msg, a)
		}
	}
}

func TestClassifySecondary(t *testing.T) {
	c := clsCommit(clsCase{msg: "Bump golang.org/x/net to v0.23.0 to fix CVE-2023-45288", files: clsFiles("M go.mod 1 1", "M go.sum 2 2")})
	cl := Classify(c)
	if cl.Primary.Type != model.Security {
		t.Fatalf("primary = %+v, want security", cl.Primary)
	}
	found := false
	for _, l := range cl.Secondary {
		found = found || l.Type == model.Dependency
	}
	if !found {
		t.Errorf("secondary %+v lacks dependency", cl.Secondary)
	}
}

// TestClassifyFallback pins the rule for commits with no evidence at all:
// feature when the commit adds more lines than it removes, else refactor,
// always at clsGuessConfidence and without secondary labels.
func TestClassifyFallback(t *testing.T) {
	cases := []struct {
		name  string
		c     *model.Commit
		want  model.ChangeType
		guess bool
	}{
		{"nil commit", nil, model.Refactor, true},
		{"empty commit", &model.Commit{}, model.Refactor, true},
		{"empty message, grows", &model.Commit{Changes: clsFiles("M pkg/a.go 30 2")}, model.Feature, true},
		{"terse, shrinks", &model.Commit{Message: "stuff", Changes: clsFiles("M pkg/a.go 3 20")}, model.Refactor, true},
		{"terse, balanced", &model.Commit{Message: ".", Changes: clsFiles("M pkg/a.go 4 4")}, model.Refactor, true},
		{"whitespace message only", &model.Commit{Message: " \n\t\n"}, model.Refactor, true},
		{"file kinds decide", &model.Commit{Message: "stuff", Changes: clsFiles("M docs/guide.md 5 1")}, model.Documentation, false},
	}
	for _, tc := range cases {
		cl := Classify(tc.c)
		if cl.Primary.Type != tc.want {
			t.Errorf("%s: primary %+v, want %s", tc.name, cl.Primary, tc.want)
		}
		if tc.guess && (cl.Primary.Confidence != clsGuessConfidence || len(cl.Secondary) != 0) {
			t.Errorf("%s: %+v, want a bare guess at %v", tc.name, cl, clsGuessConfidence)
		}
		if msg := checkClassification(cl); msg != "" {
			t.Errorf("%s: %s", tc.name, msg)
		}
	}
}

// TestClassifyMergeSubject checks that a merge commit whose subject states
// another kind of change is classified by its subject.
func TestClassifyMergeSubject(t *testing.T) {
	c := clsCommit(clsCase{msg: "fix: resolve nil map write found while merging", merge: true})
	if got := Classify(c).Primary.Type; got != model.Bugfix {
		t.Errorf("merge with conventional fix subject: %s, want bugfix", got)
	}
	c = clsCommit(clsCase{msg: "Revert \"Merge branch 'x'\"\n\nThis reverts commit 0123abcd, reversing\nchanges made to 4567ef01.", merge: true})
	if got := Classify(c).Primary.Type; got != model.Revert {
		t.Errorf("merge-shaped revert: %s, want revert", got)
	}
	// A single-parent commit with a merge subject (a squash) is still a merge.
	c = clsCommit(clsCase{msg: "Merge branch 'feature/x'", files: clsFiles("M a.go 3 1")})
	if got := Classify(c).Primary.Type; got != model.Merge {
		t.Errorf("merge subject without merge parents: %s, want merge", got)
	}
}

func FuzzClassify(f *testing.F) {
	for i, tc := range clsTable {
		if i%4 != 0 {
			continue
		}
		var paths []string
		for _, fc := range tc.files {
			paths = append(paths, fc.Path)
		}
		f.Add(tc.msg, strings.Join(paths, "\n"), tc.merge, 3, 1)
	}
	f.Add("", "", false, 0, 0)
	f.Add("fix(:!: \x00\xff", "\n\n/", true, -5, 1<<40)
	f.Add("Revert \"", "a_test.go\x00", false, 1, 1)
	f.Fuzz(func(t *testing.T, msg, paths string, merge bool, ins, del int) {
		c := &model.Commit{Message: msg, IsMerge: merge}
		for i, p := range strings.Split(paths, "\n") {
			st := []model.ChangeStatus{model.Modified, model.Added, model.Deleted, model.Renamed, model.Copied}[i%5]
			c.Changes = append(c.Changes, model.FileChange{Path: p, OldPath: p + ".old", Status: st, Insertions: ins, Deletions: del,
				Hunks: []model.Hunk{{Text: msg}}})
		}
		cl := Classify(c)
		if m := checkClassification(cl); m != "" {
			t.Fatalf("%s: %+v", m, cl)
		}
		if !reflect.DeepEqual(cl, Classify(c)) {
			t.Fatal("not deterministic")
		}
		s := Summarize(c, cl)
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxSummaryRunes || s == "" {
			t.Fatalf("bad summary %q", s)
		}
	})
}

// benchCommit is a realistic mid-sized commit: a conventional subject, a
// body with a trailer, four files with hunks.
func benchCommit() *model.Commit {
	hunk := model.Hunk{OldStart: 10, OldLines: 6, NewStart: 10, NewLines: 9, Text: " func (w *walker) next() (*object, error) {\n-\tif w.done {\n+\tif w.done || w.err != nil {\n+\t\t// The walk stopped early; report why.\n \t\treturn nil, w.err\n \t}\n+\tw.count++\n"}
	return &model.Commit{
		Hash:    "0123456789abcdef0123456789abcdef01234567",
		Parents: []string{"1111111111111111111111111111111111111111"},
		Author:  model.Signature{Name: "Jane Doe", Email: "jane@example.org"},
		Message: "fix(extract): stop the walker after the first read error (#412)\n\n" +
			"The walker kept calling next() after a failed read, which made the\n" +
			"sync report a misleading \"object not found\" for every later commit.\n" +
			"Remember the first error and return it from then on.\n\n" +
			"Fixes #408\nSigned-off-by: Jane Doe <jane@example.org>",
		Changes: []model.FileChange{
			{Path: "extract/walk.go", Status: model.Modified, Insertions: 12, Deletions: 3, Hunks: []model.Hunk{hunk, hunk}},
			{Path: "extract/walk_test.go", Status: model.Modified, Insertions: 40, Deletions: 0, Hunks: []model.Hunk{hunk}},
			{Path: "extract/repo.go", Status: model.Modified, Insertions: 2, Deletions: 2, Hunks: []model.Hunk{hunk}},
			{Path: "README.md", Status: model.Modified, Insertions: 1, Deletions: 1},
		},
	}
}

func BenchmarkClassify(b *testing.B) {
	c := benchCommit()
	b.ReportAllocs()
	for b.Loop() {
		Classify(c)
	}
}

// TestClassifySecurityPrecision holds subjects from real histories that
// the security rules once labelled security (escaping, a file walker's
// traversal, a sanitizer build option, ANSI codes "injected" into
// output, bypassing a shell alias) beside real security fixes.
func TestClassifySecurityPrecision(t *testing.T) {
	security := func(msg string) bool {
		cl := Classify(clsCommit(clsCase{msg: msg, files: clsFiles("M src/main.c 10 4")}))
		if cl.Primary.Type == model.Security {
			return true
		}
		for _, l := range cl.Secondary {
			if l.Type == model.Security && l.Confidence >= 0.2 {
				return true
			}
		}
		return false
	}
	for msg, want := range map[string]bool{
		"Introduce escape time-out for better handling of escape sequences": false,
		"[vim] Escape % and # when running source command with :!":          false,
		"Remove unnecessary ANSI code injection":                            false,
		"Add --enable-ubsan (undefined behavior sanitizer)":                 false,
		"[zsh-completion] \"\\find\" to bypass alias":                       false,
		"Speed up directory traversal with a parallel walker":               false,
		"Fix overflow of long paths in the status line":                     false,
		"Fix heap buffer overflow in tokenadd() (fix #105)":                 true,
		"Prevent open redirect allow list bypass due to encodeurl":          true,
		"Fix use-after-free in args2obj() array argument path":              true,
		"examples: fix path traversal in downloads example":                 true,
		"Randomize hash seed to mitigate hash collision DoS attacks":        true,
	} {
		if got := security(msg); got != want {
			t.Errorf("%q: security %v, want %v", msg, got, want)
		}
	}
}
