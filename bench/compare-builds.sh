#!/usr/bin/env bash
# Compares gitmemory builds on one repository, back to back in one run: for
# each binary, a sync with extraction only, then a whole-pipeline sync, each
# into a fresh home. Prints wall and CPU seconds, their ratio and peak RSS.
#
#   go build -o /tmp/gm-old ./cmd/gitmemory   # at the older commit
#   go build -o /tmp/gm-new ./cmd/gitmemory
#   bench/compare-builds.sh /path/to/repo.git /tmp/gm-old /tmp/gm-new
set -euo pipefail
repo=$(cd "$1" && pwd)
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
measure() { # command...: sets wall, cpu (user+sys) and rss (KiB)
  /usr/bin/time -f "%e %M %U %S" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
  read -r wall rss usr sys <"$tmp/time"
  cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN { print u + s }')
}
cat "$repo"/objects/pack/*.pack >/dev/null 2>&1 || true
for bin in "$@"; do
  export GITMEMORY_HOME="$tmp/x"
  "$bin" add "$repo" --name bench >/dev/null
  GITMEMORY_BENCH_EXTRACT_ONLY=1 measure "$bin" sync bench --quiet
  xwall=$wall xcpu=$cpu
  rm -rf "$tmp/x"
  export GITMEMORY_HOME="$tmp/h"
  "$bin" add "$repo" --name bench >/dev/null
  measure "$bin" sync bench --quiet
  rm -rf "$tmp/h"
  awk -v b="$bin" -v x="$xwall" -v xc="$xcpu" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN {
    printf "%s: extraction only %.1fs (%.1fs CPU) | pipeline %.1fs (%.1fs CPU) | %.2fx | peak RSS %.0f MiB\n", b, x, xc, w, c, w / x, r / 1024 }'
done
