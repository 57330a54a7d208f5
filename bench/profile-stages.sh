#!/usr/bin/env bash
# Splits a sync's CPU profile by pipeline stage: the cumulative CPU seconds
# under each stage's entry function (pprof -focus), and their share of all
# samples. The collector's background marking belongs to no stage; its
# assists are charged to the stage that allocated.
#
#   go build -o /tmp/gm ./cmd/gitmemory
#   GITMEMORY_HOME=/tmp/h /tmp/gm add /path/to/git.git --name git
#   GITMEMORY_HOME=/tmp/h GITMEMORY_CPUPROFILE=/tmp/sync.cpu /tmp/gm sync git -q
#   bench/profile-stages.sh /tmp/gm /tmp/sync.cpu
set -euo pipefail
bin=$1 prof=$2
total=$(go tool pprof -top -nodecount=1 "$bin" "$prof" 2>/dev/null | sed -n 's/.*Total samples = \([0-9.]*\)s.*/\1/p')
row() { # name focus [ignore]
  local args=(-top -cum -nodecount=1 -focus="$2")
  if [ -n "${3:-}" ]; then args+=(-ignore="$3"); fi
  local v
  v=$(go tool pprof "${args[@]}" "$bin" "$prof" 2>/dev/null | awk '/flat%/ { getline; v = $4
    if (v ~ /ms$/) { sub(/ms$/, "", v); v /= 1000 } else sub(/s$/, "", v); print v + 0 }')
  awk -v n="$1" -v v="${v:-0}" -v t="$total" 'BEGIN { printf "| %s | %.1f | %.1f %% |\n", n, v, 100 * v / t }'
}
echo "all samples: $total s"
echo "| stage | CPU s | share |"
echo "|---|---|---|"
row "extract: commits and tree diffs" 'extract\.\(\*Repo\)\.(diffTrees|tree|commit|commitObject|mergeOnly)$'
row "extract: rename and copy detection" 'extract\.\(\*Repo\)\.detectRenames'
row "extract: blob reads, language" 'extract\.\(\*Repo\)\.fileChange$'
row "extract: line diffs" 'extract\.\(\*Loaded\)\.FinishWith'
row "secret redaction" 'indexer\.\(\*Syncer\)\.redact$'
row "classification, summary, notes" 'indexer\.understandCommit'
row "entities (tree-sitter and the incremental diff)" 'indexer\.\(\*commitEntities\)\.file$'
row "of which in tree-sitter's C code" 'runtime\.cgocall$'
row "relationships: facts" 'indexer\.readFacts'
row "relationships: resolution" 'indexer\.\(\*relater\)\.commit$'
row "prepare rows (zstd, keyword text)" 'store\.Prepare$'
row "SQLite writes, without the keyword index" 'indexer\.\(\*Syncer\)\.write$' 'sqlite/lib\._fts5'
row "keyword index (SQLite FTS5)" 'sqlite/lib\._fts5'
row "graph (Cayley)" 'indexer\.\(\*Syncer\)\.graphStage$' 'vectors\.\(\*Index\)'
row "vectors (embedding, log)" 'vectors\.\(\*Index\)\.Upsert$'
row "discover and queue" 'indexer\.\(\*Syncer\)\.discover$'
row "after the queue (co-evolution, reconcile)" 'indexer\.\(\*Syncer\)\.(relate|reconcile|syncGraph|advance|prune|finish)$'
row "GC background marking" 'runtime\.gcBgMarkWorker'
row "of which GC assists, in the stages" 'runtime\.gcAssistAlloc$'
