#!/usr/bin/env bash
# Splits a heap profile's live bytes (inuse_space) by what holds them: the
# MiB allocated under each owner's functions (pprof -focus) that were still
# live when the profile was written. Take the profiles during a sync with
# GITMEMORY_HEAPPROFILE (each after a forced collection):
#
#   GITMEMORY_HOME=/tmp/h GITMEMORY_HEAPPROFILE=/tmp/heap GITMEMORY_HEAPPROFILE_EVERY=40s \
#     /tmp/gm sync git -q
#   bench/heap-owners.sh /tmp/gm /tmp/heap.4
#
# Owners overlap where one holds what another allocated (the object caches
# and the batches in flight share blob contents): a row says who allocated
# what is live, stderr lines of the sync say how the resident memory splits
# between the Go runtime and the rest (tree-sitter's C trees, mapped files).
set -euo pipefail
bin=$1 prof=$2
mib() { # focus [ignore]: the focused samples' total, the top cumulative entry
  local args=(-sample_index=inuse_space -top -cum -nodecount=1 -focus="$1")
  if [ -n "${2:-}" ]; then args+=(-ignore="$2"); fi
  go tool pprof "${args[@]}" "$bin" "$prof" 2>/dev/null | awk '/flat%/ { getline; v = $4
    if (v ~ /kB$/) { sub(/kB$/, "", v); v /= 1024 } else if (v ~ /GB$/) { sub(/GB$/, "", v); v *= 1024 } else sub(/MB$/, "", v)
    printf "%.1f", v; found = 1 } END { if (!found) printf "0" }'
}
total=$(go tool pprof -sample_index=inuse_space -top -nodecount=1 "$bin" "$prof" 2>/dev/null |
  awk '/^Showing nodes accounting/ { for (i = 1; i <= NF; i++) if ($i == "of") v = $(i + 1); sub(/MB$/, "", v); print v }')
row() { printf "| %s | %s |\n" "$1" "$(mib "$2" "${3:-}")"; }
echo "| owner | MiB live |"
echo "|---|---|"
row "object contents read from packs (offset and blob caches, sources in flight)" 'extract\.patchDelta$|extract\.\(\*packReader\)\.inflate$|extract\.readAll$'
row "decoded trees (tree cache)" 'extract\.parseTree$'
row "line diffs, hunks and commits of batches in flight" 'extract\.\(\*Repo\)\.Load$|extract\.\(\*Loaded\)\.FinishWith$|indexer\.understandCommit$' 'extract\.patchDelta$|extract\.parseTree$|extract\.\(\*packReader\)\.inflate$'
row "rows prepared for the writer (compressed diffs, keyword text)" 'store\.Prepare$' 'zstd\.\(\*fastBase\)\.ensureHist'
row "zstd encoders' windows" 'zstd\.\(\*fastBase\)\.ensureHist'
row "entity parsers (Go side; their trees are C memory)" 'understand/entity\.|go-tree-sitter' 'extract\.'
row "code relationships (facts, resolution state)" 'indexer\.readFacts$|indexer\.\(\*relater\)'
row "graph transaction (bolt's dirty nodes)" 'boltdb/bolt'
row "queue items of the round" 'queue\.\(\*Queue\)\.Dequeue$|indexer\.unseen$'
row "secret scanner" 'secrets\.|aho-corasick'
row "word vectors table" 'vectors\.parseWordVectors$'
row "SQLite (modernc)" 'modernc\.org/sqlite'
echo "| all live (profile) | $total |"
